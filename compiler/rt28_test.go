// Red team pass 28: the front end's promise that "no file can exhaust
// memory or time" (README, Limits), on what evaluating a profile's
// expressions costs rather than on its size. Run:
// go test -count=1 ./compiler -run 'TestRT28' -v
//
// FINDING 4 (for expressions): the token limits bound the syntax tree, not
// the work of evaluating it. A for expression repeats its body per
// element, so nested ones multiply: a 907-byte profile, read = [for a in
// L: [for b in L: [for c in L: [for d in L: "/x"]]]] with L a list of 100
// numbers, evaluates 10^8 bodies (sbc compile killed after 20 s at 645 MB,
// growing); two levels over 2,000 elements took 6 s and 485 MB. Fixed:
// compiler/exprlimits.go estimates each for and splat expression's cost
// (its collection's cost, which bounds its length, times its body's)
// before anything is evaluated and refuses one over about a million, as
// "too-complex" at the expression.
//
// FINDING 5 (numbers): numbers are exact (512-bit mantissa, any exponent),
// and formatting one as decimal text is linear in its exponent, quadratic
// for tiny ones: description = "x${-1e-1000000}" took over 20 s (1e-100000
// took 4 s), max_depth = 1e100000000 or connect_tcp = [1e100000000] hung
// sbc while it wrote the error message, and a 3-million-digit output_cap
// took 26 s to parse. Products square exponents, so a chain of
// multiplications inside nested for expressions escapes any bound on
// literals. Fixed: a number (literal, or computed outside a repeated
// body) beyond 2^±2048 is an error at the number; multiplication and
// division inside a for or splat body are refused; a number literal over
// 1,024 characters makes the file too complex (checked with the other
// token limits).
//
// FINDING 6 (unknown anchors in deny rules): "A bare word that is not an
// anchor this sbc knows (xdg_cache) is a warning, not an error, so that old
// tools read new profiles" (README), and sbx refuses such a deny rule at
// run time. But sbc compile failed on deny = [path(xdg_config, "secrets")]
// (and a deny_glob on such an anchor) with "Error: Target landlock failed
// on profile": the Landlock planner, which "never fails for a valid
// profile", could not bind it. Fixed in targets/landlock/plan.go: the
// error wraps target.ErrUnsupported, so the artifact is written without a
// Landlock plan, with a warning, and sbx (which plans from the IR then)
// refuses it.
//
// Held: for expressions over small lists, %{for} templates, 512 * 1024,
// 1e300 * 1e300 and 1e-300 compile as before.
package compiler

import (
	"strings"
	"testing"
	"time"

	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/targets/landlock"
)

// rt28Compile compiles src with a deadline and returns its errors'
// codes, summaries and lines.
func rt28Compile(t *testing.T, src string, limit time.Duration) (string, bool) {
	t.Helper()
	type out struct {
		msg string
		ok  bool
	}
	done := make(chan out, 1)
	go func() {
		_, errs := rt27Errors(t, src)
		var b strings.Builder
		for _, d := range errs {
			line := 0
			if d.Range != nil {
				line = d.Range.Start.Line
			}
			b.WriteString(d.Code + ": " + d.Summary + " (line " + itoa(line) + ")\n")
		}
		done <- out{b.String(), len(errs) == 0}
	}()
	select {
	case o := <-done:
		return o.msg, o.ok
	case <-time.After(limit):
		t.Fatalf("compiling took over %v (the goroutine is left running)", limit)
		return "", false
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestRT28EvaluationBounded(t *testing.T) {
	list := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]" }
	l100, l2000 := list(100), list(2000)
	wrap := func(body string) string {
		return "profile \"p\" {\n  filesystem {\n    read = [root]\n  }\n" + body + "\n}\n"
	}
	cases := []struct {
		name, src string
		line      int // of the error; 0: compiles
	}{
		{"nested for", "profile \"p\" {\n  filesystem {\n    read = [for a in " + l100 + ": [for b in " + l100 + ": [for c in " + l100 + ": [for d in " + l100 + ": \"/x\"]]]]\n  }\n}\n", 3},
		{"two fors over 2000", "profile \"p\" {\n  filesystem {\n    read = [for a in " + l2000 + ": [for b in " + l2000 + ": \"/x\"]]\n  }\n}\n", 3},
		{"for in template", wrap("  description = \"%{for a in " + l2000 + "}%{for b in " + l2000 + "}x%{endfor}%{endfor}\""), 5},
		{"splat of a for", wrap("  description = \"${length([for a in " + l2000 + ": " + l2000 + "][*])}\""), 5},
		{"tiny number in a template", wrap("  description = \"x${-1e-1000000}\""), 5},
		{"huge max_depth", "profile \"p\" {\n  filesystem {\n    read = [root]\n    deny_glob = [{ pattern = \"*.pem\", max_depth = 1e100000000 }]\n  }\n}\n", 4},
		{"huge port", wrap("  network {\n    mode = \"ports\"\n    connect_tcp = [1e100000000]\n  }"), 7},
		{"huge output_cap", wrap("  process {\n    output_cap = 1e100000000\n  }"), 6},
		{"product chain", wrap("  description = \"x${1e300*1e300*1e300*1e300}\""), 5},
		{"product in a for", wrap("  description = \"${[for x in [1e300]: x*x*x][0]}\""), 5},
		{"sum in a for", wrap("  description = \"x${[for x in [\"1e-1000000\"]: x + 0][0]}\""), 5},
		{"string operand", wrap("  description = \"x${\"1e-1000000\" + 0}\""), 5},
		{"negated string", wrap("  description = \"x${-\"1e-1000000\"}\""), 5},
		{"string index", wrap("  description = \"x${[1, 2][\"1e100000000\"]}\""), 5},
		{"long string index", wrap("  description = \"x${[1, 2][\"" + strings.Repeat("1", 100_000) + "\"]}\""), 5},
		{"traversal index", wrap("  description = \"x${[for x in [1]: [1, 2]][0][\"1e100000000\"]}\""), 5},
		{"long number", wrap("  process {\n    output_cap = " + strings.Repeat("1", 3_000_000) + "\n  }"), 6},
		// Controls.
		{"small for", "profile \"p\" {\n  filesystem {\n    read = [for d in [\"usr\", \"etc\"]: path(root, d)]\n  }\n}\n", 0},
		{"template for", wrap("  description = \"%{for a in [1, 2, 3]}${a}%{endfor}\""), 0},
		{"arithmetic", wrap("  process {\n    output_cap = 512 * 1024\n  }"), 0},
		{"float64 range", wrap("  description = \"${1e300 * 1e300} ${1e-300} ${-5 % 3}\""), 0},

		{"index", wrap("  description = \"x${[\"a\", \"b\"][1]}${{k = \"v\"}[\"k\"]}${[1, 2][\"1\"]}\""), 0},
		{"for over strings", "profile \"p\" {\n  filesystem {\n    read = [for d in [\"usr\", \"etc\"]: \"/${d}\"]\n  }\n}\n", 0},
		{"product chain of ones", wrap("  description = \"x${1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1*1}\""), 0},
		{"long logical chain", wrap("  description = \"x${" + strings.Repeat("true && ", 900) + "true}\""), 0},
	}
	for _, c := range cases {
		msg, ok := rt28Compile(t, c.src, 3*time.Second)
		switch {
		case c.line == 0 && !ok:
			t.Errorf("%s: errors:\n%s", c.name, msg)
		case c.line != 0 && ok:
			t.Errorf("%s: compiles", c.name)
		case c.line != 0 && !strings.Contains(msg, "too-complex") || c.line != 0 && !strings.Contains(msg, "(line "+itoa(c.line)+")"):
			t.Errorf("%s: want a too-complex error on line %d, got:\n%s", c.name, c.line, msg)
		}
	}
}

func TestRT28UnknownAnchorDeny(t *testing.T) {
	for _, body := range []string{
		"    deny = [path(xdg_config, \"secrets\")]",
		"    deny_glob = [\"{xdg_config}/**/*.key\"]",
		"    write = [xdg_cache]\n    deny = [xdg_cache]",
	} {
		src := "profile \"p\" {\n  filesystem {\n    read = [root]\n" + body + "\n  }\n}\n"
		res, errs := rt27Errors(t, src)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", body, errs)
		}
		a, ds := Artifact(res.Profiles[0], []target.Target{landlock.Target{}})
		if ds.HasErrors() || a == nil {
			t.Errorf("%s: the artifact is refused: %v", body, ds)
			continue
		}
		warned := false
		for _, d := range ds {
			warned = warned || d.Severity == diag.Warning && d.Code == "target-landlock" && strings.Contains(d.Summary, "cannot enforce")
		}
		if _, ok := a.Targets[landlock.TargetName]; ok || !warned {
			t.Errorf("%s: want the artifact without a Landlock plan, with a warning; plan stored %v, diagnostics %v", body, ok, ds)
		}
	}
	// Control: an allow rule on an unknown anchor is dropped by the plan,
	// which is still stored.
	res, _ := rt27Errors(t, "profile \"p\" {\n  filesystem {\n    read = [root, xdg_cache]\n  }\n}\n")
	a, ds := Artifact(res.Profiles[0], []target.Target{landlock.Target{}})
	if a == nil || ds.HasErrors() {
		t.Fatalf("allow rule: %v", ds)
	}
	if _, ok := a.Targets[landlock.TargetName]; !ok {
		t.Errorf("allow rule: no Landlock plan stored")
	}
}

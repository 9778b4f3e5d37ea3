package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// irSeeds adds the IR goldens (testdata/golden) to f, and the IR of every
// built-in artifact.
func irSeeds(f *testing.F) {
	f.Helper()
	goldens, _ := filepath.Glob("../testdata/golden/*/*.json")
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, a := range artifactFiles(f) {
		var art struct {
			IR json.RawMessage `json:"ir"`
		}
		if err := json.Unmarshal(a, &art); err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(art.IR))
	}
}

// artifactFiles returns the built-in artifacts' bytes.
func artifactFiles(f *testing.F) [][]byte {
	f.Helper()
	files, _ := filepath.Glob("../builtin/artifacts/*.json")
	if len(files) == 0 {
		f.Fatal("no built-in artifacts found")
	}
	var out [][]byte
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// FuzzDecode feeds arbitrary bytes to Decode, the IR decoder sbx runs on
// every artifact (whose IR anyone can edit and re-digest: a digest is not
// a signature). Whatever Decode accepts must be a valid profile whose
// canonical encoding decodes again to the same canonical encoding (the
// digest sbc writes is then stable), and wraps into an artifact that
// DecodeArtifact accepts with the same IR.
//
//	go test ./ir -run '^$' -fuzz '^FuzzDecode$' -fuzztime 100000x
func FuzzDecode(f *testing.F) {
	irSeeds(f)
	// Well-formed documents that Validate refuses: an unclean path, an
	// anchor holding a slash, a pattern in a rule, ports outside their
	// mode, an empty name.
	const doc = `{"format":"sbx.ir/v1","profile":{"name":%q,"filesystem":{"rules":[{"path":{"anchor":%q,"rel":%q},"access":"write","source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}}]},"network":{"mode":%q,"connect_tcp":[{"from":1,"to":2,"source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}}],"source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}},"process":{"env":{},"source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}},"source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}}}`
	for _, c := range [][4]string{
		{"p", "cwd", "a", "ports"},
		{"p", "cwd", "a/../b", "ports"},
		{"p", "c/d", "a", "ports"},
		{"p", "cwd", "*.pem", "ports"},
		{"p", "cwd", "a", "none"},
		{"", "cwd", "a", "ports"},
	} {
		f.Add([]byte(fmt.Sprintf(doc, c[0], c[1], c[2], c[3])))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data)
		if err != nil {
			if p != nil {
				t.Fatal("Decode returned a profile with an error")
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid profile: %v", err)
		}
		enc1, d1, err := Encode(p)
		if err != nil {
			t.Fatalf("a decoded profile does not encode: %v", err)
		}
		p2, err := Decode(enc1)
		if err != nil {
			t.Fatalf("the canonical encoding of a decoded profile does not decode: %v\n%s", err, enc1)
		}
		enc2, d2, err := Encode(p2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc1, enc2) || d1 != d2 {
			t.Fatalf("decode→encode→decode→encode is not stable:\n%s\n%s", enc1, enc2)
		}
		a, err := NewArtifact(p2, "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		file, err := a.Encode()
		if err != nil {
			t.Fatal(err)
		}
		a2, p3, err := DecodeArtifact(file)
		if err != nil {
			t.Fatalf("an artifact of a decoded profile does not decode: %v", err)
		}
		enc3, _, _ := Encode(p3)
		if !bytes.Equal(a2.IR, enc1) || !bytes.Equal(enc3, enc1) {
			t.Fatalf("the artifact's IR changed:\n%s\n%s", enc1, a2.IR)
		}
	})
}

// FuzzDecodeArtifact feeds arbitrary bytes to DecodeArtifact, and the same
// bytes with their digests recomputed (so that the fuzzer reaches the IR
// and target checks behind them). An accepted artifact verifies (its
// digests match its compact IR and target data), holds a valid profile,
// and survives Encode→DecodeArtifact unchanged, byte for byte from the
// second encoding on. A re-digested artifact is accepted exactly when its
// format is this version's and its IR decodes on its own (Decode): the
// digest checks refuse nothing else.
//
//	go test ./ir -run '^$' -fuzz '^FuzzDecodeArtifact$' -fuzztime 100000x
func FuzzDecodeArtifact(f *testing.F) {
	for _, a := range artifactFiles(f) {
		f.Add(a)
		// Tampered: a target's data, and the IR, changed after their
		// digests were written.
		f.Add(bytes.Replace(a, []byte(`"min_abi": 6`), []byte(`"min_abi": 1`), 1))
		f.Add(bytes.Replace(a, []byte(`"access": "read"`), []byte(`"access": "write"`), 1))
	}
	f.Add([]byte(`{"format":"sbx.artifact/v1","compiler":"x","ir_digest":"","ir":{"format":"sbx.ir/v1","profile":{"name":"p","filesystem":{},"network":{"mode":"none","source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}},"process":{"env":{},"source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}},"source":{"filename":"","start":{"line":0,"column":0,"byte":0},"end":{"line":0,"column":0,"byte":0}}}},"targets":{"t":{"format":"f","digest":"","data":[1, 2]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkArtifact(t, data)
		// The same artifact, re-digested.
		var a Artifact
		if json.Unmarshal(data, &a) != nil || len(a.IR) == 0 {
			return
		}
		var c bytes.Buffer
		if json.Compact(&c, a.IR) != nil {
			return
		}
		a.Digest = Digest(c.Bytes())
		for name, tg := range a.Targets {
			var tc bytes.Buffer
			if json.Compact(&tc, tg.Data) != nil {
				return
			}
			tg.Digest = Digest(tc.Bytes())
			a.Targets[name] = tg
		}
		fixed, err := a.Encode()
		if err != nil {
			return
		}
		_, derr := Decode(c.Bytes())
		want := a.Format == ArtifactFormat && derr == nil
		ok := checkArtifact(t, fixed)
		if ok != want {
			_, _, err := DecodeArtifact(fixed)
			t.Fatalf("re-digested artifact: accepted %v, want %v (format %q, IR decode: %v): %v\n%s", ok, want, a.Format, derr, err, fixed)
		}
	})
}

// checkArtifact runs DecodeArtifact on data and checks what it accepts.
func checkArtifact(t *testing.T, data []byte) bool {
	t.Helper()
	a, p, err := DecodeArtifact(data)
	if err != nil {
		if a != nil || p != nil {
			t.Fatal("DecodeArtifact returned values with an error")
		}
		return false
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("DecodeArtifact accepted an invalid profile: %v", err)
	}
	if Digest(a.IR) != a.Digest {
		t.Fatalf("accepted IR does not hash to its digest")
	}
	for name, tg := range a.Targets {
		if Digest(tg.Data) != tg.Digest {
			t.Fatalf("accepted target %q does not hash to its digest", name)
		}
	}
	enc, err := a.Encode()
	if err != nil {
		t.Fatalf("an accepted artifact does not encode: %v", err)
	}
	a2, p2, err := DecodeArtifact(enc)
	if err != nil {
		t.Fatalf("an accepted artifact, encoded again, does not decode: %v\n%s", err, enc)
	}
	if !bytes.Equal(a.IR, a2.IR) || a.Digest != a2.Digest || a.Format != a2.Format || a.Compiler != a2.Compiler || len(a.Targets) != len(a2.Targets) {
		t.Fatalf("artifact changed through Encode→DecodeArtifact:\n%s", enc)
	}
	for name, tg := range a.Targets {
		if tg2, ok := a2.Targets[name]; !ok || !bytes.Equal(tg.Data, tg2.Data) || tg.Format != tg2.Format {
			t.Fatalf("target %q changed through Encode→DecodeArtifact", name)
		}
	}
	e1, _, _ := Encode(p)
	e2, _, _ := Encode(p2)
	if !bytes.Equal(e1, e2) {
		t.Fatalf("profile changed through Encode→DecodeArtifact")
	}
	enc2, err := a2.Encode()
	if err != nil || !bytes.Equal(enc, enc2) {
		t.Fatalf("Encode is not stable after one decode:\n%s\n%s", enc, enc2)
	}
	return true
}

// FuzzBind binds a profile built from fuzzed paths, names and patterns
// with fuzzed anchor bindings. It checks that Bind never panics and, when
// the bindings are what sbx builds (absolute and clean: DefaultBindings,
// ParseBindings), that every bound path and pattern is absolute and clean
// and lies inside its anchor's binding (no ".." escapes it), and that
// Bound.Access agrees with a reference that walks the queried path's
// ancestors (the README's semantics: the most specific rule wins, deny
// beats write beats read at equal specificity, no rule denies, a deny
// glob matching the path or an ancestor denies).
//
//	go test ./ir -run '^$' -fuzz '^FuzzBind$' -fuzztime 100000x
func FuzzBind(f *testing.F) {
	f.Add("/work/proj", "/home/u", "/tmp", "{cwd}/vendor", byte(1), ".git", "**/*.pem", "/work/proj/vendor/x")
	f.Add("/", "/", "/", "/", byte(2), "x", "{home}/**/id_*", "/x/id_rsa")
	f.Add("/w", "/w/h", "/w/h/t", "{home}/.ssh", byte(0), ".agents", "{tmpdir}/*", "/w/h/.ssh/k")
	f.Add("rel", "/h/../x", "//t//", "{cwd}/a", byte(1), "..", "{cwd}", "/x")
	f.Add("/w", "/h", "/t", "{xdg}/a", byte(0), "n", "{nope}/x", "/w")
	// Ties at equal specificity: deny and write on the workspace, write
	// and read (a protected name made writable again).
	f.Add("/w", "/h", "/t", "{cwd}", byte(0), ".git", "/nothing", "/w/x")
	f.Add("/w", "/h", "/t", "{cwd}/.git", byte(2), ".git", "/nothing", "/w/.git/config")
	f.Add("/w", "/h", "/w", "{home}/.ssh", byte(2), ".git", "{cwd}/*.key", "/h/.ssh/id")
	f.Fuzz(func(t *testing.T, cwd, home, tmp, rulePath string, acc byte, protect, glob, query string) {
		b := Bindings{AnchorCwd: {cwd}, AnchorHome: {home}, AnchorTmpdir: {tmp}, AnchorSlashTmp: {"/tmp"}, AnchorPlatform: {"/usr", "/etc"}}
		p := &Profile{Name: "fuzz", Network: Network{Mode: NetworkNone}}
		p.Filesystem.Rules = []PathRule{
			{Path: Path{Anchor: AnchorRoot}, Access: Read},
			{Path: Path{Anchor: AnchorCwd}, Access: Write},
			{Path: Path{Anchor: AnchorTmpdir}, Access: Write},
			{Path: Path{Anchor: AnchorHome, Rel: ".ssh"}, Access: Deny, Source: Range{Start: Pos{Byte: 1}}},
		}
		if rp, err := ParsePath(rulePath); err == nil {
			p.Filesystem.Rules = append(p.Filesystem.Rules, PathRule{Path: rp, Access: Access(acc % 3), Source: Range{Start: Pos{Byte: 2}}})
		}
		p.Filesystem.Protect = []ProtectRule{{Name: protect}}
		p.Filesystem.DenyGlobs = []GlobRule{{Pattern: glob, MaxDepth: 8}}
		if p.Validate() != nil {
			// What Decode refuses never reaches Bind.
			p.Filesystem.Protect, p.Filesystem.DenyGlobs = nil, nil
			p.Filesystem.Rules = p.Filesystem.Rules[:4]
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		bd, err := p.Bind(b)
		clean := func(s string) bool { return strings.HasPrefix(s, "/") && path.Clean(s) == s }
		if !clean(cwd) || !clean(home) || !clean(tmp) {
			return // outside Bind's contract: only no panic
		}
		if err != nil {
			// Only an unbound anchor in a deny rule or glob refuses.
			if !errors.Is(err, ErrUnbound) && !strings.Contains(err.Error(), "unterminated anchor") {
				t.Fatalf("Bind: %v", err)
			}
			return
		}
		for _, r := range bd.Rules {
			if !clean(r.Path) {
				t.Fatalf("bound rule %s: path not absolute and clean", r.Path)
			}
			roots := b[r.Symbolic.Anchor]
			if r.Symbolic.Anchor == AnchorRoot {
				roots = []string{"/"}
			}
			inside := false
			for _, root := range roots {
				inside = inside || (r.Path == JoinAbs(root, r.Symbolic.Rel) && PathWithin(r.Path, root))
			}
			if !inside {
				t.Fatalf("bound rule %s (from %s) is not its symbolic path below a binding of %q (%v)", r.Path, r.Symbolic, r.Symbolic.Anchor, roots)
			}
		}
		for _, g := range bd.DenyGlobs {
			if !strings.HasPrefix(g.Pattern, "/") {
				t.Fatalf("bound glob %q is not absolute", g.Pattern)
			}
		}
		// Protected names are read-only directly below writable roots:
		// one that is not writable (denied at equal specificity) gets no
		// protect rule that reopens its content.
		for _, r := range bd.Rules {
			if r.Origin != OriginProtect {
				continue
			}
			if acc, rule, _ := bd.Access(r.Path); acc == Read && rule != nil && rule.Origin == OriginProtect {
				if parent, _, _ := bd.Access(path.Dir(r.Path)); parent != Write {
					t.Fatalf("protected %s is readable below %s, which is %s", r.Path, path.Dir(r.Path), parent)
				}
			}
		}
		q := path.Clean("/" + query)
		got, _, _ := bd.Access(q)
		if want := refAccess(bd, q); got != want {
			t.Fatalf("Access(%q) = %s, reference %s\nrules %+v\nglobs %+v", q, got, want, bd.Rules, bd.DenyGlobs)
		}
	})
}

// refAccess is the README's semantics, computed by walking abs's ancestors
// from the path itself up: the first one that has rules decides (the most
// specific), the strongest access there wins (deny, write, read).
func refAccess(bd *Bound, abs string) Access {
	for p := abs; ; p = path.Dir(p) {
		for _, g := range bd.DenyGlobs {
			if MatchGlob(g.Pattern, p) {
				return Deny
			}
		}
		if p == "/" {
			break
		}
	}
	for p := abs; ; p = path.Dir(p) {
		found := false
		var acc Access
		for _, r := range bd.Rules {
			if r.Path != p {
				continue
			}
			switch {
			case !found, r.Access == Deny, r.Access == Write && acc == Read:
				acc = r.Access
			}
			found = true
		}
		if found {
			return acc
		}
		if p == "/" {
			return Deny
		}
	}
}

// FuzzMatchGlob checks MatchGlob against a reference that translates the
// pattern into a regular expression following the documented syntax (`*`
// within one name, `**` any number of whole directories, `?` one
// character, `[...]` a class, `\` escaping), for every pattern the IR
// accepts (validGlob) and any clean absolute path.
//
//	go test ./ir -run '^$' -fuzz '^FuzzMatchGlob$' -fuzztime 200000x
func FuzzMatchGlob(f *testing.F) {
	for _, s := range [][2]string{
		{"/**/*.pem", "/a/b/key.pem"},
		{"/home/u/**/id_*", "/home/u/.ssh/id_rsa"},
		{"/ws/[ab]/secret", "/ws/a/secret"},
		{"/ws/[^ab]/secret", "/ws/c/secret"},
		{"/ws/[a-c]?x/**", "/ws/bzx"},
		{"/**/**/x", "/x"},
		{"/a/\\*", "/a/*"},
		{"/é/[é-ü]", "/é/ö"},
		{"/**", "/"},
		{"/", "/"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		// Patterns come from JSON: valid UTF-8. (A literal U+FFFD would
		// match an invalid byte in the reference, not in path.Match.)
		if !strings.HasPrefix(pattern, "/") || validGlob(pattern) != nil || !utf8.ValidString(pattern) || strings.ContainsRune(pattern, utf8.RuneError) {
			return
		}
		name = path.Clean("/" + name)
		re, ok := globRegexp(pattern)
		if !ok {
			t.Fatalf("validGlob accepts %q, the reference cannot parse it", pattern)
		}
		subject := name
		if name == "/" {
			subject = ""
		}
		want := re.MatchString(subject)
		if got := MatchGlob(pattern, name); got != want {
			t.Fatalf("MatchGlob(%q, %q) = %v, reference (%s) %v", pattern, name, got, re, want)
		}
		// The compiled form, stepped name by name, answers the same for
		// the path and each of its prefixes, and a prefix it declares dead
		// has no matching extension.
		g, ok := CompileGlob(pattern)
		if !ok {
			return
		}
		s, prefix, dead := g.Root(), "/", false
		for _, n := range splitAbs(name) {
			s = g.Step(s, n)
			prefix = JoinAbs(prefix, n)
			if got, want := g.Match(s), MatchGlob(pattern, prefix); got != want {
				t.Fatalf("Glob(%q) at %q: Match = %v, MatchGlob %v", pattern, prefix, got, want)
			}
			dead = dead || s == 0
		}
		if got := g.Match(g.State(name)); got != want {
			t.Fatalf("Glob(%q).State(%q) matches = %v, reference %v", pattern, name, got, want)
		}
		if dead && want {
			t.Fatalf("Glob(%q): a prefix of %q was dead, yet it matches", pattern, name)
		}
	})
}

// globRegexp translates an absolute glob into an anchored regular
// expression over "/a/b/c" ("" for the root).
func globRegexp(pattern string) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString("^")
	for _, c := range strings.Split(strings.TrimPrefix(pattern, "/"), "/") {
		if c == "" && pattern == "/" {
			break
		}
		if c == "**" {
			b.WriteString("(?:/[^/]+)*")
			continue
		}
		b.WriteString("/")
		rs := []rune(c)
		for i := 0; i < len(rs); i++ {
			switch r := rs[i]; r {
			case '*':
				b.WriteString("[^/]*")
			case '?':
				b.WriteString("[^/]")
			case '\\':
				if i++; i >= len(rs) {
					return nil, false
				}
				b.WriteString(regexp.QuoteMeta(string(rs[i])))
			case '[':
				i++
				neg := i < len(rs) && rs[i] == '^'
				if neg {
					i++
				}
				// Items as regexp class items; a range whose ends are
				// reversed matches nothing in path.Match (and is an error in
				// a regexp): it adds no item.
				var items []string
				for n := 0; ; n++ {
					if i >= len(rs) {
						return nil, false
					}
					if rs[i] == ']' && n > 0 {
						break
					}
					lo, ok := classChar(rs, &i)
					if !ok {
						return nil, false
					}
					hi := lo
					if i < len(rs) && rs[i] == '-' {
						i++
						if hi, ok = classChar(rs, &i); !ok {
							return nil, false
						}
					}
					if lo <= hi {
						items = append(items, fmt.Sprintf(`\x{%X}-\x{%X}`, lo, hi))
					}
				}
				switch {
				case len(items) == 0 && neg:
					b.WriteString("[^/]")
				case len(items) == 0:
					b.WriteString(`[^\x00-\x{10FFFF}]`)
				case neg:
					b.WriteString("[^/" + strings.Join(items, "") + "]")
				default:
					b.WriteString("[" + strings.Join(items, "") + "]")
				}
			default:
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// classChar reads one character of a class (escaped or not) at rs[*i].
func classChar(rs []rune, i *int) (rune, bool) {
	if *i >= len(rs) || rs[*i] == '-' || rs[*i] == ']' {
		return 0, false
	}
	if rs[*i] == '\\' {
		*i++
		if *i >= len(rs) {
			return 0, false
		}
	}
	r := rs[*i]
	*i++
	return r, true
}

package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// update rewrites golden files: the built-in artifacts (see
// builtin_test.go) and the expected output in testscript scripts.
var update = flag.Bool("update", false, "rewrite golden files and builtin artifacts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"sbc": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts testdata/script/sbc_*.txtar. In them,
// $TESTDATA is the repository's testdata directory, so scripts can copy the
// example profiles and bad fixtures instead of duplicating them.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "script", "sbc_*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts found: %v", err)
	}
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTDATA", testdata)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": exits,
		},
	})
}

// exits runs a command and checks its exit code: `exits 2 sbc compile x`.
// (exec and ! exec tell only success from failure, and sbc's codes 1 and 2
// mean different things.) Its output is checked with stdout and stderr as
// after exec.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

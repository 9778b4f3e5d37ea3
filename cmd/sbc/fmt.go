package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

const fmtUsage = `Usage: sbc fmt [-check] [-diff] [--format text|json] FILE|DIR|- ...

Rewrite profile files in the canonical HCL layout (aligned equals signs,
two-space indentation, normalised spacing). A DIR is searched recursively
for *.hcl files, skipping hidden directories. "-" formats standard input
to standard output.

Files are rewritten in place, atomically, and their names printed. Files
with syntax errors are reported and left alone.

  -check   rewrite nothing; list the files that are not formatted and exit 1
           if there are any (for CI)
  -diff    print the changes as a unified diff

Examples:
  sbc fmt dev.hcl
  sbc fmt -check -diff profiles/
  sbc fmt - < dev.hcl

Exit status: 0 formatted (or, with -check, nothing to format); 1 syntax
errors, or with -check files to format; 2 usage or I/O error.
`

func fmtCommand() *command {
	return &command{
		name:    "fmt",
		summary: "Rewrite profile files in canonical format",
		usage:   fmtUsage,
		setup: func(e *env, fs *flag.FlagSet) func([]string) int {
			check := fs.Bool("check", false, "list files that need formatting and exit 1 if any; change nothing")
			showDiff := fs.Bool("diff", false, "print a unified diff of the changes")
			format := formatFlag(fs)
			return func(args []string) int {
				if !checkFormat(e, "fmt", *format) {
					return exitUsage
				}
				if len(args) == 0 {
					return usageError(e, "fmt", "no input: name files or directories, or - for standard input")
				}
				return runFmt(e, args, *check, *showDiff, *format)
			}
		},
	}
}

func runFmt(e *env, args []string, check, showDiff bool, format string) int {
	var ds diag.Diagnostics
	srcs := diag.NewSources()
	unformatted := false
	for _, arg := range args {
		if arg == "-" {
			src, err := io.ReadAll(io.LimitReader(e.stdin, compiler.MaxFileSize+1))
			if err != nil {
				ds = ds.Errorf(diag.CodeIO, nil, "Cannot read standard input", "%v", err)
				continue
			}
			out, more := compiler.Format("<stdin>", src)
			srcs.Add("<stdin>", src)
			ds = append(ds, more...)
			if out == nil {
				continue
			}
			changed := !bytes.Equal(src, out)
			unformatted = unformatted || changed
			switch {
			case showDiff:
				e.stdout.Write(diff.Diff("<stdin>", src, "<stdin> (formatted)", out))
			case check:
				if changed {
					fmt.Fprintln(e.stdout, "<stdin>")
				}
			default:
				e.stdout.Write(out)
			}
			continue
		}
		files, err := hclFiles(arg)
		if err != nil {
			ds = ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Cannot read %s", arg), "%v", err)
			continue
		}
		for _, f := range files {
			src, d := compiler.ReadFile(f)
			if d != nil {
				ds = append(ds, *d)
				continue
			}
			srcs.Add(f, src)
			out, more := compiler.Format(f, src)
			ds = append(ds, more...)
			if out == nil || bytes.Equal(src, out) {
				continue
			}
			unformatted = true
			if !check {
				// Listed only once changed: a name on standard output
				// says the file was rewritten.
				if err := writeAtomic(f, out); err != nil {
					ds = ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Cannot write %s", f), "%v", err)
					continue
				}
			}
			// Red team 28: a file name is anyone's to choose (a pull
			// request can add "a\x1b]0;t\x07\nFAIL - x.hcl" to a walked
			// directory): listed raw, its escape sequence reached the
			// terminal and its newline forged a line of the CI log. Its
			// control characters are shown as U+FFFD, as sbc check shows
			// names.
			name := ir.Printable(f)
			if showDiff {
				e.stdout.Write(diff.Diff(name, src, name+" (formatted)", out))
			} else {
				fmt.Fprintln(e.stdout, name)
			}
		}
	}
	if len(ds) > 0 || format == "json" {
		e.report(ds, srcs, format)
	}
	if code := exitCode(ds); code != exitOK {
		return code
	}
	if check && unformatted {
		return exitInvalid
	}
	return exitOK
}

// hclFiles expands a command-line argument: a file as itself, a directory
// into the *.hcl files below it (hidden directories skipped), sorted.
func hclFiles(arg string) ([]string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{arg}, nil
	}
	var files []string
	err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != arg && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".hcl") {
			// Only regular files (or links to them): a FIFO named x.hcl
			// would block the read forever.
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				files = append(files, p)
			}
		}
		return nil
	})
	return files, err
}

// Package compiler is the HCL front end of sbc: it parses profile files,
// resolves `extends` against other profiles and the built-ins, and produces
// one ir.Profile per declared profile, with diagnostics that point at the
// author's source.
//
// The language is documented in the repository README ("Writing profiles"). In
// short: a file holds `profile "NAME" { ... }` blocks with filesystem,
// network and process blocks; paths are absolute, start with "~", or name an
// anchor (root, cwd, home, tmpdir, slash_tmp, platform_defaults) that stays
// symbolic in the IR.
package compiler

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/hashicorp/hcl/v2"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/ir"
)

// Version identifies this compiler in artifacts. It is a constant, never
// build or VCS information, so that compiling the same profile twice gives
// byte-identical artifacts.
const Version = "sbc 0.1.0"

// MaxFileSize bounds the size of one profile file. Larger files are refused
// before parsing, so memory use stays bounded whatever is passed in.
const MaxFileSize = 4 << 20

// DefaultGlobDepth is the scan depth of a deny_glob that does not set
// max_depth: how many directories deep targets that expand globs by walking
// the readable roots look. MaxGlobDepth is the largest accepted.
const (
	DefaultGlobDepth = 8
	MaxGlobDepth     = ir.MaxGlobDepth
)

// maxErrorsPerFile caps the errors reported for one file, so that a binary
// or badly broken file yields a readable report rather than thousands of
// lines.
const maxErrorsPerFile = 50

// Source is one input file: its name (used in diagnostics and in the IR's
// source ranges) and its contents.
type Source struct {
	Name string
	Data []byte
}

// Result holds the compiled profiles and the sources they came from.
type Result struct {
	// Profiles are the profiles declared in the inputs that compiled
	// without errors, in input order: file order, then declaration order.
	// Built-in profiles appear only through CompileBuiltin.
	Profiles []*ir.Profile
	// Sources holds every file read, including built-in sources that were
	// loaded for extends, for rendering diagnostics.
	Sources *diag.Sources
}

// Profile returns the compiled profile called name, or nil.
func (r *Result) Profile(name string) *ir.Profile {
	for _, p := range r.Profiles {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Names returns the names of the compiled profiles in order.
func (r *Result) Names() []string {
	names := make([]string, 0, len(r.Profiles))
	for _, p := range r.Profiles {
		names = append(names, p.Name)
	}
	return names
}

// CompileFiles reads and compiles the profile files at paths together:
// profiles in any of them may extend each other and the built-ins. A file
// that cannot be read is reported with code diag.CodeIO. The result is never
// nil; its profiles are those that compiled without error.
func CompileFiles(paths []string) (*Result, diag.Diagnostics) {
	return CompileInputs(paths, nil)
}

// StdinName is the source name of a profile read from standard input.
const StdinName = "<stdin>"

// CompileInputs is CompileFiles where the path "-" names stdin, read once
// (a second "-" adds nothing) and named StdinName in diagnostics; with a
// nil stdin "-" is a file of that name.
func CompileInputs(paths []string, stdin io.Reader) (*Result, diag.Diagnostics) {
	var ds diag.Diagnostics
	srcs := make([]Source, 0, len(paths))
	seen := map[string]bool{}
	bySize := map[int64][]fs.FileInfo{} // regular files read, for os.SameFile
	stdinRead := false
	for _, p := range paths {
		if p == "-" && stdin != nil {
			if stdinRead {
				continue
			}
			stdinRead = true
			data, err := io.ReadAll(io.LimitReader(stdin, MaxFileSize+1))
			switch {
			case err != nil:
				ds = append(ds, *ioDiag(StdinName, err))
			case len(data) > MaxFileSize:
				ds = append(ds, *tooLarge(StdinName))
			default:
				srcs = append(srcs, Source{Name: StdinName, Data: data})
			}
			continue
		}
		// The same file named twice (profiles/*.hcl profiles/dev.hcl, or
		// ./dev.hcl and $PWD/dev.hcl) is read once rather than reported
		// as duplicate profiles: under its first spelling.
		key := filepath.Clean(p)
		if abs, err := filepath.Abs(p); err == nil {
			key = abs
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		// Red team 27: so is one file under another name, through a
		// symbolic or hard link (profiles/default.hcl -> dev.hcl, which
		// sbc check profiles/ finds beside its target): it was refused as
		// "Duplicate profile", pointing at itself.
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			if slices.ContainsFunc(bySize[st.Size()], func(o fs.FileInfo) bool { return os.SameFile(o, st) }) {
				continue
			}
			bySize[st.Size()] = append(bySize[st.Size()], st)
		}
		data, d := ReadFile(p)
		if d != nil {
			ds = append(ds, *d)
			continue
		}
		srcs = append(srcs, Source{Name: p, Data: data})
	}
	res, more := CompileSources(srcs)
	return res, append(ds, more...)
}

// ReadFile reads a profile file, refusing files larger than MaxFileSize
// without reading them whole. The diagnostic is nil on success.
func ReadFile(path string) ([]byte, *diag.Diagnostic) {
	// Non-blocking: a FIFO with no writer then opens at once and reads as
	// empty instead of hanging sbc, while a pipe that has one
	// (sbc compile <(gen)) is read through the runtime's poller as usual;
	// regular files ignore the flag, and the read below is bounded.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, ioDiag(path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, ioDiag(path, fmt.Errorf("%s is a directory", path))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, ioDiag(path, err)
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge(path)
	}
	return data, nil
}

func ioDiag(path string, err error) *diag.Diagnostic {
	summary := "Cannot read file"
	if errors.Is(err, fs.ErrNotExist) {
		summary = "File not found"
	}
	return &diag.Diagnostic{Severity: diag.Error, Code: diag.CodeIO, Summary: summary, Detail: err.Error()}
}

func tooLarge(name string) *diag.Diagnostic {
	return &diag.Diagnostic{
		Severity: diag.Error, Code: "file-too-large",
		Summary: "File too large",
		Detail:  fmt.Sprintf("%s is larger than %d bytes (4 MiB), the limit for a profile file. Is it the right file?", name, MaxFileSize),
		Range:   &ir.Range{Filename: name, Start: ir.Pos{Line: 1, Column: 1}, End: ir.Pos{Line: 1, Column: 1}},
	}
}

// CompileSources compiles the given sources together, like CompileFiles.
func CompileSources(srcs []Source) (*Result, diag.Diagnostics) {
	c := newCompilation()
	for _, s := range srcs {
		c.addFile(s.Name, s.Data)
	}
	for _, d := range c.user {
		c.emit(d)
	}
	return c.result()
}

// CompileBuiltin compiles the built-in profile called name from its embedded
// source. The result has exactly that profile.
func CompileBuiltin(name string) (*Result, diag.Diagnostics) {
	c := newCompilation()
	d := c.builtinDecl(name)
	if d == nil {
		c.ds = c.ds.Errorf("unknown-profile", nil, fmt.Sprintf("Unknown built-in profile %q", name),
			"The built-in profiles are: %s.", quoteList(builtin.Names()))
	} else {
		c.emit(d)
	}
	return c.result()
}

// Artifact builds the artifact for p with the outputs of targets, as `sbc
// compile` writes it.
func Artifact(p *ir.Profile, targets []target.Target) (*ir.Artifact, diag.Diagnostics) {
	return target.Build(p, Version, targets)
}

func (c *compilation) result() (*Result, diag.Diagnostics) {
	ds := c.ds
	for _, f := range c.fileOrder {
		if n := c.dropped[f]; n > 0 {
			ds = ds.Errorf("too-many-errors", nil, fmt.Sprintf("%d more errors in %s not shown", n, f),
				"sbc shows at most %d errors per file.", maxErrorsPerFile)
		}
	}
	return &Result{Profiles: c.out, Sources: c.srcs}, ds
}

// rng converts an HCL range.
func rng(r hcl.Range) ir.Range {
	return ir.Range{
		Filename: r.Filename,
		Start:    ir.Pos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:      ir.Pos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
	}
}

// rp converts an HCL range to a pointer for a diagnostic.
// where is r as "FILE:LINE:COLUMN" for a diagnostic's detail, the file
// name's control characters shown as U+FFFD. Red team 28: a detail keeps
// its line breaks when rendered, so a file name with a newline (a pull
// request can add one to a directory sbc walks) forged a line of the
// report in "already declared at ...".
func where(r hcl.Range) string { return ir.Printable(rng(r).String()) }

func rp(r hcl.Range) *ir.Range {
	x := rng(r)
	return &x
}

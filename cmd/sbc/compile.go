package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sbx-dev/sbx/builtin"
	"github.com/sbx-dev/sbx/compiler"
	"github.com/sbx-dev/sbx/compiler/diag"
	"github.com/sbx-dev/sbx/ir"
)

const compileUsage = `Usage: sbc compile [-p NAME] [-o PATH|DIR|-] [--format text|json] [FILE...]

Compile profiles into artifacts: the canonical IR of one profile, its
SHA-256 digest, and the output of every target compiler. sbx runs
artifacts; it never reads HCL.

All FILEs are compiled together: a profile may extend any profile in them
and any built-in profile. Every profile in them must be valid, even those
not selected.

Which profiles are written:
  -p NAME      that profile (a profile in the FILEs or a built-in; with
               no FILEs, a built-in)
  no -p        the only profile in the FILEs; with several, -o must name
               a directory and each is written to DIR/NAME.sbx.json

Where:
  no -o        NAME.sbx.json in the current directory
  -o FILE      that file (if it exists, it must be an sbx artifact: sbc
               never overwrites anything else)
  -o DIR       DIR/NAME.sbx.json, for an existing DIR, a DIR ending in /,
               or several profiles
  -o -         standard output

Files are written atomically (a temporary file renamed into place).
Diagnostics go to standard error.

Examples:
  sbc compile dev.hcl
  sbc compile team.hcl base.hcl -p ci -o build/ci.sbx.json
  sbc compile profiles/*.hcl -o build/
  sbc compile -p workspace -o -
  sbc compile --format json dev.hcl 2> diagnostics.json

Exit status: 0 compiled; 1 a profile is invalid; 2 usage or I/O error.
`

func compileCommand() *command {
	return &command{
		name:    "compile",
		summary: "Compile profiles into artifacts for sbx",
		usage:   compileUsage,
		setup: func(e *env, fs *flag.FlagSet) func([]string) int {
			name := fs.String("p", "", "compile only the profile `NAME`")
			out := fs.String("o", "", "write to `PATH` (a file, a directory, or - for stdout)")
			format := formatFlag(fs)
			pf := addPolicyFlags(fs)
			return func(files []string) int {
				if !checkFormat(e, "compile", *format) {
					return exitUsage
				}
				return runCompile(e, files, *name, *out, *format, pf)
			}
		},
	}
}

// output is one artifact to write.
type output struct {
	profile string
	path    string // "-" for stdout
	data    []byte
}

func runCompile(e *env, files []string, name, out, format string, pf *policyFlags) int {
	if len(files) == 0 && name == "" {
		return usageError(e, "compile", "no input: name profile files, or a built-in profile with -p NAME (built-ins: %s)", strings.Join(builtin.Names(), ", "))
	}
	srcs := diag.NewSources()
	var ds diag.Diagnostics
	var profiles []*ir.Profile
	var inFiles []string // names of the profiles in files
	if len(files) > 0 {
		res, more := compiler.CompileInputs(files, e.stdin)
		inFiles = res.Names()
		srcs.Merge(res.Sources)
		ds = append(ds, more...)
		profiles = res.Profiles
		if name != "" {
			profiles = nil
			if p := res.Profile(name); p != nil {
				profiles = []*ir.Profile{p}
			}
		}
	}
	if name != "" && len(profiles) == 0 && !ds.HasErrors() {
		var ok bool
		profiles, ds, ok = builtinByName(name, inFiles, srcs, ds)
		if !ok {
			e.report(ds, srcs, format)
			return exitCode(ds)
		}
	}
	if ds.HasErrors() {
		e.report(ds, srcs, format)
		return exitCode(ds)
	}
	if len(profiles) == 0 {
		ds = ds.Errorf("no-profiles", nil, "Nothing to compile", "The input files declare no profiles.")
		e.report(ds, srcs, format)
		return exitCode(ds)
	}

	var outs []output
	for _, p := range profiles {
		a, more := compiler.Artifact(p, targets())
		ds = append(ds, more...)
		if a == nil {
			continue
		}
		data, err := a.Encode()
		if err != nil {
			ds = ds.Errorf(diag.CodeInternal, nil, "Cannot encode the artifact", "%v", err)
			continue
		}
		outs = append(outs, output{profile: p.Name, data: data})
	}
	if ds.HasErrors() {
		e.report(ds, srcs, format)
		return exitCode(ds)
	}

	ds = append(ds, placeOutputs(outs, out)...)
	if ds.HasErrors() {
		e.report(ds, srcs, format)
		return exitCode(ds)
	}
	// Policy (sbc check's rules) must pass before anything is written.
	artifactPaths := map[string]string{}
	for _, o := range outs {
		artifactPaths[o.profile] = policyArtifactPath(o.path)
	}
	ds = append(ds, pf.validate(profiles, artifactPaths, e.stderr)...)
	if ds.HasErrors() {
		e.report(ds, srcs, format)
		return exitCode(ds)
	}
	if (len(outs) > 1 || namesDir(out)) && out != "" && out != "-" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			ds = ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Cannot create directory %s", out), "%v", err)
			e.report(ds, srcs, format)
			return exitCode(ds)
		}
	}
	var wrote []string
	for _, o := range outs {
		if o.path == "-" {
			if _, err := e.stdout.Write(o.data); err != nil {
				ds = ds.Errorf(diag.CodeIO, nil, "Cannot write to standard output", "%v", err)
			}
			continue
		}
		if err := writeAtomic(o.path, o.data); err != nil {
			ds = ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Cannot write %s", o.path), "%v", err)
			continue
		}
		wrote = append(wrote, fmt.Sprintf("sbc: wrote %s (profile %s)\n", o.path, o.profile))
	}
	if format == "json" || len(ds) > 0 {
		e.report(ds, srcs, format)
	}
	if format == "text" {
		for _, w := range wrote {
			fmt.Fprint(e.stderr, w)
		}
	}
	return exitCode(ds)
}

// builtinByName compiles the built-in profile -p names when the input
// files hold none of that name (sbc compile, sbc explain), adding its
// sources to srcs and its diagnostics to ds; ok is false, with the
// diagnostic, when there is no such built-in either.
func builtinByName(name string, inFiles []string, srcs *diag.Sources, ds diag.Diagnostics) (profiles []*ir.Profile, _ diag.Diagnostics, ok bool) {
	if !builtin.Has(name) {
		return nil, ds.Errorf(diag.CodeUsage, nil, fmt.Sprintf("No profile %q", name),
			"-p names a profile in the input files (%s) or a built-in profile (%s).", listOrNone(inFiles), strings.Join(builtin.Names(), ", ")), false
	}
	res, more := compiler.CompileBuiltin(name)
	srcs.Merge(res.Sources)
	return res.Profiles, append(ds, more...), true
}

// namesDir reports whether the -o path out ends in a path separator, and
// so names a directory.
func namesDir(out string) bool {
	return len(out) > 1 && os.IsPathSeparator(out[len(out)-1])
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// placeOutputs decides where each artifact goes, following the rules in
// compileUsage.
func placeOutputs(outs []output, out string) diag.Diagnostics {
	var ds diag.Diagnostics
	isDir := false
	if out != "" && out != "-" {
		if st, err := os.Stat(out); err == nil && st.IsDir() {
			isDir = true
		}
	}
	if !isDir && len(outs) == 1 && namesDir(out) {
		// Red team 29: -o build/ for one profile, build not yet made,
		// was taken for a file named "build/" and failed with "open
		// build/.x.tmp: no such file or directory". A path ending in a
		// separator names a directory: made as for several profiles.
		if _, err := os.Lstat(strings.TrimRight(out, `/\`)); err == nil {
			return ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Cannot create directory %s", out), "%s exists and is not a directory.", strings.TrimRight(out, `/\`))
		}
		isDir = true
	}
	if len(outs) > 1 {
		names := make([]string, len(outs))
		for i, o := range outs {
			names[i] = o.profile
		}
		// Red team 27: profile names are case-sensitive ("CI" and "ci"
		// are two), but on a case-insensitive file system (macOS's and
		// Windows' defaults) DIR/CI.sbx.json and DIR/ci.sbx.json are one
		// file: the second write replaced the first, and sbc said it wrote
		// both. Refused before anything is written, on every system, so
		// that the same command does not lose an artifact on another.
		seen := map[string]string{}
		for _, n := range names {
			k := strings.ToLower(n)
			if prev, dup := seen[k]; dup {
				return ds.Errorf(diag.CodeUsage, nil, fmt.Sprintf("Profiles %q and %q would be written to one file", prev, n),
					"%s.sbx.json and %s.sbx.json are the same file on case-insensitive file systems (macOS, Windows), where one would replace the other. Write them one at a time with -p NAME -o FILE, or rename one.", prev, n)
			}
			seen[k] = n
		}
		switch {
		case out == "" || out == "-":
			return ds.Errorf(diag.CodeUsage, nil, fmt.Sprintf("The input has %d profiles", len(outs)),
				"Choose one with -p NAME (%s), or write them all with -o DIR.", strings.Join(names, ", "))
		case !isDir:
			if _, err := os.Lstat(out); err == nil {
				return ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Cannot create directory %s", out), "%s exists and is not a directory.", out)
			}
			// Created only once the policy has passed (compile's caller,
			// makeOutputDir): a refused compile left an empty directory
			// behind (red team 27).
			isDir = true
		}
	}
	for i := range outs {
		o := &outs[i]
		switch {
		case out == "-":
			o.path = "-"
		case out == "":
			o.path = o.profile + ".sbx.json"
		case isDir:
			o.path = filepath.Join(out, o.profile+".sbx.json")
		default:
			o.path = out
		}
		if o.path != "-" {
			if err := checkOverwrite(o.path); err != nil {
				ds = ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Refusing to overwrite %s", o.path), "%v", err)
			}
		}
	}
	if a, b, ok := aliasedOutputs(outs); ok {
		ds = ds.Errorf(diag.CodeIO, nil, fmt.Sprintf("Profiles %q and %q would be written to one file", a, b),
			"%s.sbx.json and %s.sbx.json are the same file (a symbolic or hard link), so one artifact would replace the other. Remove the link, or write them one at a time with -p NAME -o FILE.", a, b)
	}
	return ds
}

// aliasedOutputs reports two profiles whose artifacts would be written to
// one file: through a symbolic link (sbc writes through links) or a hard
// link. Red team 28: with out/a.sbx.json -> b.sbx.json, sbc compile -o out
// said it wrote both, and out/a.sbx.json then held profile b. Like red
// team 27's case collisions, refused before anything is written.
func aliasedOutputs(outs []output) (string, string, bool) {
	type ent struct {
		name   string
		st     fs.FileInfo // of the existing file, through links
		target string      // else the absolute path a write creates
	}
	var ents []ent
	for _, o := range outs {
		if o.path == "-" {
			continue
		}
		e := ent{name: o.profile}
		if st, err := os.Stat(o.path); err == nil {
			e.st = st
		} else {
			e.target = linkTarget(o.path)
		}
		for _, p := range ents {
			if e.st != nil && p.st != nil && os.SameFile(e.st, p.st) || e.target != "" && e.target == p.target {
				return p.name, e.name, true
			}
		}
		ents = append(ents, e)
	}
	return "", "", false
}

// linkTarget returns the absolute, clean path that writing through p (a
// missing file, or a chain of links ending at one) creates.
func linkTarget(p string) string {
	for range 40 {
		t, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// checkOverwrite returns an error unless path does not exist, is empty, or
// holds an sbx artifact (of any version). Artifacts always begin with their
// "format" member, so reading the first token or three is enough.
func checkOverwrite(path string) error {
	// Stat first: opening a FIFO for reading would wait for a writer.
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // a dangling symlink too: its target is created
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() == 0 {
		return nil
	}
	dec := json.NewDecoder(io.LimitReader(f, 64<<10))
	tok := func() json.Token {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		return t
	}
	if d, ok := tok().(json.Delim); ok && d == '{' {
		if k, ok := tok().(string); ok && k == "format" {
			if v, ok := tok().(string); ok && strings.HasPrefix(v, "sbx.artifact/") {
				return nil
			}
		}
	}
	return fmt.Errorf("the file exists and is not an sbx artifact. sbc only replaces its own artifacts; delete the file or choose another path with -o")
}

// writeAtomic writes data to path atomically: into a temporary file in the
// same directory, then renamed over path, so that sbx never reads a
// half-written artifact (nor an editor a half-formatted profile). An
// existing file's permissions are kept. A symbolic link is followed (its
// target is written, as a shell's redirection would, not the link
// replaced), and a file with other hard links is rewritten in place (a
// rename would split it from them), with a copy of its old contents kept
// beside it until the write is done.
func writeAtomic(path string, data []byte) error {
	path, err := followLinks(path)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	old, err := os.Stat(path)
	if err == nil {
		mode = old.Mode().Perm()
		// Another user's file keeps its owner only if rewritten in
		// place (see keepOwner below), and so does a file with other
		// hard links.
		if linkCount(old) > 1 || foreignOwner(old) {
			return writeInPlace(path, data)
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		if old != nil && errors.Is(err, fs.ErrPermission) {
			// A writable file in a directory sbc may not add to.
			return writeInPlace(path, data)
		}
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename this fails harmlessly
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, mode); err != nil {
		return err
	}
	if old != nil {
		// The replacement keeps the file's owner; where it cannot (the
		// file is another user's, and sbc not root), the file is
		// rewritten in place instead, which keeps it.
		if err := keepOwner(name, old); err != nil {
			return writeInPlace(path, data)
		}
	}
	return os.Rename(name, path)
}

// followLinks resolves path's last component while it is a symbolic link
// (the directories above it are left to the kernel). The result may not
// exist: a dangling link's target is where the file is created.
func followLinks(path string) (string, error) {
	for range 40 {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writeInPlace rewrites the file at path, which has other hard links. Its
// old contents are first copied beside it (".NAME.*.bak"), so that a
// failed write loses nothing: the error names the copy.
func writeInPlace(path string, data []byte) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	bak, err := os.CreateTemp(dir, "."+base+".*.bak")
	if err != nil && errors.Is(err, fs.ErrPermission) {
		// The directory is not sbc's to add to: the copy goes to the
		// temporary directory instead.
		bak, err = os.CreateTemp("", base+".*.bak")
	}
	if err != nil {
		return err
	}
	_, err = bak.Write(old)
	if err == nil {
		err = bak.Sync()
	}
	if cerr := bak.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(bak.Name())
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err == nil {
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("%w (its previous contents are in %s)", err, bak.Name())
	}
	return os.Remove(bak.Name())
}

// policyArtifactPath is where the policy is told an artifact is written:
// relative to the current directory, as the Rego input documents it,
// whatever the spelling of -o. Red team 28: SBX005 (a write rule that
// makes the profile's own artifact writable) recognises only a clean
// relative path, so -o "$PWD/build/p.sbx.json" (as CI scripts write it),
// "./build//p.sbx.json" or "../ws/build/p.sbx.json" let a profile that
// writes {cwd}/build compile. A path outside the current directory is
// kept absolute and clean; "-" (standard output) is kept as it is.
func policyArtifactPath(p string) string {
	if p == "-" || p == "" {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.ToSlash(filepath.Clean(p))
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

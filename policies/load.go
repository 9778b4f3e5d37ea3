package policies

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/loader"
)

// MaxBundleSize bounds the size of a policy bundle tarball, so that a wrong
// file is refused without reading it all.
const MaxBundleSize = 64 << 20

// PolicySet is organisation policy as loaded from disk: parsed modules by
// file name, and data documents (from bundles and data.json / data.yaml
// files in policy directories).
type PolicySet struct {
	Modules map[string]*ast.Module
	Data    map[string]any
}

// Load reads policy from paths: directories (their .rego files, recursively,
// and data.json / data.yaml files), single .rego files, and OPA bundle
// tarballs. Test files (*_test.rego) are loaded only when tests is true.
// Errors name the path and, for Rego errors, the file and line.
func Load(paths []string, tests bool) (*PolicySet, error) {
	set := &PolicySet{Modules: map[string]*ast.Module{}, Data: map[string]any{}}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("policy %s does not exist: give a directory of .rego files, a .rego file or a bundle (.tar.gz)", p)
			}
			return nil, fmt.Errorf("policy %s: %w", p, err)
		}
		var part *PolicySet
		switch {
		case st.IsDir():
			part, err = loadDir(p, tests)
		case strings.HasSuffix(p, ".rego"):
			part, err = loadFiles([]string{p}, tests, true)
		default:
			part, err = loadBundle(p, st.Size(), tests)
		}
		if err != nil {
			return nil, err
		}
		for name, m := range part.Modules {
			set.Modules[name] = m
		}
		if err := mergeData(set.Data, part.Data, p); err != nil {
			return nil, err
		}
	}
	return set, nil
}

func loadDir(dir string, tests bool) (*PolicySet, error) {
	set, err := loadFiles([]string{dir}, tests, false)
	if err != nil {
		return nil, err
	}
	if len(set.Modules) == 0 {
		return nil, fmt.Errorf("policy directory %s holds no .rego files", dir)
	}
	return set, nil
}

// loadFiles loads .rego (and data) files with OPA's loader, which reports
// every parse error with its file and line.
func loadFiles(paths []string, tests, single bool) (*PolicySet, error) {
	filter := func(abspath string, info fs.FileInfo, depth int) bool {
		if info.IsDir() {
			return depth > 0 && strings.HasPrefix(info.Name(), ".")
		}
		if !regularFile(abspath, info) {
			// A FIFO or a device named like policy would block the
			// loader (or feed it forever): not policy.
			return true
		}
		name := info.Name()
		switch {
		case strings.HasSuffix(name, "_test.rego"):
			return !tests
		case strings.HasSuffix(name, ".rego"):
			return false
		case !single && (name == "data.json" || name == "data.yaml" || name == "data.yml"):
			return false
		}
		return true
	}
	res, err := loader.NewFileLoader().
		WithRegoVersion(ast.RegoV1).
		WithProcessAnnotation(true).
		Filtered(paths, filter)
	if err != nil {
		return nil, loadError(err)
	}
	set := &PolicySet{Modules: map[string]*ast.Module{}, Data: res.Documents}
	for _, m := range res.Modules {
		set.Modules[m.Name] = m.Parsed
	}
	return set, nil
}

// regularFile reports whether info (of path, perhaps a symbolic link's)
// is, or links to, a regular file.
func regularFile(path string, info fs.FileInfo) bool {
	if info.Mode()&fs.ModeSymlink != 0 {
		st, err := os.Stat(path)
		return err == nil && st.Mode().IsRegular()
	}
	return info.Mode().IsRegular()
}

// loadError flattens the loader's error list into a LoadError.
func loadError(err error) error {
	var errs loader.Errors
	if errors.As(err, &errs) {
		out := make([]string, 0, len(errs))
		for _, e := range errs {
			var astErrs ast.Errors
			if errors.As(e, &astErrs) {
				out = append(out, policyErrors(astErrs).(*LoadError).Errs...)
				continue
			}
			out = append(out, e.Error())
		}
		return &LoadError{Errs: out}
	}
	var astErrs ast.Errors
	if errors.As(err, &astErrs) {
		return policyErrors(astErrs)
	}
	return err
}

// loadBundle reads an OPA bundle tarball. Signatures are not verified: sbc
// treats a bundle as a convenient way to ship policy and data, like a
// directory.
func loadBundle(p string, size int64, tests bool) (*PolicySet, error) {
	if size > MaxBundleSize {
		return nil, fmt.Errorf("policy bundle %s is larger than %d bytes: is it the right file?", p, MaxBundleSize)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("policy bundle %s: %w", p, err)
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return nil, fmt.Errorf("policy %s is not a directory, a .rego file or a bundle: a bundle is a gzipped tarball (.tar.gz) and this file is not gzip data", p)
	}
	if err := checkBundleSizes(data); err != nil {
		return nil, fmt.Errorf("policy bundle %s: %w", p, err)
	}
	b, err := bundle.NewCustomReader(bundle.NewTarballLoaderWithBaseURL(bytes.NewReader(data), p)).
		WithRegoVersion(ast.RegoV1).
		WithProcessAnnotations(true).
		WithSkipBundleVerification(true).
		WithBaseDir(p).
		Read()
	if err != nil {
		var astErrs ast.Errors
		if errors.As(err, &astErrs) {
			return nil, policyErrors(astErrs)
		}
		msg := err.Error()
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(msg, "EOF"):
			return nil, fmt.Errorf("policy bundle %s is corrupt (truncated): %w", p, err)
		case errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, tar.ErrHeader) ||
			strings.Contains(msg, "gzip:") || strings.Contains(msg, "archive/tar:"):
			return nil, fmt.Errorf("policy bundle %s is corrupt: %w", p, err)
		}
		return nil, fmt.Errorf("policy bundle %s is not a valid OPA bundle: %w", p, err)
	}
	set := &PolicySet{Modules: map[string]*ast.Module{}, Data: b.Data}
	for _, m := range b.Modules {
		if !tests && strings.HasSuffix(m.Path, "_test.rego") {
			continue
		}
		name := filepath.ToSlash(m.Path)
		set.Modules[name] = m.Parsed
	}
	if len(set.Modules) == 0 && len(b.Data) == 0 {
		return nil, fmt.Errorf("policy bundle %s holds no .rego files and no data", p)
	}
	return set, nil
}

// checkBundleSizes refuses a bundle whose entries declare more than
// MaxBundleSize bytes in all: OPA's reader allocates an entry's declared
// size before reading it, so a tarball of a few hundred bytes declaring a
// gigabyte would have sbc allocate that much. It reads the headers only
// (the compressed stream is bounded by MaxBundleSize already).
func checkBundleSizes(data []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil // the bundle reader reports it
	}
	tr := tar.NewReader(zr)
	var total int64
	for {
		h, err := tr.Next()
		if err != nil {
			return nil // end, or corrupt: the bundle reader reports it
		}
		if h.Size < 0 || h.Size > MaxBundleSize-total {
			return fmt.Errorf("its entries declare more than %d bytes (%s declares %d): is it the right file?", MaxBundleSize, h.Name, h.Size)
		}
		total += h.Size
	}
}

// mergeData merges src into dst, refusing two sources that set the same
// non-object value.
func mergeData(dst, src map[string]any, from string) error {
	for k, v := range src {
		old, ok := dst[k]
		if !ok {
			dst[k] = v
			continue
		}
		om, ok1 := old.(map[string]any)
		nm, ok2 := v.(map[string]any)
		if !ok1 || !ok2 {
			return fmt.Errorf("policy %s: data document %q is also defined by another policy path", from, k)
		}
		if err := mergeData(om, nm, from); err != nil {
			return err
		}
	}
	return nil
}

package landlock

import (
	"path/filepath"
	"strings"

	"github.com/sbx-dev/sbx/ir"
)

// hgEntry is one item of a Mercurial (or Sapling) configuration file: its
// section, its key (case kept: hg's keys are case-sensitive) and its value,
// continuation lines joined with newlines.
type hgEntry struct {
	section, key, value string
}

// parseHgConfig parses hgrc syntax (Mercurial's config.py, which Sapling's
// .sl/config shares): "[section]" headers, "key = value" items whose value
// continues on following lines that start with blanks, comments on lines
// that start with "#" or ";", "%include PATH" (returned in includes, in
// order, for the caller to resolve against the file's directory) and
// "%unset KEY" (the key's earlier value no longer applies). A line hg
// would reject is skipped: what sbx protects is then at most more.
func parseHgConfig(data string) (entries []hgEntry, includes []string) {
	section := ""
	last := -1 // the item a continuation line extends
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.TrimSpace(line) == "" || line[0] == '#' || line[0] == ';':
			last = -1
		case line[0] == ' ' || line[0] == '\t':
			if last >= 0 {
				entries[last].value += "\n" + strings.TrimSpace(line)
			}
		case line[0] == '[':
			end := strings.IndexByte(line, ']')
			if end > 1 {
				section = line[1:end]
			}
			last = -1
		case strings.HasPrefix(line, "%include"):
			rest := line[len("%include"):]
			if p := strings.TrimSpace(rest); p != "" && (rest[0] == ' ' || rest[0] == '\t') {
				includes = append(includes, p)
			}
			last = -1
		case strings.HasPrefix(line, "%unset"):
			key := strings.TrimSpace(line[len("%unset"):])
			for i := range entries {
				if entries[i].section == section && entries[i].key == key {
					entries[i].value = ""
				}
			}
			last = -1
		default:
			key, value, ok := strings.Cut(line, "=")
			key = strings.TrimSpace(key)
			if !ok || key == "" {
				last = -1
				continue
			}
			entries = append(entries, hgEntry{section: section, key: key, value: strings.TrimSpace(value)})
			last = len(entries) - 1
		}
	}
	return entries, includes
}

// hgRunKey reports whether hg (or sl) runs the item's value as a shell
// command on the host, on its own or as part of an ordinary operation:
// hooks (every [hooks] item, "precommit.lint" and the like, unless it is
// a "python:" reference: see hgPythonFile), the editor, the ssh program,
// the pager, merge tools' executables, extdiff commands and shell aliases
// ("!" values).
func hgRunKey(e hgEntry) bool {
	switch e.section {
	case "hooks":
		return !strings.HasPrefix(e.value, "python:")
	case "ui":
		return e.key == "editor" || e.key == "ssh" || e.key == "merge"
	case "pager":
		return e.key == "pager"
	case "merge-tools":
		return strings.HasSuffix(e.key, ".executable")
	case "extdiff":
		return strings.HasPrefix(e.key, "cmd.")
	case "alias":
		return strings.HasPrefix(e.value, "!")
	}
	return false
}

// hgPythonFile returns the Python file hg loads for an item, or "": a
// hook "python:FILE:FUNCTION" whose FILE is a path (it holds a slash or
// ends in .py; "python:module.function" names an installed module), and
// an extension given by its path ("name = path/to/ext.py"; "!" disables
// it). hg runs the file's code in its own process.
func hgPythonFile(e hgEntry) string {
	switch e.section {
	case "hooks":
		ref, ok := strings.CutPrefix(e.value, "python:")
		if !ok {
			return ""
		}
		if i := strings.LastIndexByte(ref, ':'); i > 0 {
			ref = ref[:i]
		}
		if strings.Contains(ref, "/") || strings.HasSuffix(ref, ".py") {
			return ref
		}
	case "extensions":
		if v := e.value; v != "" && !strings.HasPrefix(v, "!") && (strings.Contains(v, "/") || strings.HasSuffix(v, ".py")) {
			return v
		}
	}
	return ""
}

// hgRepo is a Mercurial or Sapling repository behind a protected name: the
// name's rule, the repository's root (its working directory) and its
// metadata directory (.hg or .sl).
type hgRepo struct {
	src        ir.BoundRule
	root, meta string
}

// hgProtectedRepos returns the repositories whose .hg or .sl directory is
// a protected name that exists (directly in a writable root).
func hgProtectedRepos(bd *ir.Bound, v View) []hgRepo {
	var out []hgRepo
	for _, r := range bd.Rules {
		if r.Origin != ir.OriginProtect {
			continue
		}
		if base := filepath.Base(r.Path); (base == ".hg" || base == ".sl") && v.Lstat(r.Path) == KindDir {
			out = append(out, hgRepo{src: r, root: filepath.Dir(r.Path), meta: r.Path})
		}
	}
	return out
}

// hgConfigFiles lists the configuration files hg (or sl) reads in r: the
// repository's own (.hg/hgrc; .sl/config, and .sl/hgrc that older
// Sapling wrote), a shared repository's source's (.hg/sharedpath names
// its .hg: "hg share" with share-safe reads the source's hgrc), the
// user's (~/.hgrc, the XDG one, Sapling's sapling.conf) and the system's.
func hgConfigFiles(r hgRepo, home string, getenv func(string) string) []string {
	var files []string
	if filepath.Base(r.meta) == ".sl" {
		files = append(files, filepath.Join(r.meta, "config"))
	}
	files = append(files, filepath.Join(r.meta, "hgrc"))
	if sp, ok := readRegular(filepath.Join(r.meta, "sharedpath"), 4096); ok {
		if sp = strings.TrimSpace(sp); sp != "" {
			if !filepath.IsAbs(sp) {
				sp = filepath.Join(r.meta, sp)
			}
			files = append(files, filepath.Join(sp, "hgrc"))
		}
	}
	if home != "" {
		xdg := getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(home, ".hgrc"), filepath.Join(xdg, "hg", "hgrc"), filepath.Join(xdg, "sapling", "sapling.conf"))
	}
	return append(files, "/etc/mercurial/hgrc")
}

package policies

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/sbx-dev/sbx/ir"
)

// The Rego input is built directly as an OPA value rather than through
// JSON, which would cost more than evaluating most rules. Its shape is the
// IR's JSON encoding (package ir's field names) with two conveniences for
// policy authors: every optional field is present (empty lists, empty
// strings, false, 0), and every path has "rel" ("" for the anchor
// itself). TestInputMatchesIR keeps it in step with package ir.

func item(k string, v *ast.Term) [2]*ast.Term { return ast.Item(ast.InternedTerm(k), v) }

func str(s string) *ast.Term { return ast.StringTerm(s) }

func num(n int64) *ast.Term { return ast.IntNumberTerm(int(n)) }

func posValue(p ir.Pos) *ast.Term {
	return ast.ObjectTerm(item("line", num(int64(p.Line))), item("column", num(int64(p.Column))), item("byte", num(int64(p.Byte))))
}

func rangeValue(r ir.Range) *ast.Term {
	return ast.ObjectTerm(item("filename", str(r.Filename)), item("start", posValue(r.Start)), item("end", posValue(r.End)))
}

func pathValue(p ir.Path) *ast.Term {
	return ast.ObjectTerm(item("anchor", str(p.Anchor)), item("rel", str(p.Rel)))
}

func list[T any](xs []T, f func(T) *ast.Term) *ast.Term {
	terms := make([]*ast.Term, len(xs))
	for i, x := range xs {
		terms[i] = f(x)
	}
	return ast.ArrayTerm(terms...)
}

func strs(xs []string) *ast.Term { return list(xs, str) }

func portsValue(ps []ir.PortRange) *ast.Term {
	return list(ps, func(p ir.PortRange) *ast.Term {
		return ast.ObjectTerm(item("from", num(int64(p.From))), item("to", num(int64(p.To))), item("source", rangeValue(p.Source)))
	})
}

// profileValue encodes p as the "profile" member of the input.
func profileValue(p *ir.Profile) *ast.Term {
	fs := p.Filesystem
	filesystem := ast.ObjectTerm(
		item("rules", list(fs.Rules, func(r ir.PathRule) *ast.Term {
			return ast.ObjectTerm(item("path", pathValue(r.Path)), item("access", str(r.Access.String())), item("source", rangeValue(r.Source)))
		})),
		item("deny_globs", list(fs.DenyGlobs, func(g ir.GlobRule) *ast.Term {
			return ast.ObjectTerm(item("pattern", str(g.Pattern)), item("max_depth", num(int64(g.MaxDepth))), item("source", rangeValue(g.Source)))
		})),
		item("protect", list(fs.Protect, func(pr ir.ProtectRule) *ast.Term {
			return ast.ObjectTerm(item("name", str(pr.Name)), item("source", rangeValue(pr.Source)))
		})),
	)
	n := p.Network
	network := ast.ObjectTerm(
		item("mode", str(string(n.Mode))),
		item("reason", str(n.Reason)),
		item("connect_tcp", portsValue(n.ConnectTCP)),
		item("bind_tcp", portsValue(n.BindTCP)),
		item("unix_sockets", list(n.UnixSockets, func(s ir.SocketRule) *ast.Term {
			return ast.ObjectTerm(item("path", pathValue(s.Path)), item("source", rangeValue(s.Source)))
		})),
		item("source", rangeValue(n.Source)),
	)
	pr := p.Process
	env := ast.ObjectTerm(
		item("inherit", str(string(pr.Env.Inherit))),
		item("set", list(pr.Env.Set, func(v ir.EnvVar) *ast.Term {
			return ast.ObjectTerm(item("name", str(v.Name)), item("value", str(v.Value)))
		})),
		item("unset", strs(pr.Env.Unset)),
	)
	process := ast.ObjectTerm(
		item("timeout_ms", num(pr.TimeoutMS)),
		item("output_cap", num(pr.OutputCap)),
		item("env", env),
		item("source", rangeValue(pr.Source)),
	)
	return ast.ObjectTerm(
		item("name", str(p.Name)),
		item("description", str(p.Description)),
		item("extends", strs(p.Extends)),
		item("unsandboxed", ast.BooleanTerm(p.Unsandboxed)),
		item("filesystem", filesystem),
		item("network", network),
		item("process", process),
		item("source", rangeValue(p.Source)),
	)
}

// fidelityValue encodes the targets' fidelity reports.
func fidelityValue(fid map[string]FidelityReport) *ast.Term {
	items := make([][2]*ast.Term, 0, len(fid))
	for _, name := range sortedKeys(fid) {
		rules := list(fid[name].Rules, func(e FidelityEntry) *ast.Term {
			path := make([]*ast.Term, len(e.Path))
			for i, s := range e.Path {
				switch v := s.(type) {
				case string:
					path[i] = str(v)
				case int:
					path[i] = num(int64(v))
				default:
					path[i] = ast.NullTerm()
				}
			}
			return ast.ObjectTerm(item("path", ast.ArrayTerm(path...)), item("fidelity", str(e.Fidelity)), item("reason", str(e.Reason)))
		})
		items = append(items, item(name, ast.ObjectTerm(item("rules", rules))))
	}
	return ast.ObjectTerm(items...)
}

// inputValue builds the Rego input for in (see "The Rego input" in the README):
// {"profile", "name", "file", "artifact", "fidelity"}.
func inputValue(in Input, file, artifact string) ast.Value {
	return ast.NewObject(
		item("profile", profileValue(in.Profile)),
		item("name", str(in.Profile.Name)),
		item("file", str(workspacePath(file))),
		item("artifact", str(workspacePath(artifact))),
		item("fidelity", fidelityValue(in.Fidelity)),
	)
}

// NodePath returns the path, in the Rego input, of the IR node of p whose
// source range is src (a path rule, deny_glob, protect entry, the network
// block, a port range or a socket rule), as FidelityEntry.Path wants it,
// or nil when no node has that range. Targets that report per-rule
// fidelity by source range are mapped to input paths with it.
func NodePath(p *ir.Profile, src ir.Range) []any {
	fs := p.Filesystem
	for i, r := range fs.Rules {
		if r.Source == src {
			return []any{"profile", "filesystem", "rules", i}
		}
	}
	for i, g := range fs.DenyGlobs {
		if g.Source == src {
			return []any{"profile", "filesystem", "deny_globs", i}
		}
	}
	for i, pr := range fs.Protect {
		if pr.Source == src {
			return []any{"profile", "filesystem", "protect", i}
		}
	}
	n := p.Network
	for i, r := range n.ConnectTCP {
		if r.Source == src {
			return []any{"profile", "network", "connect_tcp", i}
		}
	}
	for i, r := range n.BindTCP {
		if r.Source == src {
			return []any{"profile", "network", "bind_tcp", i}
		}
	}
	for i, s := range n.UnixSockets {
		if s.Source == src {
			return []any{"profile", "network", "unix_sockets", i}
		}
	}
	switch src {
	case n.Source:
		return []any{"profile", "network"}
	case p.Process.Source:
		return []any{"profile", "process"}
	case p.Source:
		return []any{"profile"}
	}
	return nil
}

// workspacePath returns p, an absolute path inside the current directory,
// relative to it (clean, with forward slashes); any other p as it is. The
// input's file and artifact are relative to the current directory, where
// sbx is assumed to run: red team 29 found SBX005 silent for sbc check
// "$PWD/profiles/dev.hcl" (and for an artifact named so), which the rule
// could not tell for a file of the workspace ({cwd}/profiles).
func workspacePath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	rel, err := filepath.Rel(wd, filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

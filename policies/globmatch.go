package policies

import (
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/sbx-dev/sbx/ir"
)

// GlobMatchBuiltin is the name of the second Rego built-in function sbc
// adds:
//
//	sbx.glob_match(pattern, path) -> bool
//
// It reports whether path matches pattern as a deny_glob pattern matches a
// path (ir.MatchGlob: "*", "?" and classes within one name, "[^a]" for a
// negated class, "\" escaping, "**" for any number of names), both taken
// as absolute paths ("/" separated; a leading "/" is optional).
//
// Red team 29: data.sbx.lib matched names with OPA's glob.match, whose
// syntax differs ("[!a]" is a negated class there and a class of "!" and
// "a" in a deny_glob; "." is a delimiter "*" does not cross unless told),
// so a deny_glob "**/.gi[!x]", which denies no .git, silenced SBX009, and
// "**/*", which denies everything, left SBX007's .env warning.
const GlobMatchBuiltin = "sbx.glob_match"

var globMatchDecl = &rego.Function{
	Name: GlobMatchBuiltin,
	Decl: types.NewFunction(
		types.Args(
			types.Named("pattern", types.S).Description("a deny_glob pattern, such as \"**/.git\""),
			types.Named("path", types.S).Description("a path, such as \"/a/.git\", or a single name"),
		),
		types.Named("result", types.B).Description("whether the path matches the pattern"),
	),
	Description: "Reports whether a path matches a deny_glob pattern, with the pattern syntax of the profile language.",
}

func globMatchBuiltinDecl() *ast.Builtin {
	return &ast.Builtin{Name: GlobMatchBuiltin, Decl: globMatchDecl.Decl, Description: globMatchDecl.Description, Categories: []string{"sbx"}}
}

func globMatchOption() func(*rego.Rego) {
	return rego.Function2(globMatchDecl, func(_ rego.BuiltinContext, patT, pathT *ast.Term) (*ast.Term, error) {
		pat, ok1 := patT.Value.(ast.String)
		p, ok2 := pathT.Value.(ast.String)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: pattern and path must be strings", GlobMatchBuiltin)
		}
		return ast.BooleanTerm(ir.MatchGlob(string(pat), string(p))), nil
	})
}

func globMatchTesterBuiltin() *tester.Builtin {
	return &tester.Builtin{Decl: globMatchBuiltinDecl(), Func: globMatchOption()}
}

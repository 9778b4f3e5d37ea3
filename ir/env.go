package ir

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// EnvInherit says which variables of the caller's environment the command
// inherits before Set and Unset apply.
type EnvInherit string

// Inheritance modes.
const (
	// EnvInheritNone starts from an empty environment.
	EnvInheritNone EnvInherit = "none"
	// EnvInheritCore keeps only CoreEnv: what ordinary programs need to run
	// (PATH, HOME, locale, terminal) and nothing that tends to hold secrets.
	EnvInheritCore EnvInherit = "core"
	// EnvInheritAll keeps the whole environment.
	EnvInheritAll EnvInherit = "all"
)

// Valid reports whether m is a known mode.
func (m EnvInherit) Valid() bool {
	return m == EnvInheritNone || m == EnvInheritCore || m == EnvInheritAll
}

// CoreEnv is the set of variables inherited in "core" mode, sorted. LC_*
// variables are included as well.
var CoreEnv = []string{"HOME", "LANG", "LANGUAGE", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "USER"}

// Env is the environment policy of a profile.
type Env struct {
	// Inherit selects the inherited variables; empty means core.
	Inherit EnvInherit `json:"inherit,omitempty"`
	// Set assigns variables after inheritance, sorted by name.
	Set []EnvVar `json:"set,omitempty"`
	// Unset removes variables after inheritance and before Set. An entry
	// ending in "*" removes every variable with that prefix ("AWS_*").
	Unset []string `json:"unset,omitempty"`
}

// EnvVar is one assignment.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ValidEnvName reports whether name can be an environment variable name in
// a profile: non-empty, no "=" and no NUL. A trailing "*" is allowed only
// where wildcard is true.
func ValidEnvName(name string, wildcard bool) error {
	if wildcard && strings.HasSuffix(name, "*") {
		name = strings.TrimSuffix(name, "*")
		if strings.Contains(name, "*") {
			return fmt.Errorf("%q: only a trailing * is allowed", name+"*")
		}
		if name == "" {
			return nil // "*" alone: unset everything
		}
	}
	if name == "" {
		return fmt.Errorf("empty variable name")
	}
	if strings.ContainsAny(name, "=\x00*") {
		return fmt.Errorf("%q is not a valid variable name", name)
	}
	return nil
}

func isCore(name string) bool {
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	i := sort.SearchStrings(CoreEnv, name)
	return i < len(CoreEnv) && CoreEnv[i] == name
}

func unsetMatches(pattern, name string) bool {
	if strings.HasSuffix(pattern, "*") {
		return strings.HasPrefix(name, strings.TrimSuffix(pattern, "*"))
	}
	return pattern == name
}

// Build applies the policy to environ (in os.Environ form, "NAME=value") and
// returns the command's environment, sorted by name. Entries without "=" are
// dropped; for a name given twice the last entry wins, as in most shells.
func (e Env) Build(environ []string) []string {
	vars := map[string]string{}
	mode := e.Inherit
	if mode == "" {
		mode = EnvInheritCore
	}
	if mode != EnvInheritNone {
		for _, kv := range environ {
			name, value, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				continue
			}
			if mode == EnvInheritAll || isCore(name) {
				vars[name] = value
			}
		}
	}
	for name := range vars {
		for _, u := range e.Unset {
			if unsetMatches(u, name) {
				delete(vars, name)
				break
			}
		}
	}
	for _, s := range e.Set {
		vars[s.Name] = s.Value
	}
	out := make([]string, 0, len(vars))
	for name, value := range vars {
		out = append(out, name+"="+value)
	}
	sort.Strings(out)
	return out
}

// validGlob checks a deny_glob pattern's syntax with path.Match, which
// rejects malformed character classes.
func validGlob(pattern string) error {
	for i, c := range strings.Split(pattern, "/") {
		if c == "**" {
			continue
		}
		// Components as the compiler writes them: no "..", ".", or empty
		// one (but the leading "/" of an absolute pattern).
		if c == ".." || c == "." || (c == "" && i > 0) {
			return fmt.Errorf("glob %q: a component is %q", pattern, c)
		}
		if _, err := path.Match(c, ""); err != nil {
			return fmt.Errorf("glob %q: %w", pattern, err)
		}
	}
	return nil
}

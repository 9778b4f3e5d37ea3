package landlock

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// LandlockConfigFormat names the exported format: the JSON configuration of
// the Landlock maintainers' landlockconfig project
// (schema/landlockconfig.json in github.com/landlock-lsm/landlockconfig).
const LandlockConfigFormat = "landlockconfig"

// LandlockConfig is the landlockconfig JSON document.
type LandlockConfig struct {
	ABI         int              `json:"abi"`
	Ruleset     []LLCRuleset     `json:"ruleset"`
	PathBeneath []LLCPathBeneath `json:"pathBeneath,omitempty"`
	NetPort     []LLCNetPort     `json:"netPort,omitempty"`
}

// LLCRuleset is one "ruleset" item.
type LLCRuleset struct {
	HandledAccessFs  []string `json:"handledAccessFs,omitempty"`
	HandledAccessNet []string `json:"handledAccessNet,omitempty"`
	Scoped           []string `json:"scoped,omitempty"`
}

// LLCPathBeneath is one "pathBeneath" item.
type LLCPathBeneath struct {
	AllowedAccess []string `json:"allowedAccess"`
	Parent        []string `json:"parent"`
}

// LLCNetPort is one "netPort" item.
type LLCNetPort struct {
	AllowedAccess []string `json:"allowedAccess"`
	Port          []uint64 `json:"port"`
}

// ToLandlockConfig exports the Landlock layer of a bound spec. landlockconfig
// describes Landlock only: the mount carve-outs (read-only binds, masks),
// the seccomp filter and the namespaces have no equivalent there, so a tool
// that applies the exported file alone enforces less than sbx. Those gaps
// are returned as warnings, one per carve-out, so that a caller can refuse
// or print them.
func ToLandlockConfig(s *Spec) (*LandlockConfig, []string) {
	c := &LandlockConfig{ABI: max(s.ABI, 1)}
	rs := LLCRuleset{HandledAccessFs: s.Handled.FS.Names(), HandledAccessNet: s.Handled.Net.Names(), Scoped: s.Handled.Scoped.Names()}
	c.Ruleset = []LLCRuleset{rs}
	var warn []string
	groups := map[AccessFS][]string{}
	for _, g := range s.Grants {
		if !utf8.ValidString(g.Path) {
			// A JSON string cannot hold it: encoding/json would write
			// U+FFFD for each invalid byte, a rule on another path
			// (red team 18, FuzzLandlockConfig). Left out, the
			// document grants less than sbx, and says so.
			warn = append(warn, fmt.Sprintf("%q is not valid UTF-8, which landlockconfig's JSON cannot hold: its rule (%s) is left out", g.Path, g.Rights))
			continue
		}
		groups[g.Rights] = append(groups[g.Rights], strings.ReplaceAll(g.Path, "$", "$$"))
	}
	keys := make([]AccessFS, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		if k == 0 {
			continue
		}
		ps := groups[k]
		sort.Strings(ps)
		c.PathBeneath = append(c.PathBeneath, LLCPathBeneath{AllowedAccess: k.Names(), Parent: ps})
	}
	ports := map[AccessNet][]uint64{}
	for _, p := range s.Ports {
		ports[p.Rights] = append(ports[p.Rights], uint64(p.Port))
	}
	for _, a := range []AccessNet{NetBindTCP, NetConnectTCP, NetBindTCP | NetConnectTCP} {
		if len(ports[a]) > 0 {
			c.NetPort = append(c.NetPort, LLCNetPort{AllowedAccess: a.Names(), Port: ports[a]})
		}
	}
	for _, m := range s.Mounts {
		switch m.Kind {
		case MountReadOnly:
			warn = append(warn, fmt.Sprintf("%s is read-only in sbx through a read-only bind mount; landlockconfig cannot express it and grants the rights of its parent", m.Path))
		case MountMask:
			warn = append(warn, fmt.Sprintf("%s is denied in sbx through a mask mount; landlockconfig cannot express it and grants the rights of its parent", m.Path))
		case MountKernelReadOnly:
			warn = append(warn, fmt.Sprintf("%s (a kernel file system) is read-only in sbx through its mount flags; landlockconfig cannot express it and grants the rights of its parent", m.Path))
		}
	}
	warn = append(warn, "landlockconfig has no equivalent of sbx's seccomp filter, namespaces or dropped capabilities (UDP, raw sockets, metadata changes, /proc, IPC are not covered)")
	return c, warn
}

// Encode returns the document as indented JSON with a trailing newline.
func (c *LandlockConfig) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding landlockconfig: %w", err)
	}
	return append(b, '\n'), nil
}

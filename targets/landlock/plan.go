// Package landlock compiles the platform-neutral IR of a sandbox profile
// into a Landlock enforcement plan for Linux, and binds that plan to one
// machine at run time.
//
// The package is a pure planner: it builds for every GOOS, depends only on
// package ir and the standard library, and never makes a Landlock system
// call. The run-time half (re-exec helper, mount namespace, capabilities,
// seccomp, landlock_restrict_self) lives in the launch subpackage.
//
// # Model
//
// Landlock is allow-only: a rule on a directory grants its rights to the
// whole subtree, and grants only add up. The IR is not: it allows a
// read-only folder inside a writable root, a denied file inside a readable
// tree, names that must not be created, and a writable folder reopened
// under a read-only one. The plan therefore has two layers that intersect:
//
//   - Landlock grants each read or write path the rights of its level
//     (ReadRights, WriteRights);
//   - a private mount namespace narrows what Landlock over-grants: the whole
//     view is read-only, writable paths are bound read-write, read-only
//     carve-outs are bound read-only, denied paths are masked.
//
// The same function (computeLayout) derives both layers from bound rules:
// at compile time over symbolic paths ("/{cwd}/.git"), at run time over the
// real ones. See the README (Linux enforcement) for every mechanism and what it closes.
package landlock

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sbx-dev/sbx/compiler/target"
	"github.com/sbx-dev/sbx/ir"
)

// PlanFormat identifies this version of the plan stored in artifacts.
const PlanFormat = "sbx.landlock/v1"

// TargetName is the artifact key of the plan.
const TargetName = "landlock"

// Level is how faithfully a rule is enforced on Linux.
type Level string

// Fidelity levels, from best to worst.
const (
	// LevelExact: Landlock enforces the rule as written.
	LevelExact Level = "exact"
	// LevelSupplementary: enforced as written with a mechanism besides
	// Landlock (named in Fidelity.Mechanism).
	LevelSupplementary Level = "supplementary"
	// LevelRestrictive: enforced more strictly than written; the detail says
	// how. Never less strictly.
	LevelRestrictive Level = "restrictive"
	// LevelPartial: part of the rule is enforced; the detail says which part
	// is not.
	LevelPartial Level = "partial"
	// LevelUnenforceable: not enforced at all; the detail says why.
	LevelUnenforceable Level = "unenforceable"
)

func (l Level) rank() int {
	switch l {
	case LevelExact:
		return 0
	case LevelSupplementary:
		return 1
	case LevelRestrictive:
		return 2
	case LevelPartial:
		return 3
	}
	return 4
}

// Fidelity records how one IR rule is enforced on Linux.
type Fidelity struct {
	// Rule is the rule as the author wrote it ("read {home}", "protect .git").
	Rule   string   `json:"rule"`
	Source ir.Range `json:"source"`
	Level  Level    `json:"level"`
	// Mechanism names what enforces the rule besides Landlock.
	Mechanism string `json:"mechanism,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// MinABI is the Landlock ABI the rule needs to be enforced exactly.
	MinABI int `json:"min_abi"`
}

// Requirement is a Landlock feature the profile needs, with the rule that
// needs it and what happens on an older kernel.
type Requirement struct {
	Feature string   `json:"feature"`
	ABI     int      `json:"abi"`
	Kernel  string   `json:"kernel"`
	Rule    string   `json:"rule"`
	Source  ir.Range `json:"source"`
	// Fallback says what enforces the rule, or what is lost, below ABI.
	Fallback string `json:"fallback"`
	// Lost is true when nothing else enforces the rule below ABI (the
	// rule is then not enforced in degraded mode), false when it is enforced
	// by another mechanism or more restrictively.
	Lost bool `json:"lost,omitempty"`
}

// PlanRule is an IR path rule with the Landlock rights of its level.
type PlanRule struct {
	Path   ir.Path   `json:"path"`
	Access ir.Access `json:"access"`
	Rights AccessFS  `json:"rights"`
	Source ir.Range  `json:"source"`
}

// Handled is what a ruleset handles (denies unless granted).
type Handled struct {
	FS     AccessFS  `json:"fs"`
	Net    AccessNet `json:"net"`
	Scoped Scope     `json:"scoped"`
}

// NetPlan is the network part of the plan.
type NetPlan struct {
	Mode ir.NetworkMode `json:"mode"`
	// Namespace: network none may use a fresh network namespace (only a
	// down loopback) where the supervisor cannot refuse abstract binds;
	// see Spec.NewNet.
	Namespace   bool            `json:"namespace"`
	ConnectTCP  []ir.PortRange  `json:"connect_tcp,omitempty"`
	BindTCP     []ir.PortRange  `json:"bind_tcp,omitempty"`
	UnixSockets []ir.SocketRule `json:"unix_sockets,omitempty"`
	Source      ir.Range        `json:"source"`
}

// Symbolic is the layout computed over symbolic paths, for review: anchors
// stay braces ("{cwd}/.git"). Relations between different anchors (is cwd
// inside home?) are only known at run time, where the layout is recomputed
// by the same algorithm.
type Symbolic struct {
	Grants []Grant   `json:"grants"`
	Mounts []MountOp `json:"mounts"`
}

// Plan is the Landlock target's output, stored in artifacts under
// TargetName. It holds everything sbx needs to enforce the profile; paths
// stay symbolic until Bind.
type Plan struct {
	Format      string `json:"format"`
	Profile     string `json:"profile"`
	Unsandboxed bool   `json:"unsandboxed,omitempty"`
	// MinABI is the Landlock ABI at which the profile is enforced exactly;
	// MinKernel the first mainline Linux that has it.
	MinABI       int           `json:"min_abi"`
	MinKernel    string        `json:"min_kernel"`
	Requirements []Requirement `json:"requirements,omitempty"`
	// Handled is what the ruleset handles at MinABI.
	Handled   Handled          `json:"handled"`
	Rules     []PlanRule       `json:"rules,omitempty"`
	Protect   []ir.ProtectRule `json:"protect,omitempty"`
	DenyGlobs []ir.GlobRule    `json:"deny_globs,omitempty"`
	Network   NetPlan          `json:"network"`
	Symbolic  Symbolic         `json:"symbolic"`
	// Base lists what every sandboxed profile gets on Linux besides its rules.
	Base []string `json:"base,omitempty"`
	// Seccomp summarises the seccomp filter.
	Seccomp  []string   `json:"seccomp,omitempty"`
	Fidelity []Fidelity `json:"fidelity"`
}

// BaseAllowances describes the implicit grants of every sandboxed profile on
// Linux (documented; also listed in plans and dry runs).
var BaseAllowances = []string{
	"platform_defaults binds to /usr /bin /sbin /lib /lib32 /lib64 /libx32 /etc (those that exist)",
	"read+write+device ioctl: /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/ptmx /dev/pts; when a rule covers /dev (read /), the rest of /dev is masked (raw disks, /dev/shm)",
	"read: /proc, a fresh procfs of the sandbox's own PID namespace",
}

// StandardDevices are granted DeviceRights in every sandboxed profile.
var StandardDevices = []string{"/dev/full", "/dev/null", "/dev/ptmx", "/dev/pts", "/dev/random", "/dev/tty", "/dev/urandom", "/dev/zero"}

// PlatformDefaults are the paths platform_defaults binds to on Linux.
var PlatformDefaults = []string{"/bin", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/sbin", "/usr"}

// symbolicBindings bind every anchor to "/{anchor}" so the layout algorithm
// can run on symbolic paths; "/" stays the root of everything.
func symbolicBindings() ir.Bindings {
	b := ir.Bindings{}
	for _, a := range ir.KnownAnchors {
		if a != ir.AnchorRoot {
			b[a] = []string{"/{" + a + "}"}
		}
	}
	return b
}

// unsymbolic turns "/{cwd}/x" back into "{cwd}/x".
func unsymbolic(p string) string {
	if strings.HasPrefix(p, "/{") {
		return p[1:]
	}
	return p
}

// ruleTable maps bound rules back to the IR rules they came from.
type ruleTable struct {
	fid []Fidelity
	key map[ruleID]int
	// more counts, per entry, the details apply appended to its Detail
	// and the distinct ones it left out beyond maxDetails.
	more map[int]*moreDetails
}

// maxDetails bounds the details one fidelity entry accumulates. Red team
// 29: a protected name gets one ("rights are inherited from ROOT") per
// writable root, and 9,000 roots made one entry 2.9 MB, built in time
// quadratic in their number (22 s to compile a 150 KB profile).
const maxDetails = 8

type moreDetails struct {
	added  int             // details appended
	seen   map[string]bool // details left out
	suffix string          // what apply last appended: "; and N more"
}

// ruleID identifies a rule of the profile in a ruleTable.
type ruleID struct {
	origin ir.Origin
	sym    string
	acc    ir.Access
	file   string
	at     int
}

func ruleKey(origin ir.Origin, sym string, acc ir.Access, src ir.Range) ruleID {
	return ruleID{origin, sym, acc, src.Filename, src.Start.Byte}
}

func newRuleTable(fs ir.Filesystem) *ruleTable {
	n := len(fs.Rules) + len(fs.Protect) + len(fs.DenyGlobs)
	t := &ruleTable{key: make(map[ruleID]int, n), fid: make([]Fidelity, 0, n)}
	add := func(k ruleID, f Fidelity) {
		if _, ok := t.key[k]; ok {
			return
		}
		t.key[k] = len(t.fid)
		t.fid = append(t.fid, f)
	}
	for _, r := range fs.Rules {
		abi := 3 // truncate must be denied on read-only and denied files
		if r.Access == ir.Write {
			abi = 2 // refer: rename and link across directories
		}
		add(ruleKey(ir.OriginRule, r.Path.String(), r.Access, r.Source),
			Fidelity{Rule: r.Access.String() + " " + r.Path.String(), Source: r.Source, Level: LevelExact, MinABI: abi})
	}
	for _, p := range fs.Protect {
		add(ruleKey(ir.OriginProtect, p.Name, ir.Read, p.Source),
			Fidelity{Rule: "protect " + p.Name, Source: p.Source, Level: LevelExact, MinABI: 3})
	}
	for i, g := range fs.DenyGlobs {
		// The profile language defines how targets without native pattern
		// matching expand a glob: a bounded scan when the command starts
		// (max_depth). That expansion is enforced as defined.
		add(ruleID{origin: "glob", at: i}, Fidelity{Rule: "deny_glob " + g.Pattern, Source: g.Source, Level: LevelSupplementary,
			Mechanism: "scan at start + mount-namespace mask",
			Detail:    fmt.Sprintf("matches are found when sbx starts by scanning at most %d directories below the pattern's anchor (below each readable root for a pattern that matches anywhere) and masked, as the profile language defines for targets without pattern matching; entries created or renamed to a matching name later are not denied", g.MaxDepth),
			MinABI:    3})
	}
	return t
}

// refOf finds the table index of a bound rule.
func (t *ruleTable) refOf(r ir.BoundRule) int {
	if r.Origin == ir.OriginProtect {
		name := r.Symbolic.Rel
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if i, ok := t.key[ruleKey(ir.OriginProtect, name, ir.Read, r.Source)]; ok {
			return i
		}
	}
	if i, ok := t.key[ruleKey(ir.OriginRule, r.Symbolic.String(), r.Access, r.Source)]; ok {
		return i
	}
	return -1
}

// apply merges layout notes: the worst level wins, details accumulate.
func (t *ruleTable) apply(notes []note) {
	for _, n := range notes {
		if n.ref < 0 || n.ref >= len(t.fid) {
			continue
		}
		f := &t.fid[n.ref]
		if n.level.rank() > f.Level.rank() {
			f.Level = n.level
			if n.mechanism != "" {
				f.Mechanism = n.mechanism
			}
		} else if n.level == f.Level && f.Mechanism == "" {
			f.Mechanism = n.mechanism
		}
		if n.detail == "" || strings.Contains(f.Detail, n.detail) {
			continue
		}
		if t.more == nil {
			t.more = map[int]*moreDetails{}
		}
		m := t.more[n.ref]
		if m == nil {
			m = &moreDetails{}
			t.more[n.ref] = m
		}
		if m.added >= maxDetails {
			// Full: count it (once), and say how many were left out.
			if m.seen == nil {
				m.seen = map[string]bool{}
			}
			if !m.seen[n.detail] {
				m.seen[n.detail] = true
				f.Detail = strings.TrimSuffix(f.Detail, m.suffix)
				m.suffix = fmt.Sprintf("; and %d more", len(m.seen))
				f.Detail += m.suffix
			}
			continue
		}
		m.added++
		if f.Detail != "" {
			f.Detail = f.Detail + "; " + n.detail // one string, not two
		} else {
			f.Detail = n.detail
		}
	}
}

// boundInputs turns bound rules into layout inputs.
func boundInputs(bd *ir.Bound, t *ruleTable) []input {
	ins := make([]input, 0, len(bd.Rules))
	for _, r := range bd.Rules {
		ins = append(ins, input{path: r.Path, access: r.Access, ref: t.refOf(r), protect: r.Origin == ir.OriginProtect})
	}
	return ins
}

// Compile produces the plan of p. It never fails for a valid profile: what
// Linux cannot enforce exactly is recorded in Fidelity.
func Compile(p *ir.Profile) (*Plan, error) {
	pl := &Plan{Format: PlanFormat, Profile: p.Name, Unsandboxed: p.Unsandboxed, Fidelity: []Fidelity{}}
	if p.Unsandboxed {
		return pl, nil
	}
	for _, r := range p.Filesystem.Rules {
		rights := AccessFS(0)
		switch r.Access {
		case ir.Read:
			rights = ReadRights
		case ir.Write:
			rights = WriteRights
		}
		pl.Rules = append(pl.Rules, PlanRule{Path: r.Path, Access: r.Access, Rights: rights, Source: r.Source})
	}
	pl.Protect = p.Filesystem.Protect
	pl.DenyGlobs = p.Filesystem.DenyGlobs
	n := p.Network
	pl.Network = NetPlan{Mode: n.Mode, Namespace: n.Mode == ir.NetworkNone, ConnectTCP: n.ConnectTCP, BindTCP: n.BindTCP, UnixSockets: n.UnixSockets, Source: n.Source}
	pl.Base = BaseAllowances

	t := newRuleTable(p.Filesystem)
	bd, err := p.Bind(symbolicBindings())
	if err != nil {
		if errors.Is(err, ir.ErrUnbound) {
			// Red team 28: a deny rule or deny_glob on an anchor from a
			// newer sbc (deny = [path(xdg_config, "secrets")]) is valid
			// IR, kept for a newer sbx, and only a warning in sbc; the
			// plan cannot leave it out (that would grant more), so this
			// target cannot enforce the profile: the artifact is written
			// without its output, with a warning, and sbx refuses it.
			// Before, sbc compile failed with "Target landlock failed".
			return nil, fmt.Errorf("binding %s symbolically: %w: %w", p.Name, err, target.ErrUnsupported)
		}
		return nil, fmt.Errorf("binding %s symbolically: %w", p.Name, err)
	}
	lo := computeLayout(boundInputs(bd, t), unknownView{}, false)
	t.apply(lo.notes)
	for _, g := range lo.grants {
		g.Path = unsymbolic(g.Path)
		pl.Symbolic.Grants = append(pl.Symbolic.Grants, g)
	}
	for _, m := range lo.mounts {
		m.Path = unsymbolic(m.Path)
		pl.Symbolic.Mounts = append(pl.Symbolic.Mounts, m)
	}
	pl.Fidelity = append(pl.Fidelity, t.fid...)
	pl.Fidelity = append(pl.Fidelity, networkFidelity(n, true)...)
	pl.Requirements = requirements(p, pl.Fidelity)
	pl.MinABI = 1
	for _, r := range pl.Requirements {
		pl.MinABI = max(pl.MinABI, r.ABI)
	}
	pl.MinKernel = KernelFor(pl.MinABI)
	pl.Handled = handledAt(pl.MinABI, n.Mode)
	pl.Seccomp = SeccompSummary(seccompFor(n, pl.MinABI, true))
	return pl, nil
}

// handledAt returns what the ruleset handles at abi for a network mode.
func handledAt(abi int, mode ir.NetworkMode) Handled {
	h := Handled{FS: FSRightsAt(abi)}
	if mode != ir.NetworkFull {
		h.Net = NetRightsAt(abi)
		h.Scoped = ScopesAt(abi)
	} else {
		h.Scoped = ScopesAt(abi) & ScopeSignal
	}
	return h
}

// networkFidelity describes the network rules, with or without the
// user-notification supervisor (plans assume it: Linux 6.9+ on amd64 and
// arm64; a run without it reports the fallback).
func networkFidelity(n ir.Network, supervise bool) []Fidelity {
	var out []Fidelity
	socks := "Unix socket connections are denied by seccomp (restrictive: also to sockets the command creates itself, and to abstract sockets)"
	switch {
	case supervise && len(n.UnixSockets) > 0:
		socks = "Unix connect() goes to the seccomp supervisor: only the listed sockets can be connected to (restrictive: not sockets the command creates itself, nor abstract ones); listen() on a Unix socket is refused (it could serve only host processes, in place of a host service's socket in a shared writable directory)"
	case n.Mode == ir.NetworkNone:
		socks = "connect() is denied by seccomp, so no Unix socket can be connected to (restrictive: also sockets the command creates itself); listen() is denied too (a listening Unix socket could serve only host processes, in place of a host service's socket in a shared writable directory)"
	}
	switch n.Mode {
	case ir.NetworkNone:
		out = append(out, Fidelity{Rule: "network none", Source: n.Source, Level: LevelSupplementary,
			Mechanism: "seccomp",
			Detail:    "TCP denied by Landlock; UDP, raw, packet, netlink, MPTCP and every non-Unix socket family denied by seccomp (EACCES); abstract Unix sockets and signals outside the sandbox denied by Landlock scopes; binding an abstract or autobound Unix name denied by the seccomp supervisor (it would be the host's; where the supervisor is unavailable a fresh network namespace holds them instead); /proc/net shows the host's sockets (read-only); " + socks,
			MinABI:    6})
	case ir.NetworkPorts:
		detail := "TCP connect and bind limited to the listed ports by Landlock; only TCP sockets (SOCK_STREAM, protocol 0 or IPPROTO_TCP) may be created: UDP, raw, packet, netlink and MPTCP denied by seccomp (EACCES); abstract Unix sockets and signals outside the sandbox denied by Landlock scopes; " + socks
		level := LevelSupplementary
		switch {
		case len(n.BindTCP) == 0:
			detail += "; listen() is denied (no bind port: a listen() on an unbound socket would pick an ephemeral port)"
		case supervise:
			detail += "; listen() on a socket that was never bound (it would pick an ephemeral port, which Landlock does not check) is refused by the seccomp user-notification supervisor"
		default:
			level = LevelPartial
			detail += "; NOT ENFORCED: listen() on a socket that was never bound picks an ephemeral port, which Landlock does not check (closing it needs the seccomp user-notification supervisor, not available here)"
		}
		if supervise {
			detail += "; binding an abstract or autobound Unix name (on a socketpair end) denied by the seccomp supervisor (the sandbox shares the host's network namespace, so the name would be the host's)"
		} else {
			level = LevelPartial
			detail += "; NOT ENFORCED: a socketpair end can be bound to an abstract Unix name, which is the host's (a host service binding it later fails; refusing it needs the seccomp user-notification supervisor, not available here)"
		}
		out = append(out, Fidelity{Rule: "network ports", Source: n.Source, Level: level, Mechanism: "seccomp", Detail: detail, MinABI: 6})
		for _, r := range n.ConnectTCP {
			out = append(out, Fidelity{Rule: "connect_tcp " + r.String(), Source: r.Source, Level: LevelExact, MinABI: 4})
		}
		for _, r := range n.BindTCP {
			out = append(out, Fidelity{Rule: "bind_tcp " + r.String(), Source: r.Source, Level: LevelExact, MinABI: 4})
		}
	case ir.NetworkFull:
		detail := "no network restriction; " + socks
		if supervise {
			detail += "; binding an abstract or autobound Unix name (on a socketpair end) denied by the seccomp supervisor (the sandbox shares the host's network namespace, so the name would be the host's)"
		}
		out = append(out, Fidelity{Rule: "network full", Source: n.Source, Level: LevelSupplementary, Mechanism: "seccomp",
			Detail: detail, MinABI: 1})
	}
	for _, s := range n.UnixSockets {
		if supervise {
			out = append(out, Fidelity{Rule: "unix_socket " + s.Path.String(), Source: s.Source, Level: LevelSupplementary,
				Mechanism: "seccomp user notification",
				Detail:    "connect() goes to the supervisor, which connects the command's socket itself only when the address names this socket (same device and inode when connecting, symlinks followed; in a directory a command could have written, the socket found there when the run started if the kernel confirms it was bound at that name, and none reached through a symbolic link a command could have planted); every other pathname or abstract Unix address: EACCES (Landlock mediates pathname Unix sockets only from ABI 9)",
				MinABI:    1})
			continue
		}
		out = append(out, Fidelity{Rule: "unix_socket " + s.Path.String(), Source: s.Source, Level: LevelRestrictive,
			Mechanism: "seccomp",
			Detail:    "the socket is NOT reachable: Landlock mediates pathname Unix sockets only from ABI 9 and seccomp cannot read the address, so every Unix connect() is denied (the user-notification supervisor, which connects only to listed sockets, needs Linux 6.9+ on amd64 or arm64)",
			MinABI:    1})
	}
	return out
}

// fallbackLevel is the fidelity of a rule enforced by r's fallback, below
// the ABI r needs: partial where the guarantee is lost, restrictive where
// the fallback denies more than the rule (its text says so), and
// supplementary where another mechanism keeps it.
func (r Requirement) fallbackLevel() Level {
	switch {
	case r.Lost:
		return LevelPartial
	case strings.HasSuffix(r.Fallback, "(restrictive)"):
		return LevelRestrictive
	}
	return LevelSupplementary
}

// requirements lists the Landlock features the profile needs.
func requirements(p *ir.Profile, fid []Fidelity) []Requirement {
	var out []Requirement
	add := func(feature string, abi int, rule string, src ir.Range, fallback string, lost bool) {
		out = append(out, Requirement{Feature: feature, ABI: abi, Kernel: KernelFor(abi), Rule: rule, Source: src, Fallback: fallback, Lost: lost})
	}
	for _, f := range fid {
		switch {
		case strings.HasPrefix(f.Rule, "write "):
			add("refer", 2, f.Rule, f.Source, "rename and link across directories inside writable roots are always denied (restrictive)", false)
		case strings.HasPrefix(f.Rule, "read "), strings.HasPrefix(f.Rule, "deny "), strings.HasPrefix(f.Rule, "protect "), strings.HasPrefix(f.Rule, "deny_glob "):
			add("truncate", 3, f.Rule, f.Source, "truncation is still denied by the read-only mount view (EROFS)", false)
		}
	}
	add("ioctl_dev", 5, "profile "+p.Name, p.Source, "ioctl on devices the command opens is not restricted by Landlock (only /dev/null, /dev/tty, /dev/pts, ... are reachable)", true)
	add("scope_signal", 6, "profile "+p.Name, p.Source, "the PID namespace still hides every process outside the sandbox", false)
	n := p.Network
	switch n.Mode {
	case ir.NetworkNone:
		add("tcp", 4, "network none", n.Source, "TCP is still denied by seccomp and the network namespace", false)
		add("scope_abstract_unix_socket", 6, "network none", n.Source, "abstract Unix sockets outside the sandbox are in another network namespace", false)
	case ir.NetworkPorts:
		for _, r := range n.ConnectTCP {
			add("tcp", 4, "connect_tcp "+r.String(), r.Source, "all TCP sockets are denied by seccomp (restrictive)", false)
		}
		for _, r := range n.BindTCP {
			add("tcp", 4, "bind_tcp "+r.String(), r.Source, "all TCP sockets are denied by seccomp (restrictive)", false)
		}
		if len(n.ConnectTCP)+len(n.BindTCP) == 0 {
			add("tcp", 4, "network ports", n.Source, "all TCP sockets are denied by seccomp (restrictive)", false)
		}
		add("scope_abstract_unix_socket", 6, "network ports", n.Source, "Unix socket creation is denied by seccomp, so no abstract socket is reachable (restrictive)", false)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ABI > out[j].ABI })
	return out
}

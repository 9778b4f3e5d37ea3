// Package ir defines the platform-neutral intermediate representation of a
// sandbox profile: the contract between the HCL front end (package compiler)
// and every target (Seatbelt, Landlock, Windows ACLs) and the executor.
//
// The IR is plain Go data with a canonical JSON encoding. It depends on
// nothing heavier than the standard library so that sbx, which loads
// compiled artifacts, stays small and starts fast.
//
// # Semantics
//
// Filesystem access is one of Deny < Read < Write for every path. A rule
// applies to its path and everything below it. For a given path the most
// specific matching rule (the one whose bound path has the most components)
// wins; at equal specificity Deny beats Write beats Read. A path that no rule
// matches is denied. Deny globs deny every path they match, whatever other
// rule matches (nothing reopens a glob-denied path). Protected names are read
// rules placed at NAME directly below every writable root (see Protect).
//
// Access to a path governs every operation on that path: Read allows reading
// a file's content, listing a directory and executing; Write adds modifying
// content, truncating, changing metadata, and creating, removing or renaming
// the entry itself. So a path whose access is Read cannot be created when it
// does not exist, and cannot be replaced or renamed away.
//
// Paths are symbolic (see Path): anchors such as cwd and home are bound by the
// executor at run time, so one artifact compiled in CI runs on any machine.
package ir

import (
	"fmt"
	"strings"
)

// Format identifies this version of the IR encoding. Readers reject any other
// value.
const Format = "sbx.ir/v1"

// Pos is a position in a source file. Line and Column are 1-based; Column
// counts Unicode characters as HCL does; Byte is the 0-based byte offset.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// Range is the source range of the HCL that produced an IR node. Every node
// carries one so that later stages (policy findings, target fidelity
// warnings, explain) can point at the author's line.
type Range struct {
	Filename string `json:"filename"`
	Start    Pos    `json:"start"`
	End      Pos    `json:"end"`
}

// String formats the range as file:line:col, the form editors understand.
func (r Range) String() string {
	if r.Filename == "" && r.Start.Line == 0 {
		return "<unknown>"
	}
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// Access is the access level a profile grants to a path. The zero value is
// Deny, so an unset access fails closed.
type Access int

// Access levels, ordered: Deny < Read < Write.
const (
	Deny Access = iota
	Read
	Write
)

var accessNames = [...]string{Deny: "deny", Read: "read", Write: "write"}

// String returns "deny", "read" or "write".
func (a Access) String() string {
	if a < Deny || a > Write {
		return fmt.Sprintf("access(%d)", int(a))
	}
	return accessNames[a]
}

// ParseAccess is the inverse of Access.String.
func ParseAccess(s string) (Access, error) {
	for i, n := range accessNames {
		if n == s {
			return Access(i), nil
		}
	}
	return Deny, fmt.Errorf("unknown access %q (want deny, read or write)", s)
}

// MarshalText encodes the access as its name.
func (a Access) MarshalText() ([]byte, error) {
	if a < Deny || a > Write {
		return nil, fmt.Errorf("invalid access %d", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText decodes an access name.
func (a *Access) UnmarshalText(b []byte) error {
	v, err := ParseAccess(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Profile is one compiled sandbox profile.
type Profile struct {
	// Name is the profile's name as declared (`profile "NAME" {}`).
	Name string `json:"name"`
	// Description is the author's one-line summary.
	Description string `json:"description,omitempty"`
	// Extends lists the chain of profiles this one was merged from, nearest
	// first. It is informational: the rules below are already merged.
	Extends []string `json:"extends,omitempty"`
	// Unsandboxed marks a profile that applies no sandbox at all
	// (danger-full-access). Targets emit nothing and sbx says so loudly.
	Unsandboxed bool `json:"unsandboxed,omitempty"`
	// Filesystem holds the path rules.
	Filesystem Filesystem `json:"filesystem"`
	// Network holds the network policy.
	Network Network `json:"network"`
	// Process holds execution limits and the environment policy.
	Process Process `json:"process"`
	// Source is the range of the profile block.
	Source Range `json:"source"`
}

// Filesystem is the set of path rules of a profile.
type Filesystem struct {
	// Rules are read, write and deny rules on paths (and their subtrees).
	Rules []PathRule `json:"rules,omitempty"`
	// DenyGlobs deny every path matching a pattern.
	DenyGlobs []GlobRule `json:"deny_globs,omitempty"`
	// Protect names entries kept read-only, and not creatable, directly below
	// every writable root (".git", ".agents").
	Protect []ProtectRule `json:"protect,omitempty"`
}

// PathRule grants Access to Path and its subtree.
type PathRule struct {
	Path   Path   `json:"path"`
	Access Access `json:"access"`
	Source Range  `json:"source"`
}

// MaxGlobDepth is the largest max_depth of a deny glob.
const MaxGlobDepth = 64

// GlobRule denies every path that matches Pattern.
//
// Pattern is a slash-separated glob over absolute bound paths: `*` matches
// within one component, `**` matches zero or more whole components, `?` one
// character, and `[...]` a character class. A pattern that does not start with
// `/` or an anchor (`{home}/...`) is implicitly prefixed with `**/`, so
// "*.pem" and "**/*.pem" both match a .pem file anywhere. Targets that cannot
// match patterns natively expand them by scanning at most MaxDepth levels of
// directories below the pattern's anchor (its directories before the first
// wildcard), or below each readable root for a pattern that matches
// anywhere.
type GlobRule struct {
	Pattern  string `json:"pattern"`
	MaxDepth int    `json:"max_depth"`
	Source   Range  `json:"source"`
}

// ProtectRule keeps Name read-only and uncreatable directly below every
// writable root.
type ProtectRule struct {
	Name   string `json:"name"`
	Source Range  `json:"source"`
}

// NetworkMode is the coarse network policy.
type NetworkMode string

// Network modes.
const (
	// NetworkNone allows no network access: no TCP, UDP, raw, packet or
	// netlink sockets, no abstract Unix sockets; pathname Unix sockets only
	// where listed.
	NetworkNone NetworkMode = "none"
	// NetworkPorts allows TCP connect and bind on exactly the listed ports.
	NetworkPorts NetworkMode = "ports"
	// NetworkFull applies no network restriction.
	NetworkFull NetworkMode = "full"
)

// Valid reports whether m is a known mode.
func (m NetworkMode) Valid() bool {
	return m == NetworkNone || m == NetworkPorts || m == NetworkFull
}

// Network is the network policy of a profile.
type Network struct {
	Mode NetworkMode `json:"mode"`
	// Reason is the author's justification, expected for mode "full".
	Reason string `json:"reason,omitempty"`
	// ConnectTCP lists TCP ports the sandbox may connect to (mode ports).
	ConnectTCP []PortRange `json:"connect_tcp,omitempty"`
	// BindTCP lists TCP ports the sandbox may bind (mode ports).
	BindTCP []PortRange `json:"bind_tcp,omitempty"`
	// UnixSockets lists pathname Unix sockets the sandbox may connect to, in
	// every mode. Any socket not listed is unreachable.
	UnixSockets []SocketRule `json:"unix_sockets,omitempty"`
	Source      Range        `json:"source"`
}

// PortRange is an inclusive range of TCP ports, 1..65535.
type PortRange struct {
	From   uint16 `json:"from"`
	To     uint16 `json:"to"`
	Source Range  `json:"source"`
}

// Contains reports whether port lies in the range.
func (r PortRange) Contains(port uint16) bool { return port >= r.From && port <= r.To }

// String formats the range as "443" or "8000-8100".
func (r PortRange) String() string {
	if r.From == r.To {
		return fmt.Sprint(r.From)
	}
	return fmt.Sprintf("%d-%d", r.From, r.To)
}

// SocketRule allows connecting to the pathname Unix socket at Path.
type SocketRule struct {
	Path   Path  `json:"path"`
	Source Range `json:"source"`
}

// Process holds execution limits and the environment policy.
type Process struct {
	// TimeoutMS is the wall-clock limit in milliseconds; 0 means the
	// executor's default (10 s).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// OutputCap is the number of bytes retained per stream; 0 means the
	// executor's default (1 MiB).
	OutputCap int64 `json:"output_cap,omitempty"`
	Env       Env   `json:"env"`
	Source    Range `json:"source"`
}

// Path is a symbolic path: an anchor plus a clean relative suffix. Absolute
// paths use the anchor "root". The suffix is slash-separated, has no ".",
// ".." or empty components, and is empty for the anchor itself.
type Path struct {
	Anchor string `json:"anchor"`
	Rel    string `json:"rel,omitempty"`
}

// Anchors known to this version. An artifact may name others (from a newer
// compiler); see Bindings.Resolve for how they are treated.
const (
	AnchorRoot     = "root"      // "/"
	AnchorCwd      = "cwd"       // the workspace: the command's working directory
	AnchorHome     = "home"      // the user's home directory ($HOME)
	AnchorTmpdir   = "tmpdir"    // $TMPDIR, or the platform's temporary directory
	AnchorSlashTmp = "slash_tmp" // /tmp
	// AnchorPlatform stands for the platform's base set of system paths a
	// program needs to start (on Linux /usr, /bin, /lib, /etc, ...). It binds
	// to several paths and takes no suffix.
	AnchorPlatform = "platform_defaults"
)

// KnownAnchors lists the anchors this version understands, sorted.
var KnownAnchors = []string{AnchorCwd, AnchorHome, AnchorPlatform, AnchorRoot, AnchorSlashTmp, AnchorTmpdir}

// IsKnownAnchor reports whether name is an anchor this version binds.
func IsKnownAnchor(name string) bool {
	for _, a := range KnownAnchors {
		if a == name {
			return true
		}
	}
	return false
}

// String formats p as "/abs/path" for root and "{anchor}/rel" otherwise.
func (p Path) String() string {
	if p.Anchor == AnchorRoot {
		return "/" + p.Rel
	}
	if p.Rel == "" {
		return "{" + p.Anchor + "}"
	}
	return "{" + p.Anchor + "}/" + p.Rel
}

// ParsePath parses the String form of a path ("/x/y", "{home}/.ssh").
func ParsePath(s string) (Path, error) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return Path{}, fmt.Errorf("path %q: unterminated anchor", s)
		}
		anchor := s[1:end]
		rest := s[end+1:]
		if rest != "" && rest[0] != '/' {
			return Path{}, fmt.Errorf("path %q: anchor must be followed by / or end", s)
		}
		rel, err := CleanRel(strings.TrimPrefix(rest, "/"))
		if err != nil {
			return Path{}, fmt.Errorf("path %q: %w", s, err)
		}
		return Path{Anchor: anchor, Rel: rel}, nil
	}
	if !strings.HasPrefix(s, "/") {
		return Path{}, fmt.Errorf("path %q is relative: start it with / or an anchor", s)
	}
	rel, err := CleanRel(s[1:])
	if err != nil {
		return Path{}, fmt.Errorf("path %q: %w", s, err)
	}
	return Path{Anchor: AnchorRoot, Rel: rel}, nil
}

// Join returns p extended by the clean relative path rel.
func (p Path) Join(rel string) Path {
	if rel == "" {
		return p
	}
	if p.Rel == "" {
		return Path{Anchor: p.Anchor, Rel: rel}
	}
	return Path{Anchor: p.Anchor, Rel: p.Rel + "/" + rel}
}

// CleanRel normalises a relative slash-separated path lexically: it removes
// empty and "." components and trailing slashes. A ".." component is an error
// rather than resolved, because "a/../b" in a security policy is almost always
// a mistake and resolving it lexically can differ from what the kernel does
// through symlinks.
func CleanRel(rel string) (string, error) {
	if rel == "" {
		return "", nil
	}
	parts := strings.Split(rel, "/")
	out := parts[:0]
	for _, c := range parts {
		switch c {
		case "", ".":
			continue
		case "..":
			return "", fmt.Errorf("contains %q: write the path without it", "..")
		}
		if strings.IndexByte(c, 0) >= 0 {
			return "", fmt.Errorf("contains a NUL byte")
		}
		out = append(out, c)
	}
	return strings.Join(out, "/"), nil
}

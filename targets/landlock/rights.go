package landlock

import (
	"encoding/json"
	"fmt"
	"strings"
)

// AccessFS is a set of Landlock filesystem access rights, with the bit values
// of the kernel's LANDLOCK_ACCESS_FS_* constants (include/uapi/linux/landlock.h).
//
// A right that a ruleset handles is denied everywhere except beneath the
// hierarchies a rule grants it on. Rights on a directory apply to its whole
// subtree; stacked grants only add up (Landlock is allow-only).
type AccessFS uint64

// Filesystem rights. The comment gives the first ABI that knows the right.
const (
	FSExecute    AccessFS = 1 << iota // execute a file (ABI 1)
	FSWriteFile                       // open a file for writing (ABI 1)
	FSReadFile                        // open a file for reading (ABI 1)
	FSReadDir                         // open a directory or list its content (ABI 1)
	FSRemoveDir                       // remove an empty directory or rename one (ABI 1)
	FSRemoveFile                      // unlink or rename a non-directory (ABI 1)
	FSMakeChar                        // create a character device (ABI 1)
	FSMakeDir                         // create a directory (ABI 1)
	FSMakeReg                         // create a regular file (ABI 1)
	FSMakeSock                        // create a Unix domain socket (ABI 1)
	FSMakeFifo                        // create a named pipe (ABI 1)
	FSMakeBlock                       // create a block device (ABI 1)
	FSMakeSym                         // create a symbolic link (ABI 1)
	FSRefer                           // link or rename a file from or to a different directory (ABI 2)
	FSTruncate                        // truncate a file (ABI 3)
	FSIoctlDev                        // ioctl on a character or block device opened after sandboxing (ABI 5)
)

var fsNames = [...]string{
	"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
	"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
	"make_sym", "refer", "truncate", "ioctl_dev",
}

// Rights granted per access level. They never include FSMakeChar or
// FSMakeBlock: no profile can grant the creation of device nodes.
const (
	// ReadRights is what Read grants: reading files, listing directories and
	// executing (the IR's Read includes execution, so there is no readable
	// but non-executable path for the dynamic loader to exploit).
	ReadRights = FSExecute | FSReadFile | FSReadDir
	// WriteRights is what Write grants on top of ReadRights.
	WriteRights = ReadRights | FSWriteFile | FSTruncate | FSRemoveDir | FSRemoveFile |
		FSMakeReg | FSMakeDir | FSMakeSym | FSMakeFifo | FSMakeSock | FSRefer
	// NoCreateRights is what a writable directory keeps when a protected or
	// narrower name below it does not exist: content of existing files stays
	// writable and entries removable, but nothing can be created or moved in.
	NoCreateRights = ReadRights | FSWriteFile | FSTruncate | FSRemoveDir | FSRemoveFile
	// NoCreateNoRemoveRights is NoCreateRights without removal, used where a
	// narrower name is a symbolic link that could otherwise be replaced.
	NoCreateNoRemoveRights = ReadRights | FSWriteFile | FSTruncate
	// DeviceRights is granted on the standard devices (/dev/null, ...):
	// reading, writing and device ioctls (terminal ioctls on /dev/pts, /dev/tty).
	DeviceRights = FSReadFile | FSWriteFile | FSIoctlDev
	// FileRights are the only rights valid on a rule whose object is not a
	// directory; the kernel rejects others with EINVAL.
	FileRights = FSExecute | FSWriteFile | FSReadFile | FSTruncate | FSIoctlDev
)

// Names returns the right names in bit order (the landlockconfig spelling).
func (a AccessFS) Names() []string {
	var out []string
	for i, n := range fsNames {
		if a&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if rest := a &^ (1<<len(fsNames) - 1); rest != 0 {
		out = append(out, fmt.Sprintf("0x%x", uint64(rest)))
	}
	return out
}

// String joins Names with "|".
func (a AccessFS) String() string {
	if a == 0 {
		return "none"
	}
	return strings.Join(a.Names(), "|")
}

// MarshalJSON encodes the set as a list of names so plans stay readable.
func (a AccessFS) MarshalJSON() ([]byte, error) { return json.Marshal(nonNil(a.Names())) }

// UnmarshalJSON is the inverse of MarshalJSON.
func (a *AccessFS) UnmarshalJSON(b []byte) error {
	v, err := parseNames(b, fsNames[:])
	*a = AccessFS(v)
	return err
}

// AccessNet is a set of Landlock network rights (LANDLOCK_ACCESS_NET_*, ABI 4).
// They cover TCP only: UDP, raw, packet, netlink, SCTP and MPTCP sockets are
// not mediated and need another mechanism (seccomp, network namespace).
type AccessNet uint64

// Network rights.
const (
	NetBindTCP    AccessNet = 1 << iota // bind a TCP socket to a port
	NetConnectTCP                       // connect a TCP socket to a remote port
)

var netNames = [...]string{"bind_tcp", "connect_tcp"}

// Names returns the right names in bit order.
func (a AccessNet) Names() []string {
	var out []string
	for i, n := range netNames {
		if a&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// MarshalJSON encodes the set as a list of names.
func (a AccessNet) MarshalJSON() ([]byte, error) { return json.Marshal(nonNil(a.Names())) }

// UnmarshalJSON is the inverse of MarshalJSON.
func (a *AccessNet) UnmarshalJSON(b []byte) error {
	v, err := parseNames(b, netNames[:])
	*a = AccessNet(v)
	return err
}

// Scope is a set of Landlock IPC scopes (LANDLOCK_SCOPE_*, ABI 6): a scoped
// domain cannot reach the matching resources of processes outside it.
type Scope uint64

// Scopes.
const (
	// ScopeAbstractUnixSocket denies connecting to abstract Unix sockets
	// created outside the domain (EPERM).
	ScopeAbstractUnixSocket Scope = 1 << iota
	// ScopeSignal denies sending signals to processes outside the domain (EPERM).
	ScopeSignal
)

var scopeNames = [...]string{"abstract_unix_socket", "signal"}

// Names returns the scope names in bit order.
func (s Scope) Names() []string {
	var out []string
	for i, n := range scopeNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// MarshalJSON encodes the set as a list of names.
func (s Scope) MarshalJSON() ([]byte, error) { return json.Marshal(nonNil(s.Names())) }

// UnmarshalJSON is the inverse of MarshalJSON.
func (s *Scope) UnmarshalJSON(b []byte) error {
	v, err := parseNames(b, scopeNames[:])
	*s = Scope(v)
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func parseNames(b []byte, names []string) (uint64, error) {
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return 0, err
	}
	var v uint64
next:
	for _, n := range list {
		for i, k := range names {
			if k == n {
				v |= 1 << i
				continue next
			}
		}
		return 0, fmt.Errorf("unknown Landlock right %q", n)
	}
	return v, nil
}

// MaxKnownABI is the newest Landlock ABI this package knows the rights of.
// Newer kernels are used at this ABI (their extra rights stay unhandled,
// which never grants more than the plan).
const MaxKnownABI = 7

// abiKernel is the first mainline kernel of each ABI.
var abiKernel = [...]string{0: "", 1: "5.13", 2: "5.19", 3: "6.2", 4: "6.7", 5: "6.10", 6: "6.12", 7: "6.15", 8: "7.0", 9: "7.1"}

// KernelFor returns the first mainline Linux version providing ABI abi.
func KernelFor(abi int) string {
	if abi <= 0 {
		return "none"
	}
	if abi < len(abiKernel) {
		return abiKernel[abi]
	}
	return "newer than " + abiKernel[len(abiKernel)-1]
}

// FSRightsAt returns every filesystem right the kernel handles at ABI abi.
func FSRightsAt(abi int) AccessFS {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return FSMakeSym<<1 - 1
	case abi == 2:
		return FSRefer<<1 - 1
	case abi <= 4:
		return FSTruncate<<1 - 1
	default:
		return FSIoctlDev<<1 - 1
	}
}

// NetRightsAt returns the network rights the kernel handles at ABI abi.
func NetRightsAt(abi int) AccessNet {
	if abi >= 4 {
		return NetBindTCP | NetConnectTCP
	}
	return 0
}

// ScopesAt returns the scopes the kernel handles at ABI abi.
func ScopesAt(abi int) Scope {
	if abi >= 6 {
		return ScopeAbstractUnixSocket | ScopeSignal
	}
	return 0
}

package landlock

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The sock_diag interface for Unix sockets (linux/unix_diag.h).
const (
	udiagShowName = 0x1 // UDIAG_SHOW_NAME
	udiagShowVFS  = 0x2 // UDIAG_SHOW_VFS
	unixDiagName  = 0   // UNIX_DIAG_NAME
	unixDiagVFS   = 1   // UNIX_DIAG_VFS
)

// unixDiagReq is struct unix_diag_req.
type unixDiagReq struct {
	family, protocol uint8
	pad              uint16
	states, ino      uint32
	show             uint32
	cookie           [2]uint32
}

// socketNames returns the names the Unix sockets whose file is (dev, ino)
// (stat's encoding) were bound with, as the kernel keeps them (the
// sun_path given to bind, which renaming or linking the file does not
// change), from a sock_diag dump of this network namespace's sockets,
// which needs no privilege. None: no socket of this namespace is bound to
// that file (a stale file, or a service in another namespace).
func socketNames(dev, ino uint64) ([]string, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag socket: %w", err)
	}
	defer unix.Close(fd)
	req := unixDiagReq{family: unix.AF_UNIX, states: ^uint32(0), show: udiagShowName | udiagShowVFS}
	const hl = unix.SizeofNlMsghdr
	msg := make([]byte, hl+int(unsafe.Sizeof(req)))
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	binary.NativeEndian.PutUint32(msg[8:], 1) // sequence
	copy(msg[hl:], unsafe.Slice((*byte)(unsafe.Pointer(&req)), unsafe.Sizeof(req)))
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag request: %w", err)
	}
	// The kernel's dev_t (major in the bits above 20) of the socket's file.
	kdev := uint32(unix.Major(dev))<<20 | uint32(unix.Minor(dev))
	var names []string
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, fmt.Errorf("sock_diag reply: %w", err)
		}
		for b := buf[:n]; len(b) >= hl; {
			l := int(binary.NativeEndian.Uint32(b[0:]))
			typ := binary.NativeEndian.Uint16(b[4:])
			if l < hl || l > len(b) {
				return nil, fmt.Errorf("sock_diag reply: malformed message")
			}
			switch typ {
			case unix.NLMSG_DONE:
				return names, nil
			case unix.NLMSG_ERROR:
				if l >= hl+4 {
					if e := int32(binary.NativeEndian.Uint32(b[hl:])); e != 0 {
						return nil, fmt.Errorf("sock_diag: %w", unix.Errno(-e))
					}
				}
				return names, nil
			}
			if name, vdev, vino, ok := parseUnixDiag(b[hl:l]); ok && vino == uint32(ino) && vdev == kdev {
				names = append(names, name)
			}
			b = b[(l+3)&^3:]
		}
	}
}

// parseUnixDiag reads one unix_diag_msg and its name and vfs attributes.
func parseUnixDiag(b []byte) (name string, dev, ino uint32, ok bool) {
	const msgLen = 16 // struct unix_diag_msg
	if len(b) < msgLen {
		return "", 0, 0, false
	}
	hasVFS := false
	for a := b[msgLen:]; len(a) >= 4; {
		l := int(binary.NativeEndian.Uint16(a[0:]))
		typ := binary.NativeEndian.Uint16(a[2:]) & 0x3fff
		if l < 4 || l > len(a) {
			break
		}
		v := a[4:l]
		switch typ {
		case unixDiagName:
			if len(v) > 0 && v[0] != 0 { // (an abstract name starts with NUL)
				if i := bytes.IndexByte(v, 0); i >= 0 {
					v = v[:i] // a pathname's terminating NUL
				}
			}
			name = string(v)
		case unixDiagVFS:
			if len(v) >= 8 {
				ino, dev, hasVFS = binary.NativeEndian.Uint32(v[0:]), binary.NativeEndian.Uint32(v[4:]), true
			}
		}
		if (l+3)&^3 > len(a) {
			break
		}
		a = a[(l+3)&^3:]
	}
	return name, dev, ino, hasVFS
}

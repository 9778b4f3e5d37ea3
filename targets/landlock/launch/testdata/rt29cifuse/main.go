//go:build linux

// Command rt29cifuse mounts a directory through FUSE as a case-insensitive
// file system, as virtiofs and 9p serve a macOS or Windows host's
// directories (Lima, Docker Desktop, WSL's /mnt/c) and as CIFS serves a
// Windows share: a lookup that finds no exact name takes the entry whose
// name matches it without case, so ".GIT" is the same file as ".git" (the
// same node, hence the same inode in the kernel, under a dentry of its
// own). Only what red team 29's test needs is served.
//
//	rt29cifuse [-p] [-u] [-w] BACKING MOUNTPOINT   (runs until unmounted; prints "ready")
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	opLookup      = 1
	opForget      = 2
	opGetattr     = 3
	opSetattr     = 4
	opMknod       = 8
	opMkdir       = 9
	opUnlink      = 10
	opRmdir       = 11
	opOpen        = 14
	opRead        = 15
	opWrite       = 16
	opStatfs      = 17
	opRelease     = 18
	opFlush       = 25
	opInit        = 26
	opOpendir     = 27
	opReaddir     = 28
	opReleasedir  = 29
	opCreate      = 35
	opInterrupt   = 36
	opDestroy     = 38
	opBatchForget = 42
)

var (
	le    = binary.LittleEndian
	paths = map[uint64]string{}
	// perPath: -p, a node per spelling (see node).
	perPath bool
	// upcase: -u, names compared as NTFS compares them, each letter
	// mapped to its upper case (so "\u0131", the dotless i, is "I"),
	// as Windows serves them over SMB and to WSL; otherwise Unicode
	// simple case folding (strings.EqualFold).
	upcase bool
	// win: -w, names lose their trailing dots and spaces, as Windows'
	// Win32 layer strips them (".git." is ".git").
	win   bool
	files = map[uint64]*os.File{}
	nextF uint64
)

func node(p, spelled string, st *unix.Stat_t) uint64 {
	id := st.Ino + 1<<40
	if perPath {
		// A node per name, as libfuse's high-level (path) API assigns
		// them (ciopfs, sshfs, bindfs): another spelling is another
		// inode in the kernel, a directory included.
		id = 2
		for _, c := range spelled {
			id = id*1000003 + uint64(c)
		}
		id |= 1 << 62
	}
	if p == paths[1] {
		id = 1
	}
	paths[id] = p
	return id
}

// find resolves name in dir without case when no exact entry exists.
func find(dir, name string) string {
	if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
		return filepath.Join(dir, name)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if upcase && strings.ToUpper(e.Name()) == strings.ToUpper(name) || !upcase && strings.EqualFold(e.Name(), name) {
			return filepath.Join(dir, e.Name())
		}
	}
	return filepath.Join(dir, name)
}

func attr(st *unix.Stat_t, id uint64) []byte {
	b := make([]byte, 88)
	le.PutUint64(b[0:], id)
	le.PutUint64(b[8:], uint64(st.Size))
	le.PutUint64(b[16:], uint64(st.Blocks))
	le.PutUint64(b[24:], uint64(st.Atim.Sec))
	le.PutUint64(b[32:], uint64(st.Mtim.Sec))
	le.PutUint64(b[40:], uint64(st.Ctim.Sec))
	le.PutUint32(b[60:], st.Mode)
	le.PutUint32(b[64:], uint32(st.Nlink))
	le.PutUint32(b[68:], st.Uid)
	le.PutUint32(b[72:], st.Gid)
	le.PutUint32(b[80:], 4096)
	return b
}

func entry(p string) ([]byte, syscall.Errno) { return entryAs(p, p) }

// entryAs is entry for p looked up as spelled.
func entryAs(p, spelled string) ([]byte, syscall.Errno) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return nil, err.(syscall.Errno)
	}
	id := node(p, spelled, &st)
	b := make([]byte, 40)
	le.PutUint64(b[0:], id)
	// Valid for 0 s: every lookup reaches the server.
	return append(b, attr(&st, id)...), 0
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if win {
		// Windows' Win32 names: trailing dots and spaces are dropped.
		if t := strings.TrimRight(string(b), ". "); t != "" {
			return t
		}
	}
	return string(b)
}

func owner(p string, uid, gid uint32) { os.Lchown(p, int(uid), int(gid)) }

func main() {
	args := os.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		perPath = perPath || args[0] == "-p"
		upcase = upcase || args[0] == "-u"
		win = win || args[0] == "-w"
		args = args[1:]
	}
	backing, mnt := args[0], args[1]
	paths[1] = backing
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other,default_permissions", fd)
	if err := unix.Mount("rt29cifuse", mnt, "fuse.rt29cifuse", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		fmt.Fprintln(os.Stderr, "mount:", err)
		os.Exit(1)
	}
	fmt.Println("ready")
	buf := make([]byte, 1<<20+4096)
	for {
		n, err := unix.Read(fd, buf)
		if err == unix.EINTR || err == unix.EAGAIN || err == unix.ENOENT {
			continue
		}
		if err != nil || n < 40 {
			return // unmounted (ENODEV)
		}
		in := buf[:n]
		op, uniq, id := le.Uint32(in[4:]), le.Uint64(in[8:]), le.Uint64(in[16:])
		uid, gid := le.Uint32(in[24:]), le.Uint32(in[28:])
		arg := in[40:]
		out, errno := serve(op, id, uid, gid, arg)
		if op == opForget || op == opBatchForget || op == opInterrupt {
			continue
		}
		h := make([]byte, 16)
		if errno != 0 {
			out = nil
		}
		le.PutUint32(h[0:], uint32(16+len(out)))
		le.PutUint32(h[4:], uint32(-int32(errno)))
		le.PutUint64(h[8:], uniq)
		unix.Write(fd, append(h, out...))
		if op == opDestroy {
			return
		}
	}
}

func serve(op uint32, id uint64, uid, gid uint32, arg []byte) ([]byte, syscall.Errno) {
	p, ok := paths[id]
	if !ok && op != opInit {
		return nil, unix.ESTALE
	}
	var st unix.Stat_t
	switch op {
	case opInit:
		b := make([]byte, 64)
		le.PutUint32(b[0:], 7)
		le.PutUint32(b[4:], 31)
		le.PutUint32(b[8:], le.Uint32(arg[8:]))
		le.PutUint32(b[20:], 1<<20) // max_write
		le.PutUint32(b[24:], 1)     // time_gran
		le.PutUint16(b[28:], 256)   // max_pages
		return b, 0
	case opLookup:
		return entryAs(find(p, cstr(arg)), filepath.Join(p, cstr(arg)))
	case opGetattr, opSetattr:
		if op == opSetattr {
			valid := le.Uint32(arg[0:])
			if valid&1 != 0 {
				os.Chmod(p, os.FileMode(le.Uint32(arg[68:])&0o777))
			}
			if valid&8 != 0 {
				os.Truncate(p, int64(le.Uint64(arg[16:])))
			}
		}
		if err := unix.Lstat(p, &st); err != nil {
			return nil, err.(syscall.Errno)
		}
		b := make([]byte, 16)
		return append(b, attr(&st, id)...), 0
	case opMkdir:
		mode, umask := le.Uint32(arg[0:]), le.Uint32(arg[4:])
		q := filepath.Join(p, cstr(arg[8:]))
		if find(p, cstr(arg[8:])) != q {
			return nil, unix.EEXIST
		}
		if err := unix.Mkdir(q, mode&^umask&0o7777); err != nil {
			return nil, err.(syscall.Errno)
		}
		owner(q, uid, gid)
		return entry(q)
	case opMknod:
		mode, umask := le.Uint32(arg[0:]), le.Uint32(arg[8:])
		q := filepath.Join(p, cstr(arg[16:]))
		if find(p, cstr(arg[16:])) != q {
			return nil, unix.EEXIST
		}
		if err := unix.Mknod(q, mode&^umask, 0); err != nil {
			return nil, err.(syscall.Errno)
		}
		owner(q, uid, gid)
		return entry(q)
	case opCreate:
		flags, mode, umask := le.Uint32(arg[0:]), le.Uint32(arg[4:]), le.Uint32(arg[8:])
		name := cstr(arg[16:])
		q := find(p, name)
		f, err := os.OpenFile(q, int(flags)&^(unix.O_EXCL|unix.O_APPEND)|os.O_CREATE, os.FileMode(mode&^umask&0o777))
		if err != nil {
			return nil, err.(*os.PathError).Err.(syscall.Errno)
		}
		owner(q, uid, gid)
		e, errno := entry(q)
		if errno != 0 {
			f.Close()
			return nil, errno
		}
		nextF++
		files[nextF] = f
		o := make([]byte, 16)
		le.PutUint64(o[0:], nextF)
		return append(e, o...), 0
	case opOpen, opOpendir:
		flags := le.Uint32(arg[0:])
		if op == opOpendir {
			flags = unix.O_RDONLY | unix.O_DIRECTORY
		}
		f, err := os.OpenFile(p, int(flags)&^(unix.O_CREAT|unix.O_EXCL|unix.O_APPEND), 0)
		if err != nil {
			return nil, err.(*os.PathError).Err.(syscall.Errno)
		}
		nextF++
		files[nextF] = f
		o := make([]byte, 16)
		le.PutUint64(o[0:], nextF)
		return o, 0
	case opRead:
		f := files[le.Uint64(arg[0:])]
		b := make([]byte, le.Uint32(arg[16:]))
		n, _ := f.ReadAt(b, int64(le.Uint64(arg[8:])))
		return b[:n], 0
	case opWrite:
		f := files[le.Uint64(arg[0:])]
		size := le.Uint32(arg[16:])
		n, err := f.WriteAt(arg[40:40+size], int64(le.Uint64(arg[8:])))
		if err != nil {
			return nil, unix.EIO
		}
		o := make([]byte, 8)
		le.PutUint32(o[0:], uint32(n))
		return o, 0
	case opRelease, opReleasedir:
		if f := files[le.Uint64(arg[0:])]; f != nil {
			f.Close()
			delete(files, le.Uint64(arg[0:]))
		}
		return nil, 0
	case opFlush:
		return nil, 0
	case opReaddir:
		off, size := le.Uint64(arg[8:]), le.Uint32(arg[16:])
		ents, _ := os.ReadDir(p)
		var b []byte
		for i := int(off); i < len(ents); i++ {
			name := ents[i].Name()
			d := make([]byte, 24+(len(name)+7)&^7)
			le.PutUint64(d[0:], uint64(i+2))
			le.PutUint64(d[8:], uint64(i+1))
			le.PutUint32(d[16:], uint32(len(name)))
			copy(d[24:], name)
			if len(b)+len(d) > int(size) {
				break
			}
			b = append(b, d...)
		}
		return b, 0
	case opUnlink, opRmdir:
		q := find(p, cstr(arg))
		var err error
		if op == opUnlink {
			err = unix.Unlink(q)
		} else {
			err = unix.Rmdir(q)
		}
		if err != nil {
			return nil, err.(syscall.Errno)
		}
		return nil, 0
	case opStatfs:
		b := make([]byte, 80)
		le.PutUint32(b[40:], 4096)
		le.PutUint32(b[44:], 255)
		le.PutUint32(b[48:], 4096)
		return b, 0
	case opForget, opBatchForget, opInterrupt, opDestroy:
		return nil, 0
	}
	return nil, unix.ENOSYS
}

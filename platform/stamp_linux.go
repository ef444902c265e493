package platform

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// canStamp is whether files can be witnessed here (see policycache.go).
const canStamp = true

// statStamp returns path's stamp, links followed. ok is false when the
// answer is neither the file nor its absence (no permission, an I/O
// error): such a witness cannot be trusted.
func statStamp(path string) (stamp, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return stamp{}, errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR)
	}
	return stampOf(&st), true
}

// stampOf is the stamp of the file st describes.
func stampOf(st *unix.Stat_t) stamp {
	return stamp{Exists: true, Dev: st.Dev, Ino: st.Ino, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}

// fdStamp is the stamp of the file open at fd; not Exists when it
// cannot be read.
func fdStamp(fd int) stamp {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return stamp{}
	}
	return stampOf(&st)
}

// readOwnFile reads file when it is a regular file (not a link), owned
// by the effective user, that no one else may read or write, of at most
// max bytes.
func readOwnFile(file string, max int64) ([]byte, bool) {
	data, err := smallfile.Read(file, unix.O_NOFOLLOW, max, func(st *unix.Stat_t) error {
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) || st.Mode&0o077 != 0 {
			return errNotOwn
		}
		return nil
	})
	return data, err == nil
}

// errNotOwn is readOwnFile's refusal of a file that is not the user's alone.
var errNotOwn = errors.New("not a regular file of the user's alone")

// inode is fi's inode number.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

// ownShut reports whether dir is a directory of this user's that its
// owner may not enter: a mode the owner (a sandboxed command too) can
// change back.
func ownShut(dir string) bool {
	var st unix.Stat_t
	return unix.Lstat(dir, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Geteuid() && st.Mode&0o100 == 0
}

// othersDir reports whether dir is known to be another user's: a mode
// this user set cannot be its reason for refusing a listing.
func othersDir(dir string) bool {
	var st unix.Stat_t
	return unix.Stat(dir, &st) == nil && int(st.Uid) != os.Geteuid()
}

// ownReachable reports whether dir is the effective user's and may be
// entered, every directory on the way too, without a capability (as
// inside the sandbox).
func ownReachable(dir string) bool {
	var st unix.Stat_t
	if unix.Lstat(dir, &st) != nil || int(st.Uid) != os.Geteuid() {
		return false
	}
	return searchable(dir, map[string]bool{})
}

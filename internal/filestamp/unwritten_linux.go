package filestamp

import (
	"os"

	"golang.org/x/sys/unix"
)

// Unwritten reports whether no one has the file f (opened read-only)
// open for writing at this moment, a writable shared mapping included
// (it holds the file open after its descriptor is closed): the kernel
// then grants a read lease, which is given back at once. The stamp of a
// file that nothing holds open for writing moves on at its next change
// (a new mapping's first write sets its times), but a mapping made
// earlier writes through pages it has already dirtied without touching
// them: a stamp alone never vouches for a file someone may still write.
// False when leases cannot be taken (not the file's owner, leases off,
// a file system without them).
func Unwritten(f *os.File) bool {
	conn, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	conn.Control(func(fd uintptr) {
		if _, err := unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_RDLCK); err == nil {
			ok = true
			unix.FcntlInt(fd, unix.F_SETLEASE, unix.F_UNLCK)
		}
	})
	return ok
}

//go:build unix

package decide

import (
	"os"

	"golang.org/x/sys/unix"
)

// mkdirBelow makes home/names[0]/names[1]/... one directory at a time,
// each opened relative to the one before without following links, and
// stops at the first one that is not a directory of this user's that
// nobody else can write.
func mkdirBelow(home string, names []string) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Open(home, flags, 0)
	if err != nil {
		return
	}
	for _, name := range names {
		if !soundDir(fd) {
			break
		}
		next, err := unix.Openat(fd, name, flags, 0)
		if err == unix.ENOENT {
			if err := unix.Mkdirat(fd, name, 0o700); err != nil && err != unix.EEXIST {
				break
			}
			next, err = unix.Openat(fd, name, flags, 0)
		}
		if err != nil {
			break // a link, a file, or unreadable
		}
		unix.Close(fd)
		fd = next
	}
	unix.Close(fd)
}

// soundDir reports whether the directory open at fd belongs to this user
// and no one else can write it.
func soundDir(fd int) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	return int(st.Uid) == os.Geteuid() && st.Mode&0o022 == 0
}

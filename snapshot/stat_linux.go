package snapshot

import (
	"os"
	"syscall"
)

// ctimeHeld says whether ctime is the inode's change time, which no
// unprivileged process can set back (else it is the settable mtime).
const ctimeHeld = true

// ctime is when fi's inode last changed, which no program can set back
// (the modification time it can).
func ctime(fi os.FileInfo) (sec, nsec int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Sec, st.Ctim.Nsec
	}
	return 0, 0
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

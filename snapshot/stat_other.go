//go:build unix && !linux && !darwin && !freebsd

package snapshot

import "os"

// ctimeHeld says whether ctime is the inode's change time, which no
// unprivileged process can set back (else it is the settable mtime).
const ctimeHeld = false

// ctime: the modification time stands in here.
func ctime(fi os.FileInfo) (sec, nsec int64) {
	t := fi.ModTime()
	return t.Unix(), int64(t.Nanosecond())
}

func inode(fi os.FileInfo) uint64 { return 0 }

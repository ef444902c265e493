package snapshot

import "os"

// ctime is not kept on Windows: the modification time stands in.
func ctime(fi os.FileInfo) (sec, nsec int64) {
	t := fi.ModTime()
	return t.Unix(), int64(t.Nanosecond())
}

func inode(fi os.FileInfo) uint64 { return 0 }

package snapshot

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lock takes the store's exclusive lock; unlock releases it.
func (s *Store) lock() (unlock func(), err error) {
	return flock(filepath.Join(s.Dir, "lock"), true)
}

// flock locks file (made if missing), waiting when wait is true.
func flock(file string, wait bool) (func(), error) {
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot lock the snapshot store: %v", err)
	}
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// ctime is not kept on Windows: the modification time stands in.
func ctime(fi os.FileInfo) (sec, nsec int64) {
	t := fi.ModTime()
	return t.Unix(), int64(t.Nanosecond())
}

func inode(fi os.FileInfo) uint64 { return 0 }

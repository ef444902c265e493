package filelock

import (
	"os"

	"golang.org/x/sys/windows"
)

// Lock locks the open file f, waiting for another holder; closing f
// releases it.
func Lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}

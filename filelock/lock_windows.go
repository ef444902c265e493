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

// TryLock locks the open file f unless another holds it, and reports
// whether it did.
func TryLock(f *os.File) bool {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped)) == nil
}

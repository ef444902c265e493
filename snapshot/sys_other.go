//go:build !linux

package snapshot

import (
	"errors"
	"os"
)

// clone is FICLONE's counterpart; TODO: clonefile(2) on macOS. Without
// it the content is copied.
func clone(dst, src *os.File) error { return errors.ErrUnsupported }

// openFile opens path for reading, not following a final symlink where
// the system says so.
func openFile(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.Open(path)
}

// waitPidfd is Linux's; elsewhere the process is polled.
func waitPidfd(pid int, start string) bool { return false }

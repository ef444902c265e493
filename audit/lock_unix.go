//go:build unix

package audit

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive lock on the file name, made if missing.
func lock(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

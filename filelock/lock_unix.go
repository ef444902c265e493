//go:build unix

package filelock

import (
	"os"

	"golang.org/x/sys/unix"
)

// Lock locks the open file f, waiting for another holder; closing f
// releases it.
func Lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}

// TryLock locks the open file f unless another holds it, and reports
// whether it did.
func TryLock(f *os.File) bool {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

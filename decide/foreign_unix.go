//go:build !windows

package decide

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// stateReadOnly reports whether the state directory cannot be written
// here (nothing of cordon's can be recorded): read-only, or missing
// under a read-only parent.
func stateReadOnly(state string) bool {
	if state == "" {
		return true
	}
	for d := state; ; d = filepath.Dir(d) {
		err := unix.Access(d, unix.W_OK)
		if err == nil {
			return false
		}
		if !errors.Is(err, unix.ENOENT) || filepath.Dir(d) == d {
			return true
		}
	}
}

// privateDir reports whether dir is a directory of this user's that no
// one else can write, not a link.
func privateDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

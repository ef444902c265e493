//go:build unix

package cli

import (
	"os"
	"syscall"
)

// owner is the user id that owns the file fi describes.
func owner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

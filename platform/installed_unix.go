//go:build !windows

package platform

import (
	"os"
	"syscall"
)

// trustedOwner reports whether fi belongs to root or to this user.
func trustedOwner(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	uid := uint32(st.Uid)
	if uid == 0 || uid == uint32(os.Getuid()) {
		return true
	}
	root, ok := unmappedRoot()
	return ok && uid == root
}

//go:build !windows

package platform

import (
	"os"
	"syscall"
	"time"
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

// changedSince reports whether fi belongs to this user and its status
// changed at or after since(): the agent's file tools, which write as
// this user outside cordon, may have written it. One whose change time
// cannot be read counts as changed.
func changedSince(fi os.FileInfo, since func() time.Time) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	if uint32(st.Uid) != uint32(os.Getuid()) {
		return false
	}
	t, ok := statusChange(st)
	return !ok || !t.Before(since())
}

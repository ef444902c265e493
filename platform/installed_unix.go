//go:build !windows

package platform

import (
	"os"
	"sync"
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

// writtenSince reports whether the file or directory fi at path, a
// program cordon may run on the host or a directory it is looked for in,
// may be the agent's work: [changedSince]. For root, whose tools (and
// whose package upgrades, and whoever hard-links a system file) change
// root's files all the time, only those in root's home directory, where
// an agent's file tool puts a program (~/.local/bin), are held to it: a
// root agent's tool writing into /usr/local/bin is not told apart.
func writtenSince(path string, fi os.FileInfo, since func() time.Time) bool {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == 0 && os.Getuid() == 0 {
		if home := ownHome(); home == "" || home == "/" || !Within(path, home) {
			return false
		}
	}
	return changedSince(fi, since)
}

// ownHome is [AccountHome], looked up once: writtenSince asks it for
// every directory on PATH.
var ownHome = sync.OnceValue(AccountHome)

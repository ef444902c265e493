package platform

import (
	"syscall"
	"time"
)

// unmappedRoot: there are no user namespaces here.
func unmappedRoot() (uint32, bool) { return 0, false }

// foldsCase: macOS file systems ignore case by default, so a path can
// name a writable directory in a case the roots do not match.
const foldsCase = true

// statusChange is when the file's inode last changed (content, owner,
// mode, links, name): no unprivileged process can set it back.
func statusChange(st *syscall.Stat_t) (time.Time, bool) {
	return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec), true
}

package platform

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// foldsCase: Linux file systems tell case apart (a casefolded directory
// inside a writable root is inside it in any case).
const foldsCase = false

// unmappedRoot returns the owner that root's files show inside a user
// namespace that does not map root (bubblewrap run by an ordinary
// user): the overflow uid. ok is false outside such a namespace.
func unmappedRoot() (uid uint32, ok bool) {
	m, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(m)), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == "0" {
			return 0, false // root is mapped: its files show as root
		}
	}
	b, err := os.ReadFile("/proc/sys/kernel/overflowuid")
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	return uint32(n), err == nil
}

// statusChange is when the file's inode last changed (content, owner,
// mode, links, name): no unprivileged process can set it back.
func statusChange(st *syscall.Stat_t) (time.Time, bool) {
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec), true
}

package gitindex

import (
	"fmt"
	"os"
	"syscall"
)

// fileKey names a file's identity and state: device, inode, size and
// times (ctime, which no unprivileged process can set back, included).
func fileKey(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d %d %d %d %d", st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano())
	}
	return ""
}

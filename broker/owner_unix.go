//go:build unix

package broker

import (
	"io/fs"
	"os"
	"syscall"
)

func ownedBySelf(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

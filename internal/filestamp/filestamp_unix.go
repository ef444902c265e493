//go:build unix

package filestamp

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Of is the stamp of a file whose status is st, taken at now; "" when
// the file changed too recently for one.
func Of(st *unix.Stat_t, now time.Time) string {
	if fresh(time.Unix(st.Mtim.Unix()), time.Unix(st.Ctim.Unix()), now) {
		return ""
	}
	return format(st)
}

// Matches reports whether the file whose status is st is the one stamp
// (from [Of]) was taken of, unchanged since; "" matches no file.
func Matches(st *unix.Stat_t, stamp string) bool {
	return stamp != "" && stamp == format(st)
}

func format(st *unix.Stat_t) string {
	return fmt.Sprintf("%d %d %d %d %d", st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano())
}

// OfFile is the stamp of the open file f, taken at now; "" when it
// changed too recently or its status cannot be read.
func OfFile(f *os.File, now time.Time) string {
	conn, err := f.SyscallConn()
	if err != nil {
		return ""
	}
	var st unix.Stat_t
	var serr error
	if err := conn.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return ""
	}
	return Of(&st, now)
}

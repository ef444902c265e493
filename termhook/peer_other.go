//go:build unix && !linux

package termhook

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Pair makes the channel of one shell: the server's end, and the shell's
// end, a descriptor numbered 10 or above without close-on-exec. Outside
// Linux the sender of each message is not checked.
func Pair() (*Conn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot make the terminal's judge channel: %w", err)
	}
	unix.CloseOnExec(fds[0])
	shell, err := unix.FcntlInt(uintptr(fds[1]), unix.F_DUPFD, 10)
	unix.Close(fds[1])
	if err != nil {
		unix.Close(fds[0])
		return nil, nil, fmt.Errorf("cannot make the terminal's judge channel: %w", err)
	}
	return &Conn{File: os.NewFile(uintptr(fds[0]), "judge")}, os.NewFile(uintptr(shell), "judge"), nil
}

// A Conn is the server's end of [Pair].
type Conn struct{ *os.File }

// Stop ends the answers and keeps reading, unread, until the shell ends
// (see the Linux version).
func (c *Conn) Stop() { stop(int(c.Fd())) }

package termhook

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Pair makes the channel of one shell: the server's end, and the shell's
// end, a descriptor numbered 10 or above without close-on-exec, for the
// shell to inherit (the caller closes it once the shell has started).
//
// Every program the shell starts inherits the shell's end too. The
// server's end reads the sender of every message (SO_PASSCRED): the
// first sender is the shell (its hello is the first thing its set-up file
// does), and data from any other process ends the connection.
func Pair() (*Conn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot make the terminal's judge channel: %w", err)
	}
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PASSCRED, 1); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("cannot check who writes to the terminal's judge channel: %w", err)
	}
	shell, err := unix.FcntlInt(uintptr(fds[1]), unix.F_DUPFD, 10)
	unix.Close(fds[1])
	if err != nil {
		unix.Close(fds[0])
		return nil, nil, fmt.Errorf("cannot make the terminal's judge channel: %w", err)
	}
	return &Conn{fd: fds[0]}, os.NewFile(uintptr(shell), "judge"), nil
}

// A Conn is the server's end of [Pair]. Its reads are raw, blocking
// system calls on the goroutine that makes them.
type Conn struct {
	fd     int
	sender int32 // the shell's process id, once known
}

// Read reads data that the shell wrote, and fails on data from any other
// process.
func (c *Conn) Read(p []byte) (int, error) {
	oob := make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	for {
		n, oobn, _, _, err := unix.Recvmsg(c.fd, p, oob, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		pid, err := senderPid(oob[:oobn])
		if err != nil {
			return 0, err
		}
		if c.sender == 0 {
			c.sender = pid
		}
		if pid != c.sender {
			return 0, fmt.Errorf("process %d, not the shell (%d), wrote to the terminal's judge channel", pid, c.sender)
		}
		return n, nil
	}
}

// Write writes to the shell.
func (c *Conn) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := unix.Write(c.fd, p[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// Stop ends the answers and keeps reading, unread, until the shell
// ends: the hook then reads the end of the stream and refuses its line
// (a closed socket would instead kill the shell with SIGPIPE as it
// writes).
func (c *Conn) Stop() { stop(c.fd) }

// Close closes the server's end.
func (c *Conn) Close() error { return unix.Close(c.fd) }

// senderPid is the process id in a message's credentials.
func senderPid(oob []byte) (int32, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err == nil {
		for _, m := range msgs {
			if cred, err := unix.ParseUnixCredentials(&m); err == nil {
				return cred.Pid, nil
			}
		}
	}
	return 0, fmt.Errorf("the terminal's judge channel did not say who wrote")
}

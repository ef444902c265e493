//go:build unix

package termhook

import "golang.org/x/sys/unix"

// stop shuts the socket fd for writing and reads it to its end.
func stop(fd int) {
	unix.Shutdown(fd, unix.SHUT_WR)
	buf := make([]byte, 4096)
	for {
		n, err := unix.Read(fd, buf)
		if n <= 0 && err != unix.EINTR {
			return
		}
	}
}

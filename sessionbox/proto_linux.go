package sessionbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/wire"
)

// A request is one command, sent by the shim to the keeper: a 4-byte
// big-endian length, then this encoded byte for byte (package wire), with the descriptors FDs names
// attached, in that order, to the first byte.
type request struct {
	Path  string   `json:"path"`
	Argv  []string `json:"argv"`
	Env   []string `json:"env"`
	Dir   string   `json:"dir"`
	Umask int      `json:"umask"`
	FDs   []int    `json:"fds"` // the numbers the descriptors get in the shell
}

// maxFDs is the most descriptors one SCM_RIGHTS message carries
// (SCM_MAX_FD).
const maxFDs = 253

// maxRequest bounds a request (argv and environment).
const maxRequest = 16 << 20

// sendRequest writes req with its descriptors fds on socket fd.
func sendRequest(fd int, req *request, fds []int) error {
	data, err := wire.Encode(req)
	if err != nil {
		return err
	}
	msg := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(data)), uint32(len(data)))
	msg = append(msg, data...)
	n, err := unix.SendmsgN(fd, msg, unix.UnixRights(fds...), nil, 0)
	if err != nil {
		return err
	}
	for n < len(msg) {
		m, err := unix.Write(fd, msg[n:])
		if err != nil && err != unix.EINTR {
			return err
		}
		n += max(m, 0)
	}
	return nil
}

// recvRequest reads a request and its descriptors (close-on-exec) from
// socket fd. The descriptors are closed on error.
func recvRequest(fd int) (*request, []int, error) {
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(maxFDs*4))
	n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, nil, err
	}
	fds, err := rights(oob[:oobn])
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*request, []int, error) {
		closeAll(fds)
		return nil, nil, err
	}
	if n < 4 {
		return fail(errors.New("short request"))
	}
	size := int(binary.BigEndian.Uint32(buf))
	if size > maxRequest {
		return fail(fmt.Errorf("request of %d bytes", size))
	}
	data := make([]byte, size)
	got := copy(data, buf[4:n])
	if _, err := io.ReadFull(fdReader(fd), data[got:]); err != nil {
		return fail(err)
	}
	var req request
	if err := wire.Decode(data, &req); err != nil {
		return fail(err)
	}
	if len(req.FDs) != len(fds) || len(req.Argv) == 0 {
		return fail(fmt.Errorf("request names %d descriptors and carries %d", len(req.FDs), len(fds)))
	}
	return &req, fds, nil
}

// rights are the descriptors of SCM_RIGHTS control messages.
func rights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		if f, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, f := range fds {
		unix.Close(f)
	}
}

// fdReader reads a raw descriptor, retrying on EINTR.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// writeLine writes one line to socket fd.
func writeLine(fd int, format string, a ...any) error {
	b := []byte(fmt.Sprintf(format, a...) + "\n")
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// Before its request, a shim sends the manager the values of its
// command's brokered credentials ([platform.Policy.Secrets]), as a
// 4-byte big-endian length and a list encoded by package wire; the
// manager gives them to the session's broker and answers, the same
// way, with a credReply. Only then does the keeper get the connection:
// the request it reads holds placeholders, never a value.

// A credReply is the manager's answer to a command's credentials.
// hello is the shim's first message to the manager: the command's
// credential values (see [platform.Policy.Secrets]) and its round.
type hello struct {
	Secrets []string `json:"secrets,omitempty"`
	Round   *Round   `json:"round,omitempty"`
	// Token is the shim's secret for this command: the manager's answer
	// to its end carries it when the shim has nothing left to do
	// ([released]).
	Token string `json:"token,omitempty"`
}

type credReply struct {
	// Env are the command's variables for them: placeholders, and the
	// bundle that trusts the broker.
	Env []string `json:"env,omitempty"`
	// Note, when set, says why they are withheld (for stderr).
	Note string `json:"note,omitempty"`
	// Git is the git configuration for the workspace's own remotes'
	// credentials, added after the command's own (see
	// [platform.WithGitConfig]).
	Git [][2]string `json:"git,omitempty"`
}

// maxCreds bounds a message about credentials.
const maxCreds = 1 << 20

// writeMsg writes v on socket fd, framed by its length.
func writeMsg(fd int, v any) error {
	data, err := wire.Encode(v)
	if err != nil {
		return err
	}
	msg := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(data)), uint32(len(data)))
	msg = append(msg, data...)
	for len(msg) > 0 {
		n, err := unix.Write(fd, msg)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		msg = msg[n:]
	}
	return nil
}

// readMsg reads one message of writeMsg's from socket fd into v, not a
// byte more (what follows is the keeper's to read).
func readMsg(fd int, v any) error {
	var n [4]byte
	if _, err := io.ReadFull(fdReader(fd), n[:]); err != nil {
		return err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > maxCreds {
		return fmt.Errorf("a message of %d bytes", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(fdReader(fd), data); err != nil {
		return err
	}
	return wire.Decode(data, v)
}

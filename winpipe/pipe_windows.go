package winpipe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// clientAccess is what the shell's workspace SID is granted: reading and
// writing the pipe (FILE_GENERIC_READ | FILE_GENERIC_WRITE, what a
// client opening it for both asks), nothing that changes its security.
const clientAccess = 0x12019f

// A Listener is a pipe the shim serves, to one client.
type Listener struct {
	name string
	mu   sync.Mutex
	h    windows.Handle // the server end; 0 once handed out or closed
}

// Listen creates the pipe name (see [NewName]) as its first and only
// instance, open to the current user and to a process whose token holds
// clientSID (the workspace SID of the shell's restricted token). A pipe
// of that name made before is an error: whoever made it is not cordon.
func Listen(name, clientSID string) (*Listener, error) {
	if !strings.HasPrefix(name, Prefix) {
		return nil, fmt.Errorf("pipe name %q: not one of cordon's", name)
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("cannot read cordon's token user: %w", err)
	}
	if _, err := windows.StringToSid(clientSID); err != nil {
		return nil, fmt.Errorf("client SID %q: %w", clientSID, err)
	}
	// Protected (P): nothing inherited; the owner is the user.
	sd, err := windows.SecurityDescriptorFromString(fmt.Sprintf("O:%sD:P(A;;GA;;;%s)(A;;0x%x;;;%s)", user.User.Sid, user.User.Sid, clientAccess, clientSID))
	if err != nil {
		return nil, fmt.Errorf("pipe security descriptor: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	n, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateNamedPipe(n,
		windows.PIPE_ACCESS_DUPLEX|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, 64<<10, 64<<10, 0, sa)
	if err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, fmt.Errorf("the pipe %s exists already (made by another program): %w", name, err)
		}
		return nil, fmt.Errorf("cannot create the pipe %s: %w", name, err)
	}
	// Another program's pipe of that name has its own instance count:
	// where the first-instance flag is not honoured (wine), this sees it.
	var flags, out, in, instances uint32
	if err := windows.GetNamedPipeInfo(h, &flags, &out, &in, &instances); err != nil || instances != 1 {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("the pipe %s exists already (made by another program): %d instances allowed, %v", name, instances, err)
	}
	return &Listener{name: name, h: h}, nil
}

// Accept waits at most timeout (0: as long as it takes) for the
// client, which must be the process pid (0: any), and returns the
// connection. Another client, or
// none in time, is an error; the pipe is then closed, so the shell's
// own connection fails too.
func (l *Listener) Accept(pid int, timeout time.Duration) (io.ReadWriteCloser, error) {
	l.mu.Lock()
	h := l.h
	l.mu.Unlock()
	if h == 0 {
		return nil, errors.New("the pipe is closed")
	}
	done := make(chan error, 1)
	go func() {
		err := windows.ConnectNamedPipe(h, nil)
		if errors.Is(err, windows.ERROR_PIPE_CONNECTED) {
			err = nil // connected between CreateNamedPipe and now
		}
		done <- err
	}()
	var expired <-chan time.Time
	if timeout > 0 {
		expired = time.After(timeout)
	}
	var err error
	select {
	case err = <-done:
	case <-expired:
		l.unblock()
		<-done
		err = fmt.Errorf("the shell did not connect to cordon within %v", timeout)
	}
	if err == nil && pid != 0 {
		var got uint32
		if err = windows.GetNamedPipeClientProcessId(h, &got); err == nil && int(got) != pid {
			err = fmt.Errorf("process %d connected in place of the shell (%d)", got, pid)
		}
	}
	l.mu.Lock()
	l.h = 0
	l.mu.Unlock()
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return os.NewFile(uintptr(h), l.name), nil
}

// unblock ends a ConnectNamedPipe waiting on the pipe by connecting to
// it, then letting go.
func (l *Listener) unblock() {
	if c, err := Dial(l.name); err == nil {
		c.Close()
	}
}

// Close closes the pipe if no connection was accepted.
func (l *Listener) Close() error {
	l.mu.Lock()
	h := l.h
	l.h = 0
	l.mu.Unlock()
	if h != 0 {
		return windows.CloseHandle(h)
	}
	return nil
}

// Dial connects to the pipe name as a client, as the shell does, at the
// identification impersonation level: the server learns who connects,
// and cannot act as it.
func Dial(name string) (io.ReadWriteCloser, error) {
	n, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(n, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
		windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot open the pipe %s: %w", name, err)
	}
	return os.NewFile(uintptr(h), name), nil
}

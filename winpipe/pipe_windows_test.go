package winpipe

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// These run on Windows, and under wine in CI (internal/winetest runs
// this package's test binary): wine's pipes are real enough for names,
// instances and client process ids; its ACLs are emulations, so the
// DACL is not tested here.

// someSID stands for the workspace SID of a confined shell.
const someSID = "S-1-5-21-1-2-3-4"

func newName(t *testing.T) string {
	t.Helper()
	name, err := NewName()
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// squat makes a pipe of that name the way another program would.
func squat(name string, first bool) (windows.Handle, error) {
	flags := uint32(windows.PIPE_ACCESS_DUPLEX)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	n, _ := windows.UTF16PtrFromString(name)
	return windows.CreateNamedPipe(n, flags, windows.PIPE_TYPE_BYTE, windows.PIPE_UNLIMITED_INSTANCES, 512, 512, 0, nil)
}

// TestPipeRoundTrip: the shell's end (Dial) reaches the server's, both
// ways.
func TestPipeRoundTrip(t *testing.T) {
	name := newName(t)
	l, err := Listen(name, someSID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		conn, err := l.Accept(os.Getpid(), 10*time.Second)
		if err != nil {
			got <- "accept: " + err.Error()
			return
		}
		defer conn.Close()
		buf := make([]byte, 5)
		if _, err := io.ReadFull(conn, buf); err != nil {
			got <- "read: " + err.Error()
			return
		}
		conn.Write([]byte("run\x00"))
		got <- string(buf)
	}()
	c, err := Dial(name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("line\x00"))
	answer := make([]byte, 4)
	if _, err := io.ReadFull(c, answer); err != nil || string(answer) != "run\x00" {
		t.Errorf("the client read %q, %v", answer, err)
	}
	if s := <-got; s != "line\x00" {
		t.Errorf("the server read %q", s)
	}
}

// TestPipePreCreated: a pipe of the name made before cordon's is an
// error, not a server that cordon would hand its shell to.
func TestPipePreCreated(t *testing.T) {
	name := newName(t)
	h, err := squat(name, false)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if l, err := Listen(name, someSID); err == nil {
		l.Close()
		t.Fatal("Listen on a name another program made first: no error")
	} else if !strings.Contains(err.Error(), "exists already") {
		t.Errorf("Listen on a taken name: %v", err)
	}
}

// TestPipeNoSecondInstance: once cordon's pipe exists, no one can add an
// instance of the name (a server of their own for the shell to reach).
func TestPipeNoSecondInstance(t *testing.T) {
	name := newName(t)
	l, err := Listen(name, someSID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, first := range []bool{false, true} {
		if h, err := squat(name, first); err == nil {
			windows.CloseHandle(h)
			t.Errorf("a second instance of cordon's pipe (first-instance flag %v) was made", first)
		}
	}
}

// TestPipeWrongClient: a process other than the shell that connects
// first is refused, and the pipe is gone: the shell's own connection
// then fails, so it stops rather than run lines unjudged.
func TestPipeWrongClient(t *testing.T) {
	name := newName(t)
	l, err := Listen(name, someSID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan error, 1)
	go func() {
		_, err := l.Accept(os.Getpid()+4, 10*time.Second) // not this process
		done <- err
	}()
	c, err := Dial(name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "in place of the shell") {
		t.Errorf("Accept of the wrong process: %v", err)
	}
	if c2, err := Dial(name); err == nil {
		c2.Close()
		t.Error("the pipe still takes connections after the wrong client")
	}
}

// TestPipeOtherName: a client that names another pipe reaches nothing.
func TestPipeOtherName(t *testing.T) {
	l, err := Listen(newName(t), someSID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if c, err := Dial(newName(t)); err == nil {
		c.Close()
		t.Error("Dial of a name nobody serves: connected")
	}
	if _, err := Listen(`\\.\pipe\not-cordons`, someSID); err == nil {
		t.Error("Listen on a name without cordon's prefix: no error")
	}
}

// TestPipeAcceptTimeout: no client in time is an error, and Accept
// returns.
func TestPipeAcceptTimeout(t *testing.T) {
	l, err := Listen(newName(t), someSID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Accept(0, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "did not connect") {
		t.Errorf("Accept with no client: %v", err)
	}
}

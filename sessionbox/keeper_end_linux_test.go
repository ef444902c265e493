package sessionbox

import (
	"bufio"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// keeperWithManager is a keeper whose control socket's other end (the
// manager's) is returned, forking on a goroutine of the test.
func keeperWithManager(t *testing.T) (*keeper, int) {
	t.Helper()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(pair[0]); unix.Close(pair[1]) })
	k := &keeper{ctl: pair[0], forks: make(chan func())}
	go func() {
		for f := range k.forks {
			f()
		}
	}()
	t.Cleanup(func() { close(k.forks) })
	unix.SetsockoptTimeval(pair[1], unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
	return k, pair[1]
}

// served starts k.serve on a new connection running script, and returns
// the shim's end, the manager's copy of the keeper's end (as the manager
// keeps one to answer the command's end), and a channel closed when
// serve returns.
func served(t *testing.T, k *keeper, script string) (int, int, chan struct{}) {
	t.Helper()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := unix.Dup(pair[1])
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); k.serve(pair[1], 1) }()
	req := &request{Path: "/bin/sh", Argv: []string{"sh", "-c", script}, Dir: "/", Env: []string{"PATH=/usr/bin:/bin"}}
	if err := sendRequest(pair[0], req, nil); err != nil {
		t.Fatal(err)
	}
	if line, err := readLine(pair[0]); err != nil || !strings.HasPrefix(line, "pid ") {
		t.Fatalf("keeper said %q %v", line, err)
	}
	return pair[0], mgr, done
}

// answers answers the end of a command on the manager's copy of its
// connection, as manager.answer does, and closes it.
func answers(mgr int, token string) {
	if token != "" {
		writeLine(mgr, "released %s", token)
	}
	unix.Close(mgr)
}

// managerReads reads the keeper's next message to the manager.
func managerReads(t *testing.T, ctl int) string {
	t.Helper()
	buf := make([]byte, 64)
	n, err := readFD(ctl, buf)
	if err != nil {
		t.Fatalf("the manager heard nothing: %v", err)
	}
	return string(buf[:n])
}

// TestKeeperEndOrder: the shim's connection ends only after the
// manager answered the command's end (its ticket dealt with) on its own
// copy of the connection: a shim that closed its end at once still
// waits; one killed between "exit" and its close does not end the
// session ("!"), and its command's end is still told; one that keeps its
// end open gets the answer all the same, and the keeper's copy is closed
// only once the shim closed its end.
func TestKeeperEndOrder(t *testing.T) {
	t.Run("shim waits for the answer", func(t *testing.T) {
		k, ctl := keeperWithManager(t)
		shim, mgr, done := served(t, k, "exit 3")
		defer unix.Close(shim)
		if got := managerReads(t, ctl); got != "+" {
			t.Fatalf("manager got %q", got)
		}
		ws, r, err := wait(shim)
		if err != nil || ws>>8 != 3 {
			t.Fatalf("exit %d %v", ws, err)
		}
		unix.Shutdown(shim, unix.SHUT_WR)
		if got := managerReads(t, ctl); got != "-1" {
			t.Fatalf("manager got %q, want -1", got)
		}
		<-done
		// The manager reconciles for a while: the shim must not go on.
		time.Sleep(300 * time.Millisecond)
		if readable(t, shim, 0) {
			t.Fatal("the shim's connection is readable before the manager answered")
		}
		answers(mgr, "tok")
		if !released(r, "tok") {
			t.Error("the shim was not told its token")
		}
	})
	t.Run("shim killed after exit", func(t *testing.T) {
		k, ctl := keeperWithManager(t)
		shim, mgr, done := served(t, k, "exit 0")
		managerReads(t, ctl) // "+"
		if _, _, err := wait(shim); err != nil {
			t.Fatal(err)
		}
		unix.Close(shim)
		if got := managerReads(t, ctl); got != "-1" {
			t.Fatalf("manager got %q, want -1 (a shim gone after its command's end ends nothing)", got)
		}
		<-done
		answers(mgr, "tok")
		unix.SetsockoptTimeval(ctl, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 200000})
		buf := make([]byte, 16)
		if n, err := readFD(ctl, buf); err == nil {
			t.Errorf("the manager was then told %q", buf[:n])
		}
	})
	t.Run("shim keeps its end open", func(t *testing.T) {
		k, ctl := keeperWithManager(t)
		shim, mgr, done := served(t, k, "exit 0")
		defer unix.Close(shim)
		managerReads(t, ctl) // "+"
		_, r, err := wait(shim)
		if err != nil {
			t.Fatal(err)
		}
		// A signal the agent sends after the end (to a group now empty).
		writeLine(shim, "sig 15")
		if got := managerReads(t, ctl); got != "-1" {
			t.Fatalf("manager got %q, want -1", got)
		}
		answers(mgr, "tok")
		select {
		case <-done:
			t.Fatal("the keeper closed the connection before the shim closed its end")
		case <-time.After(200 * time.Millisecond):
		}
		unix.Shutdown(shim, unix.SHUT_WR)
		if !released(bufio.NewReader(r), "tok") {
			t.Error("the shim was not told its token")
		}
		<-done
	})
}

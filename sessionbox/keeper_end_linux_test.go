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
	k := &keeper{ctl: pair[0], acks: map[int]chan string{}, forks: make(chan func())}
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
// the shim's end and a channel closed when serve returns.
func served(t *testing.T, k *keeper, script string) (int, chan struct{}) {
	t.Helper()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
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
	return pair[0], done
}

// managerReads reads the keeper's next message to the manager.
func managerReads(t *testing.T, ctl int) string {
	t.Helper()
	buf := make([]byte, 64)
	n, err := unix.Read(ctl, buf)
	if err != nil {
		t.Fatalf("the manager heard nothing: %v", err)
	}
	return string(buf[:n])
}

// TestKeeperEndOrder: the shim's connection ends only after the
// manager answered the command's end (its ticket dealt with): a shim
// that closed its end at once still waits; one killed between "exit"
// and its close does not end the session ("!"), and its command's end
// is still told; one that keeps its end open gets the answer when it
// closes it.
func TestKeeperEndOrder(t *testing.T) {
	t.Run("shim waits for the answer", func(t *testing.T) {
		k, ctl := keeperWithManager(t)
		shim, done := served(t, k, "exit 3")
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
		// The manager reconciles for a while: the shim must not go on.
		time.Sleep(300 * time.Millisecond)
		fds := []unix.PollFd{{Fd: int32(shim), Events: unix.POLLIN}}
		if n, _ := unix.Poll(fds, 0); n != 0 {
			t.Fatalf("the shim's connection is readable (%#x) before the manager answered", fds[0].Revents)
		}
		k.answered("1 tok")
		if !released(r, "tok") {
			t.Error("the shim was not told its token")
		}
		<-done
	})
	t.Run("shim killed after exit", func(t *testing.T) {
		k, ctl := keeperWithManager(t)
		shim, done := served(t, k, "exit 0")
		managerReads(t, ctl) // "+"
		if _, _, err := wait(shim); err != nil {
			t.Fatal(err)
		}
		unix.Close(shim)
		if got := managerReads(t, ctl); got != "-1" {
			t.Fatalf("manager got %q, want -1 (a shim gone after its command's end ends nothing)", got)
		}
		k.answered("1 tok")
		<-done
		unix.SetsockoptTimeval(ctl, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 200000})
		buf := make([]byte, 16)
		if n, err := unix.Read(ctl, buf); err == nil {
			t.Errorf("the manager was then told %q", buf[:n])
		}
	})
	t.Run("shim keeps its end open", func(t *testing.T) {
		k, ctl := keeperWithManager(t)
		shim, done := served(t, k, "exit 0")
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
		k.answered("1 tok")
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

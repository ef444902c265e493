package sessionbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// connectScript connects to the socket argv[1] and waits for its end.
const connectScript = `import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.recv(1)`

// peerOutside listens on a socket, lets start connect a process to it,
// and returns the manager's verdict on that peer.
func peerOutside(t *testing.T, start func(sock string) error) bool {
	t.Helper()
	dir, err := os.MkdirTemp("", "peer-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	sock := filepath.Join(dir, "s")
	m := &manager{s: spec{Socket: sock}}
	if m.self, m.filters, err = identity(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if err := m.listen(); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(m.lis)
	os.Chmod(sock, 0o777)
	if err := start(sock); err != nil {
		t.Fatal(err)
	}
	if !readable(t, m.lis, 10*time.Second) {
		t.Fatal("nothing connected")
	}
	conn, _, err := unix.Accept4(m.lis, unix.SOCK_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(conn)
	_, ok := m.outside(conn)
	return ok
}

// readable reports whether fd becomes readable (or hung up) within d.
// A poll cut short by a signal (the Go runtime preempts with SIGURG) is
// made again for the time left, never taken for an answer.
func readable(t *testing.T, fd int, d time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(max(0, time.Until(deadline).Milliseconds())))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			t.Fatalf("poll: %v", err)
		}
		return n > 0
	}
}

// readFD is unix.Read made again when a signal cut it short: a read
// with SO_RCVTIMEO is never restarted, and the runtime's signals
// (SIGURG, a child's SIGCHLD) reach any thread.
func readFD(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Read(fd, p)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// recvmsgFD is unix.Recvmsg made again when a signal cut it short.
func recvmsgFD(fd int, p, oob []byte, flags int) (n, oobn int, err error) {
	for {
		n, oobn, _, _, err = unix.Recvmsg(fd, p, oob, flags)
		if err != unix.EINTR {
			return n, oobn, err
		}
	}
}

func python(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	return p
}

// TestOutside checks the manager's peer check against real processes: a
// process of the host is let in; one in other namespaces (as bwrap makes
// them) and one under Landlock and seccomp (the Landlock sandbox, with
// the socket allowed by its policy, as a forged setting would) are not.
func TestOutside(t *testing.T) {
	py := python(t)
	var cmds []*exec.Cmd
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	run := func(sys *syscall.SysProcAttr) func(string) error {
		return func(sock string) error {
			c := exec.Command(py, "-c", connectScript, sock)
			c.SysProcAttr = sys
			cmds = append(cmds, c)
			return c.Start()
		}
	}
	if !peerOutside(t, run(nil)) {
		t.Error("a process of the host was refused")
	}
	uid, gid := os.Geteuid(), os.Getegid()
	userns := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}}
	if c := exec.Command("true"); true {
		c.SysProcAttr = userns
		if err := c.Run(); err != nil {
			t.Logf("no user namespaces here (%v): that case is left out", err)
			userns = nil
		}
	}
	if userns != nil && peerOutside(t, run(userns)) {
		t.Error("a process in other user and pid namespaces was let in")
	}
	landlocked := func(sock string) error {
		p, err := platform.NewPolicy(&platform.Spec{Workspace: t.TempDir(), Sockets: []string{sock}, Network: platform.NetworkOn}, os.Environ())
		if err != nil {
			return err
		}
		b, err := platform.Sandbox(platform.BackendLandlock, p, "")
		if err != nil {
			t.Skipf("no Landlock here: %v", err)
		}
		null, _ := os.Open(os.DevNull)
		defer null.Close()
		c, err := b.Start(py, []string{"python3", "-c", connectScript, sock}, os.Environ(), null)
		if err == nil {
			go func() {
				time.Sleep(15 * time.Second)
				c.Forward(syscall.SIGKILL)
			}()
		}
		return err
	}
	if peerOutside(t, landlocked) {
		t.Error("a process in the Landlock sandbox was let in")
	}
}

// fakeSession is a manager serving on a socket of its own, with the test
// as its keeper (ctl); serve's end is closed once it returns.
func fakeSession(t *testing.T) (m *manager, ctl int, end chan struct{}) {
	t.Helper()
	return fakeSessionIdle(t, time.Minute)
}

// fakeSessionIdle is [fakeSession] whose session ends after idle unused.
func fakeSessionIdle(t *testing.T, idle time.Duration) (m *manager, ctl int, end chan struct{}) {
	t.Helper()
	dir := t.TempDir()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	m = &manager{s: spec{Socket: filepath.Join(dir, "s"), Policy: &platform.Policy{}, Idle: idle}, ctl: pair[0], pre: -1, agent: -1}
	if m.self, m.filters, err = identity(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if err := m.listen(); err != nil {
		t.Fatal(err)
	}
	m.started = make(chan struct{})
	end = make(chan struct{})
	go func() {
		defer close(end)
		m.serve()
		unix.Close(m.lis)
		unix.Close(m.ctl)
		// (The watches a manager's process gives back as it ends: a
		// run of many fake sessions in one process ran out of the
		// user's inotify instances, the other tests' too.)
		m.stopBetween()
		if m.changes != nil {
			m.changes.Stop()
		}
	}()
	t.Cleanup(func() {
		unix.Close(pair[1])
		select {
		case <-end:
		case <-time.After(10 * time.Second):
			t.Error("the manager did not end with its keeper")
		}
	})
	return m, pair[1], end
}

// TestFirstCommandBesideKeeperStart: the first command of a session is
// accepted, and answered for its credentials, while the keeper has not
// said its first word (bwrap still makes the sandbox); the keeper gets
// it only after that word.
func TestFirstCommandBesideKeeperStart(t *testing.T) {
	m, ctl, _ := fakeSession(t)
	conn, err := dial(m.s.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(conn)
	if err := writeMsg(conn, &hello{}); err != nil {
		t.Fatal(err)
	}
	var r credReply
	if err := readMsg(conn, &r); err != nil {
		t.Fatalf("the command was not answered before the keeper's start: %v", err)
	}
	if readable(t, ctl, 200*time.Millisecond) {
		t.Fatal("the keeper got the command before it said it runs")
	}
	if _, err := unix.Write(ctl, []byte("ready")); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	unix.SetsockoptTimeval(ctl, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	n, oobn, err := recvmsgFD(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n != 1 || buf[0] != 'c' {
		t.Fatalf("the keeper did not get the command once it runs: %v", err)
	}
	got, _ := rights(oob[:oobn])
	if len(got) != 1 {
		t.Fatalf("the command came with %d descriptors", len(got))
	}
	unix.Close(got[0])
}

// TestFirstCommandKeeperNotStarted: a keeper that ends before its first
// word refuses the command the session got meanwhile with the reason
// (its shim runs it another way), and the session ends.
func TestFirstCommandKeeperNotStarted(t *testing.T) {
	m, ctl, end := fakeSession(t)
	conn, err := dial(m.s.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(conn)
	if err := writeMsg(conn, &hello{}); err != nil {
		t.Fatal(err)
	}
	var r credReply
	if err := readMsg(conn, &r); err != nil {
		t.Fatal(err)
	}
	unix.Close(ctl)
	unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	line, err := readLine(conn)
	if err != nil || !strings.HasPrefix(line, "error ") {
		t.Fatalf("the command was answered %q (%v), want an error", line, err)
	}
	select {
	case <-end:
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end")
	}
}

// TestServeEndsItsAccept: once serve returns, nothing of it accepts on
// the listener's descriptor. Its accept loop used to stay blocked on the
// socket closed under it, and a signal restarted the accept on whatever
// descriptor had the number by then: in one test process, the next
// fake session's listener, whose command it took and answered as its own
// manager's, so that the keeper never got it (TestEndAnswerToken, about
// once in a thousand runs).
func TestServeEndsItsAccept(t *testing.T) {
	accepting := func() int {
		buf := make([]byte, 1<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "(*manager).serve.func1()")
	}
	before := accepting()
	_, ctl, end := fakeSession(t)
	if _, err := unix.Write(ctl, []byte("ready")); err != nil {
		t.Fatal(err)
	}
	unix.Shutdown(ctl, unix.SHUT_RDWR) // (closed by the cleanup)
	select {
	case <-end:
	case <-time.After(10 * time.Second):
		t.Fatal("the manager did not end with its keeper")
	}
	if n := accepting(); n != before {
		t.Errorf("%d accept loops run on after serve returned", n-before)
	}
}

// TestManagerEndsUnreachable: a session whose state directory was
// removed (its socket's directory gone: no command can reach it) ends
// once no command runs, well before its idle time; before, its manager
// held its sandbox and inotify watches that long (CI's test runs left
// dozens, near the user's 128 inotify instances).
func TestManagerEndsUnreachable(t *testing.T) {
	m, _, end := fakeSessionIdle(t, 10*time.Second) // (a tick every 1.25 s)
	start := time.Now()
	if err := os.RemoveAll(filepath.Dir(m.s.Socket)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-end:
		t.Logf("ended after %v", time.Since(start))
	case <-time.After(6 * time.Second):
		t.Fatal("the manager of a session no command can reach still runs")
	}
}

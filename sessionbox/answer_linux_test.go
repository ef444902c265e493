package sessionbox

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/filelock"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/platform"
)

// guardedSession is [fakeSession] guarding ws/.git/hooks of a repository
// ws, with its ledger in state; the keeper (the test) has said its first
// word.
func guardedSession(t *testing.T) (m *manager, ctl int, ws, state string) {
	t.Helper()
	ws = filepath.Join(t.TempDir(), "ws")
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Skipf("git init: %v\n%s", err, out)
	}
	state = filepath.Join(t.TempDir(), "state")
	m, ctl, _ = fakeSession(t)
	m.s.StateDir = state
	m.s.Policy = &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded: []string{ws + "/.git/hooks"}, RootGuarded: []string{".git/hooks/"}}
	m.guarded = true
	if _, err := unix.Write(ctl, []byte("ready")); err != nil {
		t.Fatal(err)
	}
	unix.SetsockoptTimeval(ctl, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	return m, ctl, ws, state
}

// startCommand connects a shim with token to m's socket, as a command
// starts, and takes the connection the manager gives the keeper ctl
// (closing the keeper's copy), which then says the command started; it
// returns the shim's end, closed when the test ends.
func startCommand(t *testing.T, m *manager, ctl int, token string) int {
	t.Helper()
	conn := handCommand(t, m, ctl, token)
	t.Cleanup(func() { unix.Close(conn) })
	if _, err := unix.Write(ctl, []byte("+")); err != nil {
		t.Fatal(err)
	}
	return conn
}

// handCommand is [startCommand] before the keeper's word, and without
// the cleanup: the caller closes the shim's end.
func handCommand(t *testing.T, m *manager, ctl int, token string) int {
	t.Helper()
	conn, err := dial(m.s.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeMsg(conn, &hello{Token: token}); err != nil {
		t.Fatal(err)
	}
	var r credReply
	if err := readMsg(conn, &r); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	n, oobn, err := recvmsgFD(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n != 1 || buf[0] != 'c' {
		t.Fatalf("the keeper did not get the command: %v", err)
	}
	fds, _ := rights(oob[:oobn])
	for _, fd := range fds {
		unix.Close(fd)
	}
	return conn
}

// endCommand tells the manager that the seq-th command ended, as the
// keeper does, and returns what the shim (conn) read until the
// connection's end: the manager's answer.
func endCommand(t *testing.T, ctl, seq, conn int) string {
	t.Helper()
	if _, err := unix.Write(ctl, []byte("-"+strconv.Itoa(seq))); err != nil {
		t.Fatal(err)
	}
	unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	var out []byte
	buf := make([]byte, 128)
	for {
		n, err := readFD(conn, buf)
		if err != nil {
			t.Fatalf("the end of command %d was not answered: %v (read %q)", seq, err, out)
		}
		if n == 0 {
			return string(out)
		}
		out = append(out, buf[:n]...)
	}
}

// TestEndAnswerToken: the manager's answer to a command's end carries
// the shim's token (which spares the shim its own reconcile) only when
// it gave the session's ticket back with nothing to say and the ledger
// holds no other ticket; never while another command of the session
// runs, nor when it put something back (the shim says it), nor while
// another guard's command holds a ticket in the workspace.
func TestEndAnswerToken(t *testing.T) {
	m, ctl, ws, state := guardedSession(t)

	c1 := startCommand(t, m, ctl, "t1")
	// The keeper's copy is closed: the manager's keeps the shim waiting
	// until its answer.
	if n, _, err := unix.Recvfrom(c1, make([]byte, 8), unix.MSG_DONTWAIT); err != unix.EAGAIN {
		t.Errorf("before its end was told, the shim read %d bytes, %v; want to wait", n, err)
	}
	if got := endCommand(t, ctl, 1, c1); got != "released t1\n" {
		t.Errorf("a quiet release was answered %q, want %q", got, "released t1\n")
	}
	// Nothing goes to the keeper, which is in the sandbox: the token
	// never enters it.
	if n, _, _, _, err := unix.Recvmsg(ctl, make([]byte, 64), nil, unix.MSG_DONTWAIT); err != unix.EAGAIN {
		t.Errorf("the keeper was told %d bytes (%v) after a command's end", n, err)
	}

	c2 := startCommand(t, m, ctl, "t2")
	hook := filepath.Join(ws, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := endCommand(t, ctl, 2, c2); got != "" {
		t.Errorf("a release that put a hook back was answered %q, want nothing (the shim says the line)", got)
	}
	if _, err := os.Lstat(hook); err == nil {
		t.Error("the planted hook is still there")
	}
	kept, _ := filepath.Glob(filepath.Join(state, "guard", "*.lines"))
	if len(kept) != 1 {
		t.Fatalf("the line of what was put back was not kept for the shim: %v", kept)
	}
	if data, _ := os.ReadFile(kept[0]); !strings.Contains(string(data), "pre-commit") {
		t.Errorf("kept lines %q do not name the hook", data)
	}
	os.Remove(kept[0])

	c3 := startCommand(t, m, ctl, "t3")
	c4 := startCommand(t, m, ctl, "t4")
	if got := endCommand(t, ctl, 3, c3); got != "" {
		t.Errorf("an end while another command runs was answered %q, want nothing", got)
	}
	if got := endCommand(t, ctl, 4, c4); got != "released t4\n" {
		t.Errorf("the last command's quiet end was answered %q, want %q", got, "released t4\n")
	}

	// Another guard's command holds a ticket in the workspace.
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	addTicket(t, state, other.Process.Pid)
	c5 := startCommand(t, m, ctl, "t5")
	if got := endCommand(t, ctl, 5, c5); got != "" {
		t.Errorf("a release leaving another holder's ticket was answered %q, want nothing", got)
	}

	// A shim that sent no token, or one that is not one line.
	other.Process.Kill()
	other.Wait()
	for i, token := range []string{"", "a b", "a\nreleased b", strings.Repeat("x", 65)} {
		c := startCommand(t, m, ctl, token)
		if got := endCommand(t, ctl, 6+i, c); got != "" {
			t.Errorf("a command with token %q was answered %q, want nothing", token, got)
		}
	}
}

// addTicket adds a ticket of live process pid to the one ledger in
// state, as another guard's command takes one.
func addTicket(t *testing.T, state string, pid int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(state, "guard", "*.json"))
	if len(files) != 1 {
		t.Fatalf("ledgers: %v", files)
	}
	// Under the ledger's lock, as a guard takes its ticket: the manager
	// saves the last command's release just after answering it.
	unlock, err := filelock.Make(guard.LedgerLock(state, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var l map[string]any
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	active, _ := l["active"].([]any)
	l["active"] = append(active, map[string]any{"pid": pid, "start": platform.ProcessStart(pid)})
	if data, err = json.Marshal(l); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReleased: the shim spares itself the reconcile only for its own
// token, alone after "exit".
func TestReleased(t *testing.T) {
	for _, c := range []struct {
		rest, token string
		want        bool
	}{
		{"released abc\n", "abc", true},
		{"released abd\n", "abc", false},
		{"released \n", "", false},
		{"", "abc", false},
		{"released abc", "abc", false},
		{"released abc\nreleased abc\n", "abc", false},
		{"sig 2\nreleased abc\n", "abc", false},
	} {
		r := bufio.NewReader(strings.NewReader(c.rest))
		if got := released(r, c.token); got != c.want {
			t.Errorf("released(%q, %q) = %v, want %v", c.rest, c.token, got, c.want)
		}
	}
}

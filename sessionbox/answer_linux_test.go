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
	"time"

	"golang.org/x/sys/unix"

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
// starts, and takes the connection the manager gives the keeper ctl.
func startCommand(t *testing.T, m *manager, ctl int, token string) {
	t.Helper()
	conn, err := dial(m.s.Socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(conn) })
	if err := writeMsg(conn, &hello{Token: token}); err != nil {
		t.Fatal(err)
	}
	var r credReply
	if err := readMsg(conn, &r); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil || n != 1 || buf[0] != 'c' {
		t.Fatalf("the keeper did not get the command: %v", err)
	}
	fds, _ := rights(oob[:oobn])
	for _, fd := range fds {
		unix.Close(fd)
	}
	if _, err := unix.Write(ctl, []byte("+")); err != nil {
		t.Fatal(err)
	}
}

// endCommand tells the manager that the seq-th command ended, as the
// keeper does, and returns its answer.
func endCommand(t *testing.T, ctl, seq int) string {
	t.Helper()
	if _, err := unix.Write(ctl, []byte("-"+strconv.Itoa(seq))); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 128)
	n, err := unix.Read(ctl, buf)
	if err != nil {
		t.Fatalf("no answer to the end of command %d: %v", seq, err)
	}
	return string(buf[:n])
}

// TestEndAnswerToken: the manager's answer to a command's end carries
// the shim's token (which spares the shim its own reconcile) only when
// it gave the session's ticket back with nothing to say and the ledger
// holds no other ticket; never while another command of the session
// runs, nor when it put something back (the shim says it), nor while
// another guard's command holds a ticket in the workspace.
func TestEndAnswerToken(t *testing.T) {
	m, ctl, ws, state := guardedSession(t)

	startCommand(t, m, ctl, "t1")
	if got := endCommand(t, ctl, 1); got != "a1 t1" {
		t.Errorf("a quiet release was answered %q, want %q", got, "a1 t1")
	}

	startCommand(t, m, ctl, "t2")
	hook := filepath.Join(ws, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := endCommand(t, ctl, 2); got != "a2" {
		t.Errorf("a release that put a hook back was answered %q, want %q (the shim says the line)", got, "a2")
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

	startCommand(t, m, ctl, "t3")
	startCommand(t, m, ctl, "t4")
	if got := endCommand(t, ctl, 3); got != "a3" {
		t.Errorf("an end while another command runs was answered %q, want %q", got, "a3")
	}
	if got := endCommand(t, ctl, 4); got != "a4 t4" {
		t.Errorf("the last command's quiet end was answered %q, want %q", got, "a4 t4")
	}

	// Another guard's command holds a ticket in the workspace.
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	addTicket(t, state, other.Process.Pid)
	startCommand(t, m, ctl, "t5")
	if got := endCommand(t, ctl, 5); got != "a5" {
		t.Errorf("a release leaving another holder's ticket was answered %q, want %q", got, "a5")
	}

	// A shim that sent no token, or one that is not one line.
	other.Process.Kill()
	other.Wait()
	for i, token := range []string{"", "a b", "a\nreleased b", strings.Repeat("x", 65)} {
		startCommand(t, m, ctl, token)
		seq := 6 + i
		if got, want := endCommand(t, ctl, seq), "a"+strconv.Itoa(seq); got != want {
			t.Errorf("a command with token %q was answered %q, want %q", token, got, want)
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

// TestKeeperAnswersBySeq: the keeper passes each of the manager's
// answers to the command whose end it answers, whatever the order, and
// a token only to that command.
func TestKeeperAnswersBySeq(t *testing.T) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[0])
	defer unix.Close(pair[1])
	k := &keeper{ctl: pair[0], acks: map[int]chan string{}}
	type got struct {
		token string
		ok    bool
	}
	one, two := make(chan got, 1), make(chan got, 1)
	go func() { tok, ok := k.ended(1, 10*time.Second); one <- got{tok, ok} }()
	go func() { tok, ok := k.ended(2, 10*time.Second); two <- got{tok, ok} }()
	buf := make([]byte, 16)
	for range 2 {
		if _, err := unix.Read(pair[1], buf); err != nil {
			t.Fatal(err)
		}
	}
	k.answered("2 secret")
	k.answered("1")
	if g := <-two; !g.ok || g.token != "secret" {
		t.Errorf("command 2 got %+v, want its token", g)
	}
	if g := <-one; !g.ok || g.token != "" {
		t.Errorf("command 1 got %+v, want an answer without a token", g)
	}
	k.answered("3 stray") // no command waits: dropped
	if len(k.acks) != 0 {
		t.Errorf("answers left waiting: %v", k.acks)
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

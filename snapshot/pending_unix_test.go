//go:build unix

package snapshot

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

func TestWaitPendingStale(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	// A mark whose command and saver are both gone is removed at once.
	if err := s.MarkPending(ws, 1<<22, "", 1<<22); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	s.WaitPending(ws)
	if time.Since(t0) > time.Second {
		t.Fatal("waited for a dead saver")
	}
	if des, _ := os.ReadDir(s.pendingDir(ws)); len(des) != 0 {
		t.Fatal("stale mark left")
	}
}

// A saver waits for exactly its command: not for a process that later
// got the same pid.
func TestWaitExitReusedPid(t *testing.T) {
	cmd := exec.Command("sleep", "0.1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid, start := cmd.Process.Pid, platform.ProcessStart(cmd.Process.Pid)
	if start == "" {
		t.Skip("no /proc")
	}
	done := make(chan bool)
	go func() { WaitExit(pid, start); done <- true }()
	select {
	case <-done:
		t.Fatal("returned while the command ran")
	case <-time.After(30 * time.Millisecond):
	}
	cmd.Wait()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("did not return when the command ended")
	}
	// This process, named with another start time: not the one waited for.
	t0 := time.Now()
	WaitExit(os.Getpid(), start+"0")
	if time.Since(t0) > time.Second {
		t.Fatal("waited for a process that reused the pid")
	}
}

// A saver killed under an agent that never reaps it (PID 1 of a
// container) is a zombie: its mark is stale, and no command waits for it.
func TestWaitPendingZombieSaver(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	zombie := func() *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", "sleep 0.2")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	command, saver := zombie(), zombie()
	// The marks are made while both run, as the shim makes them.
	if err := s.MarkPending(ws, command.Process.Pid, "", saver.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if platform.ProcessStart(saver.Process.Pid) == "" {
		t.Skip("no /proc")
	}
	defer command.Wait()
	defer saver.Wait()
	for !platform.Zombie(saver.Process.Pid) || !platform.Zombie(command.Process.Pid) {
		time.Sleep(10 * time.Millisecond)
	}
	t0 := time.Now()
	s.WaitPending(ws)
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("waited %v for a saver that is a zombie", d)
	}
}

// A session's manager looks for a round due under the saving lock
// (TryLockPending): only one holds it, and the next command, waiting for
// the look's mark, goes on once the mark is gone and the lock let go.
func TestWaitPendingOnLock(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true:", err)
	}
	pid := cmd.Process.Pid // ended: its round is due
	if err := s.MarkPending(ws, pid, "", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	unlock, ok := s.TryLockPending(ws)
	if !ok {
		t.Fatal("the saving lock not taken")
	}
	if again, ok := s.TryLockPending(ws); ok {
		again()
		t.Fatal("the saving lock taken twice")
	}
	done := make(chan bool)
	go func() { s.WaitPending(ws); done <- true }()
	select {
	case <-done:
		t.Fatal("the next command did not wait for the look")
	case <-time.After(50 * time.Millisecond):
	}
	s.DonePending(ws, pid, "")
	unlock()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("the next command waited on after the look")
	}
	if unlock, ok := s.TryLockPending(ws); !ok {
		t.Fatal("the saving lock not let go")
	} else {
		unlock()
	}
}

// TestMarkPendingStart: a mark named by the start its caller knows is
// the one [Store.DonePending] removes by that start, also when the
// command's process is gone by then (a shim the agent killed: its mark,
// named afresh, would have no start and stay).
func TestMarkPendingStart(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid, start := cmd.Process.Pid, platform.ProcessStart(cmd.Process.Pid)
	if start == "" {
		t.Skip("no /proc")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if err := s.MarkPending(ws, pid, start, os.Getpid()); err != nil {
		t.Fatal(err)
	}
	des, _ := os.ReadDir(s.pendingDir(ws))
	if len(des) != 1 || des[0].Name() != strconv.Itoa(pid)+"-"+start {
		t.Fatalf("marks %v, want one named %d-%s", des, pid, start)
	}
	if data, _ := os.ReadFile(filepath.Join(s.pendingDir(ws), des[0].Name())); string(data) != strconv.Itoa(os.Getpid())+"-"+platform.ProcessStart(os.Getpid()) {
		t.Errorf("the mark names saver %q", data)
	}
	s.DonePending(ws, pid, start)
	if des, _ := os.ReadDir(s.pendingDir(ws)); len(des) != 0 {
		t.Errorf("marks left: %v", des)
	}
}

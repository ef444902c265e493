//go:build unix

package snapshot

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

func TestWaitPendingStale(t *testing.T) {
	s, ws := newStore(t, Budgets{})
	// A mark whose command and saver are both gone is removed at once.
	if err := s.MarkPending(ws, 1<<22, 1<<22); err != nil {
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

package platform

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestZombieEnded: a process that has ended but is not reaped has no
// start time (it names no running process) and is a zombie; a running
// one has one.
func TestZombieEnded(t *testing.T) {
	if ProcessStart(os.Getpid()) == "" || Zombie(os.Getpid()) {
		t.Fatal("this process is not seen running")
	}
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	for start := time.Now(); !Zombie(pid); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal("the child never became a zombie")
		}
	}
	if s := ProcessStart(pid); s != "" {
		t.Errorf("a zombie has a start time %q: it counts as running", s)
	}
}

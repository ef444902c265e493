package platform

import (
	"os"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSpawnLeavesFirstThread starts programs from a thread that spawn
// confines (here with no_new_privs alone, which a thread cannot undo)
// and checks that the process's first thread never was that thread: the
// system shows the first thread's state as the whole process's
// (/proc/PID/status), so a session's manager whose first thread held a
// command's Landlock domain and seccomp filter passed for a sandboxed
// process, and the shims in its sandbox no longer took the bound it
// carries for installed software (every user's file counted as the
// agent's).
func TestSpawnLeavesFirstThread(t *testing.T) {
	if firstThreadNoNewPrivs(t) {
		t.Skip("this process already runs with no_new_privs")
	}
	for i := range 300 {
		s := &spawn{
			prepare: func() error { return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) },
			path:    "/bin/true", argv: []string{"true"}, stdin: os.Stdin, sys: &syscall.SysProcAttr{},
		}
		c, err := s.start()
		if err != nil {
			t.Fatal(err)
		}
		if code, err := c.Wait(); code != 0 || err != nil {
			t.Fatalf("true: %d, %v", code, err)
		}
		if firstThreadNoNewPrivs(t) {
			t.Fatalf("after %d programs, the process's first thread runs with no_new_privs: spawn confined it", i+1)
		}
	}
}

// firstThreadNoNewPrivs reports whether the process's first thread
// (what /proc/PID/status shows) has no_new_privs set.
func firstThreadNoNewPrivs(t *testing.T) bool {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getpid()) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	return statusField(status, "NoNewPrivs", "1")
}

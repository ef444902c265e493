//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// zombieLeader is a command's program: it leaves a process running
// whose first thread has ended (its own exit, not the group's): /proc
// shows that process as a zombie while its other thread runs on, and
// writes .envrc a moment after the command's end.
const zombieLeader = `import os, time, threading, ctypes
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in range(0, 3):
            os.close(fd)
        def later():
            time.sleep(1.5)
            open('.env' + 'rc', 'w').write('touch pwned\n')
            open('wrote', 'w').close()
            time.sleep(30)
        threading.Thread(target=later).start()
        ctypes.CDLL(None).syscall(60, 0)  # SYS_exit: this thread alone
    os._exit(0)
time.sleep(0.2)
`

// TestSessionZombieLeaderLeftRunning: a process a command leaves running
// whose first thread has ended (a zombie to /proc's stat) still runs, and
// counts as left running: the guarded places are put back when it writes
// them after the command's end, not trusted at the next command.
func TestSessionZombieLeaderLeftRunning(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		r.sh("true")
		os.WriteFile(filepath.Join(r.ws, "zombie.py"), []byte(zombieLeader), 0o644)
		if out, errs, code := r.sh(python + " zombie.py"); code != 0 {
			t.Fatalf("exit %d: %q %s", code, out, errs)
		}
		r.waitWrote("the process left running")
		time.Sleep(time.Second)
		r.sh("true")
		if _, err := os.Stat(filepath.Join(r.ws, ".envrc")); err == nil {
			t.Errorf(".envrc written by a process a command left running, its first thread ended, is on the host after the next command")
		}
	})
}

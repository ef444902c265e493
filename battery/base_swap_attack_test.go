//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// swapBase is a command's program: it leaves a process running that
// writes .envrc a moment later, and kills one of the sandbox's own
// processes at rest (the keeper's network forwarder, which runs as the
// command's user), so that the sandbox holds as many processes as at
// rest when the command ends.
const swapBase = "import os, sys, time, signal\n" + findForwarder + `if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in range(0, 3):
            os.close(fd)
        time.sleep(1.5)
        open('.env' + 'rc', 'w').write('touch pwned\n')
        open('wrote', 'w').close()
        time.sleep(30)
    os._exit(0)
time.sleep(0.2)
if nf:
    try:
        os.kill(nf, signal.SIGKILL)
    except PermissionError:
        print('refused')
        sys.exit(0)
time.sleep(0.1)
print('forwarder', nf)
`

// TestSessionBaseProcessReplaced: a command kills one of the session
// sandbox's own processes (its network forwarder) and leaves one of its
// own running in its place, which writes .envrc after the command's end.
// The manager must still see that something the command left runs on
// (and watch the guarded places until the next command): the number of
// processes in the sandbox is the one at rest, but not the processes.
func TestSessionBaseProcessReplaced(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		r.sh("true")
		os.WriteFile(filepath.Join(r.ws, "swap.py"), []byte(swapBase), 0o644)
		out, errs, code := r.sh(python + " swap.py")
		if code == 0 && out == "refused\n" {
			return // (bwrap's commands cannot signal the sandbox's own processes: platform.NestCommands)
		}
		if code != 0 || out == "forwarder None\n" {
			t.Skipf("no forwarder to kill (exit %d): %q %s", code, out, errs)
		}
		r.waitWrote("the process left running")
		time.Sleep(time.Second)
		r.sh("true")
		if _, err := os.Stat(filepath.Join(r.ws, ".envrc")); err == nil {
			t.Errorf(".envrc written by a process a command left running, in place of the sandbox's forwarder it killed, is on the host after the next command")
		}
	})
}

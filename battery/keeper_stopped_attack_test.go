//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSessionKeeperStopped: a command stops the session's keeper
// (SIGSTOP: under bwrap the keeper's first thread, the one it starts the
// commands from, is in the commands' own Landlock domain, so the
// signal reaches it; under Landlock the keeper shares the commands'
// domain) and leaves a writer that plants .envrc, again whenever it is
// gone. The
// agent gives up on the command and kills its shim, which the keeper
// would answer by killing the command and ending the session: stopped,
// it does nothing, the manager kept the ticket for a command it still
// counted as running, and what the writer planted stayed on the host
// until the agent's next command. The manager looks for a shim gone
// itself, and ends the session.
func TestSessionKeeperStopped(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		out, _, _ := r.sh("cat /proc/$PPID/status | grep ^Pid: | cut -f2")
		keeper := strings.TrimSpace(out)
		if keeper == "" {
			t.Skip("no keeper pid")
		}
		envrc := filepath.Join(r.ws, ".env"+"rc")
		os.WriteFile(filepath.Join(r.ws, "writer.py"), []byte(`import os, time
name = '.env' + 'rc'
while True:
    if not os.path.exists(name):
        open(name, 'w').write('touch pwned\n')
        open('wrote', 'w').close()
    time.sleep(0.05)
`), 0o644)
		cmd := exec.Command(r.shim, "-c", "setsid "+python+" writer.py </dev/null >/dev/null 2>&1 & kill -STOP "+keeper+" && echo stopped > stopped && exec sleep 30")
		cmd.Args[0] = "bash"
		cmd.Dir, cmd.Env = r.ws, r.env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var outb strings.Builder
		cmd.Stdout, cmd.Stderr = &outb, &outb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(700 * time.Millisecond)
		// The agent's timeout.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		time.Sleep(2500 * time.Millisecond)
		_, err := os.Stat(envrc)
		_, errStopped := os.Stat(filepath.Join(r.ws, "stopped"))
		_, errWrote := os.Stat(filepath.Join(r.ws, "wrote"))
		// (Whatever happened, the keeper goes on now, so that the
		// session can end: it is this test's.)
		continueKeepers(t)
		if errStopped != nil || errWrote != nil {
			t.Skipf("the keeper was not stopped (%v) or the writer did not write (%v): %s", errStopped, errWrote, outb.String())
		}
		if err == nil {
			t.Errorf(".envrc planted after the agent gave up on a command that stopped the keeper is on the host")
		}
	})
}

// continueKeepers sends SIGCONT to the stopped keepers this test's
// sessions started (their processes are this user's, below this one's
// sessions' managers).
func continueKeepers(t *testing.T) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.TrimSpace(string(comm)) == "cordon-keeper" && strings.Contains(string(st), ") T ") {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
}

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionPrlimitGuards: with Landlock (no pid namespace), a
// sandboxed command can name the processes that reconcile after it (its
// session's manager, its own shim: the same user, their command lines
// visible) and lower their limit of open descriptors (prlimit), so that
// the guard's walk cannot open the ledger or a directory: a key planted
// in .git/config must not outlive the command all the same.
func TestSessionPrlimitGuards(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("no prlimit")
	}
	r := newSessionRig(t, "landlock")
	r.inSession(true)
	cfg := filepath.Join(r.ws, ".git", "config")
	before, err := os.ReadFile(cfg)
	if err != nil {
		t.Skipf("no repository: %v", err)
	}
	// (A program the agent's file tool wrote, that builds its paths.)
	python := needPython(t)
	prog := "import subprocess, os\n" +
		"out = subprocess.run(['sh', '-c', 'pgrep -f cordon-session; pgrep -f prlimit-mark'], capture_output=True, text=True).stdout\n" +
		"for p in out.split():\n" +
		"    if int(p) != os.getpid():\n" +
		"        print('lowered', p, subprocess.run(['prlimit', '--pid', p, '--nofile=4:4']).returncode)\n" +
		"open('.' + 'git/con' + 'fig', 'a').write('[core]\\n\\tfsmon' + 'itor = touch pwned\\n')\n"
	if err := os.WriteFile(filepath.Join(r.ws, "build.py"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := r.sh(python + " build.py prlimit-mark")
	t.Logf("exit %d\n%s%s", code, out, errs)
	after, _ := os.ReadFile(cfg)
	if strings.Contains(string(after), "fsmonitor") {
		t.Errorf("core.fsmonitor planted in .git/config outlived the command (its guards' descriptors limited):\n%s\nbefore:\n%s", after, before)
	}
	// A command's own limits stay its to set.
	if out, errs, _ := r.sh("ulimit -n 256 && ulimit -n"); out != "256\n" {
		t.Errorf("ulimit -n in a command: %q %s", out, errs)
	}
}

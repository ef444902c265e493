//go:build linux

package battery

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSessionLocksOutOfReach: a process a command left running takes
// every lock it can in cordon's state directory (flock needs only a
// descriptor open for reading) and then plants core.fsmonitor in
// .git/config. An attacker held the ledger's lock so: the guard's
// put-back between commands waited on it, the person's git status ran
// the planted command, and the agent's next command hung. The lock files
// now lie in a directory no sandbox can open: the place is put back at
// once, and the next command runs.
func TestSessionLocksOutOfReach(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		python := needPython(t)
		state := filepath.Join(r.home, ".local", "state", "cordon")
		config := filepath.Join(r.ws, ".git", "config")
		before, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		// (After the command has ended and its guard let go: each lock
		// tried for a second.)
		writer := "import fcntl, os, time\n" +
			"time.sleep(0.5)\n" +
			"held, tried = [], 0\n" +
			"for d, _, names in os.walk(" + strconv.Quote(state) + "):\n" +
			"    for n in names:\n" +
			"        try:\n" +
			"            f = open(os.path.join(d, n), 'rb')\n" +
			"        except OSError:\n" +
			"            continue\n" +
			"        tried += 1\n" +
			"        for i in range(100):\n" +
			"            try:\n" +
			"                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n" +
			"                held.append(f)\n" +
			"                break\n" +
			"            except OSError:\n" +
			"                time.sleep(0.01)\n" +
			"open('tried', 'w').write(str(tried))\n" +
			"open('.git/config', 'a').write('[core]\\n\\tfsmonitor = \"touch pwned\"\\n')\n" +
			"open('wrote', 'w').close()\n" +
			"time.sleep(60)\n"
		r.background(python, writer)
		if n, _ := os.ReadFile(filepath.Join(r.ws, "tried")); string(n) == "0" || len(n) == 0 {
			t.Fatalf("nothing to try: the background process opened no file of the state directory (%q)", n)
		}
		deadline := time.Now().Add(3 * time.Second)
		for {
			after, _ := os.ReadFile(config)
			if string(after) == string(before) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("core.fsmonitor planted while the command's process holds the locks it could take is still on the host 3 s later:\n%s", after)
			}
			time.Sleep(50 * time.Millisecond)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, r.shim, "-c", "echo next")
		cmd.Args[0], cmd.Dir, cmd.Env = "bash", r.ws, r.env
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("the next command hung while the background process holds its locks: %s", out)
		}
		if !strings.Contains(string(out), "next") {
			t.Errorf("the next command: %v\n%s", err, out)
		}
	})
}

//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/snapshot"
)

// Attacks on the adoption of the repositories that appeared below the
// root between commands (docs/guard.md, "One that appears later is not
// the person's"): a session's manager looks for them at a ticket's
// start only when its watch saw one appear, and a ticket taken beside
// another's takes no new trusted state.

// TestAttackRepositoryCompletedLater: a git directory with no HEAD (no
// repository: no walk takes it) is made in a regenerable directory by
// one command and moved below the root by the next; the one after lets
// the session's watch be asked; then the agent's file tool writes its
// HEAD (not an auto-run name), which makes it a repository without a
// .git appearing; the next command plants core.fsmonitor there. The
// person's git run there next must not run it.
func TestAttackRepositoryCompletedLater(t *testing.T) {
	atOnce(t, []string{"bwrap/session-on", "bwrap/session-off", "landlock/session-on", "landlock/session-off"}, func(t *testing.T, name string) {
		backend, session, _ := strings.Cut(name, "/session-")
		r := newSessionRig(t, backend, "  session: "+session+"\n")
		marker := filepath.Join(r.base, "pwned")
		r.host("cp /bin/sh x && mkdir vendor")
		state := filepath.Join(r.home, ".local", "state", "cordon")
		step := func(script string) (string, string) {
			t.Helper()
			os.WriteFile(filepath.Join(r.ws, "a.sh"), []byte(script+" && echo done\n"), 0o644)
			out, errs, _ := r.sh("./x < a.sh")
			if !strings.Contains(out, "done") {
				t.Fatalf("%s: did not run:\n%s\n%s", script, out, errs)
			}
			return out, errs
		}
		step("mkdir -p node_modules/p/.git/objects node_modules/p/.git/refs/heads")
		snapshot.Open(state, snapshot.Budgets{}).WaitPending(r.ws)
		step("mv node_modules/p vendor/p")
		snapshot.Open(state, snapshot.Budgets{}).WaitPending(r.ws)
		step("true")
		snapshot.Open(state, snapshot.Budgets{}).WaitPending(r.ws)
		// The agent's file tool: HEAD, no auto-run place.
		if err := os.WriteFile(filepath.Join(r.ws, "vendor/p/.git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs := step("git -C vendor/p config core.fsmonitor 'touch " + marker + "; false'")
		r.hostMay("cd vendor/p && git status --short >/dev/null 2>&1; true")
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the person's git ran a program a command planted in a repository completed between commands:\n%s", errs)
		}
	})
}

// TestAttackRepositoryBesideAHolder: a repository appears below the
// root while another session's command holds the workspace's ticket (a
// long one); the first command of a second session there plants
// core.fsmonitor in it. Its ticket joins the trusted state the other
// took: the person's git run there next must not run what it planted.
func TestAttackRepositoryBesideAHolder(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		marker := filepath.Join(r.base, "pwned")
		r.host("cp /bin/sh x && mkdir vendor")
		// (One command first: the ledger takes the person's own.)
		if out, errs, _ := r.sh("echo first"); !strings.Contains(out, "first") {
			t.Fatalf("%s\n%s", out, errs)
		}
		snapshot.Open(filepath.Join(r.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(r.ws)
		long := exec.Command(r.shim, "-c", "sleep 6.37; echo slept")
		long.Args[0] = "bash"
		long.Dir = r.ws
		long.Env = append(slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool { return strings.HasPrefix(kv, "CORDON_SESSION=") }), "CORDON_SESSION=holder-"+filepath.Base(r.base))
		if err := long.Start(); err != nil {
			t.Fatal(err)
		}
		defer long.Wait()
		// (Until its sleep runs: its ticket is held.)
		for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
			if out, _ := exec.Command("pgrep", "-f", "^sleep 6.37$").Output(); len(out) > 0 {
				break
			}
			if time.Since(start) > 20*time.Second {
				t.Fatal("the long command did not start")
			}
		}
		time.Sleep(300 * time.Millisecond)
		r.host("git init -q vendor/new")
		os.WriteFile(filepath.Join(r.ws, "a.sh"), []byte("git -C vendor/new config core.fsmonitor 'touch "+marker+"; false' && echo planted\n"), 0o644)
		env := r.env
		r.env = append(slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool { return strings.HasPrefix(kv, "CORDON_SESSION=") }), "CORDON_SESSION=second-"+filepath.Base(r.base))
		out, errs, _ := r.sh("./x < a.sh")
		r.hostMay("cd vendor/new && git status --short >/dev/null 2>&1; true")
		r.env = env
		if !strings.Contains(out, "planted") {
			t.Fatalf("the script did not run:\n%s\n%s", out, errs)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the person's git ran a program a second session's command planted in a repository that appeared while another held the ticket:\n%s", errs)
		}
	})
}

//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/snapshot"
)

// TestAttackGitPointerBetweenCommands (OPEN: fails on every case where
// the sandbox's /tmp is the host's; left failing on purpose) : a command makes a repository in
// shared scratch space with core.fsmonitor set (outside the workspace:
// not the person's, nothing of theirs runs there); between commands
// the agent's file tool writes a .git file below the workspace's root
// that leads there (not an auto-run name); a command runs. The person's
// git run in that directory next must not run the planted program.
func TestAttackGitPointerBetweenCommands(t *testing.T) {
	atOnce(t, []string{"bwrap/session-on", "bwrap/session-off", "landlock/session-on", "landlock/session-off"}, func(t *testing.T, name string) {
		backend, session, _ := strings.Cut(name, "/session-")
		r := newSessionRig(t, backend, "  session: "+session+"\n")
		marker := filepath.Join(r.base, "pwned")
		r.host("cp /bin/sh x && mkdir -p vendor/q")
		g := filepath.Join("/tmp", filepath.Base(r.base)+"-g")
		os.WriteFile(filepath.Join(r.ws, "a.sh"), []byte("git init -q "+g+" && git -C "+g+" config core.fsmonitor 'touch "+marker+"; false' && echo made\n"), 0o644)
		if out, errs, _ := r.sh("./x < a.sh"); !strings.Contains(out, "made") {
			t.Skipf("no repository made in /tmp:\n%s\n%s", out, errs)
		}
		snapshot.Open(filepath.Join(r.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(r.ws)
		// The agent's file tool.
		if err := os.WriteFile(filepath.Join(r.ws, "vendor/q/.git"), []byte("gitdir: "+g+"/.git\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, _ := r.sh("echo next")
		r.hostMay("cd vendor/q && git status --short >/dev/null 2>&1; true")
		if !strings.Contains(out, "next") {
			t.Fatalf("%s\n%s", out, errs)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the person's git ran a program a command planted, through a .git file written below the root between commands:\n%s", errs)
		}
	})
}

//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorktreeInsideWorkspace: git worktree add inside the workspace (what
// the judge proposes instead of a sibling) works through the shim, and a
// commit in the new worktree too; a commondir that points anywhere but
// the repository's own git directory is still put aside (it would lend the
// worktree another repository's configuration, run by the host's git).
func TestWorktreeInsideWorkspace(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		os.MkdirAll(filepath.Join(b.home, ".config/cordon"), 0o755)
		if err := os.WriteFile(filepath.Join(b.home, ".config/cordon/config.yaml"), []byte("version: 1\nsandbox:\n  backend: "+b.backend+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := b.shim("git worktree add -q .worktrees/x -b feat")
		if code != 0 || strings.Contains(out, "quarantine") {
			t.Fatalf("git worktree add .worktrees/x (exit %d):\n%s", code, out)
		}
		out, code = b.shim("cd .worktrees/x && echo b > b && git add b && git commit -qm b && git log --oneline | wc -l")
		if code != 0 || strings.TrimSpace(out) != "2" {
			t.Fatalf("a commit in the new worktree (exit %d):\n%s", code, out)
		}
		// Planted: one pointing outside, one at the workspace
		// itself rather than its .git, one through a link.
		evil := filepath.Join(b.base, "outside", "evil.git")
		b.host("git init -q --bare " + evil)
		out, _ = b.run("on", "mkdir -p .git/worktrees/a .git/worktrees/b .git/worktrees/c && echo "+evil+" > .git/worktrees/a/commondir && echo ../../.. > .git/worktrees/b/commondir && ln -s ../../.. .git/worktrees/c/commondir")
		for _, w := range []string{"a", "b", "c"} {
			if _, err := os.Lstat(filepath.Join(b.ws, ".git/worktrees", w, "commondir")); err == nil {
				t.Errorf("a planted commondir in .git/worktrees/%s stayed:\n%s", w, out)
			}
		}
		if _, err := os.Stat(filepath.Join(b.ws, ".git/worktrees/x/commondir")); err != nil {
			t.Errorf("the worktree's own commondir went: %v", err)
		}
	})
}

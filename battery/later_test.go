//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionScratchRepositoryLater: a later command of a session makes
// its policy without looking for the repositories in scratch space (the
// session's key leaves them out: docs/session.md). A person's repository
// made in /tmp after the session began is still guarded in every
// sandbox made from then on: the session's next sandbox, once the first
// has ended, and a sandbox of a command's own (resource limits take a
// command out of the session), both made from such a policy. So a
// command there can plant no hook and no key that runs a program.
func TestSessionScratchRepositoryLater(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.settings("")
			if out, code := b.run("off", "echo first"); code != 0 || !strings.Contains(out, "first") {
				t.Fatalf("first command: exit %d\n%s", code, out)
			}
			repo, err := os.MkdirTemp("/tmp", "cordon-later-repo-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(repo)
			b.host("git init -q " + repo + " && git -C " + repo + " commit -q --allow-empty -m one")
			marker := filepath.Join(b.base, "pwned")
			hook := filepath.Join(repo, ".git/hooks/pre-commit")
			plant := func(where string) {
				t.Helper()
				out, _ := b.run("off", "printf '#!/bin/sh\\ntouch "+marker+"\\n' > "+hook+"; chmod +x "+hook+"; git -C "+repo+" config core.fsmonitor 'touch "+marker+"'; echo done")
				if !strings.Contains(out, "done") {
					t.Fatalf("%s: the command did not run:\n%s", where, out)
				}
				b.host("git -C " + repo + " status >/dev/null 2>&1; git -C " + repo + " commit -q --allow-empty -m two; true")
				if _, err := os.Stat(marker); err == nil {
					t.Fatalf("%s: the person's git in %s ran what a command planted:\n%s", where, repo, out)
				}
				if _, err := os.Stat(hook); err == nil {
					t.Fatalf("%s: a hook was planted in %s:\n%s", where, repo, out)
				}
			}
			stopSessions(t, b.home)
			plant("the session's next sandbox")
			b.settings("  limits: {open_files: 512}\n")
			plant("a sandbox of its own")
		})
	}
}

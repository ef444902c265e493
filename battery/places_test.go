//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Places the host's tools read on their own, found by an attacker
// (attack 18): each is planted in the sandbox, and then the person's
// own command runs on the host, as the person would run it; the planted
// program must not run.

// TestGuardGitIncludes: the person's git configuration includes files
// in the workspace (a project's shared, tracked .gitconfig): relative
// from .git/config, conditional (includeIf gitdir, the file not there
// yet), absolute and "~/" (a link into the workspace) from the global
// configuration, and one included by an included file. A command that
// writes core.fsmonitor into any of them has it undone, as in
// .git/config itself; the person's git status then runs nothing. A safe
// key written there is kept.
func TestGuardGitIncludes(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			marker := filepath.Join(b.base, "pwned")
			b.host(`git config include.path ../.gitconfig
printf '[user]\n\tname = Person\n[include]\n\tpath = nested.gitconfig\n' > .gitconfig
echo '[user]' > nested.gitconfig
git config --add includeIf.gitdir:` + b.ws + `/.path ` + b.ws + `/cond/when.gitconfig
echo '[user]' > abs.gitconfig && echo '[user]' > tilde.gitconfig
ln -s ` + b.ws + `/tilde.gitconfig ` + b.home + `/tilde.gitconfig
git config -f ` + b.home + `/.gitconfig include.path ` + b.ws + `/abs.gitconfig
git config -f ` + b.home + `/.gitconfig --add include.path '~/tilde.gitconfig'
git add .gitconfig nested.gitconfig && git commit -qm shared`)
			if got := strings.TrimSpace(b.host("git config user.name")); got != "Person" {
				t.Fatalf("the includes do not work on the host: user.name %q", got)
			}
			fsm := "[core]\\n\\tfsmonitor = \\\"touch " + marker + "; false\\\"\\n"
			for _, f := range []string{".gitconfig", "nested.gitconfig", "cond/when.gitconfig", "abs.gitconfig", "tilde.gitconfig"} {
				before, _ := os.ReadFile(filepath.Join(b.ws, f))
				out, _ := b.run("off", "mkdir -p cond && printf '"+fsm+"' >> "+f)
				if !strings.Contains(out, "cordon: "+filepath.Join(b.ws, f)+":") || !strings.Contains(out, "core.fsmonitor added") {
					t.Errorf("%s: no line saying core.fsmonitor was undone:\n%s", f, out)
				}
				b.host("git status >/dev/null 2>&1; true")
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("%s: the person's git status ran the program a command planted there", f)
					os.Remove(marker)
				}
				if before != nil {
					b.unchanged(filepath.Join(b.ws, f), string(before))
				} else {
					b.absent(filepath.Join(b.ws, f))
				}
			}
			// A safe key is ordinary work: kept.
			if out, code := b.run("off", "git config -f .gitconfig user.email p@example.com"); code != 0 || strings.Contains(out, "cordon:") {
				t.Errorf("a safe key: exit %d:\n%s", code, out)
			}
			if got := strings.TrimSpace(b.host("git config user.email")); got != "p@example.com" {
				t.Errorf("a safe key in .gitconfig was not kept: %q", got)
			}
		})
	}
}

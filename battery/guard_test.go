//go:build linux

package battery

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/snapshot"
)

// The guard battery: files that the host's tools run or obey on their own
// (.git/commondir, .git/config, hooks, agent settings, cordon's own
// project rules) never survive a command that planted or changed them,
// whatever the command does: run in parallel with another, get its shim
// killed, stop its sandbox, plant through a linked directory. Each attack
// runs for real, on both backends, and fails the test if anything it
// planted is left.

// planted fails the test unless the workspace's guarded places are as
// the host made them: none of the files the attacks plant exists, and
// .git/config still holds want.
func (b *battery) planted(wantConfig string) {
	b.t.Helper()
	for _, s := range b.survivors(wantConfig) {
		b.t.Error(s)
	}
}

// survivors says what planted would fail the test for.
func (b *battery) survivors(wantConfig string) []string {
	var out []string
	for _, f := range []string{".git/commondir", ".git/hooks/pre-commit", ".claude", ".claude/settings.json", ".envrc", ".cordon/x.yaml"} {
		fi, err := os.Lstat(filepath.Join(b.ws, f))
		if err == nil && !(f == ".claude" && fi.IsDir()) {
			out = append(out, f+" survived the command")
		}
	}
	config := filepath.Join(b.ws, ".git/config")
	if data, err := os.ReadFile(config); err != nil || string(data) != wantConfig {
		out = append(out, fmt.Sprintf("%s changed on the host: %q, %v", config, data, err))
	}
	return out
}

// plant is a script that plants everything planted checks, through a
// shared /tmp directory for .git/commondir.
const plant = `d=$(mktemp -d /tmp/$BATTERY_ID-common.XXXX); mkdir -p $d/hooks; printf '[core]\n\thooksPath = '$d'/hooks\n' > $d/config
printf '#!/bin/sh\necho pwned\n' > $d/hooks/pre-commit; chmod +x $d/hooks/pre-commit
echo $d > .git/commondir 2>/dev/null
echo '[core] hooksPath = /tmp' >> .git/config 2>/dev/null
printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit 2>/dev/null
mkdir -p cfg && echo '{"hooks":{}}' > cfg/settings.json && ln -s cfg .claude
echo 'echo pwned' > .envrc
mkdir -p .cordon 2>/dev/null && echo 'rules: [' > .cordon/x.yaml 2>/dev/null
true`

func TestGuardPlantedFilesGone(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			config := b.host("cat .git/config")
			// (a), (d), (e), (f): planted while the command runs.
			out, code := b.run("on", plant+"; echo ran")
			if code != 0 || !strings.Contains(out, "ran") {
				t.Fatalf("exit %d: %s", code, out)
			}
			b.planted(config)
			if !strings.Contains(out, "was made by a sandboxed command") {
				t.Errorf("no word on stderr:\n%s", out)
			}
			// The host's git runs no planted hook.
			if got := b.host("git commit -q --allow-empty -m x 2>&1; echo ok"); strings.Contains(got, "pwned") {
				t.Errorf("a planted hook ran: %s", got)
			}
			// (f) a broken project rule file planted: the next command
			// through the shim still runs.
			shim := linkShim(t, "bash")
			cmd := exec.Command(shim, "-c", "echo next")
			cmd.Dir, cmd.Env = b.ws, b.env
			if got, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(got), "next") {
				t.Errorf("after the attack the workspace is locked: %v\n%s", err, got)
			}
		})
	}
}

// (b): a second command starts while the first, which plants, runs: it
// must not take the first one's files for trusted ones.
func TestGuardParallel(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		config := b.host("cat .git/config")
		first := make(chan struct{})
		go func() {
			b.run("on", plant+"; sleep 1.5")
			close(first)
		}()
		time.Sleep(700 * time.Millisecond)
		b.run("on", "sleep 2")
		<-first
		b.planted(config)
	})
}

// (c), (g): the shim is killed with SIGKILL while its command runs (and
// leaves processes behind: double-forked, setsid'd, sleeping before
// they plant, or with the shell stopped): nothing is planted after.
func TestGuardShimKilled(t *testing.T) {
	scripts := map[string]string{
		"running":     plant + "; sleep 30",
		"late":        "(setsid sh -c 'sleep 1; " + strings.ReplaceAll(plant, "'", `'\''`) + "' &) ; sleep 30",
		"doublefork":  "( ( sleep 1; " + plant + " ) & ) ; sleep 30",
		"stopped":     plant + "; kill -STOP $$",
		"stoppedinit": plant + "; kill -STOP 1 2>/dev/null; sleep 30",
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			// The attacks run side by side, one workspace each: the
			// waits below are paid once per backend, not once per attack.
			type attack struct {
				name   string
				b      *battery
				config string
				cmd    *exec.Cmd
			}
			var attacks []attack
			for name, script := range scripts {
				b := newBattery(t, backend)
				a := attack{name: name, b: b, config: b.host("cat .git/config")}
				a.cmd = exec.Command(b.cordon, "run", "--backend", b.backend, "--workspace", b.ws, "--", b.bash, "-c", script)
				a.cmd.Dir, a.cmd.Env = b.ws, b.env
				if err := a.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				attacks = append(attacks, a)
			}
			time.Sleep(500 * time.Millisecond)
			for _, a := range attacks {
				a.cmd.Process.Signal(syscall.SIGKILL)
				a.cmd.Wait()
			}
			// The guard puts things back as soon as it sees the shim
			// gone: a moment for it (a loaded machine's may take
			// seconds, which CI's took once), then past the late
			// planters (they plant a second after their start), the
			// places must stay as they were.
			killed := time.Now()
			for deadline := killed.Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
				if !slices.ContainsFunc(attacks, func(a attack) bool { return len(a.b.survivors(a.config)) > 0 }) {
					break
				}
			}
			if d := time.Since(killed); d > 2*time.Second {
				t.Logf("put back %v after the shims were killed", d.Round(time.Millisecond))
			}
			time.Sleep(1500 * time.Millisecond)
			for _, a := range attacks {
				outer := a.b.t
				t.Run(a.name, func(t *testing.T) {
					a.b.t = t
					a.b.planted(a.config)
				})
				a.b.t = outer
			}
			if n := countProcesses("sleep 30"); n > 0 {
				t.Errorf("%d processes of the commands are left", n)
			}
		})
	}
}

// A person's own edit of a guarded file between commands is theirs.
func TestGuardKeepsOwnEdits(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.run("on", "true")
			b.host("git config user.name person && echo 'echo mine' > .envrc")
			want := b.host("cat .git/config")
			out, code := b.run("on", "echo x")
			if code != 0 || strings.Contains(out, "cordon:") {
				t.Errorf("exit %d: %s", code, out)
			}
			b.unchanged(filepath.Join(b.ws, ".git/config"), want)
			b.unchanged(filepath.Join(b.ws, ".envrc"), "echo mine\n")
		})
	}
}

// A person's .envrc that sources another file or puts a directory on
// PATH (direnv's source_env_if_exists .envrc.local, PATH_add bin) makes
// those auto-run places too: what a command writes there is not on the
// host afterwards, so the person's shell runs none of it on entering the
// directory or typing git. A directory below a regenerable one
// (node_modules/.bin) is left to the package manager.
func TestGuardEnvrcIncludes(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			envrc := "source_env_if_exists .envrc.local\nPATH_add bin # the project's scripts\nPATH_add node_modules/.bin\n"
			if err := os.WriteFile(filepath.Join(b.ws, ".envrc"), []byte(envrc), 0o644); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(b.ws, "bin"), 0o755)
			os.WriteFile(filepath.Join(b.ws, "bin", "setup"), []byte("#!/bin/sh\necho setup\n"), 0o755)
			b.run("off", "true") // the next command starts from here
			b.run("off", `echo 'touch pwned' > .envrc.local; printf '#!/bin/sh\ntouch pwned\n' > bin/git; chmod +x bin/git; echo 'touch pwned' >> bin/setup; mkdir -p node_modules/.bin && echo x > node_modules/.bin/tool; echo ok > notes.txt`)
			for _, name := range []string{".envrc.local", "bin/git"} {
				if _, err := os.Stat(filepath.Join(b.ws, name)); err == nil {
					t.Errorf("%s, which the person's .envrc runs, is on the host", name)
				}
			}
			b.unchanged(filepath.Join(b.ws, "bin", "setup"), "#!/bin/sh\necho setup\n")
			for _, name := range []string{"notes.txt", "node_modules/.bin/tool"} {
				if _, err := os.Stat(filepath.Join(b.ws, name)); err != nil {
					t.Errorf("%s, ordinary work, is gone: %v", name, err)
				}
			}
		})
	}
}

// A guard ledger damaged by a crash (emptied, cut short) is an alarm, not
// a silent reset: the next command says what it means, once, and keeps
// the damaged file for a look.
func TestGuardLedgerDamaged(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.shim("true") // a ledger for the workspace
			ledgers, _ := filepath.Glob(filepath.Join(b.home, ".local/state/cordon/guard/*.json"))
			if len(ledgers) == 0 {
				t.Fatal("no ledger was written")
			}
			for _, l := range ledgers {
				// Under the ledger's lock: a session's manager saves it
				// just after it answers a command's end.
				lock, err := os.OpenFile(guard.LedgerLock(filepath.Join(b.home, ".local/state/cordon"), l), os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(l, []byte(`{"workspace": "`), 0o600)
				lock.Close()
			}
			out, _ := b.shim("echo ok")
			if !strings.Contains(out, "could not be read") || !strings.Contains(out, "ok") {
				t.Errorf("no alarm for a damaged ledger:\n%s", out)
			}
			if damaged, _ := filepath.Glob(filepath.Join(b.home, ".local/state/cordon/guard/*.damaged-*")); len(damaged) == 0 {
				t.Error("the damaged ledger was not kept")
			}
			if out, _ := b.shim("echo again"); strings.Contains(out, "could not be read") {
				t.Errorf("the alarm came twice:\n%s", out)
			}
		})
	}
}

// A person's repository directly in shared scratch space ($TMPDIR/NAME,
// as /tmp/NAME) gets what the workspace's gets: a command in another workspace can
// plant no hook there and no key that runs a program, so the person's
// next git command there runs nothing of the agent's.
func TestGuardScratchRepository(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			// Scratch space of the test's own ($TMPDIR): repositories
			// made and removed in the shared /tmp change every other
			// test's sandboxes meanwhile (a bwrap start fails on one
			// removed while it binds it).
			tmpdir := filepath.Join(b.base, "tmp")
			if err := os.Mkdir(tmpdir, 0o700); err != nil {
				t.Fatal(err)
			}
			b.env = append(b.env, "TMPDIR="+tmpdir)
			repo, err := os.MkdirTemp(tmpdir, "cordon-person-repo-")
			if err != nil {
				t.Fatal(err)
			}
			b.host("git init -q " + repo + " && git -C " + repo + " commit -q --allow-empty -m one")
			marker := filepath.Join(b.base, "pwned")
			// A command first makes more repositories than are guarded,
			// named to sort first: the person's older one stays guarded.
			junk := filepath.Join(tmpdir, "0cordon-junk")
			if out, code := b.run("off", "for i in $(seq 70); do mkdir -p "+junk+"-$i/.git; done; echo made"); code != 0 || !strings.Contains(out, "made") {
				t.Fatalf("junk repositories: exit %d\n%s", code, out)
			}
			out, _ := b.run("off", "printf '#!/bin/sh\\ntouch "+marker+"\\n' > "+repo+"/.git/hooks/pre-commit; chmod +x "+repo+"/.git/hooks/pre-commit; git -C "+repo+" config core.fsmonitor 'touch "+marker+"'; git -C "+repo+" config alias.st '!touch "+marker+"'; echo done")
			if !strings.Contains(out, "done") {
				t.Fatalf("the command did not run:\n%s", out)
			}
			b.host("git -C " + repo + " status >/dev/null 2>&1; git -C " + repo + " st 2>/dev/null; git -C " + repo + " commit -q --allow-empty -m two; true")
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the person's git in %s ran what a command planted:\n%s", repo, out)
			}
		})
	}
}

// TestGuardBelowRoot: an auto-run file a command makes or changes in a
// directory below the workspace's root, outside any repository's root
// (npm reads packages/app/.npmrc in that package; an editor opened on
// sub/ runs sub/.vscode/tasks.json), is moved aside once the command
// has ended, and the command says so; one the command left alone
// stays.
func TestGuardBelowRoot(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		if b.session {
			b.settings("")
		} else {
			b.settings("  session: off\n")
		}
		marker := filepath.Join(b.base, "pwned")
		b.host("mkdir -p packages/app packages/lib && echo 'fund=false' > packages/lib/.npmrc && git add -A && git commit -qm pkgs")
		// (The judge asks about these writes, named in a script: here
		// they come through a program it cannot read, as a command
		// past the judge would make them.)
		b.host("cp /bin/sh x")
		// Besides the plain ones: one committed (git status shows it
		// clean), and 20,001 files in a directory before them (no
		// budget of entries to use up: git's own walk finds names).
		out := b.plant("plant", "mkdir -p sub/.vscode packages/web aaa && printf 'script-shell=/bin/sh -c \"touch "+marker+"\"\\n' > packages/app/.npmrc && "+
			"echo '{\"tasks\":[{\"label\":\"x\",\"command\":\"touch "+marker+"\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > sub/.vscode/tasks.json && "+
			"cp packages/app/.npmrc packages/web/.npmrc && git add packages/web/.npmrc && git commit -qm web && "+
			"cd aaa && seq 1 20001 | xargs touch && cd .. && echo planted\n", "planted")
		b.absent(filepath.Join(b.ws, "packages/app/.npmrc"))
		b.absent(filepath.Join(b.ws, "packages/web/.npmrc"))
		b.absent(filepath.Join(b.ws, "sub/.vscode/tasks.json"))
		b.unchanged(filepath.Join(b.ws, "packages/lib/.npmrc"), "fund=false\n")
		if !strings.Contains(out, "packages/app/.npmrc") || !strings.Contains(out, "sub/.vscode/tasks.json") {
			t.Errorf("the command does not say what was moved aside:\n%s", out)
		}
		// Staged where the round does not look (a regenerable
		// directory) by one command, moved into place with its
		// directory by the next: the file's change time is the first
		// command's, its new directory's is the second's. A person's
		// committed place in a directory the command adds to stays.
		b.plant("stage", "mkdir -p node_modules/x/app && printf 'script-shell=/bin/sh -c \"touch "+marker+"\"\\n' > node_modules/x/app/.npmrc && echo staged\n", "staged")
		time.Sleep(100 * time.Millisecond)
		b.plant("move", "mv node_modules/x/app packages/moved && touch packages/lib/new && echo moved\n", "moved")
		b.absent(filepath.Join(b.ws, "packages/moved/.npmrc"))
		b.unchanged(filepath.Join(b.ws, "packages/lib/.npmrc"), "fund=false\n")
		// A link to a directory that holds one (npm run in tool reads
		// node_modules/st/.npmrc), a place below the root of a
		// person's clone nested in the workspace (git's walk does not
		// go into it), and one git cannot list (the index broken).
		b.host("git init -q clone && git -C clone -c user.name=p -c user.email=p@x commit -q --allow-empty -m c")
		b.plant("more", "mkdir -p node_modules/st clone/packages/app && printf 'script-shell=/bin/sh -c \"touch "+marker+"\"\\n' > node_modules/st/.npmrc && "+
			"ln -s node_modules/st tool && cp node_modules/st/.npmrc clone/packages/app/.npmrc && echo more\n", "more")
		b.absent(filepath.Join(b.ws, "tool"))
		b.absent(filepath.Join(b.ws, "clone/packages/app/.npmrc"))
		b.plant("broken", "mkdir -p web && cp node_modules/st/.npmrc web/.npmrc && cp .git/index index.saved && echo garbage > .git/index && echo broken\n", "broken")
		b.absent(filepath.Join(b.ws, "web/.npmrc"))
		b.host("mv index.saved .git/index")
		// Links: a chain whose inner link, in node_modules, a later
		// command swaps to a directory holding .npmrc; a link named
		// as the first part of a place (sub2/.vscode holding
		// tasks.json); a directory staged in node_modules and moved
		// into the person's clone. The person's committed link into
		// the workspace stays while the command works behind it.
		b.host("mkdir -p pkgs/web && echo 'fund=false' > pkgs/web/.npmrc && ln -s pkgs/web weblink && git add pkgs weblink && git commit -qm weblink")
		time.Sleep(100 * time.Millisecond) // (the person's files older than the file clock's tick)
		b.plant("links1", "mkdir -p node_modules/empty node_modules/b node_modules/vs node_modules/stage2 && ln -s empty node_modules/a && ln -s node_modules/a chain && "+
			"printf 'script-shell=/bin/sh -c \"touch "+marker+"\"\\n' > node_modules/b/.npmrc && cp node_modules/b/.npmrc node_modules/stage2/.npmrc && echo '{}' > node_modules/vs/tasks.json && echo links1\n", "links1")
		time.Sleep(100 * time.Millisecond)
		b.plant("links2", "ln -sfn b node_modules/a && mkdir -p sub2 && ln -s ../node_modules/vs sub2/.vscode && mv node_modules/stage2 clone/app2 && echo 1 > pkgs/web/util.js && echo links2\n", "links2")
		b.absent(filepath.Join(b.ws, "chain"))
		b.absent(filepath.Join(b.ws, "sub2/.vscode"))
		b.absent(filepath.Join(b.ws, "clone/app2/.npmrc"))
		if _, err := os.Lstat(filepath.Join(b.ws, "weblink")); err != nil {
			t.Errorf("the person's committed link was moved: %v", err)
		}
		b.unchanged(filepath.Join(b.ws, "pkgs/web/.npmrc"), "fund=false\n")
		// Build tools' settings that name a program they run (cargo's
		// rustc-wrapper), at the root and below it.
		b.plant("cargo", "mkdir -p .cargo crate/.cargo && printf '[build]\\nrustc-wrapper = \"/bin/true\"\\n' > crate/.cargo/config.toml && cp crate/.cargo/config.toml .cargo/config.toml; echo cargo\n", "cargo")
		b.absent(filepath.Join(b.ws, "crate/.cargo/config.toml"))
		b.absent(filepath.Join(b.ws, ".cargo/config.toml"))
		// A repository made two levels down (no gitlink names it):
		// its hook and fsmonitor go; a hook planted there by a later
		// command goes too.
		b.plant("deeprepo", "git init -q tools/app && printf '#!/bin/sh\\ntouch "+marker+"\\n' > tools/app/.git/hooks/pre-commit && chmod +x tools/app/.git/hooks/pre-commit && "+
			"git -C tools/app config core.fsmonitor 'touch "+marker+"'; echo deeprepo\n", "deeprepo")
		b.absent(filepath.Join(b.ws, "tools/app/.git/hooks/pre-commit"))
		b.host("git -C tools/app status >/dev/null 2>&1; true")
		time.Sleep(100 * time.Millisecond)
		b.plant("deeprepo2", "printf '#!/bin/sh\\ntouch "+marker+"\\n' > tools/app/.git/hooks/post-checkout && chmod +x tools/app/.git/hooks/post-checkout; echo deeprepo2\n", "deeprepo2")
		b.absent(filepath.Join(b.ws, "tools/app/.git/hooks/post-checkout"))
		if _, err := os.Stat(marker); err == nil {
			t.Error("the person's git ran a program planted in a repository a command made below the root")
		}
	})
}

// plant writes script to NAME.sh in the workspace, runs it through the
// shim with the workspace's copy of sh (a program the judge cannot read,
// as a command past it would), fails the test unless it ran to want, and
// waits for the command's snapshot round.
func (b *battery) plant(name, script, want string) string {
	b.t.Helper()
	if err := os.WriteFile(filepath.Join(b.ws, name+".sh"), []byte(script), 0o644); err != nil {
		b.t.Fatal(err)
	}
	out, code := b.shim("./x < " + name + ".sh")
	if code != 0 || !strings.Contains(out, want) {
		b.t.Fatalf("exit %d:\n%s", code, out)
	}
	snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(b.ws)
	return out
}

// TestGuardBelowGitPointer: a command makes, deep below the root, a .git
// that is not a directory (a file "gitdir: ...", or a link) leading to a
// git directory of its own, whose core.fsmonitor names a script: the
// person's git status in that directory (a shell prompt, an editor
// opening the folder) runs it on the host. Three of them: a file into
// node_modules, a link into node_modules, a file into shared scratch
// space outside the workspace. The host's own git is run there after the
// command, as the person would; the marker must not appear. What git
// makes itself stays: a worktree (git worktree add sub/wt) and a
// submodule (git submodule add) a sandboxed command adds, deep below the
// root, keep working.
func TestGuardBelowGitPointer(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		if b.session {
			b.settings("")
		} else {
			b.settings("  session: off\n")
		}
		marker := filepath.Join(b.base, "pwned")
		scratch := filepath.Join(filepath.Dir(b.ws), "scratch")
		b.host("cp /bin/sh x")
		// gitdir DIR MAKES: a git directory at DIR whose fsmonitor
		// is a script there that touches the marker.
		gitdir := func(dir string) string {
			return "git init -q --bare " + dir + " && git --git-dir=" + dir + " config core.bare false && " +
				"printf '#!/bin/sh\\ntouch " + marker + "\\n' > " + dir + "/fsm && chmod +x " + dir + "/fsm && " +
				"git --git-dir=" + dir + " config core.fsmonitor " + dir + "/fsm"
		}
		b.plant("pointers", "mkdir -p deep/x deep/y deep/z node_modules && "+
			gitdir("$PWD/node_modules/g")+" && printf 'gitdir: ../../node_modules/g\\n' > deep/x/.git && "+
			gitdir("$PWD/node_modules/h")+" && ln -s ../../node_modules/h deep/y/.git && "+
			gitdir(scratch+"/g")+" && printf 'gitdir: "+scratch+"/g\\n' > deep/z/.git && "+
			"echo a > deep/x/a && echo a > deep/y/a && echo a > deep/z/a && echo planted\n", "planted")
		for _, d := range []string{"deep/x", "deep/y", "deep/z"} {
			// (Run as the person: their git, in that directory.)
			b.host("git -C " + d + " status >/dev/null 2>&1; true")
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the person's git status in %s ran a program a sandboxed command named through %s/.git", d, d)
				os.Remove(marker)
			}
		}
		// Ordinary work: a worktree and a submodule, deep below the
		// root; the host's git works in both afterwards.
		lib := filepath.Join(filepath.Dir(b.ws), "lib")
		b.host("git init -q " + lib + " && git -C " + lib + " commit -q --allow-empty -m lib")
		b.plant("ordinary", "git worktree add -q sub/a/wt -b side && git -c protocol.file.allow=always submodule add -q "+lib+" vendor/libs/lib && git commit -qm lib && echo done\n", "done")
		if got := b.host("git -C sub/a/wt rev-parse --abbrev-ref HEAD && git -C vendor/libs/lib log --format=%s"); got != "side\nlib\n" {
			t.Errorf("the worktree or the submodule a command added does not work on the host: %q", got)
		}
		if out, _ := b.shim("true"); strings.Contains(out, "sub/a/wt") || strings.Contains(out, "vendor/libs/lib") {
			t.Errorf("the next command says the worktree or submodule was moved:\n%s", out)
		}
	})
}

// TestGuardBelowBare: a command makes a directory below the root a git
// directory of its own, with no .git at all (a bare repository: HEAD,
// objects/, refs/), whose configuration gives it a work tree and a
// core.fsmonitor that touches a marker: git finds it by what it holds, so
// the person's git status anywhere below it runs the program on the host.
// Made in the person's own tracked lib/src in one command; and over two
// commands (HEAD first, detached, then objects/, refs/ and the
// configuration) in deep/h; inside node_modules (node_modules/x/lib, and
// a repository's .git in node_modules/y). The host's git runs there after each, as the
// person would; the marker must not appear, and the person's file stays.
// A test remote an agent makes (git init --bare remote.git, git push
// remote.git HEAD) keeps working in the next command.
func TestGuardBelowBare(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		if b.session {
			b.settings("")
		} else {
			b.settings("  session: off\n")
		}
		marker := filepath.Join(b.base, "pwned")
		b.host("cp /bin/sh x && mkdir -p lib/src/pkg deep/h/sub && echo 'int main(){}' > lib/src/pkg/main.c && git add lib && git commit -qm src")
		config := func(dir string) string {
			return "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = \"touch " + marker + "; false\"\\n' > " + dir + "/config"
		}
		ran := func(dir string) {
			t.Helper()
			b.host("git -C " + dir + " status >/dev/null 2>&1; true")
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the person's git status in %s ran a program a sandboxed command planted in a bare repository above it", dir)
				os.Remove(marker)
			}
		}
		b.plant("bare", "git init -q --bare lib/src && "+config("lib/src")+" && echo planted\n", "planted")
		ran("lib/src/pkg")
		if _, err := os.Stat(filepath.Join(b.ws, "lib/src/pkg/main.c")); err != nil {
			t.Errorf("the person's file went: %v", err)
		}
		b.plant("head", "echo 0123456789abcdef0123456789abcdef01234567 > deep/h/HEAD && echo planted\n", "planted")
		b.plant("rest", "mkdir deep/h/objects deep/h/refs && "+config("deep/h")+" && echo planted\n", "planted")
		ran("deep/h/sub")
		// Inside a regenerable directory, which the walk before the
		// command's status does not go into: the round after it
		// does. A bare one, and a repository's .git there.
		b.plant("inside", "mkdir -p node_modules/x && git init -q --bare node_modules/x/lib && "+config("node_modules/x/lib")+" && mkdir node_modules/x/lib/sub && "+
			"git init -q node_modules/y && git -C node_modules/y config core.fsmonitor 'touch "+marker+"; false' && echo planted\n", "planted")
		ran("node_modules/x/lib/sub")
		ran("node_modules/y")
		// Ordinary work: a test remote, pushed to and cloned later.
		b.plant("remote", "git init -q --bare remote.git && git push -q remote.git HEAD && echo done\n", "done")
		b.plant("remote2", "git push -q remote.git HEAD:refs/heads/two && git clone -q remote.git c && git -C c log --format=%s -1\n", "src")
		if got := b.host("git --git-dir=remote.git config core.bare"); got != "true\n" {
			t.Errorf("the test remote's configuration changed: %q", got)
		}
	})
}

// TestGuardBelowAtOnce: what a command plants below the root is put
// right before its shim returns, not by the snapshot round after it. The
// person's command runs on the host as the very next process after the
// shim's (no wait for the round, as an agent's next command or an
// editor polling git does): git status below a bare repository the
// command made, and in a directory whose .git file it pointed at a git
// directory of its own (each with a core.fsmonitor that touches a
// marker), and a look at a package's .npmrc and a folder's
// .vscode/tasks.json. The marker must not appear, nor the files.
func TestGuardBelowAtOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		if b.session {
			b.settings("")
		} else {
			b.settings("  session: off\n")
		}
		marker := filepath.Join(b.base, "pwned")
		b.host("cp /bin/sh x")
		fsmonitor := "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = \"touch " + marker + "; false\"\\n' > "
		ran := func(what string) {
			t.Helper()
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the person's git status, run as the shim returned, ran a program a sandboxed command planted %s", what)
				os.Remove(marker)
			}
		}
		b.plantThen("bare", "git init -q --bare deep/b && "+fsmonitor+"deep/b/config && mkdir deep/b/sub && echo planted\n", "planted",
			"git -C deep/b/sub status >/dev/null 2>&1; true")
		ran("in a bare repository deep/b above it")
		b.plantThen("pointer", "git init -q --bare node_modules/g && "+fsmonitor+"node_modules/g/config && mkdir -p deep/p && "+
			"printf 'gitdir: ../../node_modules/g\\n' > deep/p/.git && echo planted\n", "planted",
			"git -C deep/p status >/dev/null 2>&1; true")
		ran("through deep/p/.git")
		if got := b.plantThen("files", "mkdir -p packages/app sub/.vscode && echo script-shell=./x > packages/app/.npmrc && echo '{}' > sub/.vscode/tasks.json && echo planted\n", "planted",
			"ls packages/app/.npmrc sub/.vscode/tasks.json 2>/dev/null; true"); got != "" {
			t.Errorf("auto-run files a sandboxed command planted below the root were there when its shim returned:\n%s", got)
		}
	})
}

// plantThen is plant, with then run on the host the moment the shim
// returns (before the snapshot round); it returns then's output.
func (b *battery) plantThen(name, script, want, then string) string {
	b.t.Helper()
	if err := os.WriteFile(filepath.Join(b.ws, name+".sh"), []byte(script), 0o644); err != nil {
		b.t.Fatal(err)
	}
	out, code := b.shim("./x < " + name + ".sh")
	got := b.host(then)
	if code != 0 || !strings.Contains(out, want) {
		b.t.Fatalf("exit %d:\n%s", code, out)
	}
	snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(b.ws)
	return got
}

// TestGuardBelowUnreadable: a command plants packages/app/.npmrc and
// takes read from the directory (chmod 311): npm still reads the file by
// name, while a walk that cannot list the directory would not see it.
// The guard gives the directory's owner read back (the command changed
// its mode) and moves the file aside (found by an attacker; as root the
// walk can always list it).
func TestGuardBelowUnreadable(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			marker := filepath.Join(b.base, "pwned")
			b.host("cp /bin/sh x && mkdir -p packages/app")
			time.Sleep(100 * time.Millisecond)
			b.plant("plant", "printf 'script-shell=/bin/sh -c \"touch "+marker+"\"\\n' > packages/app/.npmrc && chmod 311 packages/app && echo planted\n", "planted")
			os.Chmod(filepath.Join(b.ws, "packages/app"), 0o755)
			b.absent(filepath.Join(b.ws, "packages/app/.npmrc"))
		})
	}
}

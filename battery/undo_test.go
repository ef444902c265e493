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

// The loss battery: a program the judge does not read (written by one
// command, run by the next) destroys a repository's history and the
// work git cannot restore; cordon undo, run by a person afterwards,
// must bring all of it back from the snapshot store alone. Each case
// runs for real through the shim, on every backend, one-shot and in a
// session.

// lossCases are the programs, in Python: the judge reads shell scripts
// a command runs, not a Python program's calls.
var lossCases = []struct{ name, program, person, first, after string }{
	{"everything", `
g("update-ref", "-d", "refs/stash")
g("reflog", "expire", "--expire=now", "--all")
g("branch", "-D", "feature")
g("gc", "-q", "--prune=now")
os.remove(".env"); os.remove("notes.txt"); g("checkout", "-q", "--", "tracked")
shutil.rmtree(".git", ignore_errors=True)
`, "", "", ""},
	{"rm .git", `shutil.rmtree(".git", ignore_errors=True)`, "", "", ""},
	// A person's commit between two commands is kept as the next
	// command starts (it races the command: the program waits a little,
	// as any program that starts does).
	{"a person's commit, then rm .git", `
import time; time.sleep(0.3)
shutil.rmtree(".git", ignore_errors=True)
`, "git commit -qm person && git checkout -qb person-branch && git checkout -q -", "", ""},
	{"gc after branch -D", `
g("branch", "-D", "feature")
g("reflog", "expire", "--expire=now", "--all")
g("gc", "-q", "--prune=now")
`, "", "", ""},
	// git cannot read the repository after it: the round keeps it
	// without git.
	{"index broken", `
g("update-ref", "-d", "refs/stash")
g("branch", "-D", "feature")
os.remove(".env"); os.remove("notes.txt")
open(".git/index", "wb").write(b"garbage")
`, "", "", ""},
	// Objects are never written again: one changed in place is a command
	// destroying it, and the mirror's copy goes back.
	{"objects zeroed in place", `
import glob
for f in glob.glob(".git/objects/??/*") + glob.glob(".git/objects/pack/*.pack"):
    os.chmod(f, 0o644)
    with open(f, "r+b") as fh: fh.write(b"\0" * os.path.getsize(f))
g("update-ref", "-d", "refs/heads/feature")
`, "", "", ""},
	// A first command makes the round find every object gone (objects/
	// moved behind a symlink), a second removes .git.
	{"objects gone a command earlier", `shutil.rmtree(".git", ignore_errors=True)`, "",
		`os.rename(".git/objects", ".git/o"); os.symlink("o", ".git/objects")`, ""},
	// A tracked file's edit, under a name the rules call regenerable:
	// git tracks it, so it is the person's work.
	{"edit of a tracked file named like build output", `g("checkout", "-q", "--", "build/deploy.sh")`, "", "", ""},
	// A tracked file git status no longer looks at (skip-worktree) keeps
	// the edit the last round saved.
	{"edit hidden from git status", `open("tracked", "w").write("overwritten\n")`, "",
		`import subprocess; subprocess.run(["git", "update-index", "--skip-worktree", "tracked"])`, ""},
	{"workspace emptied", emptyWorkspace, "", "", ""},
	// The sandbox cannot remove the workspace itself (a mount point, or
	// a directory whose parent it cannot write); a person can, and make
	// it again, before undoing.
	{"workspace removed and made again", emptyWorkspace, "", "", `cd .. && rm -rf ws && mkdir ws`},
}

const emptyWorkspace = `
ws = os.getcwd()
for n in os.listdir(ws):
    p = os.path.join(ws, n)
    shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
`

func TestUndoRestoresRepository(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal("python3 is not installed (.ci/run installs it)")
		}
		t.Skip("needs python3")
	}
	// The backends at once, the cases of each one after another.
	eachBackend(t, func(t *testing.T, backend string) {
		for _, c := range lossCases {
			t.Run(c.name, func(t *testing.T) {
				b := newBattery(t, backend)
				b.settings("")
				// History, a branch not merged, two stash entries, an
				// ignored .env, an untracked file, an edit, a staged change.
				b.host(`for i in 2 3; do echo $i >> tracked; git commit -qam c$i; done
git checkout -qb feature && echo f > feat && git add feat && git commit -qm feat && git checkout -q -
echo s1 >> tracked && git stash -q && echo s2 >> tracked && git stash -q
echo .env > .gitignore && git add .gitignore && git commit -qm ignore
mkdir build && echo v1 > build/deploy.sh && git add build/deploy.sh && git commit -qm deploy && echo edit >> build/deploy.sh
echo SECRET=1 > .env && echo mine > notes.txt && echo staged > staged && git add staged && echo edit >> tracked`)
				// The first command writes the program, which a second one
				// runs: the round after the first keeps the workspace.
				prog := "import os, shutil, subprocess\ndef g(*a): subprocess.run((\"git\",) + a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n" + c.program
				if err := os.WriteFile(filepath.Join(b.base, "prog.py"), []byte(prog), 0o644); err != nil {
					t.Fatal(err)
				}
				if out, code := b.shim("cp " + filepath.Join(b.base, "prog.py") + " prog.py"); code != 0 {
					t.Fatalf("writing the program: exit %d\n%s", code, out)
				}
				if c.first != "" {
					first := "import os, shutil\n" + c.first + "\n"
					if err := os.WriteFile(filepath.Join(b.ws, "first.py"), []byte(first), 0o644); err != nil {
						t.Fatal(err)
					}
					if out, code := b.shim("python3 first.py && rm first.py"); code != 0 {
						t.Fatalf("the first program did not run: exit %d\n%s", code, out)
					}
					// The next command comes later, as an agent's does.
					snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(b.ws)
					time.Sleep(100 * time.Millisecond)
				}
				if c.person != "" {
					// After the first command's round, as a person would.
					snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(b.ws)
					b.host(c.person)
				}
				before := b.hostMay(repoState)
				if out, code := b.shim("python3 prog.py"); code != 0 {
					t.Fatalf("the program did not run: exit %d\n%s", code, out)
				}
				if after := b.hostMay(repoState); after == before {
					t.Fatalf("the program destroyed nothing:\n%s", after)
				}
				if c.after != "" {
					b.host(c.after)
				}
				out, err := b.undo()
				if err != nil {
					l, _ := b.undo("--list")
					t.Fatalf("cordon undo: %v\n%s\ncordon undo --list:\n%s", err, out, l)
				}
				if after := b.hostMay(repoState); after != before {
					t.Errorf("cordon undo did not bring everything back:\n%s\nbefore:\n%s\nafter:\n%s", out, before, after)
				}
				if fsck := b.hostMay("git fsck --no-progress --no-dangling 2>&1 && echo fsck-clean"); !strings.HasSuffix(strings.TrimSpace(fsck), "fsck-clean") || strings.Contains(fsck, "missing") {
					t.Errorf("git fsck after the undo:\n%s", fsck)
				}
			})
		}
	})
}

// repoState is what must come back: every commit, the stash, the
// branches, the index, the files git cannot restore, and the tracked
// ones, as the host's git and shell see them.
const repoState = `git log --all --format='%H %s' | sort; echo; git stash list --format='%H %gs'; echo
git for-each-ref --format='%(refname) %(objectname)'; echo; git diff --cached --stat; git status --short -- . ':!prog.py'
for f in .env notes.txt tracked staged feat .gitignore build/deploy.sh; do echo "== $f"; cat $f; done`

// hostMay runs script on the host, in the workspace, and returns its
// output, whether it fails or not.
func (b *battery) hostMay(script string) string {
	cmd := exec.Command(b.bash, "-c", script)
	cmd.Dir, cmd.Env = b.ws, b.env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// A submodule's history lives in the parent's .git/modules/NAME (NAME
// with a slash here): removing .git takes it too, and undo brings it
// back.
func TestUndoRestoresSubmodule(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		b.settings("")
		origin := filepath.Join(b.base, "dep")
		b.host(`git init -q ` + origin + ` && git -C ` + origin + ` commit -q --allow-empty -m dep1 && git -C ` + origin + ` commit -q --allow-empty -m dep2
git -c protocol.file.allow=always submodule -q add ` + origin + ` lib/dep && git commit -qm sub
git -C lib/dep checkout -qb work && git -C lib/dep commit -q --allow-empty -m local-only`)
		const state = `git log --all --format='%H %s' | sort; git -C lib/dep log --all --format='%H %s' | sort; git -C lib/dep branch; git status --short -- . ':!prog.py'`
		before := b.host(state)
		if err := os.WriteFile(filepath.Join(b.base, "prog.py"), []byte("import shutil\nshutil.rmtree('.git', ignore_errors=True)\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, code := b.shim("cp " + filepath.Join(b.base, "prog.py") + " prog.py"); code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		if out, code := b.shim("python3 prog.py"); code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		if _, err := os.Stat(filepath.Join(b.ws, ".git", "modules", "lib", "dep", "HEAD")); err == nil {
			t.Fatal("the program did not remove the submodule's git directory")
		}
		out, err := b.undo()
		if err != nil {
			t.Fatalf("cordon undo: %v\n%s", err, out)
		}
		if after := b.hostMay(state); after != before {
			t.Errorf("the submodule did not come back:\n%s\nbefore:\n%s\nafter:\n%s", out, before, after)
		}
		if fsck := b.hostMay("git -C lib/dep fsck --no-progress --no-dangling 2>&1 && echo fsck-clean"); !strings.HasSuffix(strings.TrimSpace(fsck), "fsck-clean") {
			t.Errorf("git fsck in the submodule:\n%s", fsck)
		}
	})
}

// A command that writes junk cannot make the store forget: what a
// workspace keeps between commands is bounded (and what does not fit is
// said), so the snapshots of later losses stay, and the repository's
// mirror is never removed for the round that needs it.
func TestUndoUnderBudgetPressure(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		b.settings("snapshots:\n  max_file: 1MiB\n  max_command: 4MiB\n  max_total: 8MiB\n")
		b.host(`echo SECRET=1 > .env && echo .env > .gitignore && git add .gitignore && git commit -qm ignore && echo mine > notes.txt`)
		write := func(name, program string) {
			t.Helper()
			if err := os.WriteFile(filepath.Join(b.ws, name), []byte("import os, shutil\n"+program+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("junk.py", `import sys
os.makedirs("junk", exist_ok=True)
for i in range(3):
    open("junk/%s-%d" % (sys.argv[1], i), "wb").write(os.urandom(1000 << 10))`)
		write("lose.py", `os.remove(".env"); os.remove("notes.txt")`)
		write("rmgit.py", `shutil.rmtree(".git", ignore_errors=True)`)
		for i := range 4 {
			if out, code := b.shim(fmt.Sprintf("python3 junk.py %d", i)); code != 0 {
				t.Fatalf("junk: exit %d\n%s", code, out)
			}
		}
		if out, code := b.shim("python3 lose.py"); code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		if out, code := b.shim("echo hi > x.txt"); code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		undo := func(args ...string) string {
			t.Helper()
			out, err := b.undo(args...)
			if err != nil {
				t.Errorf("cordon undo %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return out
		}
		if list := undo("--list"); !strings.Contains(list, "not kept in") || !strings.Contains(list, "quarter of the snapshot store") {
			t.Errorf("cordon undo --list does not say what the junk left out:\n%s", list)
		}
		undo()
		if got := b.hostMay("cat .env notes.txt"); got != "SECRET=1\nmine\n" {
			t.Errorf("after the junk, the loss was not undone: %q", got)
		}
		history := b.host("git log --all --format=%H")
		if out, code := b.shim("python3 rmgit.py"); code != 0 {
			t.Fatalf("exit %d\n%s", code, out)
		}
		undo()
		if got := b.hostMay("git log --all --format=%H"); got != history {
			t.Errorf("after the junk, the history was not undone:\n%s\nwant:\n%s", got, history)
		}
	})
}

// A round may save an auto-run file while it holds what a command
// planted (the guard puts the trusted file back only once the command's
// processes are gone, and a harness killing the shim on a timeout starts
// the round first). cordon undo never writes such a file back as saved:
// git's configuration comes back without the keys that run programs,
// other auto-run files not at all; what was saved goes beside them.
func TestUndoWritesNoPlantedAutoRun(t *testing.T) {
	b := newBattery(t, "bwrap")
	marker := filepath.Join(b.base, "ran")
	good := b.host("cat .git/config")
	planted := good + "[core]\n\tfsmonitor = \"touch " + marker + "; false\"\n[alias]\n\tst = !touch " + marker + "\n"
	files := map[string]string{".git/config": planted, ".envrc": "touch " + marker + "\n", "notes.txt": "mine\n"}
	var paths []string
	for name, data := range files {
		p := filepath.Join(b.ws, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// And an auto-run place that was a symlink to a file of the command's.
	os.WriteFile(filepath.Join(b.ws, "npmrc-evil"), []byte("script-shell=/tmp/evil\n"), 0o644)
	link := filepath.Join(b.ws, ".npmrc")
	if err := os.Symlink("npmrc-evil", link); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, link)
	store := snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{})
	m := &snapshot.Manifest{Kind: snapshot.KindBefore, Workspace: b.ws, Dir: b.ws, Command: "python3 prog.py"}
	if err := store.Save(m, paths); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		os.Remove(p)
	}
	out, err := b.undo(m.ID)
	if err == nil || !strings.Contains(out, "not written back") {
		t.Errorf("cordon undo wrote every file back, or said nothing of it (%v):\n%s", err, out)
	}
	config := b.hostMay("cat .git/config")
	if strings.Contains(config, "fsmonitor") || strings.Contains(config, "alias") || !strings.Contains(config, "repositoryformatversion") {
		t.Errorf(".git/config written back with the planted keys, or without the rest:\n%s", config)
	}
	if aside := b.hostMay("cat .git/config.cordon-undo-" + m.ID); aside != planted {
		t.Errorf("the saved configuration is not beside it: %q", aside)
	}
	if _, err := os.Stat(filepath.Join(b.ws, ".envrc")); err == nil {
		t.Error(".envrc was written back")
	}
	if aside := b.hostMay("cat .envrc.cordon-undo-" + m.ID); aside != files[".envrc"] {
		t.Errorf("the saved .envrc is not beside it: %q", aside)
	}
	if _, err := os.Lstat(link); err == nil {
		t.Error("the symlink at .npmrc was made again")
	}
	if got := b.hostMay("cat notes.txt"); got != "mine\n" {
		t.Errorf("notes.txt: %q", got)
	}
	b.hostMay("git status; git st")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the host's git ran a program the undo wrote back")
	}
}

// Keys safe only under a condition (a remote's address, core.worktree)
// are not written back as a round saved them either: they come back as
// the guard trusts them.
func TestUndoConfigKeysAsTrusted(t *testing.T) {
	b := newBattery(t, "bwrap")
	b.settings("")
	b.host("git remote add origin https://example.com/person.git && git config filter.lfs.process 'git-lfs filter-process'")
	if out, code := b.shim("true"); code != 0 { // the guard trusts the configuration as it is now
		t.Fatalf("exit %d\n%s", code, out)
	}
	good := b.host("cat .git/config")
	outside := filepath.Join(b.base, "outside")
	b.host("git config remote.origin.url https://evil.example/x && git config core.worktree " + outside)
	config := filepath.Join(b.ws, ".git", "config")
	store := snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{})
	m := &snapshot.Manifest{Kind: snapshot.KindBefore, Workspace: b.ws, Dir: b.ws, Command: "python3 prog.py"}
	if err := store.Save(m, []string{config}); err != nil {
		t.Fatal(err)
	}
	os.Remove(config)
	out, _ := b.undo(m.ID)
	got := b.hostMay("git config --get remote.origin.url; git config --get core.worktree; git config --get filter.lfs.process")
	if got != "https://example.com/person.git\ngit-lfs filter-process\n" {
		t.Errorf("the configuration came back as %q, want the person's remote, no core.worktree and their own filter:\n%s\nwas:\n%s", got, out, good)
	}
	if aside := b.hostMay("cat .git/config.cordon-undo-" + m.ID); !strings.Contains(aside, "evil.example") {
		t.Errorf("the saved configuration is not beside it: %q", aside)
	}
}

// settings writes the battery's cordon settings: its backend, then
// extra (lines of YAML).
func (b *battery) settings(extra string) {
	b.t.Helper()
	os.MkdirAll(filepath.Join(b.home, ".config/cordon"), 0o755)
	data := "version: 1\nsandbox:\n  backend: " + b.backend + "\n" + extra
	if err := os.WriteFile(filepath.Join(b.home, ".config/cordon/config.yaml"), []byte(data), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// undo runs cordon undo with args on the host, in the workspace, as a
// person does.
func (b *battery) undo(args ...string) (string, error) {
	cmd := exec.Command(b.cordon, append([]string{"undo"}, args...)...)
	cmd.Args[0] = "cordon"
	cmd.Dir, cmd.Env = b.ws, b.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

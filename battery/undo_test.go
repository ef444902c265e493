//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
var lossCases = []struct{ name, program, person string }{
	{"everything", `
g("update-ref", "-d", "refs/stash")
g("reflog", "expire", "--expire=now", "--all")
g("branch", "-D", "feature")
g("gc", "-q", "--prune=now")
os.remove(".env"); os.remove("notes.txt"); g("checkout", "-q", "--", "tracked")
shutil.rmtree(".git", ignore_errors=True)
`, ""},
	{"rm .git", `shutil.rmtree(".git", ignore_errors=True)`, ""},
	// A person's commit between two commands is kept as the next
	// command starts (it races the command: the program waits a little,
	// as any program that starts does).
	{"a person's commit, then rm .git", `
import time; time.sleep(0.3)
shutil.rmtree(".git", ignore_errors=True)
`, "git commit -qm person && git checkout -qb person-branch && git checkout -q -"},
	{"gc after branch -D", `
g("branch", "-D", "feature")
g("reflog", "expire", "--expire=now", "--all")
g("gc", "-q", "--prune=now")
`, ""},
	{"workspace emptied", `
ws = os.getcwd()
for n in os.listdir(ws):
    p = os.path.join(ws, n)
    shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
`, ""},
}

func TestUndoRestoresRepository(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal("python3 is not installed (.ci/run installs it)")
		}
		t.Skip("needs python3")
	}
	for _, backend := range backends {
		for _, c := range lossCases {
			t.Run(backend+"/"+c.name, func(t *testing.T) {
				b := newBattery(t, backend)
				os.MkdirAll(filepath.Join(b.home, ".config/cordon"), 0o755)
				if err := os.WriteFile(filepath.Join(b.home, ".config/cordon/config.yaml"), []byte("version: 1\nsandbox:\n  backend: "+b.backend+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				// History, a branch not merged, two stash entries, an
				// ignored .env, an untracked file, an edit, a staged change.
				b.host(`for i in 2 3; do echo $i >> tracked; git commit -qam c$i; done
git checkout -qb feature && echo f > feat && git add feat && git commit -qm feat && git checkout -q -
echo s1 >> tracked && git stash -q && echo s2 >> tracked && git stash -q
echo .env > .gitignore && git add .gitignore && git commit -qm ignore
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
				cmd := exec.Command(b.cordon, "undo")
				cmd.Args[0] = "cordon"
				cmd.Dir, cmd.Env = b.ws, b.env
				out, err := cmd.CombinedOutput()
				if err != nil {
					list := exec.Command(b.cordon, "undo", "--list")
					list.Dir, list.Env = b.ws, b.env
					l, _ := list.CombinedOutput()
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
	}
}

// repoState is what must come back: every commit, the stash, the
// branches, the index, the files git cannot restore, and the tracked
// ones, as the host's git and shell see them.
const repoState = `git log --all --format='%H %s' | sort; echo; git stash list --format='%H %gs'; echo
git for-each-ref --format='%(refname) %(objectname)'; echo; git diff --cached --stat; git status --short -- . ':!prog.py'
for f in .env notes.txt tracked staged feat .gitignore; do echo "== $f"; cat $f; done`

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
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			os.MkdirAll(filepath.Join(b.home, ".config/cordon"), 0o755)
			if err := os.WriteFile(filepath.Join(b.home, ".config/cordon/config.yaml"), []byte("version: 1\nsandbox:\n  backend: "+b.backend+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
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
			cmd := exec.Command(b.cordon, "undo")
			cmd.Args[0] = "cordon"
			cmd.Dir, cmd.Env = b.ws, b.env
			out, err := cmd.CombinedOutput()
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
}

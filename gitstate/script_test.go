package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// TestScriptStateAsGit judges scripts whose earlier commands change the
// repository's state the later ones are judged against (stash, commit,
// branches), in a real repository with one uncommitted change and no
// stash, and then runs each with bash in a fresh copy: the judge must
// ask exactly when the change can no longer be found in the work tree,
// a branch, a remote-tracking branch or the stash.
func TestScriptStateAsGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	host := testHost(t)
	set := rules.Builtin()
	tests := []struct {
		script string
		lost   bool
	}{
		// Must ask: the script loses the change.
		{"git stash && git stash drop", true},
		{"git stash -q; git stash clear", true},
		{"git add -A && git stash && git stash drop", true},
		{"git stash -u && git stash drop", true},
		{"git stash && git stash pop && git stash drop; git reset --hard", true},
		{"git stash && git stash apply && git reset --hard && git stash drop", true},
		{"git checkout -b x && git commit -qam wip && git checkout -q main && git branch -D x", true},
		{"git switch -qc y && git commit -qam wip && git switch -q main && git branch -D y", true},
		{"git commit -qam wip && git checkout -qb tmp origin/main && git branch -D main", true},
		{"git checkout -qb x && git commit -qam wip && git checkout -qB x main", true},
		{"git branch keep && git checkout -q keep && git commit -qam wip && git checkout -q main && git branch -D keep", true},
		// Must allow: the change is still somewhere.
		{"git stash && git stash pop", false},
		{"git stash && git stash list && git stash pop", false},
		{"git stash && git reset --hard", false},
		{"git stash && git stash pop; git stash drop", false},
		{"git checkout -qb x && git checkout -q main && git branch -D x", false},
		{"git commit -qam wip && git checkout -qb x && git checkout -q main && git branch -D x", false},
		{"git checkout -qb x && git commit -qam wip && git checkout -q main && git merge -q x && git branch -D x", false},
		{"git checkout -qb x && git commit -qam wip && git push -q origin x && git checkout -q main && git branch -D x", false},
		{"git checkout -qb x && git commit -qam wip && git checkout -q main; git branch -d x", false},
		{"git checkout -qb x && git commit -qam wip && git branch -D main", false},
	}
	for n, tt := range tests {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			t.Log(tt.script)
			dir, env := workRepo(t)
			r := &Repo{Top: dir, Env: env, Host: host}
			cfg := &parse.Config{Dialect: parse.Bash, Env: env, Dir: dir, Knowledge: set}
			getenv := func(k string) string {
				for _, kv := range env {
					if v, ok := strings.CutPrefix(kv, k+"="); ok {
						return v
					}
				}
				return ""
			}
			ctx := &rules.Context{Env: rules.Env{Home: getenv("HOME"), Workspace: dir, Getenv: getenv, Environ: env}, Repo: r}
			j := set.Judge(parse.Parse(tt.script, cfg), ctx)

			cmd := exec.Command("bash", "-c", tt.script)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			t.Logf("%v\n%s", err, out)
			if lost := !findable(t, dir, env); lost != tt.lost {
				t.Fatalf("the change is lost: %v, want %v (the test's label is wrong)", lost, tt.lost)
			}
			switch {
			case tt.lost && j.Verdict == rules.Allow:
				t.Errorf("allowed, and the change was lost")
			case tt.lost && j.Savable():
				t.Errorf("the loss is taken for one a snapshot before the script can keep: %+v", j.Losses)
			case !tt.lost && j.Verdict != rules.Allow:
				t.Errorf("%v, though nothing is lost: %+v", j.Verdict, j.Reasons)
			}
		})
	}
}

// workRepo makes a repository with main pushed to origin and one
// uncommitted change (a line "WORK-MARKER" in a.txt), and no stash.
func workRepo(t *testing.T) (string, []string) {
	t.Helper()
	root := t.TempDir()
	dir, remote := filepath.Join(root, "ws"), filepath.Join(root, "remote.git")
	env := []string{"HOME=" + root, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"}
	script := "git init -q --bare " + remote + " && git init -q -b main " + dir + " && cd " + dir +
		" && echo one > a.txt && git add a.txt && git commit -qm one && git remote add origin " + remote +
		" && git push -q -u origin main && echo WORK-MARKER >> a.txt"
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return dir, env
}

// findable reports whether WORK-MARKER is in the work tree, in a commit
// a ref leads to, or in a stash entry.
func findable(t *testing.T, dir string, env []string) bool {
	t.Helper()
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); strings.Contains(string(data), "WORK-MARKER") {
		return true
	}
	cmd := exec.Command("bash", "-c", `git grep -q WORK-MARKER $(git rev-list --all; git rev-list -g refs/stash 2>/dev/null) -- 2>/dev/null`)
	cmd.Dir, cmd.Env = dir, env
	return cmd.Run() == nil
}

package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

func TestRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, data string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	run("init", "-q", "-b", "main")
	write(".gitignore", "build/\n.env\n")
	write("a.txt", "a")
	write("b.txt", "b")
	run("add", ".")
	run("commit", "-qm", "one")
	run("branch", "merged")
	run("checkout", "-qb", "wip")
	write("c.txt", "c")
	run("add", "c.txt")
	run("commit", "-qm", "wip")
	run("checkout", "-q", "main")
	write("a.txt", "changed")
	run("stash")
	write("b.txt", "changed")
	write("notes/n.md", "n")
	write("build/out", "o")
	write(".env", "SECRET=1")
	run("remote", "add", "origin", dir)

	if got := TopLevel(filepath.Join(dir, "notes")); got != dir {
		t.Errorf("TopLevel = %q, want %q", got, dir)
	}
	r := &Repo{Top: dir, Env: env, Host: testHost(t)}
	changes, err := r.Changes()
	if err != nil {
		t.Fatal(err)
	}
	want := []rules.Change{
		{Path: dir + "/b.txt", Kind: rules.Modified},
		{Path: dir + "/notes/", Kind: rules.Untracked},
		{Path: dir + "/.env", Kind: rules.Ignored},
		{Path: dir + "/build/", Kind: rules.Ignored},
	}
	for _, w := range want {
		if !slices.Contains(changes, w) {
			t.Errorf("Changes() = %v, missing %v", changes, w)
		}
	}
	if n, err := r.Stashes(); err != nil || n != 1 {
		t.Errorf("Stashes() = %d, %v; want 1", n, err)
	}
	if lost, _ := r.Unmerged("wip"); !lost {
		t.Error("Unmerged(wip) = false, want true")
	}
	if lost, _ := r.Unmerged("merged"); lost {
		t.Error("Unmerged(merged) = true, want false")
	}
	if lost, _ := r.Unmerged("no-such-branch"); lost {
		t.Error("Unmerged(no-such-branch) = true, want false")
	}
	if remotes, _ := r.Remotes(); !slices.Equal(remotes, []string{"origin"}) {
		t.Errorf("Remotes() = %v, want [origin]", remotes)
	}
}

// TestFsmonitorNotRun checks that reading the state never runs a program
// the repository configures: cordon reads state outside any sandbox.
func TestFsmonitorNotRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir, cmd.Env = dir, env
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	hook := filepath.Join(dir, "hook.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	cmd = exec.Command("git", "config", "core.fsmonitor", hook)
	cmd.Dir, cmd.Env = dir, env
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	r := &Repo{Top: dir, Env: env, Host: testHost(t)}
	if _, err := r.Changes(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git status ran the repository's core.fsmonitor program")
	}
}

// testHost is the host's git and a private directory for the tests.
func testHost(t *testing.T) func() (Host, error) {
	git, err := platform.FindProgram("git", os.Getenv("PATH"), nil)
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	return func() (Host, error) { return Host{Git: git, Dir: dir}, nil }
}

package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// keptPointer keeps what git makes (a worktree's .git, a submodule's,
// at any depth, of the workspace's repository or one the ledger keeps)
// and nothing that leads elsewhere, however it is written: through
// "..", through a link in the git directory, to a worktree without a
// commondir, below a submodule's git directory where the walk does not
// go, outside the workspace.
func TestKeptPointer(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	lib := filepath.Join(root, "lib")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(ws, 0o755)
	run(root, "init", "-q", lib)
	run(lib, "commit", "-q", "--allow-empty", "-m", "lib")
	run(ws, "init", "-q")
	run(ws, "commit", "-q", "--allow-empty", "-m", "one")
	run(ws, "worktree", "add", "-q", "sub/a/wt", "-b", "side")
	run(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/libs/lib")
	run(ws, "commit", "-qm", "lib")
	// A repository made below the root (adopted) with a submodule of
	// its own.
	run(ws, "init", "-q", "deep/app")
	run(filepath.Join(ws, "deep/app"), "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "x/lib")
	gitDirs := []string{filepath.Join(ws, ".git"), filepath.Join(ws, "deep/app/.git")}
	for _, p := range []string{"sub/a/wt/.git", "vendor/libs/lib/.git", "deep/app/x/lib/.git"} {
		if !keptPointer(ws, filepath.Join(ws, p), gitDirs) {
			t.Errorf("%s, made by git, is not kept", p)
		}
	}
	if keptPointer(ws, filepath.Join(ws, "deep/app/x/lib/.git"), gitDirs[:1]) {
		t.Error("a submodule's .git of a repository whose git directory no ledger keeps is kept")
	}
	// Planted.
	mk := func(rel, text string) string {
		p := filepath.Join(ws, rel, ".git")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	os.MkdirAll(filepath.Join(ws, "node_modules/g"), 0o755)
	os.MkdirAll(filepath.Join(ws, ".git/worktrees/bare"), 0o755)
	os.MkdirAll(filepath.Join(ws, ".git/modules/vendor/libs/lib/evil"), 0o755)
	os.Symlink("../../node_modules/g", filepath.Join(ws, ".git/modules/ln"))
	os.MkdirAll(filepath.Join(root, "scratch/g"), 0o755)
	planted := []string{
		mk("p/a", "gitdir: ../../node_modules/g\n"),
		mk("p/b", "gitdir: ../../.git/modules/../../node_modules/g\n"),
		mk("p/c", "gitdir: ../../.git/modules/ln\n"),
		mk("p/d", "gitdir: ../../.git/worktrees/bare\n"),
		mk("p/e", "gitdir: ../../.git/modules/vendor/libs/lib/evil\n"),
		mk("p/f", "gitdir: "+filepath.Join(root, "scratch/g")+"\n"),
		mk("p/g", "gitdir: ../../.git\n"),
		mk("p/h", "gitdir:../../.git/modules/vendor/libs/lib\n"),
		mk("p/i", "gitdir: ../../.git/modules/vendor/libs/lib\nx\n"),
	}
	os.MkdirAll(filepath.Join(ws, "p/l"), 0o755)
	os.Symlink("../../node_modules/g", filepath.Join(ws, "p/l/.git"))
	planted = append(planted, filepath.Join(ws, "p/l/.git"))
	// A hard link to a kept one: written through the other name later.
	os.MkdirAll(filepath.Join(ws, "p/m"), 0o755)
	os.WriteFile(filepath.Join(ws, "node_modules/ptr"), []byte("gitdir: ../../.git/modules/vendor/libs/lib\n"), 0o644)
	os.Link(filepath.Join(ws, "node_modules/ptr"), filepath.Join(ws, "p/m/.git"))
	planted = append(planted, filepath.Join(ws, "p/m/.git"))
	for _, p := range planted {
		if keptPointer(ws, p, gitDirs) {
			data, _ := os.ReadFile(p)
			t.Errorf("%s (%q) is kept", p, data)
		}
	}
	// The ledger's repositories count; the walk and the move: the
	// planted ones go, git's own stay.
	state := filepath.Join(root, "state")
	b, err := open(state, ws, true)
	if err != nil {
		t.Fatal(err)
	}
	b.save()
	b.close()
	AdoptRoots(state, ws, []platform.NestedRepo{{Root: filepath.Join(ws, "deep/app"), GitDir: filepath.Join(ws, "deep/app/.git")}})
	if got := keptGitDirs(state, ws, false); !slices.Equal(got, gitDirs) {
		t.Errorf("keptGitDirs = %v, want %v", got, gitDirs)
	}
	found, _, _ := FindBelow("", ws, []string{".envrc"}, []string{"node_modules"}, nil, time.Now().Add(-time.Minute), nil)
	MoveAside(state, ws, found)
	for _, p := range planted {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s stayed", p)
		}
	}
	for _, p := range []string{"sub/a/wt/.git", "vendor/libs/lib/.git", "deep/app/x/lib/.git"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err != nil {
			t.Errorf("%s, made by git, went: %v", p, err)
		}
	}
}

// The session's watch moves aside a .git file or link written below the
// root, at once, and leaves a worktree's, whose commondir git writes
// after it; one whose commondir never comes goes.
func TestWatchBelowGitPointer(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	os.MkdirAll(filepath.Join(ws, ".git/worktrees/wt"), 0o755)
	os.MkdirAll(filepath.Join(ws, ".git/worktrees/never"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	os.MkdirAll(filepath.Join(ws, "a/b/wt"), 0o755)
	os.MkdirAll(filepath.Join(ws, "node_modules/g"), 0o755)
	file := filepath.Join(ws, "a/b/.git")
	os.WriteFile(file, []byte("gitdir: ../../node_modules/g\n"), 0o644)
	link := filepath.Join(ws, "a/.git")
	os.Symlink("../node_modules/g", link)
	time.Sleep(100 * time.Millisecond)
	own := filepath.Join(ws, "a/b/wt/.git")
	os.WriteFile(own, []byte("gitdir: "+filepath.Join(ws, ".git/worktrees/wt")+"\n"), 0o644)
	never := filepath.Join(ws, "a/never/.git")
	os.MkdirAll(filepath.Dir(never), 0o755)
	os.WriteFile(never, []byte("gitdir: ../../.git/worktrees/never\n"), 0o644)
	time.Sleep(100 * time.Millisecond)
	os.WriteFile(filepath.Join(ws, ".git/worktrees/wt/commondir"), []byte("../..\n"), 0o644)
	if !waitGone(never) {
		t.Error("a .git leading to a worktree's git directory without commondir stayed")
	}
	if !waitGone(file) {
		t.Error("a .git file written during the watch stayed")
	}
	if !waitGone(link) {
		t.Error("a .git link made during the watch stayed")
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Lstat(own); err != nil {
		t.Errorf("a worktree's .git went: %v", err)
	}
}

// A git directory the guard keeps reached, since, through a link (a
// directory on the way, or the .git itself, swapped for one) leads
// elsewhere: no pointer into it is kept.
func TestKeptPointerGitDirBehindLink(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	fake := filepath.Join(ws, "node_modules/z/app/.git/modules/x")
	os.MkdirAll(fake, 0o755)
	os.MkdirAll(filepath.Join(ws, "other/x"), 0o755)
	os.Symlink("node_modules/z", filepath.Join(ws, "deep"))
	os.WriteFile(filepath.Join(ws, "other/x/.git"), []byte("gitdir: ../../deep/app/.git/modules/x\n"), 0o644)
	if keptPointer(ws, filepath.Join(ws, "other/x/.git"), []string{filepath.Join(ws, "deep/app/.git")}) {
		t.Error("a pointer into a git directory reached through a link is kept")
	}
	os.MkdirAll(filepath.Join(ws, "node_modules/g/modules/x"), 0o755)
	os.Symlink("node_modules/g", filepath.Join(ws, ".git"))
	os.WriteFile(filepath.Join(ws, "other/x/.git"), []byte("gitdir: ../../.git/modules/x\n"), 0o644)
	if keptPointer(ws, filepath.Join(ws, "other/x/.git"), []string{filepath.Join(ws, ".git")}) {
		t.Error("a pointer into a workspace's .git that is a link is kept")
	}
}

// git worktree add writes the worktree's commondir as it writes every
// file, made and then written: a watch that looks between the two (woken
// by the .git git wrote just before) waits for it, as for one not made
// yet, rather than moving the .git that git's next step uses as GIT_DIR.
// One that stays empty goes once the wait is over.
func TestWatchBelowWorktreeCommondirBeingWritten(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	os.MkdirAll(filepath.Join(ws, ".git/worktrees/wt"), 0o755)
	os.MkdirAll(filepath.Join(ws, ".git/worktrees/empty"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	gitDirs := []string{filepath.Join(ws, ".git")}
	stop := watchBelow(state, p, time.Now())
	defer stop()
	time.Sleep(50 * time.Millisecond)
	own := filepath.Join(ws, "a/wt/.git")
	os.MkdirAll(filepath.Dir(own), 0o755)
	os.WriteFile(filepath.Join(ws, ".git/worktrees/wt/commondir"), nil, 0o644)
	os.WriteFile(own, []byte("gitdir: "+filepath.Join(ws, ".git/worktrees/wt")+"\n"), 0o644)
	empty := filepath.Join(ws, "a/empty/.git")
	os.MkdirAll(filepath.Dir(empty), 0o755)
	os.WriteFile(filepath.Join(ws, ".git/worktrees/empty/commondir"), nil, 0o644)
	os.WriteFile(empty, []byte("gitdir: ../../.git/worktrees/empty\n"), 0o644)
	if kept, pending := judgePointer(ws, own, gitDirs); kept || !pending {
		t.Errorf("a worktree's .git whose commondir is made, not written: kept %v, pending %v; want waited for", kept, pending)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Lstat(own); err != nil {
		t.Fatalf("a worktree's .git went while git wrote its commondir: %v", err)
	}
	os.WriteFile(filepath.Join(ws, ".git/worktrees/wt/commondir"), []byte("../..\n"), 0o644)
	if !waitGone(empty) {
		t.Error("a .git leading to a worktree's git directory whose commondir stays empty stayed")
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Lstat(own); err != nil {
		t.Errorf("a worktree's .git went: %v", err)
	}
}

// A reconcile that runs while git worktree add writes the worktree's
// commondir (made, not written yet) leaves it to git; one written to
// lead elsewhere goes.
func TestReconcileWorktreeCommondirBeingWritten(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	wt := filepath.Join(ws, ".git/worktrees/wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, "commondir"), nil, 0o644)
	q := newQuarantine(t.TempDir())
	pattern := filepath.Join(ws, ".git/worktrees/*/commondir")
	reconcile(ws, []string{pattern}, state{}, q)
	if _, err := os.Lstat(filepath.Join(wt, "commondir")); err != nil {
		t.Fatalf("a worktree's commondir git had made, not written yet, went: %v", err)
	}
	os.WriteFile(filepath.Join(wt, "commondir"), []byte("../../../elsewhere\n"), 0o644)
	reconcile(ws, []string{pattern}, state{}, q)
	if _, err := os.Lstat(filepath.Join(wt, "commondir")); err == nil {
		t.Error("a worktree's commondir leading elsewhere stayed")
	}
}

// judgePointer looks at a worktree's commondir once: while git makes it
// (not there, made empty, written), a .git leading there is kept or
// waited for, never judged neither. (Judged from two looks, the first
// before git wrote it and the second after, the session's watch moved
// the .git git worktree add was about to use as GIT_DIR.)
func TestJudgePointerCommondirWritten(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	wt := filepath.Join(ws, ".git/worktrees/wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(ws, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	own := filepath.Join(ws, "sub/a/wt/.git")
	os.MkdirAll(filepath.Dir(own), 0o755)
	os.WriteFile(own, []byte("gitdir: "+wt+"\n"), 0o644)
	gitDirs := []string{filepath.Join(ws, ".git")}
	commondir := filepath.Join(wt, "commondir")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// As git worktree add writes it (write_file: open, then
			// write), again and again.
			os.Remove(commondir)
			f, err := os.OpenFile(commondir, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				continue
			}
			f.WriteString("../..\n")
			f.Close()
		}
	}()
	defer func() { close(stop); <-done }()
	for start := time.Now(); time.Since(start) < time.Second; {
		if kept, pending := judgePointer(ws, own, gitDirs); !kept && !pending {
			t.Fatal("a worktree's .git judged neither kept nor waited for while git wrote its commondir")
		}
	}
}

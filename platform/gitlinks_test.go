package platform

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/internal/filestamp"
)

// gitlinksRepo makes a repository whose index holds one gitlink, sub,
// and returns its top level and index file.
func gitlinksRepo(t *testing.T) (string, string) {
	t.Helper()
	if !canStamp {
		t.Skip("nothing is kept on this system")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	gitIndex(t, ws, "", "init", "-q")
	gitIndex(t, ws, "160000 "+strings.Repeat("cd", 20)+"\tsub\n", "update-index", "--add", "--index-info")
	return ws, filepath.Join(ws, ".git", "index")
}

func gitIndex(t *testing.T, dir, stdin string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestGitlinksKept checks that the index's gitlinks are kept by its
// stamp and used while it is unchanged, and never once it changed, nor
// from a kept file others could have written, nor when the index changed
// too recently for a stamp.
func TestGitlinksKept(t *testing.T) {
	ws, index := gitlinksRepo(t)
	keep := filepath.Join(t.TempDir(), "state")
	later := time.Now().Add(time.Minute) // past filestamp.Margin
	kept := filepath.Join(keep, gitlinksDir, keptName(index))
	if got := gitlinksAt(index, keep, later); !slices.Equal(got, []string{"sub"}) {
		t.Fatalf("gitlinks %q, want [sub]", got)
	}
	data, err := os.ReadFile(kept)
	if err != nil {
		t.Fatalf("nothing kept: %v", err)
	}
	// A later process takes the kept answer, not the index's: a forged
	// one (same stamps) shows it.
	first, _, _ := strings.Cut(string(data), "\n")
	forge := func(mode os.FileMode) {
		t.Helper()
		os.Remove(kept)
		if err := os.WriteFile(kept, []byte(first+"\nforged"), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(kept, mode)
	}
	forge(0o600)
	if got := gitlinksAt(index, keep, later); !slices.Equal(got, []string{"forged"}) {
		t.Fatalf("the kept answer was not used: %q", got)
	}
	// Others may write it: not used.
	forge(0o620)
	if got := gitlinksAt(index, keep, later); !slices.Equal(got, []string{"sub"}) {
		t.Errorf("a kept file others may write was used: %q", got)
	}
	// The index changes (a new gitlink): read again.
	forge(0o600)
	gitIndex(t, ws, "160000 "+strings.Repeat("ef", 20)+"\tvendor/dep\n", "update-index", "--add", "--index-info")
	if got := gitlinksAt(index, keep, later); !slices.Equal(got, []string{"sub", "vendor/dep"}) {
		t.Fatalf("after the index changed: %q, want [sub vendor/dep]", got)
	}
	// So does a shared index it is split from, made or changed.
	forge(0o600)
	gitIndex(t, ws, "", "update-index", "--split-index")
	if got := gitlinksAt(index, keep, later); !slices.Equal(got, []string{"sub", "vendor/dep"}) {
		t.Fatalf("after the index was split: %q", got)
	}
	data, _ = os.ReadFile(kept)
	if !strings.Contains(string(data), "sharedindex.") {
		t.Errorf("the kept answer does not name the shared index: %q", data)
	}
	// An index changed just now gets no stamp: read, nothing kept.
	gitIndex(t, ws, "", "update-index", "--no-split-index")
	os.Remove(kept)
	if got := gitlinksAt(index, keep, time.Now()); !slices.Equal(got, []string{"sub", "vendor/dep"}) {
		t.Fatalf("a fresh index: %q", got)
	}
	if _, err := os.Stat(kept); err == nil {
		t.Errorf("the gitlinks of an index changed just now were kept")
	}
}

// TestGitlinksKeptOutsideWritable checks that the policy keeps the
// index's gitlinks only where no command can write: not in a state
// directory inside the workspace.
func TestGitlinksKeptOutsideWritable(t *testing.T) {
	t.Parallel()
	ws, index := gitlinksRepo(t)
	time.Sleep(filestamp.Margin + 100*time.Millisecond) // the index old enough for a stamp
	for _, tc := range []struct {
		state string
		kept  bool
	}{{filepath.Join(ws, ".state"), false}, {filepath.Join(t.TempDir(), "state"), true}} {
		if _, err := NewPolicyCached(&Spec{Workspace: ws}, []string{"HOME=" + t.TempDir()}, tc.state); err != nil {
			t.Fatal(err)
		}
		_, err := os.Stat(filepath.Join(tc.state, gitlinksDir, keptName(index)))
		if kept := err == nil; kept != tc.kept {
			t.Errorf("state directory %s: gitlinks kept %v, want %v", tc.state, kept, tc.kept)
		}
	}
}

// TestNestedReposWorktree checks that the gitlinks of a workspace whose
// .git is a file (a linked worktree) are read from the index git uses,
// in the git directory that file names: a nested clone committed there
// as a gitlink, below the workspace's top level, is one the host's git
// status goes into.
func TestNestedReposWorktree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	main := t.TempDir()
	gitIndex(t, main, "", "init", "-q")
	gitIndex(t, main, "", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first")
	ws := filepath.Join(t.TempDir(), "wt")
	gitIndex(t, main, "", "worktree", "add", "-q", ws)
	gitIndex(t, ws, "", "init", "-q", filepath.Join("vendor", "dep"))
	gitIndex(t, ws, "160000 "+strings.Repeat("cd", 20)+"\tvendor/dep\n", "update-index", "--add", "--index-info")
	nested, _ := NestedRepos(ws, "")
	if !slices.ContainsFunc(nested, func(n NestedRepo) bool { return n.Root == filepath.Join(ws, "vendor", "dep") }) {
		t.Errorf("a worktree's gitlink vendor/dep, a nested clone: not among its nested repositories %v", nested)
	}
}

// TestNestedReposJunkSharedIndex checks that a file a command puts
// among the shared indexes (.git/sharedindex.*), which git never reads
// unless the index names it, does not hide the index's gitlinks.
func TestNestedReposJunkSharedIndex(t *testing.T) {
	ws, _ := gitlinksRepo(t)
	gitIndex(t, ws, "", "init", "-q", filepath.Join("vendor", "dep"))
	gitIndex(t, ws, "160000 "+strings.Repeat("ef", 20)+"\tvendor/dep\n", "update-index", "--add", "--index-info")
	if err := os.WriteFile(filepath.Join(ws, ".git", "sharedindex."+strings.Repeat("0", 40)), []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIndex(t, ws, "", "status", "--short") // git itself does not mind it
	for _, keep := range []string{"", filepath.Join(t.TempDir(), "state")} {
		nested, _ := NestedRepos(ws, keep)
		if !slices.ContainsFunc(nested, func(n NestedRepo) bool { return n.Root == filepath.Join(ws, "vendor", "dep") }) {
			t.Errorf("keep %q: with a junk shared index, the gitlink vendor/dep is not among the nested repositories %v", keep, nested)
		}
	}
}

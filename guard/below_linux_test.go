package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// CheckBelow, what a command's end does before its status is given:
// the places it made below the root are gone when it returns, and said;
// so is one moved in with its directory; a person's committed one in a
// directory the command added to stays (git says it is unchanged); none
// of it is kept for the next command.
func TestCheckBelow(t *testing.T) {
	p, state := belowPolicy(t)
	ws := p.Workspace
	os.RemoveAll(filepath.Join(ws, ".git"))
	os.MkdirAll(filepath.Join(ws, "c/.vscode"), 0o755)
	os.WriteFile(filepath.Join(ws, "c/.envrc"), []byte("export A=1\n"), 0o644)
	hostGit(t, ws, "", "init", "-q")
	hostGit(t, ws, "", "add", "c")
	hostGit(t, ws, "", "-c", "user.email=p@p", "-c", "user.name=p", "commit", "-qm", "c")
	p.Env = []string{"PATH=/usr/bin:/bin"}
	os.MkdirAll(filepath.Join(ws, "staged"), 0o755)
	os.WriteFile(filepath.Join(ws, "staged/.envrc"), []byte("touch x\n"), 0o644)
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	os.Rename(filepath.Join(ws, "staged"), filepath.Join(ws, "a/moved")) // (its .envrc keeps its own change time)
	os.WriteFile(filepath.Join(ws, "a/b/.envrc"), []byte("touch x\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "c/.vscode/tasks.json"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "c/new"), nil, 0o644) // (c changed since)
	lines := CheckBelow(state, p, since)
	for _, f := range []string{"a/b/.envrc", "c/.vscode/tasks.json", "a/moved/.envrc"} {
		if _, err := os.Lstat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s is still there", f)
		}
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, f) }) {
			t.Errorf("no line says %s was moved: %q", f, lines)
		}
	}
	if _, err := os.Lstat(filepath.Join(ws, "c/.envrc")); err != nil {
		t.Errorf("the person's committed c/.envrc went: %v", err)
	}
	if kept := takeLines(state, ws); len(kept) > 0 {
		t.Errorf("lines kept for the next command too: %q", kept)
	}
}

// A walk that does not end (a hung file system) does not hold the
// command's status: past the bound, a line says what to do.
func TestCheckBelowBound(t *testing.T) {
	p, state := belowPolicy(t)
	hang := make(chan struct{})
	defer close(hang)
	defer func(f func(string, *platform.Policy, time.Time) []string, d time.Duration) {
		checkBelowWalk, belowTimeout = f, d
	}(checkBelowWalk, belowTimeout)
	checkBelowWalk = func(string, *platform.Policy, time.Time) []string { <-hang; return nil }
	belowTimeout = 50 * time.Millisecond
	lines := CheckBelow(state, p, time.Now())
	if len(lines) != 1 || !strings.Contains(lines[0], "did not finish") || !strings.Contains(lines[0], "before the next command") {
		t.Errorf("lines %q", lines)
	}
}

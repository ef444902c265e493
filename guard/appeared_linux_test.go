package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// TestHoldJoiningAdopts: a ticket taken while another is held (a second
// session's command beside a first one's) takes no new trusted state,
// and still adopts the repositories that appeared below the root since
// the one it joins: what was planted there is moved aside before its
// command runs (found by an attacker: nothing looked, and the second
// session's end, told by its watch that nothing changed, did not walk).
func TestHoldJoiningAdopts(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p, state := bareWorkspace(t)
	ws := p.Workspace
	if _, err := Hold(state, p); err != nil { // (the first holder)
		t.Fatal(err)
	}
	defer Release(state, ws)
	late := filepath.Join(ws, "vendor", "late")
	os.MkdirAll(late, 0o755)
	hostGit(t, late, "", "init", "-q")
	hostGit(t, late, "", "config", "core.fsmonitor", "touch x; false")
	if _, err := Hold(state, p); err != nil { // (joins)
		t.Fatal(err)
	}
	if got := strings.TrimSpace(hostGit(t, late, "", "config", "core.fsmonitor")); got != "" {
		t.Errorf("a repository that appeared while another command held the ticket kept core.fsmonitor %q after a ticket joined", got)
	}
}

// TestChangesAppearedCompleted: a .git directory below the root with no
// HEAD is no repository, and no walk takes it for one; the HEAD written
// there later (a file tool's, or a command's) makes one appear, as a
// .git made does: the session's watch says so once. A HEAD rewritten in
// a repository does not.
func TestChangesAppearedCompleted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	headless := filepath.Join(ws, "vendor/p/.git")
	os.MkdirAll(filepath.Join(headless, "objects"), 0o755)
	os.MkdirAll(filepath.Join(headless, "refs/heads"), 0o755)
	os.MkdirAll(filepath.Join(ws, "vendor/old"), 0o755)
	hostGit(t, filepath.Join(ws, "vendor/old"), "", "init", "-q")
	p := &platform.Policy{Workspace: ws, RootGuarded: []string{".envrc", ".git/hooks", ".git/config"}, Regenerable: []string{"node_modules"}}
	time.Sleep(50 * time.Millisecond)
	c := WatchChanges(p, time.Now())
	if c == nil {
		t.Fatal("no watch")
	}
	defer c.Stop()
	if c.Appeared() {
		t.Error("a .git with no HEAD, there before the watch, counts as a repository that appeared")
	}
	// (git's own way: HEAD.lock renamed over HEAD.)
	os.WriteFile(filepath.Join(ws, "vendor/old/.git/HEAD.lock"), []byte("ref: refs/heads/other\n"), 0o644)
	os.Rename(filepath.Join(ws, "vendor/old/.git/HEAD.lock"), filepath.Join(ws, "vendor/old/.git/HEAD"))
	if c.Appeared() {
		t.Error("a HEAD rewritten in a repository counts as a repository that appeared")
	}
	os.WriteFile(filepath.Join(headless, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	if !c.Appeared() {
		t.Error("a HEAD written into a .git with none: the repository it makes not seen")
	}
	if c.Appeared() {
		t.Error("seen twice")
	}
	os.Remove(filepath.Join(headless, "HEAD"))
	os.WriteFile(filepath.Join(headless, "HEAD.new"), []byte("ref: refs/heads/main\n"), 0o644)
	os.Rename(filepath.Join(headless, "HEAD.new"), filepath.Join(headless, "HEAD"))
	if !c.Appeared() {
		t.Error("a HEAD removed and moved in again: not seen")
	}
}

// TestChangesAppearedMovedBeforeWatch: a repository moved in below the
// root after the watch's since, before its first walk got there (a walk
// at the session's first ticket, just before the watch started, may
// have missed it too), counts as one that appeared: its .git keeps its
// birth time, its directory does not keep its change time.
func TestChangesAppearedMovedBeforeWatch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "vendor/deep"), 0o755)
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	hostGit(t, out, "", "init", "-q")
	p := &platform.Policy{Workspace: ws, RootGuarded: []string{".envrc", ".git/hooks", ".git/config"}, Regenerable: []string{"node_modules"}}
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	time.Sleep(50 * time.Millisecond)
	if err := os.Rename(out, filepath.Join(ws, "vendor/deep/moved")); err != nil {
		t.Fatal(err)
	}
	c := WatchChanges(p, since)
	if c == nil {
		t.Fatal("no watch")
	}
	defer c.Stop()
	if !c.Appeared() {
		t.Error("a repository moved in before the watch's first walk, after its since: not seen")
	}
}

// TestChangesAppearedUnwatchedGitDir: where the watch could not watch a
// .git below the root (past its bounds; one its owner cannot read, made
// readable later by a command, with HEAD written after), every ticket
// looks: Appeared is always true.
func TestChangesAppearedUnwatchedGitDir(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "vendor/p/.git/objects"), 0o755)
	p := &platform.Policy{Workspace: ws, RootGuarded: []string{".envrc", ".git/hooks", ".git/config"}, Regenerable: []string{"node_modules"}}
	watch := func() *Changes {
		time.Sleep(30 * time.Millisecond)
		c := WatchChanges(p, time.Now())
		if c == nil {
			t.Fatal("no watch")
		}
		return c
	}
	saved := maxRoundDirs
	maxRoundDirs = 0
	c := watch()
	first, second := c.Appeared(), c.Appeared() // (the first waits for the walk)
	c.Stop()
	maxRoundDirs = saved
	if !first || !second {
		t.Error("a .git past the watch's bounds: Appeared not always true")
	}
	c = watch()
	if c.Appeared() {
		t.Error("a .git watched, with no HEAD: a repository appeared")
	}
	c.Stop()
	if os.Geteuid() != 0 {
		os.Chmod(filepath.Join(ws, "vendor/p/.git"), 0)
		defer os.Chmod(filepath.Join(ws, "vendor/p/.git"), 0o755)
		c = watch()
		defer c.Stop()
		if !c.Appeared() || !c.Appeared() {
			t.Error("a .git its owner cannot read: Appeared not always true")
		}
	}
}

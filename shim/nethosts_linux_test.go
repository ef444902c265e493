package shim

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/platform"
)

// commandWrites has the guard hold workspace ws (a git repository) as
// it does for a command, runs write (what the command does), and
// reconciles as the command's end does: the remotes the change adds are
// the command's in the ledger.
func commandWrites(t *testing.T, state, ws string, write func()) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded:       []string{ws + "/.git/hooks"},
		GitConfig:     []string{ws + "/.git/config"},
		RootGuarded:   []string{".git/hooks/", ".git/hooks"},
		RootGitConfig: []string{".git/config", ".git/config.worktree"},
		GitConfigSafe: builtinRules().GitConfigSafe()}
	if _, err := guard.Hold(state, p); err != nil {
		t.Fatal(err)
	}
	write()
	lines, err := guard.Release(state, ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		t.Logf("guard: %s", l)
	}
}

// TestGitRemotesDifferentials: two spellings a hand-written parser read
// otherwise than git, each found by an attacker: a comment that ends in
// a backslash (git does not go on with the next line: the header after
// it starts a remote of the command's, it is no url of the person's
// origin), and an escaped quote in a remote's name (git, and so the
// guard's ledger, names the command's remote x"y). Neither is the
// person's.
func TestGitRemotesDifferentials(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	config := filepath.Join(ws, ".git", "config")
	os.WriteFile(config, []byte("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/me/app.git\n"), 0o644)
	commandWrites(t, state, ws, func() {
		f, _ := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("[remote \"origin\"]\n#\\\n[remote \"mine\"]\n\turl = https://evil.example/drop.git\n[remote \"x\\\"y\"]\n\turl = https://evil.example/quoted.git\n")
		f.Close()
	})
	if agent := guard.AgentRemotes(state, ws); !slices.Contains(agent, "mine") || !slices.Contains(agent, `x"y`) {
		t.Fatalf("the guard's ledger does not hold the command's remotes: %q", agent)
	}
	got := gitRemotes(ws, state, remoteURLs(ws, state, hostGitFor(t)))
	if want := []string{"github.com/me/app.git"}; !slices.Equal(got, want) {
		t.Errorf("gitRemotes: %v, want %v", got, want)
	}
}

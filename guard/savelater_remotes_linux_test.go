package guard

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestReleaseSaveLaterRemotes: what the guard's unlocked readers take
// from a ledger (the remotes a command added, the repositories it made:
// AgentRemotes, read by a command's judge and its policy's credential
// broker without the ledger's lock) is on disk once a release returns,
// before its save: a shim's next command may read it as soon as the
// end is answered (found by an attacker: a piped `bash` or `cordon run`
// right after `git remote add x https://host/theirs.git` had the
// policy made before the save, with x the person's remote).
func TestReleaseSaveLaterRemotes(t *testing.T) {
	ws, state, p := benchWorkspace(t)
	p.GitConfigSafe = []string{"remote.*.url=@new", "remote.*.fetch"}
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(ws, ".git", "config")
	if out, err := exec.Command("git", "-C", ws, "remote", "add", "x", "https://example.com/theirs.git").CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v\n%s", err, out)
	}
	_, idle, save, err := ReleaseIdleSaveLater(state, ws, nil)
	if err != nil || !idle {
		t.Fatalf("release: idle %v, %v", idle, err)
	}
	remotes, _ := AgentRemotes(state, ws, config)
	if err := save(); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(remotes, "x") {
		t.Errorf("before the save, AgentRemotes = %q: the remote the command added is the person's", remotes)
	}
	if remotes, _ := AgentRemotes(state, ws, config); !slices.Contains(remotes, "x") {
		t.Errorf("after the save, AgentRemotes = %q", remotes)
	}
}

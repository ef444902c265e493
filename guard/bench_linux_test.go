package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// BenchmarkReconcile is the guard's part of a session's later command
// when nothing changed: the reconcile before it ([Reconcile]) in a
// repository with git's sample hooks, an .envrc and its configuration.
func BenchmarkReconcile(b *testing.B) {
	ws := filepath.Join(b.TempDir(), "ws")
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Skipf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(ws, ".envrc"), []byte("export A=1\n"), 0o644)
	state := filepath.Join(b.TempDir(), "state")
	// The files as they are in a workspace a while after they were made
	// (a stamp is taken only of a file unchanged for a few seconds).
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Now().Add(time.Minute) }
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded:     []string{ws + "/.git/hooks", ws + "/.envrc", ws + "/.vscode/tasks.json"},
		GitConfig:   []string{ws + "/.git/config"},
		RootGuarded: []string{".git/hooks/", ".envrc", ".vscode/tasks.json"}, RootGitConfig: []string{".git/config"}}
	if _, err := Hold(state, p); err != nil {
		b.Fatal(err)
	}
	defer Release(state, ws)
	b.ReportAllocs()
	for b.Loop() {
		if lines, err := Reconcile(state, ws); err != nil || len(lines) > 0 {
			b.Fatalf("%v %v", lines, err)
		}
	}
}

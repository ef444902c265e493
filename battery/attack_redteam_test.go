//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Red-team attacks on the guard found after the auto-run suite
// (attack_guard_test.go): each fails if a planted file outlives the
// command.

// A sparse file of a terabyte at a guarded place: made new where the
// workspace and cordon's state directory are on different file systems
// (the quarantine must copy, as with /tmp on tmpfs), or grown in place
// where the guarded file is writable (Landlock as an ordinary user). The
// guard must not read it to the end before it puts the rest back: an
// agent's timeout would kill the command first and leave every later
// guarded place planted while the guard reads zeros.
func TestAttackHugeSparseFile(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			if shm, err := os.MkdirTemp("/dev/shm", "cordon-attack-"); err == nil {
				var a, c syscall.Stat_t
				if syscall.Stat(shm, &a) == nil && syscall.Stat(b.home, &c) == nil && a.Dev != c.Dev {
					t.Cleanup(func() { os.RemoveAll(shm) })
					b.ws = shm
					b.host("git init -q && echo one > tracked && git add tracked && git commit -qm one")
				} else {
					os.RemoveAll(shm)
				}
			}
			os.MkdirAll(filepath.Join(b.ws, ".vscode"), 0o755)
			if err := os.WriteFile(filepath.Join(b.ws, ".vscode/settings.json"), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cmd, _ := b.start("truncate -s 1T .envrc; truncate -s 1T .vscode/settings.json; mkdir -p .claude; echo '{\"hooks\":1}' > .claude/settings.json; echo planted")
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the agent's timeout
				t.Errorf("the command did not end within 20 s of planting sparse files")
			}
			b.gone(filepath.Join(b.ws, ".envrc"), filepath.Join(b.ws, ".claude/settings.json"))
			b.unchanged(filepath.Join(b.ws, ".vscode/settings.json"), "{}\n")
			t.Logf("%s: %v", backend, time.Since(start))
		})
	}
}

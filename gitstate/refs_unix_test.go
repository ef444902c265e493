//go:build unix

package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWriteTreeAsideOddIndex: an index a command replaced with a named
// pipe, or a link to a device, fails the index's tree at once, neither
// waiting for a writer nor copying without end.
func TestWriteTreeAsideOddIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	index := filepath.Join(dir, ".git", "index")
	for _, odd := range []func() error{
		func() error { return syscall.Mkfifo(index, 0o644) },
		func() error { return os.Symlink("/dev/zero", index) },
	} {
		os.Remove(index)
		if err := odd(); err != nil {
			t.Fatal(err)
		}
		r := &Repo{Top: dir, Env: env, Host: testHost(t)}
		done := make(chan error, 1)
		go func() { _, err := r.WriteTreeAside(""); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("the tree of an index that is no file: no error")
			}
		case <-time.After(10 * time.Second):
			if f, err := os.OpenFile(index, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			t.Fatalf("the tree of an index that is no file (%s): still at it after 10 s", index)
		}
	}
}

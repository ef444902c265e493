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

// TestOddRepositoryFiles: a stash reflog, HEAD or .git file a command
// replaced with a named pipe, a link to a device, or a huge sparse file
// is an error at once, neither waiting for a writer nor read into memory
// (found by an attacker: a FIFO at .git/logs/refs/stash hung the shim
// judging `git stash clear`, outside the sandbox, for good; a 1 GiB
// sparse one took 2 GB of memory).
func TestOddRepositoryFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	odds := map[string]func(path string) error{
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"device": func(p string) error { return os.Symlink("/dev/zero", p) },
		"sparse": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(1 << 30)
		},
	}
	calls := map[string]func(r *Repo) error{
		".git/logs/refs/stash": func(r *Repo) error {
			_, err := r.Stashes()
			if err == nil {
				_, err = r.StashEntries()
			}
			return err
		},
		".git/HEAD": func(r *Repo) error { _, err := r.Head(); return err },
	}
	for name, odd := range odds {
		for file, call := range calls {
			t.Run(name+" "+file, func(t *testing.T) {
				dir := t.TempDir()
				env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
				cmd := exec.Command("git", "init", "-q")
				cmd.Dir, cmd.Env = dir, env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git init: %v\n%s", err, out)
				}
				path := filepath.Join(dir, file)
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.Remove(path)
				if err := odd(path); err != nil {
					t.Fatal(err)
				}
				r := &Repo{Top: dir, Env: env, Host: testHost(t)}
				done := make(chan error, 1)
				go func() { done <- call(r) }()
				select {
				case err := <-done:
					if err == nil {
						t.Errorf("%s as %s: no error", file, name)
					}
				case <-time.After(10 * time.Second):
					if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
					t.Fatalf("%s as %s: still reading after 10 s", file, name)
				}
			})
		}
	}
}

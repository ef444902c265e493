package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestStampedChangeSeen: a guarded file trusted with its stamp and then
// rewritten with content of the same size, at once, is still seen as
// changed and put back; one left alone keeps its stamp and its content.
func TestStampedChangeSeen(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Now().Add(time.Minute) } // every file "old"
	ws := t.TempDir()
	hooks := filepath.Join(ws, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	hook := filepath.Join(hooks, "pre-commit")
	other := filepath.Join(hooks, "post-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(other, []byte("#!/bin/sh\nexit 1\n"), 0o755)
	trusted := snapshot(ws, []string{hooks}, nil)
	if trusted[hook] == nil || trusted[hook].Stamp == "" {
		t.Fatalf("no stamp recorded: %+v", trusted[hook])
	}
	// Later than the file system's clock tick (the real clock's margin,
	// taken away here, covers a change within it).
	time.Sleep(20 * time.Millisecond)
	os.WriteFile(hook, []byte("#!/bin/sh\nexit 9\n"), 0o755) // the same size
	q := newQuarantine(t.TempDir())
	lines := reconcile(ws, []string{hooks}, trusted, q)
	if data, _ := os.ReadFile(hook); string(data) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("a change of the same size was not put back: %q (%q)", data, lines)
	}
	if data, _ := os.ReadFile(other); string(data) != "#!/bin/sh\nexit 1\n" || len(lines) != 1 {
		t.Errorf("the file left alone: %q; lines %q", data, lines)
	}
}

// TestChmodDirNoLink: putting a directory's mode back never goes through
// a link that a running process swapped in for it (a file of the
// person's elsewhere keeps its mode).
func TestChmodDirNoLink(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "key")
	os.WriteFile(secret, []byte("k"), 0o600)
	os.Symlink(secret, filepath.Join(dir, "hooks"))
	os.Mkdir(filepath.Join(dir, "real"), 0o700)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	chmodDir(fd, "hooks", 0o755)
	chmodDir(fd, "real", 0o755)
	if fi, _ := os.Stat(secret); fi.Mode().Perm() != 0o600 {
		t.Errorf("the file behind the link was changed: %v", fi.Mode())
	}
	if fi, _ := os.Stat(filepath.Join(dir, "real")); fi.Mode().Perm() != 0o755 {
		t.Errorf("the directory itself was not changed: %v", fi.Mode())
	}
}

// TestSnapshotHint: a new trusted state takes a file whose stamp is the
// earlier one's from there, unread; a file changed since (its ctime
// moved on) is read again.
func TestSnapshotHint(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Now().Add(time.Minute) }
	ws := t.TempDir()
	hooks := filepath.Join(ws, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	hook := filepath.Join(hooks, "pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	first := snapshot(ws, []string{hooks}, nil)
	hint := state{}
	for p, e := range first {
		c := *e
		hint[p] = &c
	}
	hint[hook].Data = []byte("from the hint")
	if got := snapshot(ws, []string{hooks}, hint)[hook]; string(got.Data) != "from the hint" {
		t.Errorf("a file with the earlier stamp was read again: %q", got.Data)
	}
	time.Sleep(20 * time.Millisecond)
	os.Chmod(hook, 0o755) // (its ctime moves on; the content is the same)
	if got := snapshot(ws, []string{hooks}, hint)[hook]; string(got.Data) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("a file changed since the hint was taken from it: %q", got.Data)
	}
}

// TestReconcileFilledDirectory: a trusted directory filled with more
// names than a reconcile moves one by one (past any listing bound a
// planted hook could hide behind) is put back whole: the planted hook
// sorted last is gone, the trusted one is back, in one move.
func TestReconcileFilledDirectory(t *testing.T) {
	ws := t.TempDir()
	hooks := filepath.Join(ws, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, "pre-push"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	trusted := snapshot(ws, []string{hooks}, nil)
	for i := range 25000 {
		os.WriteFile(filepath.Join(hooks, fmt.Sprintf("junk%05d", i)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(hooks, "zzz-pre-commit"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755)
	lines := reconcile(ws, []string{hooks}, trusted, newQuarantine(t.TempDir()))
	names, _ := os.ReadDir(hooks)
	if len(names) != 1 || names[0].Name() != "pre-push" {
		t.Errorf("the hooks directory holds %d names after the reconcile, want the trusted one", len(names))
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "filled") {
		t.Errorf("lines: %d, first %q", len(lines), lines[0])
	}
}

// TestReconcileTooDeep: a git directory made deeper below .git/modules
// than "**" goes is moved aside, not left unseen with its configuration.
func TestReconcileTooDeep(t *testing.T) {
	ws := t.TempDir()
	modules := filepath.Join(ws, ".git", "modules")
	os.MkdirAll(modules, 0o755)
	pattern := ws + "/.git/modules/*/**/hooks"
	trusted := snapshot(ws, []string{pattern}, nil)
	deep := modules
	for i := range 70 {
		deep = filepath.Join(deep, fmt.Sprintf("d%d", i))
	}
	os.MkdirAll(filepath.Join(deep, "hooks"), 0o755)
	os.WriteFile(filepath.Join(deep, "hooks", "pre-commit"), []byte("#!/bin/sh\ntouch pwned\n"), 0o755)
	lines := reconcile(ws, []string{pattern}, trusted, newQuarantine(t.TempDir()))
	if _, err := os.Stat(filepath.Join(deep, "hooks", "pre-commit")); err == nil {
		t.Errorf("a hook %d levels down stayed: %q", 70, lines)
	}
	if len(lines) == 0 || !strings.Contains(strings.Join(lines, "\n"), "deeper than the guard looks") {
		t.Errorf("lines: %q", lines)
	}
}

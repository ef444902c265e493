package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// BenchmarkChangesDirty: the session's manager asks, at each command's
// end, whether anything in the workspace changed since the last round
// (1,000 directories, .git and node_modules included; nothing changed).
func BenchmarkChangesDirty(b *testing.B) {
	ws := b.TempDir()
	for i := 0; i < 1000; i++ {
		os.MkdirAll(filepath.Join(ws, "d"+strconv.Itoa(i%50), strconv.Itoa(i)), 0o755)
	}
	os.MkdirAll(filepath.Join(ws, ".git/objects/ab"), 0o755)
	os.MkdirAll(filepath.Join(ws, "node_modules/x/lib"), 0o755)
	c := WatchChanges(&platform.Policy{Workspace: ws, RootGuarded: []string{".envrc"}, Regenerable: []string{"node_modules"}}, time.Now())
	defer c.Stop()
	for !c.ready.Load() {
		time.Sleep(time.Millisecond)
	}
	c.Clear()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if c.Dirty() {
			b.Fatal("dirty")
		}
	}
}

// TestChangesTransient: a file made and removed again between two rounds
// (git's index.lock at every git status with nothing to write) leaves the
// workspace as the last round found it: no round is due. Anything else
// is a change: a file left there, one removed or written that was there
// before, one renamed in or away, a directory made and removed, a name
// that comes back to stay.
func TestChangesTransient(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git/refs/heads"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git/index"), []byte("index"), 0o644)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644)
	c := WatchChanges(&platform.Policy{Workspace: ws, RootGuarded: []string{".envrc"}}, time.Now())
	defer c.Stop()
	for !c.ready.Load() {
		time.Sleep(time.Millisecond)
	}
	c.Clear()
	lock := func(name string) {
		f, err := os.OpenFile(filepath.Join(ws, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("x")
		f.Close()
		os.Remove(filepath.Join(ws, name))
	}
	for i := range 3 {
		lock(".git/index.lock")
		lock("editor.swp")
		if c.Dirty() {
			t.Fatalf("pass %d: files made and removed again make a round due", i)
		}
	}
	changes := []struct {
		what string
		do   func()
	}{
		{"a file made and left", func() { os.WriteFile(filepath.Join(ws, "new.txt"), nil, 0o644) }},
		{"a file removed", func() { os.Remove(filepath.Join(ws, "new.txt")) }},
		{"a file written", func() { os.WriteFile(filepath.Join(ws, "a.txt"), []byte("b"), 0o644) }},
		{"a file made and renamed into place", func() {
			os.WriteFile(filepath.Join(ws, ".git/index.lock"), []byte("new"), 0o644)
			os.Rename(filepath.Join(ws, ".git/index.lock"), filepath.Join(ws, ".git/index"))
		}},
		{"a directory made and removed", func() {
			os.Mkdir(filepath.Join(ws, "d"), 0o755)
			os.Remove(filepath.Join(ws, "d"))
		}},
		{"a name made, removed and made again", func() {
			lock(".git/HEAD.lock")
			os.WriteFile(filepath.Join(ws, ".git/HEAD.lock"), nil, 0o644)
		}},
		{"a file removed and made again", func() {
			os.Remove(filepath.Join(ws, ".git/HEAD.lock"))
			os.WriteFile(filepath.Join(ws, ".git/HEAD.lock"), nil, 0o644)
			os.Remove(filepath.Join(ws, ".git/HEAD.lock"))
		}},
	}
	for _, ch := range changes {
		ch.do()
		if !c.Dirty() {
			t.Errorf("%s: no round due", ch.what)
		}
		c.Clear()
		if c.Dirty() {
			t.Fatalf("%s: still due after a round began", ch.what)
		}
	}
}

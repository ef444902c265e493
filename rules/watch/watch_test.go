package watch

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordonsh/cordon/rules"
)

// A fakeLoader reads the *.yaml files of a directory as plain text: a set
// stands for their joined contents, and a file holding "broken" fails to
// load, with its name and line.
type fakeLoader struct {
	dir string

	mu     sync.Mutex
	text   map[*rules.Set]string
	events []Event
}

func newFakeLoader(dir string) *fakeLoader {
	return &fakeLoader{dir: dir, text: map[*rules.Set]string{}}
}

func (f *fakeLoader) load() (*rules.Set, error) {
	names, _ := filepath.Glob(filepath.Join(f.dir, "*.yaml"))
	sort.Strings(names)
	var parts []string
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if strings.Contains(string(data), "broken") {
			return nil, &rules.LoadError{File: name, Line: 1, Msg: "broken"}
		}
		parts = append(parts, strings.TrimSpace(string(data)))
	}
	set, err := rules.Compile(nil, nil)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.text[set] = strings.Join(parts, "+")
	return set, nil
}

func (f *fakeLoader) report(e Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
}

func (f *fakeLoader) textOf(set *rules.Set) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.text[set]
}

func (f *fakeLoader) rejected() []Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Event
	for _, e := range f.events {
		if e.Kind == Rejected {
			out = append(out, e)
		}
	}
	return out
}

// start watches dir with a fakeLoader.
func start(t *testing.T, dir string) (*Watcher, *fakeLoader) {
	t.Helper()
	f := newFakeLoader(dir)
	w, err := New([]string{dir}, f.load, f.report)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, f
}

// waitFor waits up to a second for the current set to read want, and
// returns how long it took.
func waitFor(t *testing.T, w *Watcher, f *fakeLoader, want string) time.Duration {
	t.Helper()
	begin := time.Now()
	for time.Since(begin) < time.Second {
		if f.textOf(w.Current()) == want {
			return time.Since(begin)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("after 1s the rules read %q, want %q", f.textOf(w.Current()), want)
	return 0
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReloadEditorPatterns(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rules.yaml")
	write(t, file, "one")
	w, f := start(t, dir)
	waitFor(t, w, f, "one")

	// In place: truncate and write, as most editors and echo > file do.
	write(t, file, "two")
	t.Logf("in place: %v", waitFor(t, w, f, "two"))

	// Write a temporary file, then rename it over (vim, VS Code, emacs).
	tmp := file + ".tmp"
	write(t, tmp, "three")
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	t.Logf("rename over: %v", waitFor(t, w, f, "three"))

	// Delete, then create anew.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	write(t, file, "four")
	t.Logf("delete then create: %v", waitFor(t, w, f, "four"))
}

func TestBrokenEditKeepsRules(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "rules.yaml")
	write(t, file, "good")
	w, f := start(t, dir)
	good := w.Current()

	write(t, file, "broken")
	waitRejected(t, f, 1)
	write(t, file, "broken")
	time.Sleep(4 * Settle)
	if w.Current() != good {
		t.Fatalf("a broken edit replaced the rules: %q", f.textOf(w.Current()))
	}
	rej := f.rejected()
	if len(rej) != 1 {
		t.Fatalf("the same error was reported %d times, want once: %v", len(rej), rej)
	}
	var le *rules.LoadError
	if !errors.As(rej[0].Err, &le) || le.File != file || rej[0].Set != good {
		t.Errorf("rejected event = %+v", rej[0])
	}
	if got := rej[0].String(); !strings.Contains(got, file+":1: broken") || !strings.HasSuffix(got, "rules unchanged") {
		t.Errorf("event reads %q", got)
	}

	// Fixed, then broken again: reported again.
	write(t, file, "fixed")
	waitFor(t, w, f, "fixed")
	write(t, file, "broken")
	waitRejected(t, f, 2)
	time.Sleep(4 * Settle)
	if n := len(f.rejected()); n != 2 {
		t.Errorf("after a good load, the error was reported %d times in all, want 2", n)
	}
}

// waitRejected waits up to 10 seconds for the n-th rejected load to be
// reported: a loaded machine (CI's, with other tests beside) can take
// longer than a few settle times to notice a write.
func waitRejected(t *testing.T, f *fakeLoader, n int) {
	t.Helper()
	for begin := time.Now(); time.Since(begin) < 10*time.Second; time.Sleep(5 * time.Millisecond) {
		if len(f.rejected()) >= n {
			return
		}
	}
	t.Fatalf("after 10s %d rejected loads were reported, want %d", len(f.rejected()), n)
}

func TestDirectoryComesAndGoes(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "config", "cordon", "rules")
	w, f := start(t, dir)
	waitFor(t, w, f, "")

	// Made after the watcher started, parents and all.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a.yaml"), "a")
	t.Logf("new directory: %v", waitFor(t, w, f, "a"))

	// Deleted: the rules go with it, and the watcher goes on.
	if err := os.RemoveAll(filepath.Join(base, "config")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, f, "")

	// And made again.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "b.yaml"), "b")
	waitFor(t, w, f, "b")
}

func TestFirstLoadFails(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "x.yaml"), "broken")
	f := newFakeLoader(dir)
	if w, err := New([]string{dir}, f.load, f.report); err == nil {
		w.Close()
		t.Fatal("New succeeded with rules that do not load")
	}
}

func TestRelevant(t *testing.T) {
	w := &Watcher{dirs: []string{"/c/cordon/rules"}}
	tests := map[string]bool{
		"/c/cordon/rules/a.yaml":      true,
		"/c/cordon/rules":             true,
		"/c/cordon":                   true,
		"/c":                          true,
		"/c/cordon/rules/.a.yaml.swp": false,
		"/c/cordon/rules/a.yaml~":     false,
		"/c/other":                    false,
		"/c/cordon/rules2":            false,
		"/c/cordon/rules/sub/x.yaml":  false,
	}
	for path, want := range tests {
		if got := w.relevant(path); got != want {
			t.Errorf("relevant(%q) = %v, want %v", path, got, want)
		}
	}
}

package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cordonsh/cordon/rules"
)

// Settle is how long the watcher waits after the last change in a burst
// before it loads: an editor's save is several events (write a temporary
// file, rename it over, change its mode) within a few milliseconds.
const Settle = 60 * time.Millisecond

// A Kind says what an [Event] reports.
type Kind int

// The kinds of [Event].
const (
	Reloaded Kind = iota // the rules were loaded and are now current
	Rejected             // the load failed; the last good rules stay current
)

// String returns "reloaded" or "rejected".
func (k Kind) String() string {
	switch k {
	case Reloaded:
		return "reloaded"
	case Rejected:
		return "rejected"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// An Event reports one load after a change.
type Event struct {
	Kind Kind
	Time time.Time  // when the load ended
	Set  *rules.Set // the set now current (the last good one when Rejected)
	Err  error      // why the load failed; nil when Reloaded
}

// String returns "reloaded" or "rejected: " and the error, which names
// the file and line (see [rules.LoadError]), followed by "; rules
// unchanged".
func (e Event) String() string {
	if e.Kind == Rejected {
		return fmt.Sprintf("rejected: %v; rules unchanged", e.Err)
	}
	return e.Kind.String()
}

// A Watcher holds the current rule set and reloads it when a file in one
// of its directories changes. Its methods are safe for concurrent use.
type Watcher struct {
	dirs    []string
	load    func() (*rules.Set, error)
	report  func(Event)
	current atomic.Pointer[rules.Set]

	fs       *fsnotify.Watcher
	watching map[string]bool // the paths fs watches
	lastErr  string          // the last error reported, "" after a good load
	done     chan struct{}
	wg       sync.WaitGroup
	close    sync.Once
}

// New loads the rules with load and watches dirs, the directories the
// rule files are read from (they need not exist), until [Watcher.Close].
// After each burst of changes it calls load again: a set it returns
// becomes current, and report (which may be nil) gets a Reloaded event;
// an error keeps the last good set, and report gets a Rejected event,
// once for each distinct error in a row. report runs on the watcher's
// goroutine, one event at a time.
//
// New returns an error, and watches nothing, when the first load fails
// (the caller has no rules to use) or when the system gives no file
// watches.
func New(dirs []string, load func() (*rules.Set, error), report func(Event)) (*Watcher, error) {
	set, err := load()
	if err != nil {
		return nil, err
	}
	if set == nil {
		return nil, fmt.Errorf("the rule loader returned no rules (a cordon bug, please report it)")
	}
	fs, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("cannot watch the rule directories for changes: %w", err)
	}
	w := &Watcher{load: load, report: report, fs: fs, watching: map[string]bool{}, done: make(chan struct{})}
	for _, d := range dirs {
		w.dirs = append(w.dirs, filepath.Clean(d))
	}
	w.current.Store(set)
	w.arm()
	w.wg.Add(1)
	go w.loop()
	return w, nil
}

// Current returns the rule set of this moment.
func (w *Watcher) Current() *rules.Set { return w.current.Load() }

// Close stops watching. Current goes on returning the last set.
func (w *Watcher) Close() error {
	var err error
	w.close.Do(func() {
		close(w.done)
		err = w.fs.Close()
		w.wg.Wait()
	})
	return err
}

// loop waits for changes and loads once each burst has settled.
func (w *Watcher) loop() {
	defer w.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if w.relevant(ev.Name) {
				timer.Reset(Settle)
			}
		case _, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			// An overflow lost events: look again.
			timer.Reset(Settle)
		case <-timer.C:
			w.arm()
			w.reload()
		}
	}
}

// reload loads the rules and reports the outcome.
func (w *Watcher) reload() {
	set, err := w.load()
	if err == nil && set == nil {
		err = fmt.Errorf("the rule loader returned no rules (a cordon bug, please report it)")
	}
	ev := Event{Time: time.Now()}
	if err != nil {
		ev.Kind, ev.Err, ev.Set = Rejected, err, w.Current()
		if err.Error() == w.lastErr {
			return
		}
		w.lastErr = err.Error()
	} else {
		w.current.Store(set)
		w.lastErr = ""
		ev.Kind, ev.Set = Reloaded, set
	}
	if w.report != nil {
		w.report(ev)
	}
}

// arm watches, for each rule directory, the directory itself or, while
// it does not exist, its nearest existing parent; and stops watching the
// paths no longer needed.
func (w *Watcher) arm() {
	want := map[string]bool{}
	for _, d := range w.dirs {
		if p := existing(d); p != "" {
			want[p] = true
		}
	}
	for p := range w.watching {
		if !want[p] {
			w.fs.Remove(p) // fails when already gone with the directory
			delete(w.watching, p)
		}
	}
	for p := range want {
		if w.watching[p] {
			continue
		}
		if err := w.fs.Add(p); err == nil {
			w.watching[p] = true
		}
		// A path that cannot be watched (gone again, or unreadable)
		// is tried again at the next arm.
	}
}

// existing returns dir, or its nearest parent that exists as a
// directory, or "".
func existing(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// relevant reports whether a change to path can change the rules: a
// file in a rule directory (but an editor's hidden swap or backup file),
// or a rule directory or one of its parents coming or going.
func (w *Watcher) relevant(path string) bool {
	path = filepath.Clean(path)
	for _, d := range w.dirs {
		if filepath.Dir(path) == d {
			base := filepath.Base(path)
			return !strings.HasPrefix(base, ".") && !strings.HasSuffix(base, "~")
		}
		if path == d || within(d, path) {
			return true
		}
	}
	return false
}

// within reports whether path is below dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

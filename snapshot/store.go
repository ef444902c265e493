// Package snapshot keeps copies of workspace content a command is about to
// destroy, so that `cordon undo` can bring it back.
//
// A store lives under cordon's state directory, which sandboxed commands
// cannot write: objects/ holds file contents addressed by their sha256
// (copy-on-write clones where the file system has them, plain copies
// otherwise), manifests/ one JSON file per snapshot naming what was saved
// and where it was. Budgets bound one file, one snapshot and the whole
// store; past the total, the oldest snapshots are evicted. Every change to
// the store is made under an exclusive flock of the store's lock file, so
// many shims may save at once.
package snapshot

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Budgets bound what is saved, in bytes.
type Budgets struct {
	File    int64 // one file
	Command int64 // one snapshot
	Total   int64 // the whole store; the oldest snapshots go first
}

// DefaultBudgets are the budgets when the settings name none.
var DefaultBudgets = Budgets{File: 256 << 20, Command: 1 << 30, Total: 5 << 30}

// Entry types.
const (
	TypeFile    = "file"
	TypeDir     = "dir"
	TypeSymlink = "symlink"
	TypeStash   = "stash"  // a stash entry: Commit and Message
	TypeBranch  = "branch" // a branch: Ref and Commit
	// TypeIndexTree is a repository's index kept as the tree git writes
	// of it (Commit; Path is the index file): what is staged, in a few
	// bytes, where the file would take a megabyte in a large project.
	TypeIndexTree = "index-tree"
	// TypeObject is a repository's object file a command changed in
	// place (Path): restoring puts back the mirror's copy.
	TypeObject = "object"
)

// An Entry is one thing saved.
type Entry struct {
	Path    string   `json:"path,omitempty"` // absolute; the repository for git entries
	Type    string   `json:"type"`
	Mode    uint32   `json:"mode,omitempty"`   // permission bits
	Object  string   `json:"object,omitempty"` // sha256 of the content, for files
	Size    int64    `json:"size,omitempty"`
	Target  string   `json:"target,omitempty"`  // a symlink's target
	Names   []string `json:"names,omitempty"`   // a directory's contents
	Ref     string   `json:"ref,omitempty"`     // a branch's name
	Commit  string   `json:"commit,omitempty"`  // a stash entry's or branch's commit
	Message string   `json:"message,omitempty"` // a stash entry's message
	// Stat is what the file looked like when saved (size, times, inode),
	// in the continuous index only.
	Stat string `json:"stat,omitempty"`
}

// Kinds of snapshot.
const (
	KindBefore     = "before"     // saved before a command that destroys it
	KindContinuous = "continuous" // what a command changed, as it was before, found after it
	KindIndex      = "index"      // the last saved state of a workspace, not listed
)

// A Manifest describes one snapshot.
type Manifest struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Command   string    `json:"command"`
	Dir       string    `json:"dir"`
	Workspace string    `json:"workspace"`
	// Ended is when the command finished, when known, on the file clock
	// ([Store.FileClock]): a path whose change time is later changed after
	// the command, and undo leaves it.
	Ended   time.Time `json:"ended,omitzero"`
	Entries []Entry   `json:"entries"`
	Size    int64     `json:"size"` // bytes of file content
	// Unkept says what the last round could not keep of the workspace
	// and why ("PATH: WHY"), in an index only.
	Unkept []string `json:"unkept,omitempty"`
}

// A Store is the snapshot store in one directory.
type Store struct {
	Dir     string
	Budgets Budgets
}

// Open returns the store in stateDir/snapshots with budgets b (zero
// fields take the defaults). It makes nothing yet.
func Open(stateDir string, b Budgets) *Store {
	if b.File <= 0 {
		b.File = DefaultBudgets.File
	}
	if b.Command <= 0 {
		b.Command = DefaultBudgets.Command
	}
	if b.Total <= 0 {
		b.Total = DefaultBudgets.Total
	}
	return &Store{Dir: filepath.Join(stateDir, "snapshots"), Budgets: b}
}

// OverBudgetError says what did not fit.
type OverBudgetError struct {
	Path   string
	Size   int64
	Budget int64
	What   string // "file" or "command"
}

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("%s (%s) is larger than the snapshot budget per %s (%s; snapshots.max_%s in the settings)",
		e.Path, human(e.Size), e.What, human(e.Budget), map[string]string{"file": "file", "command": "command"}[e.What])
}

// human writes n bytes as people read them.
func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Human is how sizes are shown.
func Human(n int64) string { return human(n) }

func (s *Store) manifests() string { return filepath.Join(s.Dir, "manifests") }
func (s *Store) objects() string   { return filepath.Join(s.Dir, "objects") }

func (s *Store) object(sum string) string { return filepath.Join(s.objects(), sum[:2], sum[2:]) }

// init makes the store's directories, readable by the user only.
func (s *Store) init() error {
	for _, d := range []string{s.manifests(), s.objects(), filepath.Join(s.Dir, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("cannot make the snapshot store: %v", err)
		}
	}
	return nil
}

// Plan walks paths (files, directories, symlinks; missing ones are left
// out) and returns the entries that would be saved, without content,
// checking the budgets per file and per command.
func (s *Store) Plan(paths []string) ([]Entry, int64, error) {
	var entries []Entry
	var total int64
	seen := map[string]bool{}
	var walk func(p string) error
	walk = func(p string) error {
		if seen[p] {
			return nil
		}
		seen[p] = true
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot read %s: %v", p, err)
		}
		e := Entry{Path: p, Mode: uint32(fi.Mode().Perm())}
		switch {
		case fi.Mode().IsRegular():
			e.Type, e.Size = TypeFile, fi.Size()
			if e.Size > s.Budgets.File {
				return &OverBudgetError{Path: p, Size: e.Size, Budget: s.Budgets.File, What: "file"}
			}
			total += e.Size
			if total > s.Budgets.Command {
				return &OverBudgetError{Path: p, Size: total, Budget: s.Budgets.Command, What: "command"}
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			e.Type = TypeSymlink
			if e.Target, err = os.Readlink(p); err != nil {
				return fmt.Errorf("cannot read %s: %v", p, err)
			}
		case fi.IsDir() && filepath.Base(p) == ".git":
			// A repository's history: too much at stake to run its loss
			// on a copy; asked about as before.
			return fmt.Errorf("%s is a git repository's history; cordon does not take its loss on a snapshot", p)
		case fi.IsDir():
			e.Type = TypeDir
			des, err := os.ReadDir(p)
			if err != nil {
				return fmt.Errorf("cannot read %s: %v", p, err)
			}
			entries = append(entries, e) // before its contents
			for _, d := range des {
				entries[len(entries)-1].Names = append(entries[len(entries)-1].Names, d.Name())
			}
			for _, d := range des {
				if err := walk(filepath.Join(p, d.Name())); err != nil {
					return err
				}
			}
			return nil
		default:
			return nil // sockets, devices, fifos: nothing to keep
		}
		entries = append(entries, e)
		return nil
	}
	for _, p := range paths {
		if err := walk(realParent(p)); err != nil {
			return nil, 0, err
		}
	}
	return entries, total, nil
}

// realParent is p with the symlinks of its directory resolved, so that
// the copy can then follow none ([openFile]).
func realParent(p string) string {
	p = filepath.Clean(p)
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// Save saves paths (and the git entries in m.Entries) as a new snapshot
// described by m, filling in its ID, time, entries and size. Nothing is
// saved when a budget is exceeded (an *OverBudgetError).
func (s *Store) Save(m *Manifest, paths []string) error {
	entries, total, err := s.Plan(paths)
	if err != nil {
		return err
	}
	return s.SaveEntries(m, entries, total)
}

// SaveEntries saves planned entries (see [Store.Plan]) as a new snapshot.
func (s *Store) SaveEntries(m *Manifest, entries []Entry, total int64) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	var added int64
	for i := range entries {
		e := &entries[i]
		if e.Type != TypeFile {
			continue
		}
		sum, size, isNew, err := s.store(e.Path)
		if err != nil {
			return err
		}
		e.Object, e.Size = sum, size
		if isNew {
			added += size
		}
	}
	m.Entries = append(m.Entries, entries...)
	m.Size = total
	if m.ID == "" {
		m.ID = newID()
	}
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	if err := s.writeManifest(m); err != nil {
		return err
	}
	return s.added(added, m.ID)
}

// newID is a short random id people can type.
func newID() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// writeManifest writes m atomically.
func (s *Store) writeManifest(m *Manifest) error {
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(s.manifests(), m.ID+".json"), data, filepath.Join(s.Dir, "tmp"))
}

func writeAtomic(file string, data []byte, tmpDir string) error {
	f, err := os.CreateTemp(tmpDir, "m-")
	if err != nil {
		return fmt.Errorf("cannot write the snapshot store: %v", err)
	}
	_, err = f.Write(data)
	if e := f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cannot write the snapshot store: %v", err)
	}
	return nil
}

// List returns the snapshots, newest first (not the continuous guard's
// indexes).
func (s *Store) List() ([]*Manifest, error) {
	all, err := s.list()
	return slices.DeleteFunc(all, func(m *Manifest) bool { return m.Kind == KindIndex }), err
}

// list returns every manifest, newest first.
func (s *Store) list() ([]*Manifest, error) {
	des, err := os.ReadDir(s.manifests())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Manifest
	for _, d := range des {
		id, ok := strings.CutSuffix(d.Name(), ".json")
		if !ok {
			continue
		}
		m, err := s.Get(id)
		if err != nil {
			continue // removed meanwhile, or not ours
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *Manifest) int { return b.Time.Compare(a.Time) })
	return out, nil
}

// Get reads the snapshot id.
func (s *Store) Get(id string) (*Manifest, error) {
	if id == "" || strings.ContainsAny(id, `/\.`) {
		return nil, fmt.Errorf("no snapshot %q", id)
	}
	data, err := os.ReadFile(filepath.Join(s.manifests(), id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no snapshot %q (cordon undo --list shows them)", id)
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("snapshot %s: %v", id, err)
	}
	return &m, nil
}

// Update rewrites an existing snapshot's manifest (to record when its
// command ended).
func (s *Store) Update(m *Manifest) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := s.Get(m.ID); err != nil {
		return err // evicted meanwhile
	}
	return s.writeManifest(m)
}

// usage is the bytes of objects in the store, kept in the file usage:
// what new objects add, until an eviction counts again. Eviction reads
// every manifest, so it runs only when usage passes the total budget.
func (s *Store) usage() int64 {
	data, err := os.ReadFile(filepath.Join(s.Dir, "usage"))
	if err != nil {
		return s.Budgets.Total + 1 // unknown: count
	}
	var n int64
	fmt.Sscan(string(data), &n)
	return n
}

func (s *Store) setUsage(n int64) {
	writeAtomic(filepath.Join(s.Dir, "usage"), []byte(fmt.Sprint(n)), filepath.Join(s.Dir, "tmp"))
}

// added records n new bytes of objects and evicts when the total budget
// is passed. The caller holds the lock.
func (s *Store) added(n int64, keep string, keepGit ...string) error {
	u := s.usage()
	if u+n <= s.Budgets.Total {
		if n > 0 {
			s.setUsage(u + n)
		}
		return nil
	}
	return s.evict(keep, keepGit...)
}

// evict removes the oldest snapshots (never keep) until the objects they
// and the rest use, and the mirrors of repositories' objects, fit in the
// total budget; then the objects nothing uses and the mirrored objects
// no snapshot can need; and counts the usage again. What no eviction of
// snapshots can shrink (the workspaces' last saved state, the mirrors)
// is the floor: when it alone passes the budget, no snapshot is removed
// for it (that would empty the store at every round and keep nothing),
// and whole mirrors go instead, those of repositories that are gone
// first, never keepGit's. What it removes is written to guard.log. The
// caller holds the lock.
func (s *Store) evict(keep string, keepGit ...string) error {
	all, err := s.list()
	if err != nil {
		return err
	}
	used, total := usedObjects(all)
	_, floor := usedObjects(slices.DeleteFunc(slices.Clone(all), func(m *Manifest) bool { return m.Kind != KindIndex }))
	mirrors := s.pruneMirrors(all)
	if floor+mirrors > s.Budgets.Total {
		mirrors = s.dropMirrors(floor, keepGit)
	}
	var evicted []string
	if floor+mirrors <= s.Budgets.Total {
		// Snapshots that keep a reference a command removed (a branch,
		// the stash) go last: a lost commit stays recoverable as long as
		// the budget allows, and a person lets it go with cordon undo
		// --forget.
		for _, refs := range []bool{false, true} {
			for i := len(all) - 1; i >= 0 && total+mirrors > s.Budgets.Total; i-- {
				m := all[i]
				if m.ID == keep || m.Kind == KindIndex || keepsRefs(m) != refs {
					continue
				}
				os.Remove(filepath.Join(s.manifests(), m.ID+".json"))
				evicted = append(evicted, m.ID)
				all = slices.Delete(all, i, i+1)
				used, total = usedObjects(all)
			}
		}
	} else {
		s.Log(fmt.Sprintf("the snapshot store is over its budget (%s) with the workspaces' last saved state and the repositories' objects alone (%s): no snapshot removed for it", human(s.Budgets.Total), human(floor+mirrors)))
	}
	if len(evicted) > 0 {
		mirrors = s.pruneMirrors(all)
		s.Log(fmt.Sprintf("the snapshot store passed its budget (%s): removed the %d oldest snapshots (%s)", human(s.Budgets.Total), len(evicted), strings.Join(evicted, " ")))
	}
	s.setUsage(total + mirrors)
	// Objects no manifest names: evicted ones, or left by a save that died.
	dirs, _ := os.ReadDir(s.objects())
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(s.objects(), d.Name()))
		for _, f := range files {
			sum := d.Name() + f.Name()
			if _, ok := used[sum]; !ok {
				os.Remove(filepath.Join(s.objects(), d.Name(), f.Name()))
			}
		}
	}
	return nil
}

// keepsRefs reports whether m keeps a reference of a repository: a
// branch or stash entry by commit, or the files that hold them.
func keepsRefs(m *Manifest) bool {
	git := filepath.Join(m.Workspace, ".git")
	for _, e := range m.Entries {
		rel, err := filepath.Rel(git, e.Path)
		if e.Type == TypeStash || e.Type == TypeBranch || err == nil && (rel == "packed-refs" || strings.HasPrefix(rel, "refs"+string(filepath.Separator)) || rel == filepath.Join("logs", "refs", "stash")) {
			return true
		}
	}
	return false
}

// Forget removes snapshot id, a person's choice: what only it kept is
// removed from the store when the budget next needs room.
func (s *Store) Forget(id string) error {
	if _, err := s.Get(id); err != nil {
		return err
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.Remove(filepath.Join(s.manifests(), id+".json")); err != nil {
		return err
	}
	os.Remove(filepath.Join(s.Dir, "usage")) // counted again at the next save
	return nil
}

// dropMirrors removes whole mirrors, those of repositories that are gone
// first, then the least recently updated, never those of keepGit (git
// directories), until they fit beside used bytes; it returns the bytes
// left in mirrors.
func (s *Store) dropMirrors(used int64, keepGit []string) int64 {
	type mirror struct {
		dir   string
		st    *mirrorState
		gone  bool
		mtime time.Time
	}
	var ms []mirror
	var total int64
	des, _ := os.ReadDir(filepath.Join(s.Dir, "git"))
	for _, d := range des {
		dir := filepath.Join(s.Dir, "git", d.Name())
		st := s.readMirror(dir)
		fi, err := os.Stat(filepath.Join(dir, "state.json"))
		if err != nil {
			continue
		}
		_, gerr := os.Stat(st.GitDir)
		ms = append(ms, mirror{dir, st, gerr != nil, fi.ModTime()})
		total += st.Have + st.Gone
	}
	slices.SortFunc(ms, func(a, b mirror) int {
		if a.gone != b.gone {
			if a.gone {
				return -1
			}
			return 1
		}
		return a.mtime.Compare(b.mtime)
	})
	for _, m := range ms {
		if used+total <= s.Budgets.Total {
			break
		}
		if slices.ContainsFunc(keepGit, func(g string) bool { return within(m.st.GitDir, g) }) {
			continue // the round's repository, or one of its submodules
		}
		if os.RemoveAll(m.dir) == nil {
			total -= m.st.Have + m.st.Gone
			s.Log(fmt.Sprintf("the snapshot store passed its budget (%s): removed the copy of %s's objects; its history is no longer kept", human(s.Budgets.Total), m.st.GitDir))
		}
	}
	return total
}

// maxLog bounds guard.log; past it, the log starts again.
const maxLog = 64 << 10

// Log appends a line to the store's log, guard.log: what a round could
// not keep, what a budget removed.
func (s *Store) Log(line string) {
	file := filepath.Join(s.Dir, "guard.log")
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fi, err := os.Stat(file); err == nil && fi.Size() > maxLog {
		flags |= os.O_TRUNC
	}
	if f, err := os.OpenFile(file, flags, 0o600); err == nil {
		fmt.Fprintf(f, "%s %s\n", time.Now().Format(time.RFC3339), strings.TrimRight(line, "\n"))
		f.Close()
	}
}

func usedObjects(all []*Manifest) (map[string]int64, int64) {
	used := map[string]int64{}
	var total int64
	for _, m := range all {
		for _, e := range m.Entries {
			if _, ok := used[e.Object]; e.Object != "" && !ok {
				used[e.Object] = e.Size
				total += e.Size
			}
		}
	}
	return used, total
}

package installer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cordonsh/cordon/internal/atomicfile"
)

// A Change is what install or uninstall does to one settings file.
type Change struct {
	Agent string
	Path  string // the file itself: a symbolic link is followed
	// Before and After are the file's content; nil when there is no file.
	Before, After []byte
	// Notes say what a person should know: a key left because it was
	// changed since, a file edited since install.
	Notes []string
	// Err is why nothing is done to this file.
	Err error

	rec     *record // install: the record to write
	remove  bool    // uninstall: delete the record
	recPath string
}

// Changed reports whether applying c changes the file.
func (c *Change) Changed() bool {
	return c.Err == nil && ((c.Before == nil) != (c.After == nil) || !bytes.Equal(c.Before, c.After))
}

// A record is what cordon install did to one file, kept in the state
// directory so that uninstall can undo it.
type record struct {
	Agent   string `json:"agent"`
	Path    string `json:"path"`
	Created bool   `json:"created"` // there was no file
	// Original is the file before cordon first changed it.
	Original []byte `json:"original"`
	// Installed is the SHA-256 of the file as cordon left it: while the
	// file still has it, uninstall writes Original back.
	Installed string    `json:"installed"`
	Edits     []applied `json:"edits"`
	// Dirs are the directories cordon made for the file, outermost first.
	Dirs []string `json:"dirs,omitempty"`
}

// madeDirs is the file listing every directory cordon install made, for
// uninstall to remove once it is empty and no other file needs it.
func (e *Env) madeDirs() string { return filepath.Join(e.recordDir(), "dirs.json") }

func (e *Env) loadDirs() []string {
	var dirs []string
	if data, err := os.ReadFile(e.madeDirs()); err == nil {
		json.Unmarshal(data, &dirs)
	}
	return dirs
}

func (e *Env) saveDirs(dirs []string) error {
	if len(dirs) == 0 {
		if err := os.Remove(e.madeDirs()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, _ := json.Marshal(dirs)
	return writePrivate(e.madeDirs(), data)
}

// applied is one key cordon wrote.
type applied struct {
	Key   []string `json:"key"`
	Op    string   `json:"op"`    // set, default, append
	Value string   `json:"value"` // as JSON
	// Old is the value a set replaced, as it was written, or "".
	Old string `json:"old,omitempty"`
	// Made is how many elements of Key did not exist before (the objects
	// leading to it, and the array of an append).
	Made int `json:"made"`
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// A ParseError is a settings file that is not JSON cordon can edit.
type ParseError struct {
	Path string
	Err  error
	// Strict names the agent that reads the file as strict JSON, when
	// the file parses only with comments or trailing commas.
	Strict string
}

func (e *ParseError) Error() string {
	if e.Strict != "" {
		return fmt.Sprintf("%s is not strict JSON (%v), and %s ignores the whole of such a file, cordon's settings with the rest: cordon leaves it untouched; take the comments and trailing commas out, then run the command again", e.Path, e.Err, e.Strict)
	}
	return fmt.Sprintf("%s does not parse (%v): cordon leaves it untouched; fix it, then run the command again", e.Path, e.Err)
}

func (e *Env) recordDir() string { return filepath.Join(e.State, "install") }

func (e *Env) recordPath(file string) string {
	return filepath.Join(e.recordDir(), digest([]byte(file))[:16]+".json")
}

func (e *Env) loadRecord(file string) (*record, error) {
	data, err := os.ReadFile(e.recordPath(file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := &record{}
	if err := json.Unmarshal(data, r); err != nil || r.Path != file {
		return nil, fmt.Errorf("%s: not a record of cordon install for %s", e.recordPath(file), file)
	}
	return r, nil
}

// records returns the records of agent name ("" for all), by file.
func (e *Env) records(name string) ([]*record, error) {
	ents, err := os.ReadDir(e.recordDir())
	if err == nil {
		ents = slices.DeleteFunc(ents, func(d fs.DirEntry) bool { return d.Name() == "dirs.json" })
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*record
	for _, ent := range ents {
		if !strings.HasSuffix(ent.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(e.recordDir(), ent.Name()))
		if err != nil {
			return nil, err
		}
		r := &record{}
		if err := json.Unmarshal(data, r); err != nil {
			return nil, fmt.Errorf("%s: %v", ent.Name(), err)
		}
		if name == "" || r.Agent == name {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Installed returns the names of the agents cordon install changed a
// file of, sorted, including any agents.yaml no longer lists.
func (e *Env) Installed() ([]string, error) {
	recs, err := e.records("")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, r := range recs {
		if !slices.Contains(names, r.Agent) {
			names = append(names, r.Agent)
		}
	}
	sort.Strings(names)
	return names, nil
}

// target is the file a settings path names: a symbolic link's target.
func target(p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return p, nil
	}
	t, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%s is a symbolic link to nothing (%v): cordon leaves it untouched", p, err)
	}
	return t, nil
}

// PlanInstall returns what installing agent a changes, file by file,
// without changing anything.
func (e *Env) PlanInstall(a *Agent) []*Change {
	var out []*Change
	for i := range a.Files {
		if c := e.planFile(a, &a.Files[i]); c != nil {
			out = append(out, c)
		}
	}
	return out
}

func (e *Env) planFile(a *Agent, f *File) *Change {
	p := e.path(f.Path[e.GOOS])
	var edits []*Edit
	for i := range f.Edits {
		if e.applies(&f.Edits[i]) {
			edits = append(edits, &f.Edits[i])
		}
	}
	if p == "" || len(edits) == 0 {
		return nil
	}
	c := &Change{Agent: a.Name, Path: p}
	if c.Path, c.Err = target(p); c.Err != nil {
		c.Path = p
		return c
	}
	before, err := os.ReadFile(c.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Err = err
		return c
	}
	c.Before = before
	rec, err := e.loadRecord(c.Path)
	if err != nil {
		c.Err = err
		return c
	}
	after := before
	if after == nil {
		after = []byte{}
	}
	if usesShell(edits) && e.GOOS != "windows" {
		var note string
		e.term, note = e.terminalShell(before)
		defer func() { e.term = "" }()
		c.Notes = append(c.Notes, note)
	}
	var done []applied
	if f.Strict() {
		if _, err := parseDoc(before, true); err != nil {
			c.Err = &ParseError{Path: c.Path, Err: err, Strict: a.Title}
			return c
		}
	}
	for _, x := range edits {
		var ap *applied
		if after, ap, err = e.apply(after, x); err != nil {
			c.Err = &ParseError{Path: c.Path, Err: err}
			return c
		}
		if ap != nil {
			done = append(done, *ap)
		}
	}
	c.After = after
	if !c.Changed() {
		return c
	}
	if rec == nil {
		rec = &record{Agent: a.Name, Path: c.Path, Created: before == nil, Original: before}
		for d := filepath.Dir(c.Path); ; d = filepath.Dir(d) {
			if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
				break
			}
			rec.Dirs = append([]string{d}, rec.Dirs...)
		}
	} else if rec.Installed == digest(before) {
		// unchanged since cordon's last install: still restorable
	} else {
		rec.Installed = "edited" // uninstall removes cordon's keys only
	}
	for _, ap := range done {
		if !hasEdit(rec.Edits, ap) {
			rec.Edits = append(rec.Edits, ap)
		}
	}
	if rec.Installed != "edited" {
		rec.Installed = digest(after)
	}
	c.rec = rec
	return c
}

func hasEdit(list []applied, a applied) bool {
	for _, b := range list {
		if b.Op == a.Op && b.Value == a.Value && strings.Join(b.Key, "\x00") == strings.Join(a.Key, "\x00") {
			return true
		}
	}
	return false
}

// apply makes edit x in src. It returns the new text and what was done,
// nil when the key already held the value.
func (e *Env) apply(src []byte, x *Edit) ([]byte, *applied, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, nil, err
	}
	if root != nil && root.kind != kObject {
		return nil, nil, fmt.Errorf("the document is not a JSON object")
	}
	key := e.key(x)
	op, n := "set", &x.Set
	switch {
	case x.Default.Kind != 0:
		op, n = "default", &x.Default
	case x.Append.Kind != 0:
		op, n = "append", &x.Append
	}
	v := e.value(n)
	ap := &applied{Key: key, Op: op, Value: render(v, "", "", "")}
	st := styleOf(src)
	var parent *node
	found := 0
	var last *node
	if root != nil {
		if parent, found, last, err = walk(root, key); err != nil {
			return nil, nil, err
		}
	}
	if found == len(key) {
		switch op {
		case "default":
			return src, nil, nil
		case "set":
			if sameValue(src, last, v) {
				return src, nil, nil
			}
			ap.Old = string(src[last.start:last.end])
			return splice(src, last.start, last.end, e.renderAt(src, parent, last, v, st)), ap, nil
		}
		if last.kind != kArray {
			return nil, nil, fmt.Errorf("%s is not an array", strings.Join(key, " → "))
		}
		for _, el := range last.elems {
			if sameValue(src, el, v) {
				return src, nil, nil
			}
		}
		return appendElem(src, last, v, st), ap, nil
	}
	if op == "append" {
		v = []any{v}
	}
	for i := len(key) - 1; i > found; i-- {
		v = omap{{key[i], v}}
	}
	ap.Made = len(key) - found
	if op != "append" {
		ap.Made--
	}
	return insertMember(src, parent, key[found], v, st), ap, nil
}

// renderAt writes v to replace the value n of object parent, in the
// layout around it.
func (e *Env) renderAt(src []byte, parent, n *node, v any, st style) string {
	if len(parent.members) > 0 && !onOwnLine(src, parent.members[0].keyStart) {
		return render(v, "", "", "")
	}
	return render(v, indentAt(src, n.start), st.unit, st.nl)
}

// PlanUninstall returns what uninstalling agent a changes, file by file.
func (e *Env) PlanUninstall(a *Agent) ([]*Change, error) {
	recs, err := e.records(a.Name)
	if err != nil {
		return nil, err
	}
	var out []*Change
	for _, r := range recs {
		out = append(out, e.planRemove(r))
	}
	return out, nil
}

func (e *Env) planRemove(r *record) *Change {
	c := &Change{Agent: r.Agent, Path: r.Path, remove: true, recPath: e.recordPath(r.Path), rec: r}
	cur, err := os.ReadFile(r.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if !r.Created {
			c.Notes = append(c.Notes, "the file was deleted since cordon install: left deleted")
		}
		return c
	}
	if err != nil {
		c.Err = err
		return c
	}
	c.Before = cur
	if digest(cur) == r.Installed {
		c.After = r.Original // nil when cordon made the file: removed
		return c
	}
	out := cur
	for i := len(r.Edits) - 1; i >= 0; i-- {
		var note string
		if out, note, err = unapply(out, &r.Edits[i]); err != nil {
			c.Err = &ParseError{Path: r.Path, Err: err}
			return c
		}
		if note != "" {
			c.Notes = append(c.Notes, note)
		}
	}
	c.After = out
	c.Notes = append(c.Notes, "the file was edited since cordon install: only cordon's keys were taken out")
	if r.Created {
		if root, err := parseJSONC(out); err == nil && (root == nil || (root.kind == kObject && len(root.members) == 0)) {
			c.After = nil
			c.Notes = append(c.Notes, "cordon made the file and nothing else is left in it: removed")
		}
	}
	return c
}

// unapply takes edit a out of src: the value set goes back to the old one
// or away, an appended element goes, and so do the objects cordon made
// for it when they are empty. A key changed since is left, with a note.
func unapply(src []byte, a *applied) ([]byte, string, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, "", err
	}
	if root == nil || root.kind != kObject {
		return src, "", nil
	}
	var v any
	json.Unmarshal([]byte(a.Value), &v)
	parent, found, last, err := walk(root, a.Key)
	if err != nil || found < len(a.Key) {
		return src, "", nil
	}
	name := strings.Join(a.Key, " → ")
	if a.Op != "append" {
		if !sameValue(src, last, v) {
			return src, name + " was changed since cordon install: left as it is", nil
		}
		if a.Old != "" {
			return splice(src, last.start, last.end, a.Old), "", nil
		}
		return prune(removeItem(src, parent, parent.find(a.Key[len(a.Key)-1])), a.Key, a.Made)
	}
	if last.kind != kArray {
		return src, "", nil
	}
	for i := len(last.elems) - 1; i >= 0; i-- {
		if sameValue(src, last.elems[i], v) {
			src = removeItem(src, last, i)
			if root, err = parseJSONC(src); err != nil {
				return nil, "", err
			}
			parent, _, last, _ = walk(root, a.Key)
		}
	}
	if a.Made > 0 && len(last.elems) == 0 {
		return prune(removeItem(src, parent, parent.find(a.Key[len(a.Key)-1])), a.Key, a.Made-1)
	}
	return src, "", nil
}

// prune removes up to made objects along key, innermost first, while
// they are empty.
func prune(src []byte, key []string, made int) ([]byte, string, error) {
	for l := 1; l <= made && l < len(key); l++ {
		root, err := parseJSONC(src)
		if err != nil {
			return nil, "", err
		}
		p := key[:len(key)-l]
		parent, found, obj, _ := walk(root, p)
		if found < len(p) || obj.kind != kObject || len(obj.members) > 0 || len(bytes.TrimSpace(src[obj.start+1:obj.end-1])) > 0 {
			break
		}
		src = removeItem(src, parent, parent.find(p[len(p)-1]))
	}
	return src, "", nil
}

// Apply makes change c: install writes the record first, then the file;
// uninstall writes the file, then drops the record.
func (e *Env) Apply(c *Change) error {
	if c.Err != nil {
		return c.Err
	}
	if !c.remove {
		if !c.Changed() {
			return nil
		}
		if err := c.stale(); err != nil {
			return err
		}
		data, _ := json.MarshalIndent(c.rec, "", "  ")
		if err := os.MkdirAll(e.recordDir(), 0o700); err != nil {
			return err
		}
		if len(c.rec.Dirs) > 0 {
			if err := e.saveDirs(append(e.loadDirs(), c.rec.Dirs...)); err != nil {
				return err
			}
		}
		prev, prevErr := os.ReadFile(e.recordPath(c.Path))
		if err := writePrivate(e.recordPath(c.Path), data); err != nil {
			return err
		}
		for _, d := range c.rec.Dirs {
			if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		}
		err := writeAtomic(c.Path, c.After)
		if err != nil { // the file is as it was: so is the record
			if prevErr == nil {
				writePrivate(e.recordPath(c.Path), prev)
			} else {
				os.Remove(e.recordPath(c.Path))
				e.removeDirs()
			}
		}
		return err
	}
	if c.Changed() {
		if err := c.stale(); err != nil {
			return err
		}
	}
	switch {
	case c.Changed() && c.After == nil:
		if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	case c.Changed():
		if err := writeAtomic(c.Path, c.After); err != nil {
			return err
		}
	}
	if err := os.Remove(c.recPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return e.removeDirs()
}

// stale refuses to write c when its file no longer holds what c was
// planned from (another program saved it meanwhile, such as the agent
// its own settings): writing c.After would lose that change.
func (c *Change) stale() error {
	cur, err := os.ReadFile(c.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if (err == nil) != (c.Before != nil) || !bytes.Equal(cur, c.Before) {
		return fmt.Errorf("%s changed while cordon was editing it (another program saved it): nothing was written; run the command again", c.Path)
	}
	return nil
}

// removeDirs removes the directories cordon made that are empty now,
// innermost first.
func (e *Env) removeDirs() error {
	dirs := e.loadDirs()
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	var keep []string
	for _, d := range dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			keep = append(keep, d) // not empty: a file of someone's is in it
		}
	}
	if recs, err := e.records(""); err == nil && len(recs) == 0 {
		keep = nil // nothing of cordon's is left to need them
	}
	return e.saveDirs(keep)
}

// writeAtomic replaces path with data through a file beside it and a
// rename, keeping path's permissions (0644 for a new file).
func writeAtomic(path string, data []byte) error {
	return writeFileMode(path, data, 0o644)
}

// writePrivate is writeAtomic for cordon's records, which hold copies of
// settings files (some hold tokens): 0600.
func writePrivate(path string, data []byte) error {
	return writeFileMode(path, data, 0o600)
}

func writeFileMode(path string, data []byte, mode fs.FileMode) error {
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return atomicfile.WriteMode(path, data, mode)
}

// A Finding is cordon doctor's view of one installed agent's file.
type Finding struct {
	Agent   string `json:"agent"`
	File    string `json:"file"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
	Fix     string `json:"fix,omitempty"`
}

// Check returns, for each file cordon install changed, whether it still
// points at cordon: whether installing again would change nothing.
func (e *Env) Check() ([]Finding, error) {
	agents, err := Agents()
	if err != nil {
		return nil, err
	}
	recs, err := e.records("")
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, r := range recs {
		f := Finding{Agent: r.Agent, File: r.Path, OK: true}
		fix := "run `cordon install " + r.Agent + "`"
		var a *Agent
		for i := range agents {
			if agents[i].Name == r.Agent {
				a = &agents[i]
			}
		}
		if a == nil {
			f.OK, f.Problem, f.Fix = false, "cordon no longer knows this agent", "run `cordon uninstall "+r.Agent+"`"
			out = append(out, f)
			continue
		}
		for _, c := range e.PlanInstall(a) {
			if c.Path != r.Path {
				continue
			}
			switch {
			case c.Err != nil:
				f.OK, f.Problem, f.Fix = false, c.Err.Error(), "fix the file, then "+fix
			case c.Before == nil:
				f.OK, f.Problem, f.Fix = false, "the file is gone", fix
			case c.Changed():
				f.OK, f.Problem, f.Fix = false, "its settings no longer point at cordon (changed since cordon install, or cordon moved)", fix
			default:
				if key := e.off(a, c); key != "" {
					f.OK = false
					f.Problem = fmt.Sprintf("%s is true in it: %s runs none of its hooks, cordon's included", key, a.Title)
					f.Fix = fmt.Sprintf("remove %s from %s (or set it to false)", key, c.Path)
				}
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// off returns the key of a's file of c whose true value turns off what
// cordon wrote there (File.Off), or "".
func (e *Env) off(a *Agent, c *Change) string {
	root, err := parseJSONC(c.Before)
	if err != nil || root == nil {
		return ""
	}
	for i := range a.Files {
		p := e.path(a.Files[i].Path[e.GOOS])
		if p == "" {
			continue
		}
		if t, err := target(p); err != nil || t != c.Path {
			continue
		}
		for _, key := range a.Files[i].Off {
			if _, found, v, err := walk(root, key); err == nil && found == len(key) && string(c.Before[v.start:v.end]) == "true" {
				return strings.Join(key, ".")
			}
		}
	}
	return ""
}

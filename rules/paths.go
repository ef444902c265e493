package rules

import (
	"errors"
	"github.com/cordonsh/cordon/parse"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/pattern"
)

// Target classes: where a path lies, as policies name it.
const (
	ClassRoot      = "root"               // "/"
	ClassHome      = "home"               // the home directory itself
	ClassWSRoot    = "workspace-root"     // the workspace itself
	ClassContainsW = "contains-workspace" // an ancestor of the workspace
	ClassCred      = "credential"         // credential material outside the workspace
	ClassWSCred    = "ws-credential"      // credential material inside the workspace
	ClassAutoRun   = "autorun"            // workspace files tools run on their own
	ClassWorkspace = "workspace"          // inside the workspace
	ClassScratch   = "scratch"            // /tmp and friends
	ClassCache     = "cache"              // tool caches
	ClassAgent     = "agent"              // agents' protocol files
	ClassCordon    = "cordon"             // cordon's own settings, rules and records
	ClassNetDev    = "network-device"     // /dev/tcp/host/port
	ClassHarmless  = "harmless-device"    // /dev/null, /dev/stdout
	ClassDevice    = "device"             // disks and other devices
	ClassSystem    = "system"             // system directories
	ClassOutside   = "outside"            // anything else
	ClassUnknown   = "unknown"            // cannot be resolved
	ClassNone      = "none"               // the effect has no target
	ClassLocal     = "local"              // a network peer on this machine
	ClassHistory   = "history"            // the repository's history (.git)
	ClassMetadata  = "metadata"           // a cloud metadata service (instance credentials)
	ClassWSUnknown = "workspace-unknown"  // unknown, computed while working in the workspace
	ClassSibling   = "sibling"            // beside the workspace, in the directory that holds it
	ClassReadOnly  = "read-only"          // a place the sandbox will not let the command write
	ClassProgDir   = "program-dir"        // an installs entry the sandbox will not let it write
	ClassSSH       = "ssh-remote"         // a git remote reached over SSH
	ClassRemote    = "remote"             // a git remote over the network elsewhere
	ClassElsewhere = "elsewhere"          // a target of a command run on another machine (ssh host CMD)
)

// Env is what judging needs to know about the machine.
type Env struct {
	// Home is the home directory.
	Home string
	// Workspace is the workspace root, or "" when there is none.
	Workspace string
	// NoWorkspace is what messages say for {workspace} when there is
	// none: why, and how to make one. "(none)" when empty.
	NoWorkspace string
	// Getenv returns an environment variable of the judged command.
	Getenv func(string) string
	// Environ is the judged command's environment (NAME=value): Windows
	// names ignore case, and credentials are found by their values.
	Environ []string
	// Windows is set when the commands are Windows commands: paths are
	// Windows paths, Home and Workspace are in winpath's canonical form,
	// and names ignore case.
	Windows bool
	// Foreign is set when the paths are not on this machine (Windows
	// commands judged elsewhere): nothing is looked up on disk, and what
	// git could restore is unknown.
	Foreign bool
	// Writable, when set, reports whether the sandbox the command will
	// run in lets it write a path (absolute, resolved). A write the
	// policies would allow to a place it does not is judged as one to a
	// read-only place, so that the judge says what the sandbox would
	// stop. Nil when no sandbox confines the command (or it is not
	// known): nothing is read-only then.
	Writable func(path string) bool
	// Brokered, when set, reports whether the sandbox the command runs
	// in holds credential variable name as a placeholder that only the
	// variable's own hosts take, the real value put on in transit
	// (docs/network.md): printing or sending it gives nothing away, so
	// it is no secret to the judge. Nil: every credential variable is.
	Brokered func(name string) bool

	msys bool // the command is Git Bash's: /c/x is C:\x (see [Env.of])
	answers
}

// answers are what one judgement found out and keeps, each as of its
// first look.
type answers struct {
	shown   map[string]string        // Windows paths as first written, by canonical form
	sets    map[sliceKey]*pathSet    // compiled class entries, by their slice
	wsSets  map[sliceKey]*wsEntrySet // workspace entries taken apart, by their slice
	classes map[string]string        // classify's answers, by path
	paths   map[resolveKey]string    // resolve's answers
	dirs    map[string]string        // real paths of parent directories, "" when missing
	stats   map[string]fileKind      // stat's answers, by path
	lstats  map[string]lstatAnswer   // lstat's answers, by path (see [Env.lstat])
	creds   map[string]bool          // holdsCredentials' answers, by directory
}

// of sets e to read the paths of command c: on Windows, a Git Bash
// command's as MSYS does (/c/x is C:\x, /tmp is %TEMP%), a PowerShell or
// cmd command's as Windows does. Every path a judgement resolves is
// some command's, read after of for that command: a setting left from
// another command (the last one whose effects were found) read a
// PowerShell path as Git Bash's, or the other way round.
func (e *Env) of(c *parse.Command) {
	e.msys = e.Windows && c.Dialect != parse.Cmd && c.Dialect != parse.PowerShell
}

// fresh is e with none of its answers: the same environment, for a
// judgement of its own (see [judging.effectsShared]).
func (e *Env) fresh() Env {
	f := *e
	f.msys, f.answers = false, answers{}
	return f
}

// adopt takes the answers o has that a has not (o's judgement of its
// own came after [Env.fresh]): what the rest of the judgement asks again
// is answered as o answered it, and the paths shown as first written
// ([Env.Show]) stay the first ones when o judged later commands.
func (a *answers) adopt(o *answers) {
	adoptAnswers(&a.shown, o.shown)
	adoptAnswers(&a.sets, o.sets)
	adoptAnswers(&a.wsSets, o.wsSets)
	adoptAnswers(&a.classes, o.classes)
	adoptAnswers(&a.paths, o.paths)
	adoptAnswers(&a.dirs, o.dirs)
	adoptAnswers(&a.stats, o.stats)
	adoptAnswers(&a.lstats, o.lstats)
	adoptAnswers(&a.creds, o.creds)
}

// adoptAnswers adds to *dst the entries of src whose keys it lacks.
func adoptAnswers[K comparable, V any](dst *map[K]V, src map[K]V) {
	if len(src) == 0 {
		return
	}
	if *dst == nil {
		*dst = make(map[K]V, len(src))
	}
	for k, v := range src {
		if _, ok := (*dst)[k]; !ok {
			(*dst)[k] = v
		}
	}
}

// fileKind is what a path is on disk.
type fileKind uint8

const (
	kindMissing fileKind = iota
	kindFile
	kindDir
)

// stat returns what path is, following symlinks, remembered for the
// judgement.
func (e *Env) stat(path string) fileKind {
	if k, ok := e.stats[path]; ok {
		return k
	}
	if k, ok := e.lstatKind(path); ok {
		return k
	}
	k := kindMissing
	if fi, err := os.Stat(e.native(path)); err == nil && e.native(path) != "" {
		k = kindFile
		if fi.IsDir() {
			k = kindDir
		}
	}
	if e.stats == nil {
		e.stats = map[string]fileKind{}
	}
	e.stats[path] = k
	return k
}

// lstatKind is what path is by the judgement's lstat of it, when it made
// one that tells ([Env.lstat]: every target resolved is looked up so): a
// path that is not a symlink is what stat would find. Not on Windows,
// where lstat and stat differ on more than symlinks.
func (e *Env) lstatKind(path string) (fileKind, bool) {
	if e.Windows {
		return 0, false
	}
	a, ok := e.lstats[path]
	switch {
	case !ok:
		return 0, false
	case errors.Is(a.err, fs.ErrNotExist):
		return kindMissing, true
	case a.err != nil || a.mode&fs.ModeSymlink != 0:
		return 0, false
	case a.mode.IsDir():
		return kindDir, true
	}
	return kindFile, true
}

type resolveKey struct {
	p, dir   string
	keepLink bool
	msys     bool // Git Bash's reading (see [Env.of]): /tmp is %TEMP%, not C:\tmp
}

// resolve is [resolve] remembered for the judgement: the same targets
// recur in long scripts.
func (e *Env) resolve(p, dir string, keepLink bool) string {
	k := resolveKey{p, dir, keepLink, e.msys}
	if r, ok := e.paths[k]; ok {
		return r
	}
	var r string
	if e.Windows {
		r = e.resolveWin(p, dir)
	} else {
		r = e.resolveUnix(p, dir, keepLink)
	}
	if e.paths == nil {
		e.paths = map[resolveKey]string{}
	}
	e.paths[k] = r
	return r
}

// A pathSet is a list of class entries compiled for one Env.
type pathSet struct {
	exact     map[string]bool // paths: match the path or an ancestor
	globs     []litGlob       // path globs: match the path or an ancestor
	names     map[string]bool // base names: match a component
	nameGlobs []litGlob       // base-name globs
	// The answers for directories and components, remembered: the
	// files of a long script share them.
	dirs, comps map[string]bool
}

// A sliceKey names a slice of the rules' entries: where it starts and how
// long it is (the key of the entries compiled once per judgement).
type sliceKey struct {
	first *string
	n     int
}

// compiled returns entries compiled for e, building them once.
func (e *Env) compiled(entries []string) *pathSet {
	if len(entries) == 0 {
		return &pathSet{}
	}
	k := sliceKey{&entries[0], len(entries)}
	if ps := e.sets[k]; ps != nil {
		return ps
	}
	ps := &pathSet{exact: map[string]bool{}, names: map[string]bool{}}
	for _, entry := range entries {
		glob := strings.ContainsAny(entry, "*?[")
		isPath := pathEntry(entry)
		if e.Windows {
			isPath = winEntryIsPath(entry)
			if !isPath {
				entry = strings.ToLower(entry)
			}
		}
		switch {
		case !isPath && glob:
			ps.nameGlobs = append(ps.nameGlobs, newLitGlob(entry))
		case !isPath:
			ps.names[entry] = true
		case glob:
			if p := e.expandEntry(entry); p != "" {
				ps.globs = append(ps.globs, newLitGlob(p))
			}
		default:
			if p := e.expandEntry(entry); p != "" {
				ps.exact[path.Clean(p)] = true
			}
		}
	}
	if e.sets == nil {
		e.sets = map[sliceKey]*pathSet{}
	}
	e.sets[k] = ps
	return ps
}

func (ps *pathSet) match(e *Env, p0 string) bool {
	if len(ps.names) > 0 || len(ps.nameGlobs) > 0 {
		// The last component, a file's name, is not remembered: whole
		// paths are ([Set.classify]), and a long script's thousands of
		// files differ by it alone.
		for rest, more := e.below(p0), true; more; {
			var c string
			c, rest, more = strings.Cut(rest, "/")
			if c != "" && (more && ps.component(c) || !more && ps.nameMatch(c)) {
				return true
			}
		}
	}
	if len(ps.exact) == 0 && len(ps.globs) == 0 {
		return false
	}
	if ps.exact[p0] || anyGlob(ps.globs, p0) {
		return true
	}
	return p0 != "/" && p0 != "." && ps.dir(path.Dir(p0))
}

// dir reports whether dir or an ancestor matches a path or a glob.
func (ps *pathSet) dir(dir string) bool {
	if m, ok := ps.dirs[dir]; ok {
		return m
	}
	m := ps.exact[dir] || anyGlob(ps.globs, dir) || dir != "/" && dir != "." && ps.dir(path.Dir(dir))
	if ps.dirs == nil {
		ps.dirs = map[string]bool{}
	}
	ps.dirs[dir] = m
	return m
}

// component reports whether a path component matches a name or a
// name glob.
func (ps *pathSet) component(c string) bool {
	if m, ok := ps.comps[c]; ok {
		return m
	}
	m := ps.nameMatch(c)
	if ps.comps == nil {
		ps.comps = map[string]bool{}
	}
	ps.comps[c] = m
	return m
}

// nameMatch reports whether a name matches a name or a name glob.
func (ps *pathSet) nameMatch(name string) bool {
	return ps.names[name] || anyGlob(ps.nameGlobs, name)
}

// A litGlob is a glob pattern and the literal text it starts with: most
// strings are told apart by that alone.
type litGlob struct {
	pattern, prefix string
}

func newLitGlob(pattern string) litGlob {
	n := strings.IndexAny(pattern, "*?[\\")
	if n < 0 {
		n = len(pattern)
	}
	return litGlob{pattern: pattern, prefix: pattern[:n]}
}

func anyGlob(globs []litGlob, s string) bool {
	for _, g := range globs {
		if !strings.HasPrefix(s, g.prefix) {
			continue
		}
		if ok, _ := path.Match(g.pattern, s); ok {
			return true
		}
	}
	return false
}

// expandEntry turns a path-class entry into a path or glob.
func (e *Env) expandEntry(p string) string {
	if e.Windows {
		return e.winEntry(p)
	}
	switch {
	case p == "~":
		return e.Home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(e.Home, p[2:])
	case strings.HasPrefix(p, "$"):
		name, rest, _ := strings.Cut(p[1:], "/")
		v := ""
		if e.Getenv != nil {
			v = e.Getenv(name)
		}
		if v == "" {
			return ""
		}
		return filepath.Join(v, rest)
	}
	return p
}

// matchAny reports whether path matches one of the entries: a base-name
// glob (no "/") matches any component; a path or glob matches the path or
// one of its ancestors.
func (e *Env) matchAny(path string, entries []string) bool {
	return e.compiled(entries).match(e, path)
}

func (e *Env) match(p0, entry string) bool {
	isPath := pathEntry(entry)
	if e.Windows {
		isPath = winEntryIsPath(entry)
		if !isPath {
			entry = strings.ToLower(entry)
		}
	}
	if !isPath {
		for c := range strings.SplitSeq(e.below(p0), "/") {
			if ok, _ := path.Match(entry, c); ok && c != "" {
				return true
			}
		}
		return false
	}
	pat := e.expandEntry(entry)
	if pat == "" {
		return false
	}
	for p := p0; ; p = path.Dir(p) {
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
		if p == "/" || p == "." {
			return false
		}
	}
}

// pathEntry reports whether a path-class entry names a path ("/tmp",
// "~/.cache", "$TMPDIR") rather than a base name (".git").
func pathEntry(entry string) bool {
	return strings.Contains(entry, "/") || strings.HasPrefix(entry, "$")
}

// scratch reports whether path is in a scratch directory. A home
// directory that itself lies in a scratch directory (a test's HOME under
// /tmp) stays home: only scratch entries inside it count there. An entry
// the command's environment names ($TMPDIR) counts only where the
// sandbox agrees that path is writable: the environment is the caller's,
// and the sandbox leaves out a variable that names a place no command
// may write (TMPDIR=$HOME).
func (e *Env) scratch(path string, entries []string) bool {
	for _, entry := range entries {
		if !e.match(path, entry) {
			continue
		}
		if strings.HasPrefix(entry, "$") && (e.Writable == nil || !e.Writable(path)) {
			continue
		}
		dir := e.expandEntry(entry)
		if !within(path, e.Home) || within(dir, e.Home) {
			return true
		}
	}
	return false
}

// below returns the part of path below the workspace or the home
// directory, so that base-name entries never match the directories a
// workspace happens to live in.
func (e *Env) below(path string) string {
	for _, root := range []string{e.Workspace, e.Home} {
		if root != "" && within(path, root) {
			return strings.TrimPrefix(path[len(root):], "/")
		}
	}
	return path
}

// wsEntry reports whether path, inside the workspace, is one of the
// workspace-relative entries: an entry matches itself, and a "dir/" entry
// what is inside it too; * and ? match within one name
// (.git/modules/*/config), ** any run of names. With anyDepth the entry
// may start in any directory of the workspace (sub/.envrc, a nested
// repository's .git/hooks), not only at its root.
func (e *Env) wsEntry(path string, entries []string, anyDepth bool) bool {
	if len(entries) == 0 {
		return false
	}
	return e.relEntry(strings.TrimPrefix(path[len(e.Workspace):], "/"), entries, anyDepth)
}

// relEntry is [Env.wsEntry] of rel, relative to the workspace; entries
// is not empty.
func (e *Env) relEntry(rel string, entries []string, anyDepth bool) bool {
	ws := e.wsEntries(entries)
	for {
		if ws.match(rel) {
			return true
		}
		i := strings.IndexByte(rel, '/')
		if !anyDepth || i < 0 {
			return false
		}
		rel = rel[i+1:]
	}
}

// belowRootEntry is [Env.wsEntry] at any depth below the workspace's
// root, not at the root itself (sub/.git, not .git).
func (e *Env) belowRootEntry(path string, entries []string) bool {
	rel := strings.TrimPrefix(path[len(e.Workspace):], "/")
	i := strings.IndexByte(rel, '/')
	return i >= 0 && len(entries) > 0 && e.relEntry(rel[i+1:], entries, true)
}

// wsEntrySet is a list of workspace-relative entries (see [Env.wsEntry])
// taken apart once per judgement: a long script's thousands of paths are
// each matched against lists of a hundred entries.
type wsEntrySet struct {
	files map[string]bool // entries: the path itself
	dirs  map[string]bool // "dir/" entries: the path or below it
	globs []wsGlob
}

// A wsGlob is an entry with a wildcard.
type wsGlob struct {
	pattern string
	dir     bool     // a "dir/" entry: what is below a match matches too
	slashes int      // the names in the pattern, less one
	parts   []string // for a pattern with **, its names
}

// wsEntries returns entries taken apart, once per judgement.
func (e *Env) wsEntries(entries []string) *wsEntrySet {
	k := sliceKey{&entries[0], len(entries)}
	if ws := e.wsSets[k]; ws != nil {
		return ws
	}
	ws := &wsEntrySet{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, entry := range entries {
		dir := strings.HasSuffix(entry, "/")
		entry = strings.TrimSuffix(entry, "/")
		// Every entry matches its own text (a name with [ in it).
		if dir {
			ws.dirs[entry] = true
		} else {
			ws.files[entry] = true
		}
		if strings.ContainsAny(entry, "*?[") {
			g := wsGlob{pattern: entry, dir: dir, slashes: strings.Count(entry, "/")}
			if strings.Contains(entry, "**") {
				g.parts = strings.Split(entry, "/")
			}
			ws.globs = append(ws.globs, g)
		}
	}
	if e.wsSets == nil {
		e.wsSets = map[sliceKey]*wsEntrySet{}
	}
	e.wsSets[k] = ws
	return ws
}

// match reports whether the relative path rel is one of the entries.
func (ws *wsEntrySet) match(rel string) bool {
	if ws.files[rel] || ws.dirs[rel] {
		return true
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && ws.dirs[rel[:i]] {
			return true
		}
	}
	if len(ws.globs) == 0 {
		return false
	}
	slashes := strings.Count(rel, "/")
	var names []string
	for _, g := range ws.globs {
		if g.parts != nil {
			if names == nil {
				names = strings.Split(rel, "/")
			}
			if globPath(g.parts, names, g.dir) {
				return true
			}
			continue
		}
		// The entry, or (for a dir/ entry) the start of rel as long as it.
		head := rel
		if g.dir && slashes > g.slashes {
			head = rel[:nthSlash(rel, g.slashes+1)]
		}
		if ok, _ := filepath.Match(g.pattern, head); ok {
			return true
		}
	}
	return false
}

// nthSlash is the index of the nth slash in s (n >= 1), which has more.
func nthSlash(s string, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			if n--; n == 0 {
				return i
			}
		}
	}
	return len(s)
}

// globPath matches the names of a path against the parts of a pattern,
// where "**" is any run of names (none included); with prefix, a path
// below a match matches too.
func globPath(pat, names []string, prefix bool) bool {
	if len(pat) == 0 {
		return len(names) == 0 || prefix
	}
	if pat[0] == "**" {
		for i := 0; i <= len(names); i++ {
			if globPath(pat[1:], names[i:], prefix) {
				return true
			}
		}
		return false
	}
	if len(names) == 0 {
		return false
	}
	if ok, _ := filepath.Match(pat[0], names[0]); !ok {
		return false
	}
	return globPath(pat[1:], names[1:], prefix)
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || len(path) > len(dir) && path[len(dir)] == '/' && path[:len(dir)] == dir
}

// classify returns the class of an absolute, resolved path.
func (s *Set) classify(e *Env, path string) string {
	if c, ok := e.classes[path]; ok {
		return c
	}
	c := s.classify1(e, path)
	if e.classes == nil {
		e.classes = map[string]string{}
	}
	e.classes[path] = c
	return c
}

func (s *Set) classify1(e *Env, path string) string {
	p := s.pathsFor(e)
	if name, ok := strings.CutPrefix(path, "/env:"); ok && e.Windows {
		// PowerShell's Env: drive: the environment, and its credentials.
		if name == "" || name == "/" || s.credentialVar(strings.ToUpper(strings.TrimPrefix(name, "/"))) {
			return ClassCred
		}
		return ClassHarmless
	}
	switch {
	case e.isRoot(path):
		return ClassRoot
	case path == e.Workspace:
		return ClassWSRoot
	case e.Workspace != "" && within(e.Workspace, path):
		return ClassContainsW
	case path == e.Home:
		return ClassHome
	case e.matchAny(path, p.Cordon):
		return ClassCordon
	case (e.matchAny(path, p.Credentials) || e.matchAny(path, p.ReadableCredentials) && s.holdsSecret(e, path)) && !e.matchAny(path, p.NotSecret):
		if within(path, e.Workspace) {
			return ClassWSCred
		}
		return ClassCred
	case within(path, e.Workspace) && (e.wsEntry(path, p.AutoRun, true) || e.wsEntry(path, p.GitConfig, true) || e.belowRootEntry(path, p.GitPointers)):
		return ClassAutoRun
	case within(path, e.Workspace) && e.wsEntry(path, p.History, false):
		return ClassHistory
	case within(path, e.Workspace):
		return ClassWorkspace
	case e.matchAny(path, p.Agent):
		return ClassAgent
	case e.matchAny(path, p.Caches):
		return ClassCache
	case e.scratch(path, p.Scratch):
		return ClassScratch
	case e.matchAny(path, p.NetDevices):
		return ClassNetDev
	case e.matchAny(path, p.HarmlessDevs):
		return ClassHarmless
	case e.matchAny(path, p.Devices):
		return ClassDevice
	case e.sibling(path):
		return ClassSibling
	case within(path, e.Home):
		return ClassOutside
	case e.matchAny(path, p.System):
		return ClassSystem
	}
	return ClassOutside
}

// resolve makes p absolute against dir and resolves symlinks in its
// directories. The last element is resolved too unless keepLink is set
// (rm removes a link, not what it points to) or p ends in "/".
func resolve(p, dir string, keepLink bool) string {
	trailing := strings.HasSuffix(p, "/") && len(p) > 1
	if !filepath.IsAbs(p) {
		if dir == "" {
			return ""
		}
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if !keepLink || trailing {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
	}
	parent, base := filepath.Split(p)
	if real, err := filepath.EvalSymlinks(parent); err == nil {
		return filepath.Join(real, base)
	}
	return resolveExisting(p)
}

// resolveUnix is [resolve] with the real paths of the parent
// directories remembered for the judgement: a script that writes o1.log
// to o2000.log resolves their directory once, and looks each file up
// with one lstat.
func (e *Env) resolveUnix(p, dir string, keepLink bool) string {
	trailing := strings.HasSuffix(p, "/") && len(p) > 1
	if !filepath.IsAbs(p) {
		if dir == "" {
			return ""
		}
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	parent, base := filepath.Split(p)
	if base == "" {
		return resolve(p, "", keepLink || trailing)
	}
	real, ok := e.dirs[parent]
	if !ok {
		if r, err := filepath.EvalSymlinks(parent); err == nil {
			real = r
		}
		if e.dirs == nil {
			e.dirs = map[string]string{}
		}
		e.dirs[parent] = real
	}
	if real == "" {
		return resolve(p, "", keepLink && !trailing) // no parent: as far as it exists
	}
	full := p // in a directory that is its own real path: p itself
	if filepath.Dir(p) != real {
		full = filepath.Join(real, base)
	}
	if keepLink && !trailing {
		return full
	}
	// The parent is real: only the last element can be a link. What
	// is not one is what [Env.stat] will find ([Env.lstatKind]).
	if mode, err := e.lstat(full); err == nil && mode&fs.ModeSymlink != 0 {
		if r, err := filepath.EvalSymlinks(full); err == nil {
			return r
		}
	}
	return full
}

// An lstatAnswer is what lstat said of a path ([lstatType]).
type lstatAnswer struct {
	mode fs.FileMode
	err  error
}

// lstat is the type of the native path p by lstat ([lstatType]: a
// directory, a symlink or 0), or its error, remembered for the
// judgement: the target of a redirection is looked up to resolve it,
// then again to tell whether the command overwrites something, and a
// long script writes thousands of them.
func (e *Env) lstat(p string) (fs.FileMode, error) {
	if a, ok := e.lstats[p]; ok {
		return a.mode, a.err
	}
	mode, err := lstatType(p)
	if e.lstats == nil {
		e.lstats = map[string]lstatAnswer{}
	}
	e.lstats[p] = lstatAnswer{mode, err}
	return mode, err
}

// resolveExisting resolves the longest existing prefix of p.
func resolveExisting(p string) string {
	var rest []string
	for cur := p; cur != "/" && cur != "."; cur = filepath.Dir(cur) {
		if _, err := os.Lstat(cur); err == nil {
			if real, err := filepath.EvalSymlinks(cur); err == nil {
				return filepath.Join(append([]string{real}, rest...)...)
			}
			break
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
	return p
}

// holdsSecret reports whether the settings file at path (a
// readable_credentials entry) holds a credential in one of its lines (see
// [Set.secretLine]). A file that exists but cannot be read is taken to
// hold one; a missing one, or one on a machine cordon cannot look at,
// does not.
func (s *Set) holdsSecret(e *Env, path string) bool {
	n := e.native(path)
	if n == "" {
		return false
	}
	f, err := os.Open(n)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return true
	}
	for line := range strings.Lines(string(data)) {
		if s.secretLine(line) {
			return true
		}
	}
	return false
}

// secretLine reports whether a line of settings holds a credential: a URL
// with a password, or with any userinfo for http (https://TOKEN@host/); a
// key with a credential word (_authToken=, password:); an Authorization
// header or one with a credential word (PRIVATE-TOKEN: x).
func (s *Set) secretLine(line string) bool {
	if strings.Contains(strings.ToLower(line), "authorization") {
		return true
	}
	for rest := line; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		scheme := strings.ToLower(rest[strings.LastIndexFunc(rest[:i], func(r rune) bool { return !isSchemeRune(r) })+1 : i])
		rest = rest[i+3:]
		auth := rest
		if j := strings.IndexAny(auth, "/?#\"' \t\r\n]>"); j >= 0 {
			auth = auth[:j]
		}
		if user, _, ok := strings.Cut(auth, "@"); ok && (strings.Contains(user, ":") || strings.HasPrefix(scheme, "http")) {
			return true
		}
	}
	if t := strings.TrimSpace(line); t == "" || strings.ContainsRune("[#;", rune(t[0])) {
		return false // a section header or a comment
	}
	key, value, ok := strings.Cut(line, "=")
	if !ok {
		key, value, ok = strings.Cut(line, ":")
	}
	header, _, isHeader := strings.Cut(value, ":")
	return ok && (s.credentials().HasWord(key) || isHeader && s.credentials().HasWord(header))
}

func isSchemeRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '+' || r == '-' || r == '.'
}

// credentialVar reports whether an environment variable holds
// credentials, by its name.
func (s *Set) credentialVar(name string) bool { return s.credentials().Name(name) }

// credentialSet reports whether variable name of e's environment holds
// credentials, by its name or its value (a URL with a password).
func (s *Set) credentialSet(e *Env, name string) bool {
	if e.Brokered != nil && e.Brokered(name) {
		return false
	}
	return s.credentials().Var(name, e.getenv(name))
}

// globs caches compiled shell patterns.
var globs sync.Map

// matchGlob matches name against a shell pattern in which "*" also
// matches "/".
func matchGlob(pat, name string) (bool, error) {
	if re, ok := globs.Load(pat); ok {
		return re.(*regexp.Regexp).MatchString(name), nil
	}
	expr, err := pattern.Regexp(pat, pattern.EntireString)
	if err != nil {
		return false, err
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return false, err
	}
	globs.Store(pat, re)
	return re.MatchString(name), nil
}

// IsStartup reports whether path is one of the user's shell startup
// files.
func (s *Set) IsStartup(e *Env, path string) bool {
	return s.pathsFor(e).Startup != nil && e.matchAny(path, s.pathsFor(e).Startup)
}

// IsAutoRun reports whether path, in the workspace, is a place a tool
// runs or obeys on its own (the autorun and git_config classes, at any
// depth).
func (s *Set) IsAutoRun(e *Env, path string) bool {
	p := s.pathsFor(e)
	return e.Workspace != "" && within(path, e.Workspace) && path != e.Workspace &&
		(e.wsEntry(path, p.AutoRun, true) || e.wsEntry(path, p.GitConfig, true) || e.belowRootEntry(path, p.GitPointers))
}

// IsRegenerable reports whether path is output a build makes again
// (node_modules, build, *.o): the continuous snapshots leave it out.
func (s *Set) IsRegenerable(e *Env, path string) bool {
	return e.matchAny(path, s.pathsFor(e).Regenerable)
}

// secretWord reports whether s names credentials (a grep pattern such as
// "TOKEN" or "-i secret").
func (s *Set) secretWord(w string) bool {
	if s.credentials().HasWord(w) {
		return true
	}
	w = strings.ToLower(w)
	for _, word := range s.secretWords {
		if strings.Contains(w, word) {
			return true
		}
	}
	return false
}

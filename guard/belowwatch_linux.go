package guard

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/cordonsh/cordon/internal/smallfile"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/platform"
)

// The auto-run places below the workspace's root (packages/app/.npmrc, a
// nested .vscode/tasks.json) are moved aside by the snapshot round after
// each command ([MoveAside]). In a session, a process a command left
// running can write one after that round, when no command runs and no
// round follows until the next command. watchBelow closes that window:
// while no command runs, it watches every directory of the workspace
// (git directories and the regenerable ones, node_modules, left out;
// links never followed) with inotify, and moves aside such a place as
// soon as it is made or changed. Where it cannot watch everything (more
// directories than maxBelowDirs, the kernel's limit on watches, events
// lost), it says so, and leaves a mark ([BelowSince]) that makes the
// next command's round look at every change since the watch began.

// maxBelowDirs bounds the directories one watch holds: inotify's watches
// are a per-user resource the person's own editors need too.
var maxBelowDirs = 16384

// belowTick is the margin of the file clock (see [changedSince]).
const belowTick = 20 * time.Millisecond

type belowWatch struct {
	stateDir, ws string
	maxDirs      int      // the directories it holds at most; 0 for maxBelowDirs (a watch that runs on sets it when it begins)
	entries      []string // the places, relative to a repository's root
	skip         []string // names of directories not watched
	roots        []string // nested repositories' roots: their places are the ledger's
	madeDirs     []string // identities of git directories commands made ([dirID]): one renamed is found again
	adopted      []string // repositories made below the root that this watch gave the ledger: their git directories are its, the places at their roots still the watch's
	since        time.Time
	in           int              // the inotify descriptor; -1 for a walk that only finds
	found        func(rel string) // what is done with a place found: moved, or listed
	dirs         map[int32]string // watch descriptor to the directory, relative to ws
	gitDirs      map[int32]string // watches of adopted repositories' git directories and hooks: the directory, relative to ws
	n            int              // directories walked
	linkDirs     int              // directories looked through behind links
	links        map[linkKey]bool // what each link target held
	// behind are the watches of directories looked through behind
	// links (the watch does not go into node_modules): a write there
	// has the links in linked looked through again (see recheckLinks).
	behind  map[int32]bool
	linked  []string // the links whose targets were looked through, relative to ws
	relinks bool     // an event came from behind a link
	// clean reports whether git has the place at rel committed and
	// unchanged; with it, a place in a directory changed since the
	// walk's start counts as changed otherwise (a file moved in with its
	// directory keeps its own change time). nil for the session's watch.
	clean func(rel string) bool
	// newRepo is told of a repository made below the root (its .git
	// born since the walk's start) that no ledger keeps.
	newRepo func(rel string)
	// oldRepo is told of the other repositories below the root (their
	// .git there before the walk's start, not one a command made) that
	// roots leaves out: the person's own, or one that appeared between
	// commands (see [book.ownRoots]); dirfd holds the .git.
	oldRepo func(dirfd int, rel string)
	// newBare is told of a directory below the root that git takes for
	// a git directory of its own ([isBare]), made or changed since the
	// walk's start.
	newBare func(rel string)
	// bare are the bare git directories this watch found (their git
	// directories and hooks are watched).
	bare []string
	// tops are the watches of regenerable directories (node_modules),
	// which the watch does not go into: only whether one itself became
	// a git directory is looked at (see regenerable).
	tops map[int32]string
	// pointers are the .git files and links (not directories) made or
	// changed below the root that the walk under way found: handed to
	// found once it is over, when the repositories it found are the
	// ledger's (a submodule's .git may come before its repository's).
	pointers []string
	// waiting are the .git files not judged yet (empty, or leading to
	// a worktree's git directory whose commondir git has not written
	// yet), and when each was found (the session's watch: see move).
	waiting map[string]time.Time
	// kept are the git directories the guard keeps ([keptGitDirs]) as
	// of the ledger whose identity and times keptOf holds: read again
	// only when it changed (it holds the trusted state, megabytes).
	kept   []string
	keptOf string
	// inside is set for a walk that also looks inside regenerable
	// directories, for git directories of their own ([bareInside]);
	// insideDirs counts the directories it looked through there.
	inside     bool
	insideDirs int
	// lasts and heads are [placeNames] of entries, once.
	lasts   map[string]bool
	heads   []string
	partial bool
	// failed, when not nil, is told when the kernel refuses a watch
	// (ENOSPC: the user's watches used up, which a sandboxed process can
	// do on purpose): what is written below that directory would stay
	// until the next command, so the session's watch between commands
	// must not go on partial (see [WatchBetween]). The bounds this watch
	// sets itself (directories, links) only make it partial.
	failed func(error)
	said   bool // that the watch is partial
	// mask, when set, are the events every watch asks for in place of
	// belowEvents (the session's watch of changes asks for all of them:
	// the snapshot round looks at everything).
	mask uint32
	// tree, when set, is told of each directory the walk does not go
	// into (a .git, a regenerable directory's entries, a bare
	// repository's objects): the session's watch of changes watches
	// those for the snapshot round (see [Changes.Dirty]). self says
	// whether the directory name in dirfd is to be watched itself, or
	// only what is below it.
	tree    func(dirfd int, name, rel string, self bool)
	stopped atomic.Bool
	mu      sync.Mutex // held while moving; stop takes it
}

// watchBelow starts watching the places below p's workspace's root for
// what is made or changed there from since on (the start of the command
// that left something running); stop ends it: nothing is moved once it
// returns.
func watchBelow(stateDir string, p *platform.Policy, since time.Time) (stop func()) {
	stop, _ = startBelow(stateDir, p, since, nil)
	return stop
}

// startBelow is [watchBelow] that also says when no watch could start at
// all (what was made is then found by the next command's round, see
// [BelowSince]).
func startBelow(stateDir string, p *platform.Policy, since time.Time, failed func(error)) (stop func(), err error) {
	if p.Workspace == "" || !hasBelowEntries(p.RootGuarded) {
		return func() {}, nil
	}
	if since.IsZero() {
		since = time.Now()
	}
	// The mark is made again when the watch stops: the round of the
	// command whose end started it runs while it does, and takes the
	// mark made at its start.
	mark := func() { markBelow(stateDir, p.Workspace, since) }
	in, err := inotifyInit(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		mark()
		keepLines(stateDir, p.Workspace, []string{partialLine(p.Workspace, maxBelowDirs)})
		return mark, fmt.Errorf("no inotify instance is left for the places below the root of %s: %w", printable(p.Workspace), err)
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC); err != nil {
		unix.Close(in)
		mark()
		return mark, err
	}
	w := &belowWatch{maxDirs: maxBelowDirs, failed: failed, stateDir: stateDir, ws: p.Workspace, entries: p.RootGuarded, skip: p.Regenerable, since: since, in: in, dirs: map[int32]string{}, gitDirs: map[int32]string{}}
	w.found = w.move
	w.setRoots(p.Nested)
	w.newRepo = func(rel string) { w.adopt(rel, false) }
	w.newBare = func(rel string) { w.adopt(rel, true) }
	// What the watch cannot see (a write through a hard link from a
	// directory it does not watch, node_modules) the next command's
	// round finds by its change time: it looks from here on.
	mark()
	go func() {
		defer unix.Close(in)
		defer unix.Close(wake[0])
		w.add(".", 0, false)
		w.report()
		w.loop(wake[0])
	}()
	// (Once: a second call must not close a descriptor opened since
	// with the same number.)
	return sync.OnceFunc(func() {
		w.stopped.Store(true)
		unix.Write(wake[1], []byte{0})
		unix.Close(wake[1])
		w.mu.Lock() // a move under way ends first
		w.mu.Unlock()
		mark()
	}), nil
}

// adopt gives the ledger the repository at rel (below ws) that the
// watch found, made by a process a command left: its .git, or rel
// itself when bare. Its git directory and hooks are watched from then
// on (what is written there is put back by the ledger, which keeps it
// now), then it is put back to what git makes.
func (w *belowWatch) adopt(rel string, bare bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped.Load() {
		return
	}
	n := platform.NestedRepo{Root: filepath.Join(w.ws, rel), GitDir: filepath.Join(w.ws, rel, ".git")}
	gitDir := join(rel, ".git")
	if bare {
		if slices.Contains(w.bare, rel) {
			return
		}
		w.bare = append(w.bare, rel)
		n.GitDir, gitDir = n.Root, rel
	} else {
		// (Only its git directory is the ledger's now: a place at its
		// root stays one below the root, see [AdoptRoots].)
		w.adopted = append(w.adopted, rel)
	}
	w.watchGit(gitDir)
	w.watchGit(join(gitDir, "hooks"))
	AdoptRoots(w.stateDir, w.ws, []platform.NestedRepo{n})
}

// regenerable looks at the regenerable directory name in dirfd (rel
// below ws), which the walk does not go into (node_modules, build): git
// run below it finds it when it is itself a git directory. It is handed
// to newBare when it is one made or changed since the walk's start (or
// fresh), and the session's watch watches its own entries (not those
// below it).
func (w *belowWatch) regenerable(dirfd int, name, rel string, fresh bool) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if w.in >= 0 {
		if wd, err := inotifyAddWatch(w.in, "/proc/self/fd/"+strconv.Itoa(fd), w.events()); err == nil {
			if w.tops == nil {
				w.tops = map[int32]string{}
			}
			w.tops[int32(wd)] = rel
		} else {
			w.refused(err)
		}
	}
	if w.tree != nil {
		w.tree(dirfd, name, rel, false)
	}
	names := readDirFD(fd)
	if w.newBare != nil && isBare(names) && (fresh || bareChanged(fd, w.since)) {
		w.newBare(rel)
	}
	if w.inside {
		w.bareInside(fd, names, rel, strings.Count(rel, "/")+1, fresh)
	}
}

// bareInside hands to newBare the directories below the regenerable
// directory open at fd (rel below ws, holding names) that git takes for git
// directories of their own, made or changed since the walk's start (or
// in a directory that was: fresh): git run below node_modules/x/lib
// finds one there (a .git there is one too: its configuration runs the
// same). Only names are read (a directory listing each), up
// to maxInside directories a walk; past that the walk is partial.
func (w *belowWatch) bareInside(fd int, names []dirent, rel string, depth int, fresh bool) {
	for _, d := range names {
		if d.typ != unix.DT_DIR {
			continue // (a .git directory there is one too)
		}
		if w.insideDirs++; w.insideDirs > maxInside || depth > maxBelowDepth {
			w.partial = true
			return
		}
		sub, err := unix.Openat(fd, d.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		path := join(rel, d.name)
		var st unix.Stat_t
		moved := fresh || unix.Fstat(sub, &st) == nil && changedSince(&st, w.since)
		inner := readDirFD(sub)
		bare := isBare(inner)
		if bare && (moved || bareChanged(sub, w.since)) {
			w.newBare(path)
		}
		if !bare { // (a git directory's objects and refs: nothing git runs)
			w.bareInside(sub, inner, path, depth+1, moved)
		}
		unix.Close(sub)
	}
}

// maxInside bounds the directories a walk looks through inside
// regenerable ones.
const maxInside = 65536

// checkBare hands the directory rel (below ws) to newBare when it is a
// git directory this watch has not found yet.
func (w *belowWatch) checkBare(rel string) {
	if slices.Contains(w.bare, rel) {
		return
	}
	fd, err := openBelow(w.ws, rel)
	if err != nil {
		return
	}
	bare := isBare(readDirFD(fd))
	unix.Close(fd)
	if bare {
		w.newBare(rel)
	}
}

// hasBelowEntries reports whether entries name any place a directory
// below the root can hold (git's own are the ledger's).
func hasBelowEntries(entries []string) bool {
	return slices.ContainsFunc(entries, func(e string) bool {
		e = strings.TrimSuffix(e, "/")
		return e != "" && e != ".git" && !strings.HasPrefix(e, ".git/") && !strings.ContainsAny(e, "*?[")
	})
}

// add watches the directory rel (below ws) and those below it, and moves
// aside the places it holds that changed since the watch's start, or
// all of them when fresh: a directory made or moved there while the
// watch runs (a file moved with its directory keeps its change time).
// Each directory is watched before it is read: a name made meanwhile is
// seen by one or the other.
func (w *belowWatch) add(rel string, depth int, fresh bool) {
	fd, err := openBelow(w.ws, rel)
	if err != nil {
		return
	}
	w.addAt(fd, rel, depth, fresh)
	unix.Close(fd)
	pointers := w.pointers
	w.pointers = nil
	for _, p := range pointers {
		w.found(p)
	}
}

// addAt is add for the directory open at fd; the directories below it
// are opened from it, never through a link. moved is true below a
// directory changed since the walk's start (see belowWatch.clean).
func (w *belowWatch) addAt(fd int, rel string, depth int, fresh bool) {
	w.addIn(fd, rel, depth, fresh, false)
}

func (w *belowWatch) addIn(fd int, rel string, depth int, fresh, moved bool) {
	if w.stopped.Load() {
		return
	}
	if w.n >= w.limit() || depth > maxBelowDepth {
		w.partial = true
		return
	}
	if w.in >= 0 {
		// (The descriptor's own name: the directory opened, whatever a
		// link made of its path since.)
		wd, err := inotifyAddWatch(w.in, "/proc/self/fd/"+strconv.Itoa(fd), w.events())
		if err != nil {
			w.refused(err)
			return
		}
		if _, ok := w.dirs[int32(wd)]; !ok {
			w.n++ // (a directory watched already, moved or walked again, counts once)
		}
		w.dirs[int32(wd)] = rel
	} else {
		w.n++
	}
	var dst unix.Stat_t
	if rel != "." && w.clean != nil && unix.Fstat(fd, &dst) == nil && changedSince(&dst, w.since) {
		moved = true
	}
	entries := readDirFD(fd)
	bare := rel != "." && isBare(entries)
	if bare && w.newBare != nil && (fresh || moved || bareChanged(fd, w.since)) {
		w.newBare(rel)
	}
	for _, d := range entries {
		path := join(rel, d.name)
		var st unix.Stat_t
		switch {
		case d.typ == unix.DT_DIR:
			if bare && d.name == "objects" {
				if w.tree != nil {
					w.tree(fd, d.name, path, true)
				}
				continue // (a git directory's objects: nothing git runs, and many)
			}
			if d.name == ".git" {
				if w.tree != nil {
					w.tree(fd, d.name, path, true)
				}
				if rel == "." || slices.Contains(w.roots, rel) || slices.Contains(w.adopted, rel) {
					continue
				}
				// (In a directory changed since, with clean: a repository
				// moved in before the walk got there, which a walk at a
				// ticket's start just before may have missed.)
				switch {
				case w.newRepo != nil && (fresh || moved || bornSince(fd, d.name, w.since) || w.madeDir(fd, d.name)):
					w.newRepo(rel)
				case w.oldRepo != nil && unix.Fstatat(fd, ".git/HEAD", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && !w.madeDir(fd, d.name):
					// (A .git with no HEAD is no repository: git goes past it.)
					w.oldRepo(fd, rel)
				}
				continue
			}
			if w.skipped(d.name) {
				w.regenerable(fd, d.name, path, fresh || moved)
				continue
			}
			sub, err := w.openDir(fd, d.name)
			if err != nil {
				continue
			}
			w.addIn(sub, path, depth+1, fresh, moved)
			unix.Close(sub)
		case d.name == ".git":
			// A .git file or link (a repository's own at a nested root
			// is the ledger's): made or changed since, linked to
			// another name, a link on the way to where it leads
			// changed, or in a directory moved in since.
			if rel == "." || slices.Contains(w.roots, rel) || unix.Fstatat(fd, d.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue
			}
			if fresh || moved || changedSince(&st, w.since) || st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 ||
				st.Mode&unix.S_IFMT == unix.S_IFLNK && w.chainChanged(filepath.Join(w.ws, path)) {
				w.pointers = append(w.pointers, path)
			}
		case w.place(path):
			if unix.Fstatat(fd, d.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue
			}
			// Changed: made or written since, or linked to another name
			// (a write through that one changes this one), or in a
			// directory moved in since, unless git has it unchanged.
			if fresh || changedSince(&st, w.since) || st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 || moved && !w.clean(path) ||
				st.Mode&unix.S_IFMT == unix.S_IFLNK && w.targetChanged(filepath.Join(w.ws, path)) {
				w.found(path)
			}
		case d.typ == unix.DT_LNK:
			if w.linkToPlaces(fd, d.name, path, fresh) {
				w.found(path)
			}
		}
	}
}

// maxBelowDepth bounds how deep a walk goes; deeper is reported as
// partial.
const maxBelowDepth = 64

// linkToPlaces reports whether the link name in dirfd (rel below the
// workspace) leads to a directory that holds an auto-run place as seen
// through the link (tool -> node_modules/x holding .npmrc: npm run in
// tool reads it; sub/.vscode -> a directory holding tasks.json). A link
// into the workspace that the walk goes through anyway is left to it.
// Any such place counts when a link on the way changed since the walk's
// start (or fresh); else one changed since. The directory is looked
// through up to maxLinkDirs directories, the entries of each before
// those below it, and the walk's links all together up to
// maxLinkDirsTotal; past a bound, a link counts as leading to a place
// when a link on the way or a directory looked at changed since.
func (w *belowWatch) linkToPlaces(dirfd int, name, rel string, fresh bool) bool {
	abs := filepath.Join(w.ws, rel)
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	if trel, err := filepath.Rel(w.ws, target); err == nil && trel != "." && !strings.HasPrefix(trel, "..") &&
		!slices.ContainsFunc(strings.Split(trel, "/"), func(c string) bool { return c == ".git" || w.skipped(c) }) {
		return false
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false // not a directory (or gone): a link to a file is the file's place
	}
	defer unix.Close(fd)
	if w.in >= 0 && !slices.Contains(w.linked, rel) {
		if len(w.linked) >= maxLinkDirsTotal {
			w.partial = true
		} else {
			w.linked = append(w.linked, rel)
		}
	}
	changed := fresh || w.chainChanged(abs)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return changed
	}
	key := linkKey{st.Dev, st.Ino, changed}
	if r, ok := w.links[key]; ok {
		return r
	}
	budget := maxLinkDirs
	sawChange := false
	var holds func(fd int, sub string, depth int) bool
	holds = func(fd int, sub string, depth int) bool {
		budget--
		w.linkDirs++
		if budget < 0 || depth > maxBelowDepth || w.linkDirs > maxLinkDirsTotal {
			if w.linkDirs > maxLinkDirsTotal {
				w.partial = true
			}
			return changed || sawChange
		}
		if unix.Fstat(fd, &st) == nil && changedSince(&st, w.since) {
			sawChange = true
		}
		w.watchBehind(fd)
		entries := readDirFD(fd)
		for _, d := range entries {
			if !w.place(join(rel, join(sub, d.name))) {
				continue
			}
			if changed || sawChange || unix.Fstatat(fd, d.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && (changedSince(&st, w.since) || st.Nlink > 1) {
				return true
			}
		}
		for _, d := range entries {
			if d.typ != unix.DT_DIR || d.name == ".git" || w.skipped(d.name) {
				continue
			}
			sub2, err := unix.Openat(fd, d.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
			if err != nil {
				continue
			}
			found := holds(sub2, join(sub, d.name), depth+1)
			unix.Close(sub2)
			if found {
				return true
			}
		}
		return false
	}
	r := holds(fd, ".", 0)
	if w.links == nil {
		w.links = map[linkKey]bool{}
	}
	w.links[key] = r
	return r
}

// watchGit watches the directory rel (below ws), an adopted
// repository's git directory or hooks: what is written there is put back
// by the ledger at once.
func (w *belowWatch) watchGit(rel string) {
	fd, err := openBelow(w.ws, rel)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if wd, err := inotifyAddWatch(w.in, "/proc/self/fd/"+strconv.Itoa(fd), w.events()); err == nil {
		w.gitDirs[int32(wd)] = rel
	}
}

// watchBehind watches the directory open at fd, looked through behind a
// link, for a place written there later (the session's watch only).
func (w *belowWatch) watchBehind(fd int) {
	if w.in < 0 {
		return
	}
	wd, err := inotifyAddWatch(w.in, "/proc/self/fd/"+strconv.Itoa(fd), w.events())
	if err != nil {
		w.refused(err)
		return
	}
	if w.behind[int32(wd)] {
		return
	}
	if len(w.behind) >= maxLinkDirsTotal {
		if _, ok := w.dirs[int32(wd)]; !ok && w.gitDirs[int32(wd)] == "" {
			unix.InotifyRmWatch(w.in, uint32(wd))
		}
		w.partial = true
		return
	}
	if w.behind == nil {
		w.behind = map[int32]bool{}
	}
	w.behind[int32(wd)] = true
}

// recheckLinks looks through the links whose targets were looked
// through again, after a write behind one, and moves aside those that
// lead to a place now (any place behind a link changed since the
// watch's start, else a place changed since).
func (w *belowWatch) recheckLinks() {
	w.links, w.linkDirs = nil, 0
	w.linked = slices.DeleteFunc(w.linked, func(rel string) bool {
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(w.ws, rel), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return true
		}
		fd, err := openBelow(w.ws, filepath.Dir(rel))
		if err != nil {
			return false
		}
		defer unix.Close(fd)
		if w.linkToPlaces(fd, filepath.Base(rel), rel, false) {
			w.found(rel)
		}
		return false
	})
}

// belowEvents are the events the watch asks for.
const belowEvents = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_ONLYDIR

// events are the events each of w's watches asks for: one inode watched
// twice by one inotify descriptor (a directory behind a link and in the
// walk) has one mask, the last one asked for.
func (w *belowWatch) events() uint32 {
	if w.mask != 0 {
		return w.mask
	}
	return belowEvents
}

// A linkKey is a link's target directory and whether the link changed:
// a walk looks through each once.
type linkKey struct {
	dev, ino uint64
	changed  bool
}

// targetChanged reports whether what the link at abs leads to, or a
// link on the way, changed since the walk's start (a place that is a
// link to a file in /tmp, written there later).
func (w *belowWatch) targetChanged(abs string) bool {
	var st unix.Stat_t
	return w.chainChanged(abs) || unix.Stat(abs, &st) == nil && changedSince(&st, w.since)
}

// chainChanged reports whether a link met resolving abs (below the
// workspace) changed since the walk's start: a link swapped in a
// directory the walk does not go into, or outside the workspace (in
// /tmp), changes where another leads.
func (w *belowWatch) chainChanged(abs string) bool {
	changed, links := false, 0
	platform.ResolveLinks(abs, func(p string) (os.FileInfo, error) {
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			links++
			var st unix.Stat_t
			if unix.Lstat(p, &st) == nil && changedSince(&st, w.since) {
				changed = true
			}
		}
		return fi, err
	})
	return changed || links >= 40 // (a loop of links: looked at as changed)
}

// maxLinkDirs and maxLinkDirsTotal bound the directories looked through
// behind one link and behind all of a walk's.
const (
	maxLinkDirs      = 256
	maxLinkDirsTotal = 4096
)

// setRoots sets the nested repositories' roots from their absolute
// paths.
func (w *belowWatch) setRoots(nested []string) {
	for _, n := range nested {
		if rel, err := filepath.Rel(w.ws, n); err == nil && !strings.HasPrefix(rel, "..") {
			w.roots = append(w.roots, rel)
		}
	}
}

// bornSince reports whether name in dirfd was made at t or after (its
// birth time; false where the file system keeps none).
func bornSince(dirfd int, name string, t time.Time) bool {
	var stx unix.Statx_t
	if unix.Statx(dirfd, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &stx) != nil || stx.Mask&unix.STATX_BTIME == 0 {
		return false
	}
	return !time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec)).Before(t.Add(-belowTick))
}

// openDir opens directory name in dirfd, links not followed. One its
// owner may not read or enter (a command's chmod 311 pkg, around a
// planted pkg/.npmrc that npm still reads by name; found by an
// attacker) is given its owner's read and search back when it changed
// since the walk's start (the command's doing), and opened again;
// otherwise the walk is partial, and says so.
func (w *belowWatch) openDir(dirfd int, name string) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if !errors.Is(err, unix.EACCES) {
		return fd, err
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR &&
		int(st.Uid) == os.Geteuid() && changedSince(&st, w.since) && unix.Fchmodat(dirfd, name, st.Mode&0o7777|0o500, 0) == nil {
		fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	}
	if err != nil {
		w.partial = true
	}
	return fd, err
}

// madeDir reports whether name in dirfd is a git directory a command
// made (found by its identity, which a rename keeps: mv deep/sub
// deep/sub2 leaves its birth time as it was; found by an attacker).
func (w *belowWatch) madeDir(dirfd int, name string) bool {
	return len(w.madeDirs) > 0 && slices.Contains(w.madeDirs, dirIDAt(dirfd, name))
}

// FindBelow walks workspace ws itself (git directories and the
// directories named skip left out, links never followed; repos are the
// repositories made below its root since t, and the directories made
// or changed into bare ones, see [AdoptRoots]) for the places
// entries name below its root, and the links to directories that hold
// one, changed since t (or in a directory that changed since, unless
// clean says git has the place committed and unchanged): what the snapshot round moves aside when git
// cannot list them. The places of the repositories at roots (absolute)
// are their ledger's. complete is false when the walk stopped at its
// bounds (directories, depth). Off the command's path, it also looks
// inside the directories named skip for git directories of their own
// ([belowWatch.bareInside]).
func FindBelow(stateDir, ws string, entries, skip, roots []string, t time.Time, clean func(path string) bool) (found []string, repos []platform.NestedRepo, complete bool) {
	return findBelow(stateDir, ws, entries, skip, roots, t, clean, true)
}

// findBelow is FindBelow; inside says whether to look inside the
// directories named skip.
func findBelow(stateDir, ws string, entries, skip, roots []string, t time.Time, clean func(path string) bool, inside bool) (found []string, repos []platform.NestedRepo, complete bool) {
	k := known(stateDir, ws)
	w := &belowWatch{ws: ws, entries: entries, skip: skip, since: t, in: -1, inside: inside, madeDirs: k.madeDirs}
	w.newRepo = func(rel string) {
		repos = append(repos, platform.NestedRepo{Root: filepath.Join(ws, rel), GitDir: filepath.Join(ws, rel, ".git")})
	}
	if k.ownWalked {
		// A repository there before t that the ledger does not keep
		// appeared after the person's own were taken (by the first
		// command's walk, [book.ownRoots]): nothing says it is the
		// person's, so it is adopted as one a command made.
		w.oldRepo = func(_ int, rel string) {
			if root := filepath.Join(ws, rel); !slices.Contains(k.roots, root) {
				repos = append(repos, platform.NestedRepo{Root: root, GitDir: filepath.Join(root, ".git")})
			}
		}
	}
	w.newBare = func(rel string) {
		repos = append(repos, platform.NestedRepo{Root: filepath.Join(ws, rel), GitDir: filepath.Join(ws, rel)})
	}
	if clean != nil {
		w.clean = func(rel string) bool { return clean(filepath.Join(ws, rel)) }
	}
	w.setRoots(roots)
	w.found = func(rel string) { found = append(found, filepath.Join(ws, rel)) }
	w.add(".", 0, false)
	return found, repos, !w.partial
}

// loop moves aside what is written at a place, and watches the
// directories made, until stop.
func (w *belowWatch) loop(wake int) {
	buf := make([]byte, 64<<10)
	fds := []unix.PollFd{{Fd: int32(w.in), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	for !w.stopped.Load() {
		timeout := -1
		if len(w.waiting) > 0 {
			timeout = 25 // (ms: a worktree's .git waits for its commondir)
		}
		if _, err := unix.Poll(fds, timeout); err != nil && err != unix.EINTR {
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		for {
			n, err := unix.Read(w.in, buf)
			if n <= 0 || err != nil {
				break
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
				off += unix.SizeofInotifyEvent + int(ev.Len)
				w.event(ev.Wd, ev.Mask, name)
			}
		}
		for _, rel := range slices.Collect(maps.Keys(w.waiting)) {
			w.move(rel)
		}
		if w.relinks && !w.stopped.Load() {
			w.relinks = false
			w.recheckLinks()
		}
		w.report()
	}
}

// event acts on one inotify event.
func (w *belowWatch) event(wd int32, mask uint32, name string) {
	switch {
	case mask&unix.IN_Q_OVERFLOW != 0:
		// Events lost (a process wrote faster than they were read): the
		// workspace is looked at again now, for what was written
		// meanwhile and the directories made meanwhile, and the links'
		// targets; still partial (a directory moved in meanwhile with
		// an old place in it is the next round's).
		w.partial = true
		w.links, w.linkDirs = nil, 0
		w.add(".", 0, false)
		w.relinks = true
		return
	case mask&unix.IN_IGNORED != 0:
		delete(w.tops, wd)
		if _, ok := w.dirs[wd]; ok {
			delete(w.dirs, wd)
			w.n--
		}
		delete(w.gitDirs, wd)
		delete(w.behind, wd)
		return
	}
	if w.behind[wd] {
		w.relinks = true
	}
	if d := w.gitDirs[wd]; d != "" {
		bare := slices.Contains(w.bare, d)
		// (A bare one holds the person's files too: only git's own
		// names there are put back.)
		if !bare || slices.Contains(bareGuarded, name) {
			w.mu.Lock()
			if !w.stopped.Load() {
				// A hooks directory made after the repository was found:
				// watched from now on, before the reconcile (a hook
				// written meanwhile is seen by one or the other).
				if name == "hooks" && (bare || filepath.Base(d) == ".git") && mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
					w.watchGit(join(d, name))
				}
				reconcileNow(w.stateDir, w.ws)
			}
			w.mu.Unlock()
		}
		if _, ok := w.dirs[wd]; !ok && w.tops[wd] == "" {
			return // (a bare one is a directory below the root too)
		}
	}
	if top := w.tops[wd]; top != "" {
		// A regenerable directory's own entries: only whether it became
		// a git directory.
		if bareName(name) {
			w.checkBare(top)
		}
		return
	}
	dir, ok := w.dirs[wd]
	if !ok || name == "" {
		return
	}
	// Each event is a look of its own: what a link's target held when
	// an earlier one looked through it (empty) may have changed since,
	// in a directory the watch does not go into.
	w.links, w.linkDirs = nil, 0
	path := join(dir, name)
	if bareName(name) && dir != "." {
		w.checkBare(dir)
	}
	if mask&unix.IN_ISDIR != 0 {
		switch {
		case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) == 0:
		case name == ".git":
			switch {
			case dir == "." || slices.Contains(w.roots, dir):
			case slices.Contains(w.adopted, dir):
				// Another git directory for a repository the watch
				// found: watched as the first, and put back.
				w.mu.Lock()
				if !w.stopped.Load() {
					w.watchGit(path)
					w.watchGit(join(path, "hooks"))
					reconcileNow(w.stateDir, w.ws)
				}
				w.mu.Unlock()
			default:
				w.newRepo(dir)
			}
		case !w.skipped(name):
			w.add(path, strings.Count(path, "/")+1, true)
		default:
			if fd, err := openBelow(w.ws, dir); err == nil {
				w.regenerable(fd, name, path, true)
				unix.Close(fd)
			}
		}
		return
	}
	var st unix.Stat_t
	switch {
	case w.place(path):
		w.found(path)
	case name == ".git":
		// A .git file or link made or changed (a nested root's is the
		// ledger's).
		if dir != "." && !slices.Contains(w.roots, dir) {
			w.found(path)
		}
	case unix.Lstat(filepath.Join(w.ws, path), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
		if fd, err := openBelow(w.ws, dir); err == nil {
			if w.linkToPlaces(fd, name, path, true) {
				w.found(path)
			}
			unix.Close(fd)
		}
	}
}

// place reports whether rel is an auto-run place below the root that
// no ledger keeps (a nested repository's own places are put back by it).
func (w *belowWatch) place(rel string) bool {
	if !w.mayPlace(rel) || !platform.BelowRoot(rel, w.entries) {
		return false
	}
	for _, r := range w.roots {
		if sub, ok := strings.CutPrefix(rel, r+"/"); ok && atRoot(sub, w.entries) {
			return false
		}
	}
	return true
}

// mayPlace reports, without [platform.BelowRoot]'s work (a walk asks it
// of every file), whether rel can be a place at all: its name is the
// last of an entry's, or it lies in a directory named as the first of
// a directory entry's (.vscode/, .husky/).
func (w *belowWatch) mayPlace(rel string) bool {
	if w.lasts == nil {
		w.lasts, w.heads = placeNames(w.entries)
	}
	if w.lasts[rel[strings.LastIndexByte(rel, '/')+1:]] {
		return true
	}
	return slices.ContainsFunc(w.heads, func(h string) bool { return strings.Contains(rel, "/"+h+"/") })
}

// placeNames returns the last components of entries, and the first
// components of the directory entries ("dir/").
func placeNames(entries []string) (lasts map[string]bool, heads []string) {
	lasts = map[string]bool{}
	for _, e := range entries {
		dir := strings.HasSuffix(e, "/")
		e = strings.TrimSuffix(e, "/")
		if e == "" {
			continue
		}
		lasts[e[strings.LastIndexByte(e, '/')+1:]] = true
		if head, _, _ := strings.Cut(e, "/"); dir && !slices.Contains(heads, head) {
			heads = append(heads, head)
		}
	}
	return lasts, heads
}

// atRoot reports whether rel is one of entries' places at a root.
func atRoot(rel string, entries []string) bool {
	return slices.ContainsFunc(entries, func(e string) bool {
		if d, ok := strings.CutSuffix(e, "/"); ok {
			return rel == d || strings.HasPrefix(rel, e)
		}
		return rel == e
	})
}

// move moves the place rel aside, unless the watch was stopped.
func (w *belowWatch) move(rel string) {
	path := filepath.Join(w.ws, rel)
	pointer := filepath.Base(rel) == ".git"
	if pointer {
		kept, pending := judgePointer(w.ws, path, w.keptGitDirs())
		if kept {
			delete(w.waiting, rel)
			return
		}
		// A .git made and not written yet, or a worktree's whose
		// commondir git writes after it: a moment is left for them
		// (the loop looks again), for a bounded number at once.
		if found, ok := w.waiting[rel]; pending && (ok || len(w.waiting) < maxWaiting) {
			if !ok {
				if w.waiting == nil {
					w.waiting = map[string]time.Time{}
				}
				w.waiting[rel], found = time.Now(), time.Now()
			}
			if time.Since(found) < worktreeWait {
				return
			}
		}
		delete(w.waiting, rel)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped.Load() {
		return
	}
	q := newQuarantine(w.stateDir)
	if what, ok := moveBelow(q, w.ws, path); ok {
		what = what + " (a change of your own: mv " + printable(filepath.Join(q.dir, path)) + " " + printable(path) + ")"
		if pointer {
			keepLines(w.stateDir, w.ws, []string{"cordon: " + printable(path) + ": " + pointerLine + ", written while a process a command left in the session ran (by it, or by you: nothing tells them apart); " + what})
			return
		}
		keepLines(w.stateDir, w.ws, []string{"cordon: " + printable(path) + ": a file tools run on their own (an auto-run place below the workspace's root), written while a process a command left in the session ran (by it, or by you: nothing tells them apart); " + what})
	}
}

// keptGitDirs is [keptGitDirs] of the watch's workspace, the ledger read
// only when it changed since the last time.
func (w *belowWatch) keptGitDirs() []string {
	var st unix.Stat_t
	stamp := ""
	if unix.Stat(ledgerFile(w.stateDir, w.ws), &st) == nil {
		stamp = fmt.Sprintf("%d %d %d %d %d", st.Dev, st.Ino, st.Size, st.Mtim.Nano(), st.Ctim.Nano())
	}
	if stamp == "" || stamp != w.keptOf {
		w.kept, w.keptOf = keptGitDirs(w.stateDir, w.ws, false), stamp
	}
	return w.kept
}

// A .git not judged yet waits at most worktreeWait for its content or
// its worktree's commondir, at most maxWaiting of them at once (past
// that, one is moved at once).
const (
	worktreeWait = 500 * time.Millisecond
	maxWaiting   = 64
)

// report says, once, that the watch does not cover everything (the
// workspace is marked for the next round from the watch's start on).
func (w *belowWatch) report() {
	if !w.partial || w.said || w.stopped.Load() {
		return
	}
	w.said = true
	markBelow(w.stateDir, w.ws, w.since)
	keepLines(w.stateDir, w.ws, []string{partialLine(w.ws, w.limit())})
}

// refused makes w partial for a watch the kernel refused with err, and
// tells failed when it is the user's watches used up (or the kernel's
// memory): a directory gone meanwhile is nothing to watch.
func (w *belowWatch) refused(err error) {
	w.partial = true
	if w.failed != nil && (err == unix.ENOSPC || err == unix.ENOMEM) {
		w.failed(fmt.Errorf("no inotify watch is left for the places below the root of %s (%w): the kernel's limit on watches per user, fs.inotify.max_user_watches, is used up", printable(w.ws), err))
	}
}

// limit is the directories w holds at most.
func (w *belowWatch) limit() int {
	if w.maxDirs > 0 {
		return w.maxDirs
	}
	return maxBelowDirs
}

// partialLine says that the watch of ws, of at most max directories,
// does not cover everything.
func partialLine(ws string, max int) string {
	return "cordon: " + printable(ws) + ": the guard could not watch every directory of the workspace while a process a command left ran (more than " + strconv.Itoa(max) + ", or the kernel's limit on inotify watches): the next command's round moves aside what it wrote at an auto-run place below the root"
}

// inotifyInit is unix.InotifyInit1 (a test's failing one).
var inotifyInit = unix.InotifyInit1

// inotifyAddWatch is unix.InotifyAddWatch (a test's failing one).
var inotifyAddWatch = unix.InotifyAddWatch

// skipped reports whether a directory called name is left out.
func (w *belowWatch) skipped(name string) bool {
	return slices.ContainsFunc(w.skip, func(s string) bool {
		ok, _ := filepath.Match(s, name)
		return ok
	})
}

// changedSince reports whether st was changed at t or after, on the
// file clock (a change time, which no unprivileged process sets back,
// stamped by a coarse clock: a tick of margin).
func changedSince(st *unix.Stat_t, t time.Time) bool {
	return !time.Unix(st.Ctim.Unix()).Before(t.Add(-belowTick))
}

// join joins a relative directory ("." for the root) and a name.
func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// dirent is a directory entry's name and type (unix.DT_*).
type dirent struct {
	name string
	typ  uint8
}

// readDirFD lists the directory open at fd, with each entry's type, as
// getdents64 gives them (no stat, no file object).
func readDirFD(fd int) []dirent {
	var out []dirent
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.ReadDirent(fd, buf)
		if n <= 0 || err != nil {
			return out
		}
		for off := 0; off+19 <= n; {
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			if reclen == 0 || off+reclen > n {
				break
			}
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				typ := buf[off+18]
				var st unix.Stat_t
				if typ == unix.DT_UNKNOWN && unix.Fstatat(fd, s, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR // (a file system that gives no types)
				}
				out = append(out, dirent{name: s, typ: typ})
			}
			off += reclen
		}
	}
}

// direntBufs are readDirFD's buffers: a walk lists thousands of
// directories.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// markBelow records that what was written below ws's root since t may
// have been missed, keeping an earlier mark; it reports whether the mark
// is new.
func markBelow(stateDir, ws string, t time.Time) bool {
	name := ledgerFile(stateDir, ws) + ".below"
	if _, ok := readMark(name); ok {
		return false
	}
	os.MkdirAll(filepath.Dir(name), 0o700)
	return atomicfile.WriteMode(name, []byte(strconv.FormatInt(t.UnixNano(), 10)), 0o600) == nil
}

func readMark(name string) (time.Time, bool) {
	data, err := smallfile.ReadFile(name)
	if err != nil {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		// A damaged mark: as far back as can be.
		return time.Unix(0, 0), true
	}
	return time.Unix(0, n), true
}

// BelowSince returns the time from which the next round must look for
// auto-run places below ws's root: the start of a session's watch that
// could not see everything ([watchBelow]); ok is false when there is no
// such mark.
func BelowSince(stateDir, ws string) (t time.Time, ok bool) {
	return readMark(ledgerFile(stateDir, ws) + ".below")
}

// DoneBelow removes the mark [BelowSince] returned as t, once a round
// has looked from then on (a newer mark stays).
func DoneBelow(stateDir, ws string, t time.Time) {
	name := ledgerFile(stateDir, ws) + ".below"
	if now, ok := readMark(name); ok && now.Equal(t) {
		os.Remove(name)
	}
}

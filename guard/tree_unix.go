//go:build linux

package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/filestamp"
	"github.com/cordonsh/cordon/platform"
)

// Bounds of what a snapshot keeps: file contents up to maxFile each and
// maxTotal in all (larger files are kept as a hash: a change to one is
// moved aside but cannot be undone), and maxEntries paths.
const (
	maxFile    = 1 << 20
	maxTotal   = 8 << 20
	maxEntries = 20000
)

// An entry is the trusted state of one path.
type entry struct {
	Kind   byte     `json:"k"`            // 'f' file, 'd' directory, 'l' symbolic link
	Mode   uint32   `json:"m"`            // permission bits
	UID    int      `json:"u"`            // owner
	GID    int      `json:"g"`            // group
	Data   []byte   `json:"-"`            // a file's content, when kept (beside the ledger, see contents_linux.go)
	Kept   bool     `json:"kd,omitempty"` // Data is kept beside the ledger, by Sum
	Inline []byte   `json:"d,omitempty"`  // Data, as ledgers written before kept it (read only)
	Sum    string   `json:"s,omitempty"`  // a file's SHA-256
	Size   int64    `json:"z,omitempty"`  // a file's size
	Target string   `json:"t,omitempty"`  // a link's target
	Names  []string `json:"n,omitempty"`  // a directory's entries
	// Stamp is a file's identity and times when it was recorded, kept
	// only when its last change was 3 seconds older than that (see
	// [filestamp.Of]): the same stamp later means the same content, which is
	// then not read again.
	Stamp string `json:"st,omitempty"`
}

// now is the clock stamps are taken by (tests move it).
var now = time.Now

// state maps absolute paths to their trusted state; a path missing from
// it is trusted to be absent.
type state map[string]*entry

// A walker goes through the places the guarded patterns name, on
// directory descriptors opened without following links, so that a link
// swapped in by a process still running cannot lead it elsewhere. It
// either records (snapshot) or puts back (reconcile).
type walker struct {
	trusted state // reconcile: the state to put back; nil to record
	out     state // snapshot: what was recorded
	hint    state // snapshot: an earlier record, its files trusted by stamp
	budget  int64 // snapshot: bytes of content still to keep
	q       *quarantine
	lines   []string // reconcile: one per path, what was done
	// files: git's configuration files, where only files and links are
	// recorded and a link on the way is not gone through.
	files bool
	// names: record what is there and its kind only, reading no file
	// and not going into directories (globDirs).
	names bool
	keys  *keyGuard // reconcile of configuration files: by their keys
	ws    string    // the workspace (reconcile)
	// rootNames, when not nil, are the names in the workspace's root,
	// listed once as a snapshot starts (see [walker.patterns]).
	rootNames []string
	root      string
	// dirs, while [walker.absolute] walks, are the directories it went
	// through, kept open for the next pattern.
	dirs *dirCache
}

// snapshot records the trusted state of what the patterns (absolute,
// inside ws) match now; a file whose stamp is the one in hint (an
// earlier trusted state, or nil) is taken from there, not read.
func snapshot(ws string, patterns []string, hint state) state {
	w := &walker{out: state{}, budget: maxTotal, hint: hint}
	w.patterns(ws, patterns)
	return w.out
}

// reconcile makes what the patterns match in ws what trusted says:
// anything else is moved to the quarantine, and the trusted version put
// back. It returns one line per path for people.
func reconcile(ws string, patterns []string, trusted state, q *quarantine) []string {
	w := &walker{trusted: trusted, q: q, ws: ws}
	w.patterns(ws, patterns)
	return w.lines
}

func (w *walker) patterns(ws string, patterns []string) {
	root, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return // no workspace: nothing to guard
	}
	defer unix.Close(root)
	rels := make([][]string, 0, len(patterns))
	listed := false
	for _, pat := range patterns {
		rel, err := filepath.Rel(ws, pat)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		comps := strings.Split(rel, "/")
		rels = append(rels, comps)
		listed = listed || strings.ContainsAny(comps[0], "*?[")
	}
	if listed && w.trusted == nil {
		// A snapshot, which changes nothing, with a pattern that lists
		// the root anyway (.mise.*.toml): listed once, and a name the
		// other patterns give that is not there is not looked up (as a
		// lookup that finds nothing, it records nothing).
		w.root, w.rootNames = ws, listFD(root)
	}
	for _, comps := range rels {
		w.walk(root, ws, comps)
	}
}

// maxDeep bounds how many directory levels "**" goes down.
const maxDeep = 64

// walk matches comps[0] in directory dirfd (path dir) and goes on with
// the rest.
func (w *walker) walk(dirfd int, dir string, comps []string) {
	if comps[0] == "**" {
		w.deep(dirfd, dir, comps[1:], maxDeep)
		return
	}
	last := len(comps) == 1
	for _, name := range w.matches(dirfd, dir, comps[0]) {
		path := dir + "/" + name
		var st unix.Stat_t
		err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if fd, ok := w.dirs.held(path, &st); ok && err == nil && !last {
			// (Gone through for an earlier pattern, and still what
			// the name is: a directory, not a link.)
			w.walk(fd, path, comps[1:])
			continue
		}
		switch {
		case last && w.trusted == nil:
			if err == nil && !(w.files && st.Mode&unix.S_IFMT == unix.S_IFDIR) {
				w.record(dirfd, name, path, &st)
			}
		case last && w.keys != nil:
			w.checkKeys(dirfd, name, path, &st, err)
		case last:
			w.check(dirfd, name, path, &st, err)
		case err != nil:
		case w.files && st.Mode&unix.S_IFMT == unix.S_IFLNK:
			// (The tree guard's business, when it is a guarded place.)
		case st.Mode&unix.S_IFMT == unix.S_IFLNK:
			// A link on the way: a trusted one is not followed (what it
			// points to is not the workspace's); any other is the
			// sandbox's, and is itself what must go.
			if w.trusted == nil {
				w.record(dirfd, name, path, &st)
			} else {
				w.check(dirfd, name, path, &st, nil)
			}
		case st.Mode&unix.S_IFMT == unix.S_IFDIR && w.dirs != nil:
			fd, mine, err := w.dirs.open(dirfd, name, path, &st)
			if err == nil {
				w.walk(fd, path, comps[1:])
				if mine {
					unix.Close(fd)
				}
			}
		case st.Mode&unix.S_IFMT == unix.S_IFDIR:
			fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
			if err == nil {
				w.walk(fd, path, comps[1:])
				unix.Close(fd)
			}
		}
	}
}

// deep matches "**" followed by rest in directory dirfd (path dir): rest
// here, and in every directory below, down to depth levels, links not
// followed. Below a git directory (one holding HEAD: a submodule's in
// .git/modules/lib/dep) it goes on only into modules/, where the git
// directories of its own submodules are: its objects, refs and logs hold
// nothing a pattern names, and walking them would cost with their size.
func (w *walker) deep(dirfd int, dir string, rest []string, depth int) {
	if len(rest) > 0 {
		w.walk(dirfd, dir, rest)
	}
	if depth == 0 {
		w.tooDeep(dirfd, dir)
		return
	}
	names := listFD(dirfd)
	if w.trusted != nil {
		// What is trusted below dir, to put back what is gone.
		for p := range w.trusted {
			if filepath.Dir(p) == dir && !slices.Contains(names, filepath.Base(p)) {
				names = append(names, filepath.Base(p))
			}
		}
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, "HEAD", &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		names = slices.DeleteFunc(names, func(n string) bool { return n != "modules" })
	}
	slices.Sort(names)
	for _, name := range names {
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		w.deep(fd, dir+"/"+name, rest, depth-1)
		unix.Close(fd)
	}
}

// tooDeep moves aside, when reconciling, the directories in dirfd (dir,
// maxDeep levels down a "**") that the trusted state does not hold: a
// submodule's git directory made deeper than the guard looks would
// otherwise keep a hook or key unseen.
func (w *walker) tooDeep(dirfd int, dir string) {
	if w.trusted == nil {
		return
	}
	for _, name := range listFD(dirfd) {
		var st unix.Stat_t
		path := dir + "/" + name
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			continue
		}
		trusted := false
		for p := range w.trusted {
			if platform.Within(p, path) {
				trusted = true
				break
			}
		}
		if !trusted {
			w.say(path, "was made deeper than the guard looks ("+strconv.Itoa(maxDeep)+" levels)", "", w.q.move(dirfd, name, path))
		}
	}
}

// matches are the names in dirfd that pattern matches: on disk, and,
// when reconciling, in the trusted state (to put back what is gone).
func (w *walker) matches(dirfd int, dir, pattern string) []string {
	names := w.rootNames
	if names == nil || dir != w.root {
		names = nil
	}
	if !strings.ContainsAny(pattern, "*?[") {
		if names != nil {
			if _, found := slices.BinarySearch(names, pattern); !found {
				return nil
			}
		}
		return []string{pattern}
	}
	if names == nil {
		names = listFD(dirfd)
	}
	var out []string
	for _, n := range names {
		if ok, _ := filepath.Match(pattern, n); ok {
			out = append(out, n)
		}
	}
	for p := range w.trusted {
		if filepath.Dir(p) == dir {
			if ok, _ := filepath.Match(pattern, filepath.Base(p)); ok && !slices.Contains(out, filepath.Base(p)) {
				out = append(out, filepath.Base(p))
			}
		}
	}
	slices.Sort(out)
	return out
}

// listFD lists directory fd's entries, all of them whatever was read of
// fd before (a directory [walker.absolute] keeps open is listed again).
func listFD(fd int) []string {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil
	}
	// (The copy shares fd's place in the directory.)
	if _, err := unix.Seek(dup, 0, io.SeekStart); err != nil {
		unix.Close(dup)
		return nil
	}
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	names, _ := f.Readdirnames(maxListed)
	slices.Sort(names)
	return names
}

// maxListed bounds the names read of one directory: far more than a
// guarded directory holds, so that none planted past a bound goes unseen
// (one that holds this many is moved aside whole, see check).
const maxListed = 1 << 20

// maxNewNames is how many names a command may add to a trusted directory
// before the directory is put back whole rather than name by name (a
// hooks directory filled with 60,000 files is one move, not 60,000).
const maxNewNames = 1000

// record adds path and, for a directory, everything under it to w.out.
func (w *walker) record(dirfd int, name, path string, st *unix.Stat_t) {
	if len(w.out) >= maxEntries {
		return
	}
	e := &entry{Mode: st.Mode & 0o7777, UID: int(st.Uid), GID: int(st.Gid)}
	if w.names {
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			e.Kind = 'd'
		case unix.S_IFREG:
			e.Kind = 'f'
		case unix.S_IFLNK:
			e.Kind = 'l'
		default:
			return
		}
		w.out[path] = e
		return
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		e.Kind = 'l'
		e.Target, _ = readlinkat(dirfd, name)
	case unix.S_IFREG:
		e.Kind = 'f'
		// Trusted before with the same stamp: the same content, not
		// read again.
		if h := w.hint[path]; h != nil && h.Kind == 'f' && h.Mode == e.Mode && h.UID == e.UID && h.GID == e.GID &&
			filestamp.Matches(st, h.Stamp) &&
			(h.Data != nil || h.Size == 0) && int64(len(h.Data)) <= w.budget {
			e.Data, e.Sum, e.Size, e.Stamp = h.Data, h.Sum, h.Size, h.Stamp
			w.budget -= int64(len(h.Data))
			break
		}
		data, sum, err := readFile(dirfd, name, w.budget)
		if err != nil {
			return
		}
		e.Data, e.Sum, e.Size = data, sum, st.Size
		// (Taken after the read: a write meanwhile moved ctime on.)
		var after unix.Stat_t
		if unix.Fstatat(dirfd, name, &after, unix.AT_SYMLINK_NOFOLLOW) == nil && after.Ino == st.Ino && after.Ctim == st.Ctim {
			e.Stamp = filestamp.Of(&after, now())
		}
		w.budget -= int64(len(data))
	case unix.S_IFDIR:
		e.Kind = 'd'
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return
		}
		defer unix.Close(fd)
		e.Names = listFD(fd)
		for _, n := range e.Names {
			var cst unix.Stat_t
			if unix.Fstatat(fd, n, &cst, unix.AT_SYMLINK_NOFOLLOW) == nil {
				w.record(fd, n, path+"/"+n, &cst)
			}
		}
	default:
		return // a device, FIFO or socket is never trusted
	}
	w.out[path] = e
}

// check compares path (stat st, or the error of looking it up) with its
// trusted state and puts that back.
func (w *walker) check(dirfd int, name, path string, st *unix.Stat_t, statErr error) {
	te := w.trusted[path]
	switch {
	case statErr != nil && te == nil:
		return
	case statErr != nil:
		w.say(path, "was removed", w.restore(dirfd, name, path, te), "")
		return
	case te == nil && w.ownCommondir(dirfd, name, path, st):
		// git worktree add: a new worktree's git directory points back
		// at the repository's own.
		return
	case te == nil && w.sampleHooks(dirfd, name, path, st):
		// A new repository's or submodule's hooks directory as git makes
		// it: samples, which git never runs, trusted from now on.
		return
	case te == nil:
		w.say(path, "was made", "", w.q.move(dirfd, name, path))
		return
	}
	if !same(dirfd, name, st, te) {
		aside := w.q.move(dirfd, name, path)
		w.say(path, "was changed", w.restore(dirfd, name, path, te), aside)
		return
	}
	if te.Kind != 'd' {
		return
	}
	if st.Mode&0o7777 != te.Mode {
		chmodDir(dirfd, name, te.Mode)
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	names := listFD(fd)
	known := make(map[string]bool, len(te.Names))
	for _, n := range te.Names {
		known[n] = true
	}
	added := 0
	for _, n := range names {
		if !known[n] {
			added++
		}
	}
	if added > maxNewNames || len(names) >= maxListed {
		// Whole: moved aside, and the trusted directory put back.
		aside := w.q.move(dirfd, name, path)
		w.say(path, "was filled with "+strconv.Itoa(added)+" new entries", w.restore(dirfd, name, path, te), aside)
		return
	}
	for _, n := range names {
		if !known[n] {
			w.say(path+"/"+n, "was made", "", w.q.move(fd, n, path+"/"+n))
		}
	}
	for _, n := range te.Names {
		var cst unix.Stat_t
		err := unix.Fstatat(fd, n, &cst, unix.AT_SYMLINK_NOFOLLOW)
		w.check(fd, n, path+"/"+n, &cst, err)
	}
}

// same reports whether the file at name is te: same kind, permissions
// and content or target (a directory's entries are compared one by one).
func same(dirfd int, name string, st *unix.Stat_t, te *entry) bool {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		target, err := readlinkat(dirfd, name)
		return te.Kind == 'l' && err == nil && target == te.Target
	case unix.S_IFDIR:
		return te.Kind == 'd'
	case unix.S_IFREG:
		// The size first: a file grown to terabytes (sparse) must not be
		// read to find that it changed.
		if te.Kind != 'f' || st.Mode&0o7777 != te.Mode || st.Nlink > 1 || st.Size != te.Size {
			return false
		}
		if filestamp.Matches(st, te.Stamp) {
			return true
		}
		_, sum, err := readFile(dirfd, name, 0)
		if err != nil || sum != te.Sum {
			return false
		}
		// The same content, read after st was taken: st's stamp (when
		// the file had not changed for a while) stands for it from now
		// on, and the next reconcile reads nothing.
		if te.Stamp == "" {
			te.Stamp = filestamp.Of(st, now())
		}
		return true
	}
	return false
}

// restore puts te back at name, which is absent, and says what it did
// ("" when all went well).
func (w *walker) restore(dirfd int, name, path string, te *entry) string {
	var err error
	switch te.Kind {
	case 'l':
		err = unix.Symlinkat(te.Target, dirfd, name)
	case 'f':
		if te.Data == nil && te.Sum != emptySum {
			return "the trusted version was too large to keep and could not be put back"
		}
		var fd int
		fd, err = unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			_, err = unix.Write(fd, te.Data)
			if err == nil {
				err = unix.Fchmod(fd, te.Mode)
			}
			if os.Geteuid() == 0 {
				unix.Fchown(fd, te.UID, te.GID)
			}
			unix.Close(fd)
		}
	case 'd':
		err = unix.Mkdirat(dirfd, name, 0o700)
		if err == nil {
			var fd int
			fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
			if err == nil {
				for _, n := range te.Names {
					if ce := w.trusted[path+"/"+n]; ce != nil {
						if msg := w.restore(fd, n, path+"/"+n, ce); msg != "" {
							w.say(path+"/"+n, "could not be put back", msg, "")
						}
					}
				}
				unix.Fchmod(fd, te.Mode)
				if os.Geteuid() == 0 {
					unix.Fchown(fd, te.UID, te.GID)
				}
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		return fmt.Sprintf("the trusted version could not be put back (%v)", err)
	}
	if te.Kind == 'l' && os.Geteuid() == 0 {
		unix.Fchownat(dirfd, name, te.UID, te.GID, unix.AT_SYMLINK_NOFOLLOW)
	}
	return ""
}

var emptySum = hashOf(nil)

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// say adds the line for path: what happened, where the sandbox's version
// went (aside), and what restoring said (msg).
func (w *walker) say(path, what, msg, aside string) {
	line := "cordon: " + printable(path) + " " + what + " by a sandboxed command (tools run or obey it on their own)"
	if aside != "" {
		line += "; " + aside
	}
	switch {
	case msg != "":
		line += "; " + msg
	case what == "was changed" || what == "was removed" || strings.HasPrefix(what, "was filled"):
		line += "; the trusted version is back"
	}
	w.lines = append(w.lines, line)
}

// readFile reads a regular file without following a link or blocking on
// a FIFO, and returns its content when it is at most keep bytes (and
// maxFile), and its hash.
func readFile(dirfd int, name string, keep int64) ([]byte, string, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, "", err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, "", errors.New("not a regular file")
	}
	h := sha256.New()
	var buf bytes.Buffer
	var dst io.Writer = h
	if fi.Size() <= min(keep, maxFile) {
		dst = io.MultiWriter(h, &buf)
	}
	if _, err := io.Copy(dst, f); err != nil {
		return nil, "", err
	}
	var data []byte
	if dst != io.Writer(h) {
		data = buf.Bytes()
		if data == nil {
			data = []byte{}
		}
	}
	return data, hex.EncodeToString(h.Sum(nil)), nil
}

func readlinkat(dirfd int, name string) (string, error) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlinkat(dirfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// printable escapes control characters in s.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// ownCommondir reports whether name in dirfd is a commondir file, such
// as git worktree add makes in .git/worktrees/NAME, that points at the
// workspace's own git directory: a plain file of one line whose path,
// relative to its directory or absolute, is WS/.git. One pointing
// anywhere else could lend the worktree another repository's
// configuration, and goes.
func (w *walker) ownCommondir(dirfd int, name, path string, st *unix.Stat_t) bool {
	if name != "commondir" || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > 4096 || w.ws == "" {
		return false
	}
	if st.Size == 0 {
		// Made, not written yet (git writes a file after making it): a
		// reconcile that a process left by a command set off while its
		// git worktree add ran must not take it from git, whose next
		// step needs it. git reads no repository through an empty one
		// (it stops), and it is looked at again at the next reconcile.
		return true
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	buf := make([]byte, 4097)
	n, _ := unix.Read(fd, buf)
	text := strings.TrimSuffix(string(buf[:max(n, 0)]), "\n")
	if text == "" || strings.ContainsAny(text, "\n\r\x00") {
		return false
	}
	target := text
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return filepath.Clean(target) == filepath.Join(w.ws, ".git")
}

// sampleHooks reports whether the untrusted path (name in dirfd) is a
// git hooks directory holding nothing but git's sample hooks (regular
// files named *.sample, which git never runs), and if so records it, as
// it is, as trusted.
func (w *walker) sampleHooks(dirfd int, name, path string, st *unix.Stat_t) bool {
	if name != "hooks" || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	for _, n := range listFD(fd) {
		var cst unix.Stat_t
		if !strings.HasSuffix(n, ".sample") || unix.Fstatat(fd, n, &cst, unix.AT_SYMLINK_NOFOLLOW) != nil || cst.Mode&unix.S_IFMT != unix.S_IFREG {
			return false
		}
	}
	rec := &walker{out: state{}, budget: maxTotal}
	rec.record(dirfd, name, path, st)
	for p, e := range rec.out {
		w.trusted[p] = e
	}
	return true
}

// chmodDir sets the mode of the directory name in dirfd, never through a
// link: a process still running may have swapped the directory for a
// link to a file of the person's elsewhere since it was looked at, and
// chmod follows links. The directory is opened without following one
// (O_PATH: its mode may deny reading), checked, and changed through
// /proc/self/fd, which names that very inode.
func chmodDir(dirfd int, name string, mode uint32) {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return
	}
	unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), mode)
}

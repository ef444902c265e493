package guard

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/platform"
	"golang.org/x/sys/unix"
)

// git's configuration files (platform.Policy.GitConfig) are writable in
// the sandbox: git remote add, git branch -m and git config user.name
// write them. What is guarded there is the keys that make git run a
// program (core.fsmonitor, core.hooksPath, alias.*, filter.*, ...), not
// the file: after a command, a file that differs from its trusted version
// is read with the host's git (git config --list on a copy of its bytes,
// includes not followed, no repository, no other configuration: reading
// runs nothing) and compared with it. A change to any key outside the
// safe list, a file git cannot read, a link or a file others may now
// write puts the whole trusted file back (the command's version goes to
// the quarantine); a change to safe keys only is kept and trusted.

// A keyGuard is what judging git's configuration files needs.
type keyGuard struct {
	git  string   // the host's git, outside every writable directory; "" if none
	safe []string // globs of the keys that never run a program
	ws   string   // the workspace, for values that must be paths inside it
	// live: checked while the command runs, which may be in the middle
	// of writing a file: only an unsafe change is acted on (undone); a
	// missing file, and what is trusted, are left to the end.
	live bool
	// agentRemotes are remotes sandboxed commands added before: a
	// condition "a remote configured before" does not hold for them.
	agentRemotes []string
	// added collects the remotes a change kept adds; elsewhere, those of
	// them added to repositories outside the workspace, by git directory.
	added     []string
	elsewhere map[string][]string
	// born collects the files that appeared while the command ran, and
	// were kept: a repository's configuration a command made.
	born []string
	// included are the files judged that the trusted configuration
	// includes: never a new repository's, their remotes never the
	// person's.
	included []string
}

// snapshotConfigs records the trusted state of the files that the
// patterns (absolute) match: regular files and links, nothing else.
func snapshotConfigs(patterns []string) state { return snapshotConfigsFrom(patterns, nil) }

// snapshotConfigsFrom is [snapshotConfigs] where a file whose stamp is
// the one in hint (an earlier trusted state, or nil) is taken from
// there, not read, as [snapshot] takes the guarded files: its content
// and status, which no process can set back, are those recorded then.
func snapshotConfigsFrom(patterns []string, hint state) state {
	w := &walker{out: state{}, budget: maxTotal, files: true, hint: hint}
	w.absolute(patterns)
	return w.out
}

// reconcileConfigs checks the files that the patterns match against
// trusted, which it updates with the changes it keeps, and returns one
// line per file put back.
func reconcileConfigs(patterns []string, trusted state, g *keyGuard, q *quarantine) []string {
	w := &walker{trusted: trusted, q: q, keys: g, files: true}
	w.absolute(patterns)
	return w.lines
}

// absolute walks absolute patterns from the root, every directory opened
// without following links. The directories on the way are opened once
// for all the patterns (a workspace's repositories' files share most of
// their path), and opened again from the root after anything was put
// back, which is the only change the walk makes: then every pattern
// finds the tree as a walk of its own would.
func (w *walker) absolute(patterns []string) {
	root, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(root)
	w.dirs = &dirCache{}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
		w.dirs.limit = lim.Cur
	}
	defer func() { w.dirs.reset(); w.dirs = nil }()
	seen := map[string]bool{}
	for _, pat := range patterns {
		pat = filepath.Clean(pat)
		if !filepath.IsAbs(pat) || pat == "/" || seen[pat] {
			continue
		}
		seen[pat] = true
		if len(w.lines) != w.dirs.lines {
			w.dirs.reset()
			w.dirs.lines = len(w.lines)
		}
		w.walk(root, "", strings.Split(pat[1:], "/"))
	}
}

// A dirCache holds the directories [walker.absolute] went through, by
// path, open. One is gone through again only while the name in its
// parent (itself checked so, up from the root) is still that directory:
// a directory renamed or replaced meanwhile (by a process a command left
// running) is opened again, as a walk of its own would.
type dirCache struct {
	fds   map[string]heldDir
	lines int // len(walker.lines) when it was last emptied
	// limit is the process's bound on descriptors: directories are
	// kept open only far below it, so that a process with many open
	// (a manager's connections) still has those a walk needs: a
	// directory that cannot be opened is not walked.
	limit uint64
}

// A heldDir is a directory kept open, and its identity when opened.
type heldDir struct {
	fd       int
	dev, ino uint64
}

// maxCachedDirs bounds the descriptors a dirCache holds; past it a
// directory is opened and closed for each pattern, as before.
const maxCachedDirs = 64

// open returns the directory name in dirfd (path path, stat st), opened
// without following a link, and whether the caller must close it.
func (c *dirCache) open(dirfd int, name, path string, st *unix.Stat_t) (int, bool, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fd, false, err
	}
	var opened unix.Stat_t
	if old, ok := c.fds[path]; ok {
		unix.Close(old.fd)
		delete(c.fds, path)
	}
	if len(c.fds) >= maxCachedDirs || uint64(fd)+maxCachedDirs >= c.limit/2 || unix.Fstat(fd, &opened) != nil || opened.Dev != st.Dev || opened.Ino != st.Ino {
		return fd, true, nil
	}
	if c.fds == nil {
		c.fds = map[string]heldDir{}
	}
	c.fds[path] = heldDir{fd: fd, dev: st.Dev, ino: st.Ino}
	return fd, false, nil
}

// held returns the directory at path when c holds it (c may be nil) and
// it is still the one stat st (of path's name, in the directory walked
// through now) describes.
func (c *dirCache) held(path string, st *unix.Stat_t) (int, bool) {
	if c == nil {
		return -1, false
	}
	d, ok := c.fds[path]
	if !ok || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Dev != d.dev || st.Ino != d.ino {
		return -1, false
	}
	return d.fd, true
}

// reset closes every directory held.
func (c *dirCache) reset() {
	for _, d := range c.fds {
		unix.Close(d.fd)
	}
	c.fds = nil
}

// checkKeys compares the configuration file at name (stat st, or the
// error of looking it up) with its trusted version: a change that leaves
// every key outside the safe list as it was is trusted from now on; any
// other is undone.
func (w *walker) checkKeys(dirfd int, name, path string, st *unix.Stat_t, statErr error) {
	te := w.trusted[path]
	switch {
	case statErr != nil && te == nil:
		return
	case statErr == nil && te != nil && same(dirfd, name, st, te):
		return
	case statErr != nil && w.keys.live:
		return
	}
	why, data, ok := w.keys.judge(dirfd, name, filepath.Dir(path), st, statErr, te)
	switch {
	case ok && w.keys.live:
		return // the end of the command decides what is trusted
	case ok:
		if statErr != nil {
			delete(w.trusted, path)
			return
		}
		if te == nil {
			w.keys.born = append(w.keys.born, path)
		}
		// What is trusted is the content judged, read once: the file may
		// be written again meanwhile, and that is the next check's.
		w.trusted[path] = &entry{Kind: 'f', Mode: st.Mode & 0o7777, UID: int(st.Uid), GID: int(st.Gid), Data: data, Sum: hashOf(data), Size: int64(len(data))}
		return
	}
	line := "cordon: " + printable(path) + ": " + why
	if statErr == nil {
		line += "; " + w.q.move(dirfd, name, path)
	}
	if te != nil {
		if msg := w.restore(dirfd, name, path, te); msg != "" {
			line += "; " + msg
		} else {
			line += "; the trusted version is back"
		}
	}
	w.lines = append(w.lines, line)
}

// judge says why the file's new state cannot be kept, or reports that
// it can, with the content it read.
func (g *keyGuard) judge(dirfd int, name, dir string, st *unix.Stat_t, statErr error, te *entry) (string, []byte, bool) {
	var before []gitkey.Entry
	if te != nil && te.Kind == 'f' {
		if te.Data == nil && te.Sum != emptySum {
			return "changed by a sandboxed command, and its trusted version was too large to compare it with", nil, false
		}
		var err error
		if before, err = g.list(te.Data); err != nil {
			return fmt.Sprintf("changed by a sandboxed command, and its trusted version cannot be read (%v)", err), nil, false
		}
	}
	var after []gitkey.Entry
	var data []byte
	switch {
	case statErr != nil:
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return "replaced by a symbolic link by a sandboxed command (git would read its configuration elsewhere)", nil, false
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "replaced by something other than a file by a sandboxed command", nil, false
	case st.Nlink > 1:
		return "linked to another file by a sandboxed command (a change there would change it)", nil, false
	case te != nil && st.Mode&0o022&^te.Mode != 0:
		return "made writable by others by a sandboxed command", nil, false
	default:
		var err error
		data, _, err = readFile(dirfd, name, maxFile)
		if err == nil && data == nil {
			err = fmt.Errorf("larger than %d bytes", maxFile)
		}
		if err == nil {
			after, err = g.list(data)
		}
		if err != nil {
			return fmt.Sprintf("changed by a sandboxed command into something git cannot read (%v)", err), nil, false
		}
	}
	var unsafe, kept []string
	// git reads config.worktree with config, as one, and an included
	// file with the file that includes it: judged alone, a new one would
	// make every remote and branch in it "new", and so their keys that
	// lead elsewhere are never safe there.
	included := slices.Contains(g.included, filepath.Join(dir, name))
	alone := name == "config.worktree" || included
	for _, k := range gitkey.Diff(before, after) {
		if gitkey.Safe(g.safe, k) || !alone && g.safeIn(dir, k, before, after) {
			kept = append(kept, k)
			continue
		}
		switch {
		case !gitkey.Has(before, k):
			unsafe = append(unsafe, k+" added")
		case !gitkey.Has(after, k):
			unsafe = append(unsafe, k+" removed")
		default:
			unsafe = append(unsafe, k+" changed")
		}
	}
	if len(unsafe) == 0 {
		// A remote a command adds is the command's, the first remote of
		// a repository that had none too (git init, then git remote add
		// origin URL): the URL is the command's choice, and the person's
		// credential must not follow it (the broker gives git's
		// credential only to the person's remotes). A repository's
		// configuration a command made is the command's whole (the
		// ledger's Made), but for the workspace's own.
		var added []string
		for _, e := range after {
			if te == nil && !included && dir != filepath.Join(g.ws, ".git") {
				break
			}
			if sub := gitkey.Subsection(e.Key); strings.HasPrefix(sub, "remote.") && !gitkey.Remote(before, sub[len("remote."):]) {
				if name := sub[len("remote."):]; !slices.Contains(added, name) && !slices.Contains(g.added, name) {
					added = append(added, name)
				}
			}
		}
		// Every remote a command adds must be remembered as its own,
		// or a later command could point a branch at it.
		if len(g.agentRemotes)+len(g.added)+len(added) > maxAgentRemotes {
			return fmt.Sprintf("a sandboxed command added more remotes than cordon remembers (%d): its change to the file was undone", maxAgentRemotes), nil, false
		}
		if !g.live {
			g.added = append(g.added, added...)
			if len(added) > 0 && !platform.Within(dir, g.ws) {
				if g.elsewhere == nil {
					g.elsewhere = map[string][]string{}
				}
				g.elsewhere[dir] = append(g.elsewhere[dir], added...)
			}
		}
		return "", data, true
	}
	why := "a sandboxed command changed keys git runs programs from or that lead it elsewhere (" + printable(strings.Join(unsafe, ", ")) + "): its change to the file was undone"
	if len(kept) > 0 {
		why += ", the safe keys' too (" + printable(strings.Join(kept, ", ")) + ": set them again in a command of their own)"
	}
	return why, nil, false
}

// safeIn reports whether key, as the entries es of the configuration
// file in directory dir set it (before: as they were), is safe: on the
// safe list, or on it with a condition that holds (see package gitkey):
// every value a path inside the workspace (a relative one is relative to
// dir, git's directory, as git takes it), a subsection that is new, or
// every value a remote configured before; in a file that held nothing
// before, every remote and branch is new.
func (g *keyGuard) safeIn(dir, key string, before, es []gitkey.Entry) bool {
	if gitkey.Safe(g.safe, key) {
		return true
	}
	cond := gitkey.Condition(g.safe, key)
	switch {
	case cond == gitkey.New, cond == gitkey.KnownRemote && len(before) == 0:
		// A file that held nothing before is a new repository's (git
		// clone, git submodule add): its remotes and branches are the
		// command's own, as git wrote them.
		return len(before) == 0 || !gitkey.Existed(before, key)
	case cond == gitkey.InWorkspace && g.ws != "" && slices.Contains(strings.Split(dir, "/"), ".git"), cond == gitkey.KnownRemote:
		// (A path in the workspace is a work tree git makes for a git
		// directory inside a .git, a submodule's: a bare repository made
		// below the root given one would take the person's directory
		// for its work tree.)
	default:
		return false
	}
	for _, e := range es {
		if e.Key != key {
			continue
		}
		if e.Bare || e.Value == "" {
			return false
		}
		if cond == gitkey.KnownRemote {
			if e.Value != "." && (!gitkey.Remote(before, e.Value) || slices.Contains(g.agentRemotes, e.Value)) {
				return false
			}
			continue
		}
		v := e.Value
		if !filepath.IsAbs(v) {
			v = filepath.Join(dir, v)
		}
		if !platform.Within(realPrefix(filepath.Clean(v)), g.ws) {
			return false
		}
		// The workspace repository's own work tree is the workspace:
		// moved below it, git would take the index's paths (and the
		// repositories they name, which the guard keeps) from elsewhere.
		if dir == filepath.Join(g.ws, ".git") && realPrefix(filepath.Clean(v)) != g.ws {
			return false
		}
	}
	return true
}

// list lists a configuration file's entries with the host's git (see
// [gitstate.ListConfig]): reading runs nothing.
func (g *keyGuard) list(data []byte) ([]gitkey.Entry, error) {
	if g.git == "" {
		return nil, fmt.Errorf("no git outside the directories sandboxed commands can write")
	}
	return gitstate.ListConfig(g.git, data)
}

// watchConfigs shortens the time a code-running key planted by the
// command is on disk: while the command runs, a change to one of git's
// configuration files (the directories that hold them when the command
// starts are watched, with inotify) is checked at once, as the end of
// the command would, and an unsafe one undone. The check at the end
// stays the guarantee; this only narrows the window in which a host
// program (an editor's git) could read the key. report gets the lines
// saying what was undone. stop ends the watch: no
// check runs (nor its git) once it returns.
func watchConfigs(stateDir, ws string, patterns []string, report func([]string)) (stop func()) {
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return func() {}
	}
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC); err != nil {
		unix.Close(in)
		return func() {}
	}
	names := map[string]bool{}
	for _, pat := range patterns {
		names[filepath.Base(pat)] = true
		for _, d := range globDirs(ws, filepath.Dir(pat)) {
			unix.InotifyAddWatch(in, d, unix.IN_CLOSE_WRITE|unix.IN_MODIFY|unix.IN_MOVED_TO|unix.IN_CREATE|unix.IN_ATTRIB|unix.IN_DONT_FOLLOW|unix.IN_ONLYDIR)
		}
	}
	var mu sync.Mutex // held by a check
	stopped := false
	go func() {
		// Closing an inotify descriptor waits for the kernel (an RCU
		// grace period, about 10 ms): it is closed here, after stop has
		// returned, off the caller's path (a guard process usually ends
		// first). A session's manager watches once per command: it must
		// not keep them (the user's inotify instances are few, 128).
		defer unix.Close(in)
		defer unix.Close(wake[0])
		buf := make([]byte, 64<<10)
		fds := []unix.PollFd{{Fd: int32(in), Events: unix.POLLIN}, {Fd: int32(wake[0]), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != nil && err != unix.EINTR {
				return
			}
			if fds[1].Revents != 0 {
				return
			}
			relevant := false
			for {
				n, err := unix.Read(in, buf)
				if n <= 0 || err != nil {
					break
				}
				for off := 0; off+unix.SizeofInotifyEvent <= n; {
					ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
					name := bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00")
					relevant = relevant || names[string(name)]
					off += unix.SizeofInotifyEvent + int(ev.Len)
				}
			}
			if relevant {
				mu.Lock()
				if !stopped {
					checkConfigs(stateDir, ws, report)
				}
				mu.Unlock()
			}
		}
	}()
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		unix.Write(wake[1], []byte{0})
		unix.Close(wake[1])
	}
}

// checkConfigs reconciles git's configuration files in ws with the
// ledger, now, and reports what it undid.
func checkConfigs(stateDir, ws string, report func([]string)) {
	b, err := open(stateDir, ws, false)
	if err != nil {
		return
	}
	defer b.close()
	if len(b.l.Configs) == 0 || b.l.TrustedConfigs == nil {
		return
	}
	lines := reconcileConfigs(b.l.Configs, b.l.TrustedConfigs, b.keyGuard(true), newQuarantine(b.stateDir))
	b.save()
	report(lines) // under the ledger's lock: the next reconcile sees them
}

// globDirs returns the existing directories pattern (absolute) names:
// "**" components (a submodule's git directory at any depth below
// .git/modules) matched as the guard's walk matches them, inside ws;
// others as filepath.Glob.
func globDirs(ws, pattern string) []string {
	if !strings.Contains(pattern, "**") {
		dirs, _ := filepath.Glob(pattern)
		return dirs
	}
	var out []string
	for path, e := range snapshotNames(ws, pattern) {
		if e == 'd' {
			out = append(out, path)
		}
	}
	return out
}

// snapshotNames returns what pattern (absolute, inside ws, "**" in it)
// matches now, with each one's kind ('d', 'f', 'l'; a link on the way
// too), as the guard's walk finds it, without reading any file.
func snapshotNames(ws, pattern string) map[string]byte {
	w := &walker{out: state{}, names: true}
	w.patterns(ws, []string{pattern})
	out := map[string]byte{}
	for p, e := range w.out {
		out[p] = e.Kind
	}
	return out
}

package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// The host's pathname Unix sockets (an editor's server, a debugger, a
// screen session, a container engine) run code for whoever connects. A
// socket is reached through its inode: a read-only mount does not stop
// connect(2) (EROFS is for files, directories and links), a bind mount
// of it still reaches its server, and a network namespace does not
// separate pathname sockets. What stops a connection is the path not
// leading to the socket any more (a mount laid over it or over its
// directory), Landlock's resolve_unix right (ABI 9: connecting only to
// sockets made inside the sandbox), or the file's permissions.
//
// So the sandbox covers, at its start, every socket found where sockets
// are made: the scratch directories, /run and the home directory, each to
// a bounded depth (see [socketRoots]), and, at any depth below them,
// every socket bound in the host's network namespace (/proc/net/unix
// names them by the path they were bound at): a sandboxed command can
// make directories in scratch space, and could otherwise fill it past the
// search's budget, so that the next sandbox leaves a host program's
// socket uncovered (found by an attacker, with an editor's server socket
// in /tmp). The directories between a writable root and each covered
// socket are mount points of the sandbox's own ([Policy.Pins]), so that
// no command can move one deeper, where the table (which keeps the path
// a socket was bound at) would not lead. A socket the host makes later,
// or one a program of another network namespace (a container's) made
// deeper or past the budget, stays reachable unless Landlock ABI 9
// holds; [Policy.SocketDegradations] says so.

// A socketRoot is a directory looked through for the host's sockets, to
// depth levels below it.
type socketRoot struct {
	dir   string
	depth int
}

// maxSocketDirs bounds the directories read in looking for sockets (a
// few milliseconds on a busy /tmp).
const maxSocketDirs = 2048

// socketRoots are where the host's programs make their sockets: the
// scratch directories (/tmp/emacs1000/server), /run (/run/screen/S-user/,
// /run/containerd/containerd.sock) and the home directory (~/.app/ctl).
// The depths keep the search to about a millisecond on a busy machine
// (a home with Go and npm caches, /tmp full of build directories).
func (p *Policy) socketRoots() []socketRoot {
	var roots []socketRoot
	for _, s := range p.Scratch {
		if !(p.PrivateTmp && s == "/tmp") {
			roots = append(roots, socketRoot{s, 2})
		}
	}
	roots = append(roots, socketRoot{realPath("/run"), 4})
	if p.Home != "" && p.Home != "/" {
		roots = append(roots, socketRoot{p.Home, 2})
	}
	for _, w := range p.Writable {
		if w != p.Workspace && !Within(w, p.Home) {
			roots = append(roots, socketRoot{w, 2})
		}
	}
	return roots
}

// SearchSockets fills HostSockets, once, where a sandbox is made (a
// backend's Start or Exec, a report of what it covers): a command run in
// a session's sandbox made earlier never pays for the search, which
// reads up to maxSocketDirs directories. HostSockets already given (a
// test's, the layers' role's) are kept. The repositories in scratch
// space put off are looked for first ([Policy.FindScratchRepositories]).
func (p *Policy) SearchSockets() {
	p.FindScratchRepositories()
	if p.socketsSearched || p.HostSockets != nil {
		return
	}
	p.socketsSearched = true
	// A directory of this user's that cannot be listed may hold
	// sockets: a sandboxed command can chmod 0 a directory of its own in
	// /tmp, and make it readable again in the next command's sandbox,
	// where the socket in it was not found. It is covered whole instead
	// (unless it holds a path the program needs, or a socket the policy
	// names).
	// The listings of directories unchanged since an earlier search
	// are taken from the state directory, with the same stamps as the
	// policy cache's scratch listings (a directory whose entries change
	// gets new times): the search reads hundreds of directories, a
	// build cache's of hundreds of entries each, at every new session.
	var c *policyCache
	if p.listingsIn != "" {
		c = openCacheFile(listingsFile(p.listingsIn, p.Home))
		defer c.save()
	}
	var unlisted []string
	readDir := func(dir string) []dirEntry {
		entries, err := c.readDir(dir)
		if err != nil && !othersDir(dir) && maskable(p, dir) && !slices.ContainsFunc(p.Sockets, func(s string) bool { return Within(s, dir) }) {
			unlisted = append(unlisted, dir)
		}
		return entries
	}
	p.HostSockets, p.socketsPartial = p.hostSockets(readDir)
	p.HostSockets = sortedUnique(slices.Concat(p.HostSockets, unlisted, p.boundSockets(readBoundSockets())))
}

// readBoundSockets returns /proc/net/unix: the Unix sockets of this
// process's network namespace, the host's where a sandbox is made.
func readBoundSockets() []byte {
	data, _ := smallfile.ReadFile("/proc/net/unix")
	return data
}

// boundSockets returns the sockets, from the lines of /proc/net/unix in
// table, bound at a path below one of p's socket roots (at any depth)
// that still names a socket, but for those [Policy.hostSockets] leaves
// out.
func (p *Policy) boundSockets(table []byte) []string {
	roots := p.socketRoots()
	var out []string
	for _, line := range strings.Split(string(table), "\n") {
		// Num RefCount Protocol Flags Type St Inode Path: the path, if
		// any, is the rest of the line ("@" for an abstract one).
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		path := line[strings.Index(line, f[7]):]
		if !strings.HasPrefix(path, "/") || filepath.Clean(path) != path ||
			!slices.ContainsFunc(roots, func(r socketRoot) bool { return r.dir != "" && Within(path, r.dir) }) || p.socketSkipped(path) {
			continue
		}
		fi, err := os.Lstat(path)
		switch {
		case err == nil && fi.Mode().Type() == fs.ModeSocket:
			// By the path the walk would take: a link on the way
			// (/tmp/l -> ../home/me/proj) would lay the cover
			// elsewhere.
			if real, err := filepath.EvalSymlinks(path); err == nil && real == path {
				out = append(out, path)
			}
		case errors.Is(err, fs.ErrPermission):
			// A directory of this user's on the way that cannot be
			// searched: a sandboxed command can chmod one of its own
			// and open it again in the next sandbox, where the socket
			// behind it was not covered (found by an attacker). It is
			// covered whole, as the walk's unlisted directories are.
			d := shutOnTheWay(path, roots)
			if d == "" || othersDir(d) || !maskable(p, d) || slices.ContainsFunc(p.Sockets, func(s string) bool { return Within(s, d) }) {
				break
			}
			// Not a link (/tmp/A/l -> the workspace): the cover would
			// fall where it leads.
			if real, err := filepath.EvalSymlinks(d); err == nil && real == d {
				out = append(out, d)
			}
		}
	}
	return out
}

// shutOnTheWay returns the first directory below the socket root that
// holds path which cannot be searched, or "" (none, or the root itself).
func shutOnTheWay(path string, roots []socketRoot) string {
	root := ""
	for _, r := range roots {
		if r.dir != "" && Within(path, r.dir) && len(r.dir) > len(root) {
			root = r.dir
		}
	}
	rel, err := filepath.Rel(root, path)
	if root == "" || err != nil {
		return ""
	}
	d := root
	for _, name := range strings.Split(rel, "/") {
		next := joinName(d, name)
		if _, err := os.Lstat(next); errors.Is(err, fs.ErrPermission) {
			if d == root {
				return ""
			}
			return d
		}
		d = next
	}
	return ""
}

// socketSkipped reports whether a socket at path needs no cover: the
// sandbox hides it already, it is in the workspace (the command's own),
// or the policy lets commands reach it.
func (p *Policy) socketSkipped(path string) bool {
	return Within(path, p.Workspace) ||
		slices.ContainsFunc(p.Hidden, func(h string) bool { return Within(path, h) }) ||
		slices.ContainsFunc(p.Sockets, func(s string) bool { return Within(path, s) })
}

// hostSockets returns the sockets under p's socket roots, breadth first
// in each and the roots in turn,
// leaving out what the sandbox hides already, the workspace (the
// command's own) and the sockets the policy lets commands reach. It
// reports true when it stopped at maxSocketDirs, before the end. readDir
// lists a directory's subdirectories and sockets.
func (p *Policy) hostSockets(readDir func(string) []dirEntry) ([]string, bool) {
	skip := p.socketSkipped
	type dir struct {
		path  string
		depth int
	}
	// One queue per root, taken in turn: a root full of directories
	// (a /tmp an earlier command filled) cannot use up the budget
	// before the others (the home directory) are searched.
	var queues [][]dir
	for _, r := range p.socketRoots() {
		if r.dir != "" && !skip(r.dir) {
			queues = append(queues, []dir{{r.dir, r.depth}})
		}
	}
	seen := map[string]bool{}
	var out []string
	for reads := 0; ; {
		queues = slices.DeleteFunc(queues, func(q []dir) bool { return len(q) == 0 })
		if len(queues) == 0 {
			break
		}
		for i := range queues {
			if len(queues[i]) == 0 {
				continue
			}
			d := queues[i][0]
			queues[i] = queues[i][1:]
			if seen[d.path] {
				continue
			}
			if reads == maxSocketDirs {
				return sortedUnique(out), true
			}
			reads++
			seen[d.path] = true
			// A directory gone, or not this user's to read, lists
			// nothing: nor can it be reached.
			for _, e := range readDir(d.path) {
				path := joinName(d.path, e.Name)
				switch {
				case e.Socket:
					if !skip(path) {
						out = append(out, path)
					}
				case d.depth > 1 && !skip(path):
					queues[i] = append(queues[i], dir{path, d.depth - 1})
				}
			}
		}
	}
	return sortedUnique(out), false
}

// SocketDegradations says, in words a user understands, which of the
// host's sockets and services a sandboxed command can still reach.
// resolveUnix is whether Landlock's resolve_unix right confines the
// command (then every pathname socket of the host is out of reach),
// mounts whether a mount namespace covers the sockets found at start.
func (p *Policy) SocketDegradations(resolveUnix, mounts bool) []string {
	p.SearchSockets()
	_, pinsOver := p.socketPinsWanted()
	var out []string
	switch {
	case resolveUnix:
	case !mounts:
		out = append(out, "the host's Unix sockets (an editor's or a debugger's server, a screen session, a container engine) can be connected to: covering them needs a mount namespace (root, or the bwrap backend) or Landlock ABI 9")
	case pinsOver:
		out = append(out, fmt.Sprintf("the directories of the host's Unix sockets in scratch space are more than %d: none is kept from being moved, and a command can move one deeper than the next sandbox looks (remove stale sockets: find /tmp -type s); Landlock ABI 9 would stop that", maxSocketPins))
	case p.socketsPartial:
		out = append(out, fmt.Sprintf("the host's Unix sockets were looked for in only %d directories (scratch, /run, the home directory): those made after a command starts, and those in other directories that a program of another network namespace (a container's) made, can be connected to; Landlock ABI 9 would stop all of them", maxSocketDirs))
	default:
		out = append(out, "Unix sockets the host makes after a command starts, or that a program of another network namespace (a container's) made deeper than the sandbox looks at its start (scratch directories and the home directory 2 levels, /run 4), can be connected to: Landlock ABI 9 would stop them")
	}
	if p.Network == NetworkOn && p.NetworkDefault {
		out = append(out, "the network allowlist (the default) needs a network namespace of the command's own (bwrap, or Landlock as root or with user namespaces): commands can connect to any host (docs/network.md)")
	}
	if p.Network == NetworkOn {
		out = append(out, "with the network on, the host's loopback services (127.0.0.1, ::1: databases, dev servers, debuggers) can be connected to: the sandbox shares the host's network namespace; turn the network off to cut them")
	}
	return out
}

// joinName is filepath.Join for a clean absolute directory and a name
// in it, without cleaning again.
func joinName(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

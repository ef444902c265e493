package platform

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Installed reports whether the file at path (absolute) is installed
// software: code that neither a sandboxed command nor the agent's own
// file tools can have written, and so not the agent's. It is a regular
// file owned by root or by this user that neither its group nor others
// may write; it lies outside every directory of writable (the real
// paths the sandbox lets commands write; asked for only when the file
// passes the look above), and so does every link on the way to it; and
// one of this user's last changed before since() (the agent's start,
// [AgentSince]: its file tools write as this user, outside cordon,
// anywhere this user may). The writable roots are asked before since: a
// file in them (an agent's shell snapshot, a workspace's script) is
// answered without the walk up the processes that since may take, and
// the judge needs the roots for such a file anyway (the outlines'
// store); the answer is the same conjunction in either order. A path with ".." is not (the shell
// resolves it after the links, not before), nor is anything under /proc
// or /dev, which the sandbox makes itself, nor anything where file
// systems ignore case (the roots are compared as written). A directory
// above the file that is one of writable by identity, under another name
// (a bind mount), counts as one.
func Installed(path string, since func() time.Time, writable func() ([]string, error)) bool {
	if foldsCase || !filepath.IsAbs(path) || hasDotDot(path) {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 || !trustedOwner(fi) {
		return false
	}
	roots, err := writable()
	if err != nil {
		return false
	}
	real, ok := resolveOutside(filepath.Clean(path), roots)
	if !ok {
		return false
	}
	if again, err := os.Stat(real); err != nil || !os.SameFile(fi, again) {
		return false // changed meanwhile
	}
	return !changedSince(fi, since) && !belowByIdentity(real, roots)
}

// belowByIdentity reports whether a directory above p is one of roots
// by identity, whatever its name: the same directory mounted at a second
// place (a bind mount) is the same directory. One that cannot be looked
// at counts as one.
func belowByIdentity(p string, roots []string) bool {
	var ids []os.FileInfo
	for _, r := range roots {
		if fi, err := os.Stat(r); err == nil {
			ids = append(ids, fi)
		}
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return true
		}
		for _, id := range ids {
			if os.SameFile(fi, id) {
				return true
			}
		}
		if d == "/" || d == "." {
			return false
		}
	}
}

// resolveOutside follows the links in p one at a time and reports
// whether p, each link met and the file reached lie outside roots (a
// link inside one could be made to point elsewhere between the judge's
// look and the shell's). It returns the file reached.
func resolveOutside(p string, roots []string) (string, bool) {
	for range 40 {
		if within(p, roots) || Within(p, "/proc") || Within(p, "/dev") {
			return "", false
		}
		link, rest, err := firstLink(p)
		switch {
		case err != nil:
			return "", false
		case link == "":
			return p, true
		case within(link, roots):
			return "", false
		}
		target, err := os.Readlink(link)
		if err != nil || hasDotDot(target) {
			return "", false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(link), target)
		}
		p = filepath.Join(target, rest)
	}
	return "", false
}

// firstLink returns the first leading part of the clean absolute path p
// that is a symbolic link, and what follows it; "" when there is none.
func firstLink(p string) (link, rest string, err error) {
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		fi, err := os.Lstat(p[:i])
		if err != nil {
			return "", "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return p[:i], strings.TrimPrefix(p[i:], "/"), nil
		}
	}
	return "", "", nil
}

func within(p string, roots []string) bool {
	for _, r := range roots {
		if Within(p, r) {
			return true
		}
	}
	return false
}

func hasDotDot(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

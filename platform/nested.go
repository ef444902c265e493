package platform

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// maxPointerFile bounds a .git file, a worktree's gitdir or commondir
// read: a line naming a directory. (Such files lie where commands write,
// and are read without blocking: a FIFO put there stalls nothing.)
const maxPointerFile = 4096

// Repositories inside the workspace run code on the host too: its index's
// gitlinks (a repository committed inside another, which the host's git
// status goes into) and the repositories directly in it (which an editor
// opens). The policy guards the places the rules keep at a repository's
// root at each (relative entries: .git/hooks/, .git/config, .envrc, ...),
// and so does the guard for those a command makes while it runs.

// maxNested bounds the nested repositories guarded; past it the guard
// says that the rest are not.
const maxNested = 512

// maxScan bounds the entries of a workspace looked through for the
// repositories it holds.
const maxScan = 4096

// A NestedRepo is a repository inside a workspace.
type NestedRepo struct {
	// Root is its working directory.
	Root string
	// GitDir is its git directory: Root/.git, or, when that is a file
	// (a submodule's, a linked worktree's), the directory it names
	// inside the workspace.
	GitDir string
	// Pointer is true when Root/.git is a file naming a git directory
	// outside the workspace: that file is itself guarded (what it points
	// to cannot be).
	Pointer bool
}

// Places returns the absolute patterns of entries (relative to a
// repository's root, as [Policy.RootGuarded]) at n: those under .git/ in
// its git directory, the others in its working directory.
func (n NestedRepo) Places(entries []string) []string {
	var out []string
	for _, e := range entries {
		e = strings.TrimSuffix(e, "/")
		switch {
		case e == "":
		case e == ".git" || strings.HasPrefix(e, ".git/"):
			if n.GitDir != "" {
				out = append(out, filepath.Join(n.GitDir, strings.TrimPrefix(strings.TrimPrefix(e, ".git"), "/")))
			}
		default:
			out = append(out, filepath.Join(n.Root, e))
		}
	}
	return out
}

// Guarded returns the patterns the guard keeps at n: entries' places,
// and its .git file when it points outside the workspace.
func (n NestedRepo) Guarded(entries []string) []string {
	out := n.Places(entries)
	if n.Pointer {
		out = append(out, filepath.Join(n.Root, ".git"))
	}
	return out
}

// repositories returns the roots whose read-only paths are protected: the
// workspace, and the repositories directly in it when it is none itself
// (~/work holding several).
func repositories(ws string) []string {
	roots := []string{ws}
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err == nil {
		return roots
	}
	nested, _ := NestedRepos(ws, "")
	for _, n := range nested {
		if filepath.Dir(n.Root) == ws {
			roots = append(roots, n.Root)
		}
	}
	return roots
}

// NestedRepos returns the repositories inside the workspace ws, ws
// itself left out: first those its index names as gitlinks, at any
// depth, then those directly in it; at most maxNested, and the second
// result is true when there were more. The index's gitlinks are kept in
// directory keep, which no command may write ("" keeps nothing; see
// gitlinks.go).
func NestedRepos(ws, keep string) ([]NestedRepo, bool) {
	var out []NestedRepo
	more := false
	add := func(dir string) {
		if dir == ws || slices.ContainsFunc(out, func(n NestedRepo) bool { return n.Root == dir }) {
			return
		}
		n, ok := nestedRepo(ws, dir)
		if !ok {
			return
		}
		if len(out) == maxNested {
			more = true
			return
		}
		out = append(out, n)
	}
	for _, l := range gitlinks(indexFile(ws), keep) {
		rel := filepath.FromSlash(l)
		if !filepath.IsLocal(rel) {
			continue
		}
		// Each directory on the way must be a directory, not a link out.
		dir, ok := ws, true
		for _, name := range strings.Split(rel, string(filepath.Separator)) {
			dir = filepath.Join(dir, name)
			if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
				ok = false
				break
			}
		}
		if ok {
			add(dir)
		}
	}
	if f, err := os.Open(ws); err == nil {
		entries, _ := f.ReadDir(maxScan)
		f.Close()
		for _, e := range entries {
			if e.IsDir() && e.Name() != ".git" {
				add(filepath.Join(ws, e.Name()))
			}
		}
	}
	return out, more
}

// indexFile is the index file of the repository at ws, where git finds
// it: in its .git directory, or in the git directory its .git file
// names (a linked worktree's, a submodule's), as the host's git reads
// it there whatever the file says.
func indexFile(ws string) string {
	dotgit := filepath.Join(ws, ".git")
	if fi, err := os.Stat(dotgit); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxPointerFile {
		return filepath.Join(dotgit, "index")
	}
	data, err := smallfile.ReadRegular(dotgit, maxPointerFile)
	if err != nil {
		return filepath.Join(dotgit, "index")
	}
	t, ok := pointedGitDir(ws, data)
	if !ok {
		return filepath.Join(dotgit, "index")
	}
	return filepath.Join(t, "index")
}

// pointedGitDir is the git directory that data, the content of the .git
// file of the repository at dir, names on its first line ("gitdir:
// PATH", relative to dir); false when it names none.
func pointedGitDir(dir string, data []byte) (string, bool) {
	line, _, _ := strings.Cut(string(data), "\n")
	t, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir: ")
	if !ok || t == "" {
		return "", false
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(dir, t)
	}
	return t, true
}

// nestedRepo describes the repository at dir inside ws, if there is
// one: a .git directory with a HEAD (an empty .git is none), or a .git
// file naming a git directory (not one inside ws's own .git, whose
// places are the workspace repository's).
func nestedRepo(ws, dir string) (NestedRepo, bool) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	var target string
	switch {
	case err != nil:
		return NestedRepo{}, false
	case fi.IsDir():
		return NestedRepo{Root: dir, GitDir: dotgit}, isGitDir(dotgit)
	case fi.Mode()&os.ModeSymlink != 0:
		// git follows a link: where it leads is the git directory.
		target = dotgit
	case !fi.Mode().IsRegular():
		return NestedRepo{}, false
	default:
		data, err := smallfile.ReadRegular(dotgit, maxPointerFile)
		if err != nil {
			return NestedRepo{Root: dir, Pointer: true}, true
		}
		t, ok := pointedGitDir(dir, data)
		if !ok {
			return NestedRepo{Root: dir, Pointer: true}, true
		}
		target = t
	}
	target = realPath(target)
	own := filepath.Join(ws, ".git")
	switch {
	case target == own || Within(target, filepath.Join(own, "modules")) || Within(target, filepath.Join(own, "worktrees")):
		// The workspace repository's own, its submodules' and worktrees'
		// git directories: guarded with it.
		return NestedRepo{}, false
	case Within(target, ws) && isGitDir(target):
		return NestedRepo{Root: dir, GitDir: target}, true
	}
	return NestedRepo{Root: dir, Pointer: true}, true
}

// BelowRoot reports whether rel, a path relative to a workspace, is one
// of the places entries name (relative to a repository's root, as
// [Policy.RootGuarded]; "dir/" with what it holds) in a directory below
// the workspace's root: packages/app/.npmrc for .npmrc,
// sub/.husky/pre-commit for .husky/. git's own places (.git/...) are the
// repositories' guard's.
func BelowRoot(rel string, entries []string) bool {
	comps := strings.Split(filepath.ToSlash(rel), "/")
	for _, e := range entries {
		dir := strings.HasSuffix(e, "/")
		e = strings.TrimSuffix(e, "/")
		if e == "" || e == ".git" || strings.HasPrefix(e, ".git/") || strings.ContainsAny(e, "*?[") {
			continue
		}
		ec := strings.Split(e, "/")
		for k := 1; k+len(ec) <= len(comps); k++ {
			if slices.Equal(comps[k:k+len(ec)], ec) && (dir || k+len(ec) == len(comps)) {
				return true
			}
		}
	}
	return false
}

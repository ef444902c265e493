package guard

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/platform"
)

// A .git that is a file ("gitdir: PATH") or a link names the git
// directory git uses in that directory: its configuration
// (core.fsmonitor) and hooks run when the person's git, shell prompt or
// editor looks there. One a command made or changed below the root is
// moved aside like a place ([MoveAside], the session's watch), unless it
// is one git makes itself for a git directory the guard keeps: a linked
// worktree's (git worktree add: REPO/.git/worktrees/NAME, whose commondir
// leads back to REPO/.git) or a submodule's (REPO/.git/modules/...,
// where the guard's walk goes), REPO being the workspace or a repository
// whose git directory the ledger keeps. Where it leads is judged as git
// goes there (links followed, ".." after a link taken where the link
// leads), and its text too, with ".." taken as written: both must stay
// inside.

// maxPointer bounds the size of a .git file read.
const maxPointer = 4096

// keptGitDirs returns the git directories the guard keeps in workspace
// ws: its own, and those of the repositories its ledger keeps at their
// roots (nested in it, or made below its root and adopted, bare ones
// too); with now,
// those of the repositories in it now too (the ledger adds them when the
// command that made them ends: the round may run first).
func keptGitDirs(stateDir, ws string, now bool) []string {
	var kept, bare []string
	if data, err := os.ReadFile(ledgerFile(stateDir, ws)); err == nil {
		var l struct {
			Workspace string   `json:"workspace"`
			Roots     []string `json:"roots"`
			Adopted   []string `json:"adopted"`
			Bare      []string `json:"adopted_bare"`
		}
		if json.Unmarshal(data, &l) == nil && l.Workspace == ws {
			kept = append(l.Roots, l.Adopted...)
			bare = l.Bare
		}
	}
	if now {
		found, _ := roots(ws)
		for _, n := range found {
			if n.GitDir == n.Root {
				bare = append(bare, n.GitDir)
				continue
			}
			kept = append(kept, n.Root)
		}
	}
	dirs := []string{filepath.Join(ws, ".git")}
	for _, r := range kept {
		if platform.Within(r, ws) && !slices.Contains(dirs, filepath.Join(r, ".git")) {
			dirs = append(dirs, filepath.Join(r, ".git"))
		}
	}
	for _, d := range bare {
		if platform.Within(d, ws) && d != ws && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	// Only git directories that are directories there (not links): those
	// are what the ledger's walk goes into.
	return slices.DeleteFunc(dirs, func(d string) bool {
		fi, err := os.Lstat(d)
		return err != nil || !fi.IsDir()
	})
}

// keptPointer reports whether the .git at path (a file or a link, below
// ws, reached without following a link) leads to a worktree's or a
// submodule's git directory inside one of gitDirs (see above).
func keptPointer(ws, path string, gitDirs []string) bool {
	kept, _ := judgePointer(ws, path, gitDirs)
	return kept
}

// judgePointer is keptPointer; pending is true when the .git is a file
// made but not written yet, or leads to a worktree's git directory
// whose commondir is not there, or not written, yet (git worktree add
// writes the worktree's .git before it): a watch that sees the .git at
// once waits a moment for it (see [belowWatch.move]).
func judgePointer(ws, path string, gitDirs []string) (kept, pending bool) {
	rel, err := filepath.Rel(ws, path)
	if err != nil || filepath.Base(rel) != ".git" || rel == ".git" || strings.HasPrefix(rel, "..") {
		return false, false
	}
	dirfd, err := openBelow(ws, filepath.Dir(rel))
	if err != nil {
		return false, false
	}
	defer unix.Close(dirfd)
	var st unix.Stat_t
	if unix.Fstatat(dirfd, ".git", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false, false
	}
	var text string
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		if text, err = readlinkat(dirfd, ".git"); err != nil {
			return false, false
		}
	case unix.S_IFREG:
		// (A file with another name can be written through that one,
		// unseen by the session's watch.)
		if st.Nlink > 1 || st.Size > maxPointer {
			return false, false
		}
		if st.Size == 0 {
			// Made, not written yet (git reads none from it).
			return false, true
		}
		data, _, err := readFile(dirfd, ".git", maxPointer)
		if err != nil {
			return false, false
		}
		// As git reads it: "gitdir: " and the rest of the file, its
		// line ends dropped.
		t, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
		if !ok {
			return false, false
		}
		text = t
	default:
		return false, false
	}
	if text == "" || strings.ContainsAny(text, "\n\r\x00") {
		return false, false
	}
	raw := text
	if !filepath.IsAbs(raw) {
		raw = filepath.Join(ws, filepath.Dir(rel)) + "/" + text
	}
	// Where git goes: links followed, ".." where they lead
	// (EvalSymlinks takes the path as it is, not cleaned first).
	real, err := filepath.EvalSymlinks(raw)
	if err != nil {
		return false, false
	}
	if fi, err := os.Lstat(real); err != nil || !fi.IsDir() {
		return false, false
	}
	lexical := filepath.Clean(raw)
	wsReal, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return false, false
	}
	for _, g := range gitDirs {
		// A git directory reached from the workspace through no link
		// (the ledger's walk follows none; a directory on the way
		// swapped for one since it was listed leads elsewhere).
		grel, err := filepath.Rel(ws, g)
		if err != nil || strings.HasPrefix(grel, "..") {
			continue
		}
		greal, err := filepath.EvalSymlinks(g)
		if fi, serr := os.Stat(greal); err != nil || serr != nil || !fi.IsDir() || greal != filepath.Join(wsReal, grel) {
			continue
		}
		if !(platform.Within(lexical, g) || platform.Within(lexical, greal)) || !platform.Within(real, greal) {
			continue
		}
		sub, err := filepath.Rel(greal, real)
		if err != nil {
			continue
		}
		comps := strings.Split(sub, "/")
		switch {
		case len(comps) == 2 && comps[0] == "worktrees":
			// Not there yet, or made and not written yet: git writes
			// the file as it does the .git (open, then write), and a
			// watch woken by the .git looks while git writes it; moved
			// then, the .git left git's own next step (git
			// symbolic-ref, GIT_DIR=WT/.git) with no repository. (Both
			// from the one look: one more, after git wrote it, found it
			// written and the .git neither kept nor pending.)
			back, notYet := commondirBack(real, greal)
			if back {
				return true, false
			}
			pending = pending || notYet
		case len(comps) >= 2 && len(comps) <= maxDeep+1 && comps[0] == "modules":
			if walkedModules(greal, comps) {
				return true, false
			}
		}
	}
	return false, pending
}

// commondirBack reports whether the worktree's git directory wt has a
// commondir file leading back to gitDir (what git worktree add writes):
// without one, git takes wt for a repository of its own, whose
// configuration and hooks the guard does not keep. notYet is true when
// it is not there, or was read empty (made, not written yet).
func commondirBack(wt, gitDir string) (back, notYet bool) {
	var st unix.Stat_t
	if err := unix.Lstat(wt+"/commondir", &st); err != nil {
		return false, err == unix.ENOENT
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxPointer {
		return false, false
	}
	data, err := smallfile.ReadRegular(wt+"/commondir", maxPointer)
	if err != nil {
		return false, errors.Is(err, os.ErrNotExist)
	}
	if len(data) == 0 {
		return false, true
	}
	text := strings.TrimRight(string(data), "\r\n")
	if text == "" || strings.ContainsAny(text, "\n\r\x00") {
		return false, false
	}
	if !filepath.IsAbs(text) {
		text = wt + "/" + text
	}
	real, err := filepath.EvalSymlinks(text)
	return err == nil && real == gitDir, false
}

// walkedModules reports whether gitDir/modules/comps[1]/... is where the
// guard's walk of a repository's submodules goes ([walker.deep]): below
// a git directory (one holding HEAD) only into its modules/.
func walkedModules(gitDir string, comps []string) bool {
	dir := filepath.Join(gitDir, "modules")
	for i := 1; i < len(comps); i++ {
		dir = filepath.Join(dir, comps[i])
		if i+1 >= len(comps) {
			break
		}
		var st unix.Stat_t
		if unix.Lstat(dir+"/HEAD", &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && comps[i+1] != "modules" {
			return false
		}
	}
	return true
}

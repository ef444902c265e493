package guard

import (
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// git finds a repository by what a directory holds, not by the name
// .git: going up from where it runs, it takes each directory's .git, and
// then the directory itself when it is a git directory (a bare
// repository; safe.bareRepository=all, git's default). A directory a
// command made one below the root (git init --bare src, in the person's
// own src/, its config given core.worktree and core.fsmonitor) runs the
// command's program when the person's git, shell prompt or editor looks
// anywhere below it. Such a directory is adopted by the ledger as a
// repository made below the root is ([AdoptRoots]): its hooks and its
// configuration are put back to what git makes, and kept so; a test
// remote an agent makes (git init --bare remote.git) keeps working.

// bareNames are the entries that make a directory a git directory for
// git (is_git_directory in git's setup.c: HEAD, and objects/ and refs/
// in the common directory, the directory itself or where commondir
// says), and config, which says what it runs.
var bareNames = []string{"HEAD", "objects", "refs", "commondir", "config"}

// bareName reports whether name is one of bareNames, case ignored.
func bareName(name string) bool {
	return slices.ContainsFunc(bareNames, func(n string) bool { return strings.EqualFold(n, name) })
}

// bareGuarded are the names in a bare git directory whose change the
// ledger looks at (its places: hooks/, info/attributes, commondir,
// config, config.worktree, and its submodules' and worktrees').
var bareGuarded = []string{"hooks", "info", "commondir", "config", "config.worktree", "modules", "worktrees"}

// isBare reports whether a directory with the entries names is one git
// takes for a git directory, or may once something elsewhere changes:
// it holds HEAD, and commondir or objects and refs. Judged by the names
// alone, of any kind: HEAD's text, where a link leads or what commondir
// names can change later without a change in the directory (a detached
// HEAD, a link to a directory made in /tmp later).
func isBare(names []dirent) bool {
	// (Case ignored: in a case-folding directory, git's HEAD is head.)
	has := func(n string) bool {
		return slices.ContainsFunc(names, func(d dirent) bool { return strings.EqualFold(d.name, n) })
	}
	return has("HEAD") && (has("commondir") || has("objects") && has("refs"))
}

// bareGitDirAt is isBare of the directory at path.
func bareGitDirAt(path string) bool {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return isBare(readDirFD(fd))
}

// bareChanged reports whether the git directory open at fd was made or
// changed since t: the directory itself (an entry made, removed or
// renamed, git's config.lock renamed over config), or one of bareNames
// (a HEAD written in place, objects/ made a link), or a file of those
// with another name (written there unseen).
func bareChanged(fd int, t time.Time) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && changedSince(&st, t) {
		return true
	}
	for _, n := range bareNames {
		if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		if changedSince(&st, t) || st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
			return true
		}
	}
	return false
}

package guard

import (
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// MoveAside moves to the quarantine the auto-run places below the
// workspace ws's root that a command made or changed (the continuous
// snapshot round finds them among the paths it looks at, see package
// shim), each reached without following a link, and keeps a line per
// path for the next command to say. It returns the lines.
func MoveAside(stateDir, ws string, paths []string) []string {
	q := newQuarantine(stateDir)
	var lines []string
	var gitDirs []string // (read once, when a .git is found)
	for _, p := range paths {
		if filepath.Base(p) == ".git" {
			if gitDirs == nil {
				gitDirs = keptGitDirs(stateDir, ws, true)
			}
			if keptPointer(ws, p, gitDirs) {
				continue
			}
			if what, ok := moveBelow(q, ws, p); ok {
				lines = append(lines, "cordon: "+printable(p)+": "+pointerLine+", made or changed by a sandboxed command; "+what)
			}
			continue
		}
		if what, ok := moveBelow(q, ws, p); ok {
			lines = append(lines, "cordon: "+printable(p)+": a file tools run on their own (an auto-run place below the workspace's root), made or changed by a sandboxed command; "+what+" (cordon undo has its earlier version)")
		}
	}
	keepLines(stateDir, ws, lines)
	return lines
}

// pointerLine says what a .git file or link below the root is.
const pointerLine = "a .git file or link leading git to a git directory the guard does not keep (its hooks and configuration, core.fsmonitor, would run when git looks there)"

// moveBelow moves path, below ws, into q, reaching it from ws without
// following a link; it reports what it did, and false when there was
// nothing there to move.
func moveBelow(q *quarantine, ws, path string) (string, bool) {
	rel, err := filepath.Rel(ws, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	dirfd, err := openBelow(ws, filepath.Dir(rel))
	if err != nil {
		return "", false
	}
	defer unix.Close(dirfd)
	var st unix.Stat_t
	if unix.Fstatat(dirfd, filepath.Base(rel), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return "", false
	}
	return q.move(dirfd, filepath.Base(rel), path), true
}

// openBelow opens the directory rel below ws ("." for ws itself), one
// component at a time, never following a link.
func openBelow(ws, rel string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	dirfd, err := unix.Open(ws, flags, 0)
	if err != nil || rel == "." {
		return dirfd, err
	}
	for _, c := range strings.Split(rel, "/") {
		fd, err := unix.Openat(dirfd, c, flags, 0)
		unix.Close(dirfd)
		if err != nil {
			return -1, err
		}
		dirfd = fd
	}
	return dirfd, nil
}

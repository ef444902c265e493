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
	for _, p := range paths {
		rel, err := filepath.Rel(ws, p)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		comps := strings.Split(rel, "/")
		dirfd, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		for _, c := range comps[:len(comps)-1] {
			fd, err := unix.Openat(dirfd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
			unix.Close(dirfd)
			dirfd = fd
			if err != nil {
				break
			}
		}
		if dirfd < 0 {
			continue
		}
		what := q.move(dirfd, comps[len(comps)-1], p)
		unix.Close(dirfd)
		lines = append(lines, "cordon: "+printable(p)+": a file tools run on their own (an auto-run place below the workspace's root), made or changed by a sandboxed command; "+what+" (cordon undo has its earlier version)")
	}
	keepLines(stateDir, ws, lines)
	return lines
}

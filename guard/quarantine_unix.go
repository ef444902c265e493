//go:build linux

package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// A quarantine is the directory, in cordon's state directory, where what
// sandboxed commands made at guarded places is moved: under it, each
// path keeps its absolute name.
type quarantine struct {
	dir    string // made on first use
	pruned bool
}

// What the quarantine keeps: the newest maxQuarantined moves, none older
// than maxQuarantineAge. Older ones are removed when a new one is made
// (rarely: only when something was put back), so it cannot grow without
// bound and fill the state directory, which would stop every command.
// The bound on moves is high: a process that plants files over and over
// must not push a person's own change out within the month.
const (
	maxQuarantined   = 5000
	maxQuarantineAge = 30 * 24 * time.Hour
)

// prune removes the quarantined moves past the bounds, oldest first
// (their names start with the time they were made).
func (q *quarantine) prune() {
	if q.pruned {
		return
	}
	q.pruned = true
	parent := filepath.Dir(q.dir)
	des, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-maxQuarantineAge).UTC().Format("20060102-150405")
	for i, d := range des { // sorted by name: by time
		if len(des)-i > maxQuarantined || d.Name() < cutoff {
			os.RemoveAll(filepath.Join(parent, d.Name()))
		}
	}
}

func newQuarantine(stateDir string) *quarantine {
	return &quarantine{dir: filepath.Join(stateDir, "quarantine", time.Now().UTC().Format("20060102-150405.000000000")+fmt.Sprintf("-%d", os.Getpid()))}
}

// move moves name in dirfd (path) into the quarantine and says where it
// went; when it cannot, it is removed, and the line says so.
func (q *quarantine) move(dirfd int, name, path string) string {
	dst := filepath.Join(q.dir, path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return q.remove(dirfd, name, err)
	}
	defer q.prune()
	err := unix.Renameat(dirfd, name, unix.AT_FDCWD, dst)
	if errors.Is(err, unix.EXDEV) {
		// Another file system: copy, then remove.
		err = copyOut(dirfd, name, dst, 0)
		if err == nil {
			err = removeAt(dirfd, name)
		}
	}
	if err != nil {
		return q.remove(dirfd, name, err)
	}
	return "moved it to " + printable(dst)
}

// remove puts aside in place what could not be moved to the
// quarantine: renamed in its own directory to a name no tool reads
// (every auto-run place is an exact name), so that a person's file the
// guard took for a command's is never lost; deleted only when even that
// fails.
func (q *quarantine) remove(dirfd int, name string, why error) string {
	aside := name + ".cordon-aside-" + time.Now().UTC().Format("20060102-150405")
	if err := unix.Renameat2(dirfd, name, dirfd, aside, unix.RENAME_NOREPLACE); err == nil {
		return fmt.Sprintf("could not move it aside (%v): renamed it %s beside it", why, printable(aside))
	}
	if err := removeAt(dirfd, name); err != nil {
		return fmt.Sprintf("could not move it aside (%v) nor remove it (%v): remove it before running anything there", why, err)
	}
	return fmt.Sprintf("could not move it aside (%v): removed it", why)
}

// copyOut copies name in dirfd to dst, links not followed.
func copyOut(dirfd int, name, dst string, depth int) error {
	if depth > 64 {
		return errors.New("too deep")
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		target, err := readlinkat(dirfd, name)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case unix.S_IFREG:
		// Not read when large: a sparse file can claim terabytes.
		if st.Size > maxFile {
			return fmt.Errorf("%d bytes, too large to keep", st.Size)
		}
		data, _, err := readFile(dirfd, name, maxFile)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	case unix.S_IFDIR:
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		for _, n := range listFD(fd) {
			if err := copyOut(fd, n, filepath.Join(dst, n), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	// A FIFO, socket or device: only its name is kept.
	return os.WriteFile(dst+".special", nil, 0o600)
}

// removeAt removes name in dirfd and, for a directory, all it holds.
func removeAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	fd, oerr := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if oerr != nil {
		return err
	}
	for _, n := range listFD(fd) {
		removeAt(fd, n)
	}
	unix.Close(fd)
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

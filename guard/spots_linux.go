package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// topPlaces are the patterns of the places the ledger keeps in p's
// workspace (and in the person's own repositories below its root,
// which it keeps as it keeps the workspace's): what the watch between
// commands watches.
func topPlaces(stateDir string, p *platform.Policy) []string {
	return slices.Concat(p.Guarded, p.GitConfig, ownPlaces(stateDir, p.Workspace))
}

// A spot is one thing the watch between commands watches for a place:
// names in a directory, a guarded directory whole, or a regular file at
// a place by its inode.
type spot struct {
	path string // a directory, or the regular file (file)
	name string // the names in directory path that count; "" for all
	file bool   // path is a regular file at a place
}

// spots lists what to watch for places (absolute patterns) in ws as
// they are now: the one enumeration of the guarded places' files, for
// the watch's marks, its looks ([look]) and [GuardedFiles].
func spots(ws string, places []string) []spot {
	var out []spot
	for _, pat := range places {
		if !platform.Within(pat, ws) {
			continue
		}
		if strings.Contains(pat, "**") {
			// (A submodule's git directory at any depth: those there
			// now, each watched as a place of its own.)
			for path, kind := range snapshotNames(ws, pat) {
				out = append(out, spot{path: filepath.Dir(path), name: filepath.Base(path)})
				switch kind {
				case 'd':
					out = append(out, spot{path: path})
				case 'f':
					out = append(out, spot{path: path, file: true})
				}
			}
			continue
		}
		dirs, _ := filepath.Glob(filepath.Dir(pat))
		for _, d := range dirs {
			out = append(out, spot{path: d, name: filepath.Base(pat)})
		}
		if len(dirs) == 0 && !hasMeta(filepath.Dir(pat)) {
			// The nearest directory that exists, for the name of the
			// next one on the way.
			d := filepath.Dir(pat)
			for d != ws && platform.Within(d, ws) {
				up := filepath.Dir(d)
				if fi, err := os.Lstat(up); err == nil && fi.IsDir() {
					out = append(out, spot{path: up, name: filepath.Base(d)})
					break
				}
				d = up
			}
		}
		inside, _ := filepath.Glob(pat)
		for _, d := range inside {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
				out = append(out, spot{path: d})
			} else if err == nil && fi.Mode().IsRegular() {
				out = append(out, spot{path: d, file: true})
			}
		}
	}
	return out
}

// GuardedFiles returns the regular files at p's guarded places in its
// workspace as they are now, the ones the watch between commands looks
// at: a session's look for processes that can write them unseen
// matches what they hold by these files' inodes, which a hard link of
// another name (or one since removed) keeps.
func GuardedFiles(stateDir string, p *platform.Policy) []string {
	if p.Workspace == "" {
		return nil
	}
	var out []string
	for _, s := range spots(p.Workspace, topPlaces(stateDir, p)) {
		if s.file {
			out = append(out, s.path)
		}
	}
	return out
}

// A look is what a guarded regular file was when looked at: a write
// through a shared mapping makes no inotify event, and on tmpfs moves
// no time on either, so a small file is kept whole.
type look struct {
	gone         bool
	dev, ino     uint64
	size         int64
	mtime, ctime unix.Timespec
	data         []byte // the content, when at most maxLook bytes
}

// maxLook is the largest file a look keeps whole (git's configuration,
// an .envrc: a few KiB).
const maxLook = 256 << 10

// lookAt looks at the file at path now.
func lookAt(path string) look {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return look{gone: true}
	}
	l := look{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}
	if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size <= maxLook {
		l.data = readSmall(path)
	}
	return l
}

// readSmall reads the regular file at path, up to maxLook+1 bytes:
// never blocking (what replaced it meanwhile may be a FIFO) nor
// following a link.
func readSmall(path string) []byte {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil
	}
	buf := make([]byte, 0, min(st.Size, maxLook)+1)
	for len(buf) < cap(buf) {
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if n <= 0 || err != nil {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf
}

// changedTo reports whether the file looked at as l is now otherwise
// (now). One gone is not: a removal runs nothing, and is left to the
// next command (see watchTop).
func (l look) changedTo(now look) bool {
	if now.gone {
		return false
	}
	return l.gone || l.dev != now.dev || l.ino != now.ino || l.size != now.size ||
		l.mtime != now.mtime || l.ctime != now.ctime || !bytes.Equal(l.data, now.data)
}

// lookAll looks at each of files now.
func lookAll(files []string) map[string]look {
	out := make(map[string]look, len(files))
	for _, f := range files {
		out[f] = lookAt(f)
	}
	return out
}

// lookedChanged reports whether a file looked at (looks) is otherwise
// now; what it is now is kept, so one removed counts once.
func lookedChanged(looks map[string]look) bool {
	changed := false
	for f, l := range looks {
		now := lookAt(f)
		changed = changed || l.changedTo(now)
		looks[f] = now
	}
	return changed
}

//go:build unix

package decide

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/internal/filestamp"
	"github.com/cordonsh/cordon/internal/smallfile"
)

// The programs memo. [makeCaches] looks through PATH, before every
// command, for the programs of the caches that are missing: a dozen
// directories for each of half a dozen tools that are mostly not
// installed, a tenth of a later command's own work. The memo keeps
// which of them no directory of PATH holds, and that answer holds as
// long as PATH is the same string and each of its directories has the
// stamp it had (package filestamp: device, inode, size, modification and
// change times; making, removing or renaming an entry moves its
// directory's times, and nothing unprivileged sets a change time back),
// or is still missing. Only a name that was no entry at all in every
// directory is kept: a link that leads nowhere, or a file that is not
// executable, can become a program without its directory changing, and
// is looked for again every time. A directory changed within
// [filestamp.Margin] of the look gets no stamp, and then nothing is kept.
//
// It lives in the state directory, one file for the last few PATHs (an
// agent's and a terminal's differ). A file that is not this user's own,
// or not well formed, is no memo. What the memo says can only keep a
// cache directory from being made (a tool then writes its cache inside
// the sandbox's view of home, and fails, as without cordon's help): it
// never makes the sandbox let more through.

// programsFormat is the memo's first line.
const programsFormat = "cordon-programs 1"

// maxProgramsPaths bounds the PATHs the memo keeps.
const maxProgramsPaths = 8

// maxProgramsMemo bounds the memo file read.
const maxProgramsMemo = 64 << 10

// programsMemo is the memo's file in the state directory, or "" for none.
func programsMemo(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "programs")
}

// lookPrograms is [onPath], answered from the memo for the programs it
// knows PATH does not hold, and the memo brought up to date when some
// had to be looked for.
func lookPrograms(programs []string, path, memo string) map[string]bool {
	if memo == "" || strings.ContainsAny(path, "\n\x00") {
		return onPath(programs, path)
	}
	entries := readProgramsMemo(memo)
	var known map[string]bool
	for _, e := range entries {
		if e.path == path {
			known = e.absentNow()
			break
		}
	}
	var look []string
	for _, p := range programs {
		if !known[p] {
			look = append(look, p)
		}
	}
	found := onPath(look, path)
	if len(look) == 0 || len(found) == len(look) {
		return found
	}
	// Looked for and not there: keep those that are no entry anywhere.
	if e, ok := absentEntry(path, look, found, known); ok {
		writeProgramsMemo(memo, e, entries)
	}
	return found
}

// A programsEntry is what the memo keeps for one PATH: each of its
// directories with its stamp ("" for a directory that was missing), and
// the programs none of them held.
type programsEntry struct {
	path   string
	dirs   []string
	stamps []string
	absent []string
}

// absentNow returns e's absent programs when every directory of its PATH
// is as it was, else none.
func (e *programsEntry) absentNow() map[string]bool {
	dirs := pathDirs(e.path)
	if !slices.Equal(dirs, e.dirs) {
		return nil
	}
	for i, d := range dirs {
		var st unix.Stat_t
		err := unix.Stat(d, &st)
		switch {
		case e.stamps[i] == "" && err == unix.ENOENT:
		case e.stamps[i] != "" && err == nil && filestamp.Matches(&st, e.stamps[i]):
		default:
			return nil
		}
	}
	out := make(map[string]bool, len(e.absent))
	for _, p := range e.absent {
		out[p] = true
	}
	return out
}

// absentEntry is the memo's entry for path: the programs of looked that
// were not found and are no entry in any of its directories, with those
// known absent already; false when some directory cannot be stamped
// (changed too recently, or neither there nor missing).
func absentEntry(path string, looked []string, found, known map[string]bool) (programsEntry, bool) {
	e := programsEntry{path: path, dirs: pathDirs(path)}
	now := time.Now()
	// Stamps first, the names after: a name made in between moves its
	// directory's stamp on, and the next command looks again.
	for _, d := range e.dirs {
		var st unix.Stat_t
		switch err := unix.Stat(d, &st); {
		case err == unix.ENOENT:
			e.stamps = append(e.stamps, "")
		case err != nil:
			return e, false
		default:
			s := filestamp.Of(&st, now)
			if s == "" {
				return e, false
			}
			e.stamps = append(e.stamps, s)
		}
	}
	// Those the memo knew are looked at again too: a directory may have
	// changed since they were answered from it.
	candidates := slices.Collect(maps.Keys(known))
	for _, p := range looked {
		if !found[p] {
			candidates = append(candidates, p)
		}
	}
	for _, p := range candidates {
		if validProgram(p) && noEntry(e.dirs, p) {
			e.absent = append(e.absent, p)
		}
	}
	slices.Sort(e.absent)
	return e, len(e.absent) > 0
}

// validProgram reports whether p can be kept in the memo: a plain name.
func validProgram(p string) bool {
	return p != "" && !strings.ContainsAny(p, "/ \t\n\x00")
}

// noEntry reports whether no directory of dirs has an entry named p (a
// link that leads nowhere is one).
func noEntry(dirs []string, p string) bool {
	for _, d := range dirs {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(d, p), &st); err != unix.ENOENT {
			return false
		}
	}
	return true
}

// readProgramsMemo reads the memo's entries, none when it is not this
// user's own regular file or not well formed.
func readProgramsMemo(file string) []programsEntry {
	data, err := smallfile.Read(file, unix.O_NOFOLLOW, maxProgramsMemo, func(st *unix.Stat_t) error {
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) || st.Mode&0o022 != 0 {
			return errNotOwnMemo
		}
		return nil
	})
	if err != nil {
		return nil
	}
	entries, ok := parseProgramsMemo(data)
	if !ok {
		return nil
	}
	return entries
}

var errNotOwnMemo = errors.New("not a file of this user's that only it can write")

// parseProgramsMemo reads the memo's lines: its format, then for each
// PATH a "p PATH" line, one "d STAMP|- DIR" line per directory (a stamp
// is five numbers, "-" a missing directory) and an "a NAME..." line.
func parseProgramsMemo(data []byte) ([]programsEntry, bool) {
	lines := strings.Split(string(bytes.TrimSuffix(data, []byte("\n"))), "\n")
	if len(lines) == 0 || lines[0] != programsFormat {
		return nil, false
	}
	var out []programsEntry
	var cur *programsEntry
	for _, l := range lines[1:] {
		tag, rest, ok := strings.Cut(l, " ")
		switch {
		case !ok:
			return nil, false
		case tag == "p":
			out = append(out, programsEntry{path: rest})
			cur = &out[len(out)-1]
		case cur == nil:
			return nil, false
		case tag == "d":
			if dir, ok := strings.CutPrefix(rest, "- "); ok {
				cur.stamps, cur.dirs = append(cur.stamps, ""), append(cur.dirs, dir)
				break
			}
			f := strings.SplitN(rest, " ", 6)
			if len(f) != 6 {
				return nil, false
			}
			cur.stamps, cur.dirs = append(cur.stamps, strings.Join(f[:5], " ")), append(cur.dirs, f[5])
		case tag == "a":
			cur.absent = strings.Fields(rest)
		default:
			return nil, false
		}
	}
	for _, e := range out {
		if len(e.dirs) != len(e.stamps) || len(e.absent) == 0 {
			return nil, false
		}
	}
	return out, true
}

// writeProgramsMemo writes e first, then the others of old but e's
// PATH's, up to [maxProgramsPaths].
func writeProgramsMemo(file string, e programsEntry, old []programsEntry) {
	var b strings.Builder
	b.WriteString(programsFormat + "\n")
	n := 0
	for _, x := range append([]programsEntry{e}, old...) {
		if n == maxProgramsPaths || n > 0 && x.path == e.path {
			continue
		}
		n++
		b.WriteString("p " + x.path + "\n")
		for i, d := range x.dirs {
			s := x.stamps[i]
			if s == "" {
				s = "-"
			}
			b.WriteString("d " + s + " " + d + "\n")
		}
		b.WriteString("a " + strings.Join(x.absent, " ") + "\n")
	}
	if os.MkdirAll(filepath.Dir(file), 0o700) == nil {
		atomicfile.WriteMode(file, []byte(b.String()), 0o600)
	}
}

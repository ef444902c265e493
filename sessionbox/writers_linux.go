package sessionbox

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/platform"
)

// guardedWriter returns a process a command left running in the
// sandbox that can write a place the host runs from ([guard.IsPlace])
// past the guard's watch between commands, and the place: one it holds
// open for writing (a mapping it makes of it later is written with no
// event inotify sees) or has mapped shared (one mapped read-only can be
// made writable with mprotect when its descriptor was opened for
// writing). 0 when none does.
func (m *manager) guardedWriter() (pid int, place string) {
	t := &placeTest{
		isPlace: func(p string) bool { return guard.IsPlace(m.s.Policy, p) },
		files:   func() []string { return guard.GuardedFiles(m.s.StateDir, m.s.Policy) },
		ws:      m.s.Policy.Workspace,
	}
	for _, pid := range m.below() {
		if start, ok := m.base[pid]; ok && start != "" && platform.ProcessStart(pid) == start {
			continue
		}
		if !m.sandboxed(pid) {
			continue
		}
		if place, ok := writesPlace(pid, t); ok {
			return pid, place
		}
	}
	return 0, ""
}

// A placeTest tells a place the host runs from among the files a
// process holds: by name ([guard.IsPlace]), or by device and inode, the
// guarded files' ([guard.GuardedFiles]): a hard link of another name,
// or one since removed (its mapping named "x (deleted)"), is the same
// file under a name no pattern matches.
type placeTest struct {
	isPlace func(path string) bool
	files   func() []string // the guarded files, read at the first need
	ws      string
	byID    map[[2]uint64]string // the guarded files by device and inode
	byIno   map[uint64]string    // and by inode alone
}

// match reports whether the file at path (as the process sees it, with
// no " (deleted)"), of device dev and inode ino, is a place, and which.
func (t *placeTest) match(path string, dev, ino uint64) (string, bool) {
	if t.isPlace(path) {
		return path, true
	}
	if t.byID == nil {
		t.byID, t.byIno = map[[2]uint64]string{}, map[uint64]string{}
		for _, f := range t.files() {
			var st unix.Stat_t
			if unix.Stat(f, &st) == nil {
				t.byID[[2]uint64{st.Dev, st.Ino}] = f
				t.byIno[st.Ino] = f
			}
		}
	}
	if f, ok := t.byID[[2]uint64{dev, ino}]; ok {
		return f, true
	}
	// (The device a mapping names is its file system's, which on btrfs
	// or overlayfs is not the one stat gives: in the workspace, the
	// inode alone.)
	f, ok := t.byIno[ino]
	return f, ok && t.ws != "" && platform.Within(path, t.ws)
}

// writesPlace reports whether process pid holds a file t tells open for
// writing, or mapped shared, and which. A process whose leader exited
// while another thread runs on reads with no descriptors and no
// mappings: its threads are read instead ([liveTasks]).
func writesPlace(pid int, t *placeTest) (string, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	maps, _ := smallfile.ReadFile(dir + "/maps")
	if len(maps) > 0 {
		return writesPlaceIn(dir, maps, t)
	}
	for _, task := range liveTasks(pid) {
		maps, _ := smallfile.ReadFile(task + "/maps")
		if place, ok := writesPlaceIn(task, maps, t); ok {
			return place, true
		}
	}
	return "", false
}

// liveTasks returns the /proc directories of process pid's threads but
// its leader's.
func liveTasks(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	names, _ := smallfile.ReadDirNames(dir)
	var out []string
	for _, n := range names {
		if n != strconv.Itoa(pid) {
			out = append(out, dir+n)
		}
	}
	return out
}

// writesPlaceIn reports whether the process or thread of /proc
// directory dir, whose maps are maps, holds a file t tells open for
// writing or mapped shared, and which.
func writesPlaceIn(dir string, maps []byte, t *placeTest) (string, bool) {
	if place, ok := writableFD(dir, t); ok {
		return place, true
	}
	return mappedShared(maps, t)
}

// writableFD reports whether the process of /proc directory dir holds
// a file t tells open for writing, and which.
func writableFD(dir string, t *placeTest) (string, bool) {
	names, _ := smallfile.ReadDirNames(dir + "/fd")
	for _, n := range names {
		// (The mode before the place: a dev server holds hundreds of
		// files open for reading, few for writing.)
		target, err := os.Readlink(dir + "/fd/" + n)
		if err != nil || !strings.HasPrefix(target, "/") {
			continue // a pipe, a socket, or closed meanwhile
		}
		info, err := smallfile.ReadFile(dir + "/fdinfo/" + n)
		if err != nil {
			continue // closed meanwhile
		}
		if flags, ok := fdinfoFlags(info); ok && flags&unix.O_ACCMODE == unix.O_RDONLY {
			continue
		}
		// (The descriptor's own file, whatever its name now.)
		var st unix.Stat_t
		if unix.Stat(dir+"/fd/"+n, &st) != nil {
			continue
		}
		if place, ok := t.match(strings.TrimSuffix(target, " (deleted)"), st.Dev, st.Ino); ok {
			return place, true
		}
	}
	return "", false
}

// mappedShared reports whether maps (a /proc/PID/maps) has a shared
// mapping of a file t tells, and which.
func mappedShared(maps []byte, t *placeTest) (string, bool) {
	for _, line := range strings.Split(string(maps), "\n") {
		// ADDR PERMS OFFSET DEV INODE PATH (the path after spaces).
		// Any shared mapping: one mapped read-only from a descriptor
		// opened for writing can be made writable later (mprotect), and
		// written with no descriptor left.
		f := strings.SplitN(line, " ", 6)
		if len(f) < 6 || len(f[1]) < 4 || f[1][3] != 's' {
			continue
		}
		path := strings.TrimSuffix(strings.TrimLeft(f[5], " "), " (deleted)")
		dev, ok1 := mapsDev(f[3])
		ino, err := strconv.ParseUint(f[4], 10, 64)
		if !strings.HasPrefix(path, "/") || !ok1 || err != nil {
			continue
		}
		if place, ok := t.match(path, dev, ino); ok {
			return place, true
		}
	}
	return "", false
}

// mapsDev reads a device of /proc/PID/maps, "MAJOR:MINOR" in hex.
func mapsDev(s string) (uint64, bool) {
	major, minor, ok := strings.Cut(s, ":")
	ma, err1 := strconv.ParseUint(major, 16, 32)
	mi, err2 := strconv.ParseUint(minor, 16, 32)
	return unix.Mkdev(uint32(ma), uint32(mi)), ok && err1 == nil && err2 == nil
}

// fdinfoFlags reads the flags line of a /proc/PID/fdinfo/N file (octal).
func fdinfoFlags(info []byte) (int, bool) {
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return int(n), err == nil
		}
	}
	return 0, false
}

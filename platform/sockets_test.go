package platform

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// listenUnix listens on a Unix socket at path (its directory made) for
// the rest of the test, and returns path.
func listenUnix(t *testing.T, path string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return path
}

// TestHostSockets checks where the host's sockets are looked for: every
// socket under the scratch directories and the home directory down to
// their depth, but not those hidden already, in the workspace, named by
// the policy, or deeper.
func TestHostSockets(t *testing.T) {
	dir := t.TempDir()
	home, scratch := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	listen := func(path string) string { return listenUnix(t, path) }
	found := []string{
		listen(filepath.Join(scratch, "top")),
		listen(filepath.Join(scratch, "emacs0", "server")),
		listen(filepath.Join(home, ".app", "ctl")),
		listen(filepath.Join(home, ".cache", "d.sock")),
	}
	notFound := []string{
		listen(filepath.Join(scratch, "a", "b", "too-deep")),
		listen(filepath.Join(home, ".ssh", "agent")),    // hidden already
		listen(filepath.Join(home, "proj", "app.sock")), // the workspace's
		listen(filepath.Join(home, ".ide", "brid")),     // named
	}
	os.WriteFile(filepath.Join(scratch, "file"), nil, 0o644)
	p := &Policy{
		Workspace: filepath.Join(home, "proj"),
		Home:      home,
		Scratch:   []string{scratch},
		Writable:  []string{filepath.Join(home, ".cache"), filepath.Join(home, "proj")},
		Hidden:    []string{filepath.Join(home, ".ssh")},
		Sockets:   []string{filepath.Join(home, ".ide")},
		Network:   NetworkOff,
	}
	got, partial := p.hostSockets(readDirPlain)
	for _, f := range found {
		if !slices.Contains(got, f) {
			t.Errorf("%s not found in %q", f, got)
		}
	}
	for _, f := range notFound {
		if slices.Contains(got, f) {
			t.Errorf("%s found", f)
		}
	}
	if partial {
		t.Errorf("the search stopped early")
	}
	d := p.SocketDegradations(false, true)
	if len(d) != 1 || !strings.Contains(d[0], "after a command starts") {
		t.Errorf("network off, mounts: %q", d)
	}
	if d := p.SocketDegradations(true, false); len(d) != 0 {
		t.Errorf("network off, resolve_unix: %q", d)
	}
	p.Network = NetworkOn
	if d := p.SocketDegradations(true, false); len(d) != 1 || !strings.Contains(d[0], "loopback") {
		t.Errorf("network on: %q", d)
	}
}

// TestPolicySocketsNamed checks that a socket the policy names stays
// reachable under a hidden name or in a hidden directory, and that naming
// a directory holding credentials uncovers none of them.
func TestPolicySocketsNamed(t *testing.T) {
	dir := t.TempDir()
	home, scratch, run := filepath.Join(dir, "home"), filepath.Join(dir, "tmp"), filepath.Join(dir, "run")
	for _, d := range []string{filepath.Join(home, ".ssh"), scratch, filepath.Join(run, "ide")} {
		os.MkdirAll(d, 0o755)
	}
	for _, f := range []string{filepath.Join(run, "ide", "b.sock"), filepath.Join(home, ".ssh", "id")} {
		os.WriteFile(f, nil, 0o600)
	}
	l, err := net.Listen("unix", filepath.Join(scratch, "ide.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p, err := NewPolicy(&Spec{
		Scratch:        []string{scratch},
		ScratchPrivate: []string{"*.sock"},
		Hidden:         []string{"~/.ssh", "$XDG_RUNTIME_DIR"},
		Sockets:        []string{scratch + "/ide.sock", "$XDG_RUNTIME_DIR/ide/b.sock", "~"},
	}, []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + run})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.Hidden, filepath.Join(scratch, "ide.sock")) {
		t.Errorf("the named socket stays hidden: %q", p.Hidden)
	}
	if !slices.Contains(p.Visible, filepath.Join(run, "ide", "b.sock")) || !slices.Contains(p.Hidden, run) {
		t.Errorf("the runtime directory is not hidden around its named socket: hidden %q, visible %q", p.Hidden, p.Visible)
	}
	if !slices.Contains(p.Hidden, filepath.Join(home, ".ssh")) {
		t.Errorf("naming ~ uncovered ~/.ssh: %q", p.Hidden)
	}
}

// BenchmarkHostSockets measures the search on this machine: /tmp,
// /var/tmp, /dev/shm, /run and the home directory.
func BenchmarkHostSockets(b *testing.B) {
	home, _ := os.UserHomeDir()
	p := &Policy{Home: realPath(home), Scratch: []string{"/tmp", "/var/tmp", "/dev/shm"}}
	for b.Loop() {
		p.hostSockets(readDirPlain)
	}
}

// BenchmarkHostSocketsTree measures the search in a made tree, the same
// from run to run (this machine's /tmp is not): a scratch directory of
// 60 directories of 150 files each (build directories), a home
// directory of 20 directories of 40.
func BenchmarkHostSocketsTree(b *testing.B) {
	dir := b.TempDir()
	fill := func(root string, dirs, files int) {
		for d := range dirs {
			sub := filepath.Join(root, fmt.Sprintf("d%d", d))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range files {
				os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d", f)), nil, 0o644)
			}
		}
	}
	home, scratch := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	fill(scratch, 60, 150)
	fill(home, 20, 40)
	p := &Policy{Home: home, Scratch: []string{scratch}}
	for b.Loop() {
		p.hostSockets(readDirPlain)
	}
}

// TestHostSocketsScratchFull: a scratch directory full of directories
// (an earlier command can make thousands in /tmp) uses up the search's
// budget, but not before the home directory's sockets are found.
func TestHostSocketsScratchFull(t *testing.T) {
	p := &Policy{Workspace: "/home/u/proj", Home: "/home/u", Scratch: []string{"/tmp"}, Network: NetworkOff}
	readDir := func(dir string) []dirEntry {
		switch dir {
		case "/tmp":
			var out []dirEntry
			for i := range 3 * maxSocketDirs {
				out = append(out, dirEntry{Name: fmt.Sprintf("d%d", i)})
			}
			return out
		case "/home/u":
			return []dirEntry{{Name: ".app"}, {Name: "proj"}}
		case "/home/u/.app":
			return []dirEntry{{Name: "ctl", Socket: true}}
		}
		return nil
	}
	got, partial := p.hostSockets(readDir)
	if !partial {
		t.Error("the search was cut short and does not say so")
	}
	if !slices.Contains(got, "/home/u/.app/ctl") {
		t.Errorf("the home directory's socket is not found behind a full /tmp: %q", got)
	}
}

// TestHostSocketsListingsKept: the socket search keeps its listings in
// the state directory and takes a directory's from there while its
// stamp holds (a forged entry shows, so the kept listing was used); a
// socket made since, one removed, and a directory replaced by a socket
// of its name are all seen by the next search, as a search without the
// kept listings sees them.
func TestHostSocketsListingsKept(t *testing.T) {
	home, scratch, state := listingsTree(t, "home/.app", "tmp/emacs0", "tmp/build")
	var listeners []net.Listener
	listen := func(path string) {
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		listeners = append(listeners, l)
	}
	t.Cleanup(func() {
		for _, l := range listeners {
			l.Close()
		}
	})
	listen(filepath.Join(scratch, "emacs0", "server"))
	search := func(keep bool) []string { return searchSockets(home, scratch, state, keep) }
	same := func(why string) []string {
		t.Helper()
		got, want := search(true), search(false)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: with the kept listings %q, without %q", why, got, want)
		}
		return got
	}
	time.Sleep(2 * racyMargin)
	same("first search")
	file := listingsFile(state, home)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the listings were not kept: %v", err)
	}
	// Used while unchanged: a socket forged into a kept listing shows.
	forge(t, file, func(body string) string {
		return strings.Replace(body, "e S server\n", "e S server\ne S forged\n", 1)
	})
	if got := search(true); !slices.Contains(got, filepath.Join(scratch, "emacs0", "forged")) {
		t.Fatalf("the kept listing was not used: %q", got)
	}
	// Changes since are seen.
	listen(filepath.Join(scratch, "build", "new.sock"))
	os.Remove(filepath.Join(scratch, "emacs0", "server"))
	listen(filepath.Join(home, ".app", "ctl"))
	got := same("after changes")
	for _, s := range []string{filepath.Join(scratch, "build", "new.sock"), filepath.Join(home, ".app", "ctl")} {
		if !slices.Contains(got, s) {
			t.Errorf("%s made since is not found: %q", s, got)
		}
	}
	if slices.Contains(got, filepath.Join(scratch, "emacs0", "server")) || slices.Contains(got, filepath.Join(scratch, "emacs0", "forged")) {
		t.Errorf("a socket gone is still found: %q", got)
	}
	time.Sleep(2 * racyMargin)
	same("settled")
	os.RemoveAll(filepath.Join(scratch, "build"))
	listen(filepath.Join(scratch, "build"))
	if got := same("a directory replaced by a socket"); !slices.Contains(got, filepath.Join(scratch, "build")) {
		t.Errorf("the socket in place of a directory is not found: %q", got)
	}
}

// TestHostSocketsListingSwapped: a parent of a listed directory swapped
// with another between the directory's stamp and its listing (a command
// of a sandbox that can write the parent's parent, /tmp, renaming its
// $TMPDIR and a decoy in a loop: an attacker won it in seconds) makes the
// path name another directory for the listing. What is kept must be the
// listing of the directory whose stamp it carries: else the decoy's empty
// listing stood, under the real directory's stamp, for every later
// search, and a host socket in it was never covered again.
func TestHostSocketsListingSwapped(t *testing.T) {
	home, scratch, state := listingsTree(t, "tmp/x/d", "tmp/decoy/d")
	t.Cleanup(func() { beforeListing = nil })
	real, decoy := filepath.Join(scratch, "x"), filepath.Join(scratch, "decoy")
	host := filepath.Join(real, "d", "host.sock")
	l, err := net.Listen("unix", host)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	time.Sleep(3 * racyMargin)
	search := func(keep bool) []string { return searchSockets(home, real, state, keep) }
	swap := func() {
		if err := os.Rename(real, filepath.Join(scratch, "tmp")); err != nil {
			t.Fatal(err)
		}
		os.Rename(decoy, real)
		os.Rename(filepath.Join(scratch, "tmp"), decoy)
	}
	// Swapped once between the stamp of x/d and its listing, and back
	// after the search.
	beforeListing = func(dir string) {
		if dir == filepath.Join(real, "d") {
			beforeListing = nil
			swap()
		}
	}
	search(true)
	swap()
	if _, err := os.Stat(host); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if with, without := search(true), search(false); !slices.Contains(with, host) || !slices.Contains(without, host) {
			t.Fatalf("search %d after the swap: the host socket with the kept listings %v, without %v", i, slices.Contains(with, host), slices.Contains(without, host))
		}
	}
}

// listingsTree makes, for the tests of the kept listings, a root with
// home/, tmp/ and state/ and the directories dirs below it (relative),
// with a short racy margin; the test is skipped where no listings are
// kept.
func listingsTree(t *testing.T, dirs ...string) (home, scratch, state string) {
	t.Helper()
	if !canStamp {
		t.Skip("no kept listings on this system")
	}
	old := racyMargin
	racyMargin = 50 * time.Millisecond
	t.Cleanup(func() { racyMargin = old })
	root := t.TempDir()
	home, scratch, state = filepath.Join(root, "home"), filepath.Join(root, "tmp"), filepath.Join(root, "state")
	for _, d := range append([]string{home, scratch, state}, dirs...) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, scratch, state
}

// searchSockets is the socket search of a policy with home and the
// scratch directory scratch, its listings kept in state when keep is set.
func searchSockets(home, scratch, state string, keep bool) []string {
	p := &Policy{Home: home, Scratch: []string{scratch}, Network: NetworkOff}
	if keep {
		p.keepListingsIn(state)
	}
	p.SearchSockets()
	return p.HostSockets
}

// BenchmarkListDir compares listDir (getdents64 read in place, the
// subdirectories and sockets kept) with os.ReadDir on a directory of 450
// entries, 150 of them directories.
func BenchmarkListDir(b *testing.B) {
	dir := b.TempDir()
	for i := range 450 {
		p := filepath.Join(dir, fmt.Sprintf("e%d", i))
		if i%3 == 0 {
			os.Mkdir(p, 0o755)
		} else {
			os.WriteFile(p, nil, 0o644)
		}
	}
	b.Run("listDir", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			listDir(dir)
		}
	})
	b.Run("os.ReadDir", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			os.ReadDir(dir)
		}
	})
}

// TestHostSocketsBound: a socket bound in this network namespace is
// covered wherever it lies below a socket root, past the search's depth
// (a directory moved deeper by a command of an earlier sandbox) and past
// its budget (a scratch directory an earlier command filled with
// directories that sort before it): both left an editor's server in
// /tmp uncovered, found by an attacker. Searched without /proc/net/unix,
// neither is found: the test can fail.
func TestHostSocketsBound(t *testing.T) {
	scratch := t.TempDir()
	listen := func(path string) string { return listenUnix(t, path) }
	deep := listen(filepath.Join(scratch, "x", "y", "emacs0", "server"))
	for i := range maxSocketDirs + 10 {
		if err := os.Mkdir(filepath.Join(scratch, fmt.Sprintf("a%05d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	behind := listen(filepath.Join(scratch, "zz", "ctl"))
	mine := listen(filepath.Join(scratch, "proj", "app.sock"))
	policy := func() *Policy {
		return &Policy{Workspace: filepath.Join(scratch, "proj"), Scratch: []string{scratch}, Network: NetworkOff}
	}

	p := policy()
	p.HostSockets, p.socketsPartial = p.hostSockets(readDirPlain)
	if slices.Contains(p.HostSockets, deep) || slices.Contains(p.HostSockets, behind) || !p.socketsPartial {
		t.Fatalf("the walk alone: %d sockets, partial %v; the test's tree does not hide them", len(p.HostSockets), p.socketsPartial)
	}

	p = policy()
	p.SearchSockets()
	for _, s := range []string{deep, behind} {
		if !slices.Contains(p.HostSockets, s) {
			t.Errorf("%s is not covered", s)
		}
	}
	if slices.Contains(p.HostSockets, mine) {
		t.Errorf("the workspace's own socket %s is covered", mine)
	}
	// The directories on the way are pinned, so that none can be moved
	// deeper from inside (bound by descriptor: TestBwrapArgsByDescriptor).
	pins := p.Pins()
	for _, d := range []string{filepath.Join(scratch, "x"), filepath.Join(scratch, "x", "y"), filepath.Join(scratch, "x", "y", "emacs0"), filepath.Join(scratch, "zz")} {
		if !slices.Contains(pins, d) {
			t.Errorf("%s is not pinned: %q", d, pins)
		}
	}
	if slices.Contains(pins, scratch) {
		t.Errorf("the scratch directory itself is pinned")
	}
}

// TestBoundSocketsTable: the paths /proc/net/unix names are read whole
// (spaces and all), and only a clean absolute path below a socket root
// that names a socket now is taken.
func TestBoundSocketsTable(t *testing.T) {
	scratch := t.TempDir()
	spaced := listenUnix(t, filepath.Join(scratch, "my app", "ctl sock"))
	file := filepath.Join(scratch, "file")
	os.WriteFile(file, nil, 0o644)
	outside := t.TempDir()
	listenUnix(t, filepath.Join(outside, "s"))
	table := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 100 " + spaced + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 101 @abstract\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 102 relative/sock\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 103 " + scratch + "/../x\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 104 " + file + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 105 " + filepath.Join(scratch, "gone") + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 106 " + filepath.Join(outside, "s") + "\n" +
		"0000000000000000: 00000003 00000000 00000000 0001 03 107\n"
	// A link on the way (/tmp/l -> ../home/me/proj) would lay the cover
	// where it leads: found by an attacker, with a link to the
	// workspace's parent.
	listenUnix(t, filepath.Join(scratch, "real", "ctl"))
	if err := os.Symlink("real", filepath.Join(scratch, "link")); err != nil {
		t.Fatal(err)
	}
	table += "0000000000000000: 00000002 00000000 00010000 0001 01 108 " + filepath.Join(scratch, "link", "ctl") + "\n"
	p := &Policy{Scratch: []string{scratch}, Network: NetworkOff}
	if got := p.boundSockets([]byte(table)); !slices.Equal(got, []string{spaced}) {
		t.Errorf("bound sockets %q, want %q", got, []string{spaced})
	}

	// A directory of this user's on the way that cannot be searched (a
	// command chmods it, and opens it again in the next sandbox) is
	// covered whole. Root searches it all the same.
	shut := filepath.Join(scratch, "shut")
	behind := listenUnix(t, filepath.Join(shut, "a", "ctl"))
	os.Chmod(shut, 0o400)
	defer os.Chmod(shut, 0o755)
	got := p.boundSockets([]byte("0000000000000000: 00000002 00000000 00010000 0001 01 109 " + behind + "\n"))
	want := []string{shut}
	if os.Geteuid() == 0 {
		want = []string{behind}
	}
	if !slices.Equal(got, want) {
		t.Errorf("behind a shut directory: %q, want %q", got, want)
	}
	// Reached through a link (/tmp/A/l -> the workspace, shut while the
	// search runs): the cover would fall where it leads (found by this
	// round's review).
	if err := os.Symlink("shut", filepath.Join(scratch, "lk")); err != nil {
		t.Fatal(err)
	}
	if got := p.boundSockets([]byte("0000000000000000: 00000002 00000000 00010000 0001 01 110 " + filepath.Join(scratch, "lk", "a", "ctl") + "\n")); len(got) != 0 {
		t.Errorf("through a link to a shut directory: %q", got)
	}
}

// TestSocketPins: the directories on the way to a covered host socket
// are pinned, but not inside a cover above it (a hidden directory, or
// one the search could not list: a pin would lay the directory again
// inside the cover), nor below a read-only path (a writable pin would
// open it); and past maxSocketPins none is, which cordon sandbox says
// (found by this round's review).
func TestSocketPins(t *testing.T) {
	p := &Policy{
		Scratch:     []string{"/tmp"},
		Hidden:      []string{"/tmp/h"},
		ReadOnly:    []string{"/tmp/ws/.git/hooks"},
		HostSockets: []string{"/tmp/a/b/s", "/tmp/h/x/s", "/tmp/u", "/tmp/u/v/s", "/tmp/ws/.git/hooks/q/s", "/tmp/top.sock"},
		Network:     NetworkOff,
	}
	if got, want := p.socketPins(), []string{"/tmp/a", "/tmp/a/b"}; !slices.Equal(got, want) {
		t.Errorf("socket pins %q, want %q", got, want)
	}
	for _, bad := range []string{"/tmp/h/x", "/tmp/u/v", "/tmp/ws/.git/hooks/q"} {
		if slices.Contains(p.Pins(), bad) {
			t.Errorf("%s is pinned", bad)
		}
	}
	p.HostSockets = nil
	for i := range maxSocketPins + 1 {
		p.HostSockets = append(p.HostSockets, fmt.Sprintf("/tmp/d%03d/s", i))
	}
	if pins := p.socketPins(); len(pins) != 0 {
		t.Errorf("%d pins past the bound", len(pins))
	}
	if d := p.SocketDegradations(false, true); len(d) != 1 || !strings.Contains(d[0], "none is kept from being moved") {
		t.Errorf("past the bound: %q", d)
	}
}

package platform

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestBwrapArgs(t *testing.T) {
	root := tree(t, "home/.ssh/id_rsa", "home/.ssh/known_hosts", "home/.netrc", "tmp/ws/.git/hooks/", "tmp/ws/.git/config")
	home, tmp := root+"/home", root+"/tmp"
	p := &Policy{
		Workspace: tmp + "/ws",
		Home:      home,
		Scratch:   []string{tmp},
		Writable:  []string{tmp + "/ws"},
		ReadOnly:  []string{tmp + "/ws/.git/config", tmp + "/ws/.git/hooks"},
		Hidden:    []string{home + "/.netrc", home + "/.ssh"},
		Visible:   []string{home + "/.ssh/known_hosts"},
		Network:   NetworkOff,
		// The agent's start, for the shims inside.
		AgentSince: 1796509663520000000,
	}
	b := &bwrapBackend{policy: p, probe: &BwrapProbe{Path: "/usr/bin/bwrap", Options: map[string]bool{"--disable-userns": true}}}
	var fds [][]byte
	args, err := b.args("/usr/bin/bash", []string{"/usr/bin/bash", "-c", "true"}, "/w", true, func(data []byte) (int, error) {
		fds = append(fds, data)
		return 100 + len(fds) - 1, nil
	}, func(path string) (int, error) {
		t.Errorf("%s opened without --bind-fd", path)
		return -1, syscall.EINVAL
	})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{
		"--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --die-with-parent --cap-drop ALL --unshare-net --disable-userns --new-session",
		"--ro-bind / / --dev /dev --proc /proc --ro-bind-data 100 " + SinceFile,
		// Parents before children: the workspace under /tmp stays.
		"--bind " + tmp + " " + tmp + " --bind-try " + tmp + "/ws " + tmp + "/ws --bind-try " + tmp + "/ws/.git " + tmp + "/ws/.git --ro-bind-try " + tmp + "/ws/.git/config " + tmp + "/ws/.git/config --ro-bind-try " + tmp + "/ws/.git/hooks",
		"--perms 0000 --ro-bind-data 101 " + home + "/.netrc",
		"--perms 0111 --tmpfs " + home + "/.ssh --ro-bind-try " + home + "/.ssh/known_hosts",
		"--remount-ro " + home + "/.ssh",
		"--seccomp 102 --chdir /w -- /usr/bin/bash -c true",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("bwrap's command line lacks %q:\n%s", want, line)
		}
	}
	if len(fds) != 3 || string(fds[0]) != "1796509663520000000" || len(fds[1]) != 0 || len(fds[2])%8 != 0 || len(fds[2]) == 0 {
		t.Errorf("data descriptors: %d, want the agent's start, an empty one and the filter", len(fds))
	}
	if args[0] != "/usr/bin/bwrap" {
		t.Errorf("args[0] = %q", args[0])
	}
}

// TestBwrapArgsByDescriptor: with bwrap's --bind-fd, what lies inside a
// writable directory (the workspace in /tmp, its .git, .git/config and
// hooks) is bound by a descriptor opened without following links, and
// what does not (/tmp itself, the agent's start, ~/.ssh's known_hosts)
// by its name as before; a path gone since is no bind, one that is a
// link now refuses the sandbox.
func TestBwrapArgsByDescriptor(t *testing.T) {
	root := tree(t, "home/.ssh/known_hosts", "tmp/ws/.git/hooks/", "tmp/ws/.git/config")
	home, tmp := root+"/home", root+"/tmp"
	p := &Policy{
		Workspace: tmp + "/ws",
		Home:      home,
		Scratch:   []string{tmp},
		Writable:  []string{tmp + "/ws"},
		ReadOnly:  []string{tmp + "/ws/.git/config", tmp + "/ws/.git/hooks"},
		Hidden:    []string{home + "/.ssh"},
		Visible:   []string{home + "/.ssh/known_hosts"},
		Network:   NetworkOff,
	}
	b := &bwrapBackend{policy: p, probe: &BwrapProbe{Path: "/usr/bin/bwrap", Options: map[string]bool{"--bind-fd": true}}}
	paths := map[int]string{}
	open := func(path string) (int, error) {
		paths[200+len(paths)] = path
		return 200 + len(paths) - 1, nil
	}
	data := func([]byte) (int, error) { return 100, nil }
	args, err := b.args("/usr/bin/bash", []string{"/usr/bin/bash"}, "", true, data, open)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{
		"--bind " + tmp + " " + tmp + " --bind-fd 200 " + tmp + "/ws --bind-fd 201 " + tmp + "/ws/.git --ro-bind-fd 202 " + tmp + "/ws/.git/config --ro-bind-fd 203 " + tmp + "/ws/.git/hooks",
		"--ro-bind-try " + home + "/.ssh/known_hosts " + home + "/.ssh/known_hosts",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("bwrap's command line lacks %q:\n%s", want, line)
		}
	}
	if len(paths) != 4 || paths[201] != tmp+"/ws/.git" {
		t.Errorf("opened %v", paths)
	}

	gone := func(path string) (int, error) {
		if path == tmp+"/ws/.git/hooks" {
			return -1, syscall.ENOENT
		}
		return 300, nil
	}
	if args, err := b.args("/usr/bin/bash", []string{"/usr/bin/bash"}, "", true, data, gone); err != nil || strings.Contains(strings.Join(args, " "), "/ws/.git/hooks") {
		t.Errorf("a path gone since: %v\n%s", err, strings.Join(args, " "))
	}
	linked := func(path string) (int, error) {
		if path == tmp+"/ws/.git" {
			return -1, syscall.ELOOP
		}
		return 300, nil
	}
	if _, err := b.args("/usr/bin/bash", []string{"/usr/bin/bash"}, "", true, data, linked); err == nil || !strings.Contains(err.Error(), "changed while the sandbox was being made") {
		t.Errorf("a link in place of .git: %v", err)
	}
}

// TestOpenUnfollowed: a link anywhere on the way is refused (ELOOP), a
// missing path is ENOENT, a real one opens as itself.
func TestOpenUnfollowed(t *testing.T) {
	root := tree(t, "real/dir/", "real/file")
	os.Symlink("real", root+"/link")
	for path, want := range map[string]error{
		root + "/real/dir":  nil,
		root + "/real/file": nil,
		root + "/link/dir":  syscall.ELOOP,
		root + "/link":      syscall.ELOOP,
		root + "/real/none": syscall.ENOENT,
	} {
		fd, err := openUnfollowed(path)
		if want == nil {
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			got, _ := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
			syscall.Close(fd)
			if got != path {
				t.Errorf("%s opened as %s", path, got)
			}
		} else if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", path, err, want)
		}
	}
}

func TestBwrapCommand(t *testing.T) {
	probe := &BwrapProbe{Options: map[string]bool{}, Loader: "/lib/ld.so", LoaderArgv0: true}
	static := filepath.Join(t.TempDir(), "static")
	os.WriteFile(static, []byte("#!/bin/sh\n"), 0o755)
	dynamic := "/bin/sh"
	loader := elfInterp(dynamic)
	if loader == "" {
		t.Skip("/bin/sh is not a dynamic ELF program")
	}
	probe.Loader = loader
	b := &bwrapBackend{probe: probe}
	for _, c := range []struct {
		path string
		argv []string
		want string
	}{
		{dynamic, []string{dynamic, "-c", "x"}, "-- " + dynamic + " -c x"},
		{dynamic, []string{"sh", "-c", "x"}, "-- " + loader + " --argv0 sh " + dynamic + " -c x"},
		{dynamic, []string{"-sh"}, "-- " + loader + " --argv0 -sh " + dynamic},
		{static, []string{"-sh", "-c", "x"}, "-- " + static + " -l -c x"},
		{static, []string{"sh", "x"}, "-- " + static + " x"},
	} {
		if got := strings.Join(b.command(c.path, c.argv), " "); got != c.want {
			t.Errorf("command(%s, %q) = %q, want %q", c.path, c.argv, got, c.want)
		}
	}
	b.probe.Options["--argv0"] = true
	if got := strings.Join(b.command(dynamic, []string{"sh", "-c", "x"}), " "); got != "--argv0 sh -- "+dynamic+" -c x" {
		t.Errorf("with --argv0: %q", got)
	}
}

func TestMountsOrder(t *testing.T) {
	p := &Policy{
		Scratch:  []string{"/tmp"},
		Writable: []string{"/tmp/a/ws", "/home/u/.cache"},
		ReadOnly: []string{"/tmp/a/ws/.git/hooks"},
		Hidden:   []string{"/tmp/ssh-x", "/home/u/.ssh"},
		Visible:  []string{"/home/u/.ssh/known_hosts"},
	}
	var got []string
	for _, m := range p.mounts() {
		got = append(got, m.path)
	}
	// (/tmp/a pinned: the workspace's parent in a scratch directory.)
	want := []string{"/home/u/.cache", "/home/u/.ssh", "/home/u/.ssh/known_hosts", "/tmp", "/tmp/a", "/tmp/a/ws", "/tmp/a/ws/.git", "/tmp/a/ws/.git/hooks", "/tmp/ssh-x"}
	if !slices.Equal(got, want) {
		t.Errorf("mounts = %q, want %q", got, want)
	}
}

func TestSeccompFilter(t *testing.T) {
	on, err := seccompFilter(NetworkOn)
	if err != nil {
		t.Skip(err)
	}
	off, err := seccompFilter(NetworkOff)
	if err != nil {
		t.Fatal(err)
	}
	if len(off) <= len(on) {
		t.Errorf("network off adds no instructions: %d vs %d", len(off), len(on))
	}
	if n := len(seccompBytes(off)); n != 8*len(off) {
		t.Errorf("%d bytes for %d instructions", n, len(off))
	}
}

func TestBwrapStatus(t *testing.T) {
	for _, c := range []struct {
		code   int
		signal bool
	}{{0, false}, {1, false}, {128, false}, {130, true}, {137, true}, {143, true}, {145, false}, {200, false}} {
		ws := bwrapStatus(exited(c.code))
		if ws.Signaled() != c.signal {
			t.Errorf("exit %d: signaled = %v, want %v", c.code, ws.Signaled(), c.signal)
		}
		if c.signal && int(ws.Signal()) != c.code-128 {
			t.Errorf("exit %d: signal %d", c.code, ws.Signal())
		}
	}
}

func TestExplainBwrap(t *testing.T) {
	msg := explainBwrap("bwrap: setting up uid map: Permission denied", nil)
	if !strings.Contains(msg, "AppArmor") {
		t.Errorf("no fix given: %s", msg)
	}
}

// exited is the wait status of a process that exited with code.
func exited(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }

func TestElfInterp(t *testing.T) {
	for _, p := range []string{"/bin/sh", "/bin/bash", "/usr/bin/env", os.Args[0]} {
		want := ""
		if f, err := elf.Open(p); err == nil {
			for _, prog := range f.Progs {
				if prog.Type == elf.PT_INTERP {
					b := make([]byte, prog.Filesz)
					prog.ReadAt(b, 0)
					want = strings.TrimRight(string(b), "\x00")
				}
			}
			f.Close()
		}
		if got := elfInterp(p); got != want {
			t.Errorf("elfInterp(%s) = %q, want %q", p, got, want)
		}
	}
	if got := elfInterp("/etc/passwd"); got != "" {
		t.Errorf("elfInterp of a text file = %q", got)
	}
}

// vanishingLitter is a bwrap backend whose policy hides a file in the
// directory litter, in scratch beside the workspace ws: a test removes
// litter while bwrap sets up.
func vanishingLitter(t *testing.T) (b *bwrapBackend, ws, litter string) {
	t.Helper()
	root := t.TempDir()
	ws, litter = filepath.Join(root, "ws"), filepath.Join(root, "litter")
	for _, d := range []string{ws, litter} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hidden := filepath.Join(litter, "s.sock")
	os.WriteFile(hidden, []byte("x"), 0o600)
	p := &Policy{Workspace: ws, Scratch: []string{root}, Writable: []string{ws}, Hidden: []string{hidden}, Network: NetworkOff}
	var err error
	b, err = newBwrap(p, t.TempDir())
	if err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return b, ws, litter
}

// TestBwrapStartsAgainWhenAPathVanishes removes a hidden file's directory,
// and puts a file in its place, between the command line and bwrap's
// mounts (as another program cleaning /tmp does): bwrap cannot set up the
// sandbox, and the command must run all the same, exactly once.
func TestBwrapStartsAgainWhenAPathVanishes(t *testing.T) {
	b, ws, litter := vanishingLitter(t)
	starts := 0
	bwrapStarting = func() {
		starts++
		if starts == 1 {
			os.RemoveAll(litter)
			os.WriteFile(litter, nil, 0o600) // no directory can be made there
		}
	}
	defer func() { bwrapStarting = nil }()
	ran := filepath.Join(ws, "ran")
	c, err := b.Start("/bin/sh", []string{"sh", "-c", "echo ran >> " + ran}, []string{"PATH=/usr/bin:/bin"}, os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	code, err := c.Wait()
	if err != nil || code != 0 {
		t.Fatalf("the command did not run: exit %d, %v", code, err)
	}
	if starts != 2 {
		t.Errorf("bwrap started %d times, want 2", starts)
	}
	if out, _ := os.ReadFile(ran); string(out) != "ran\n" {
		t.Errorf("the command ran %q, want once", out)
	}
}

// TestBwrapSettledAfterAgain: a child started again has settled (its
// caller may drop its copies of the standard streams and inherited
// descriptors, as the guard's process does) only once the start that
// runs the program got past bwrap's set-up. Said at once, the guard gave
// the second bwrap /dev/null for stdin and stdout: the command's output
// was lost, with its exit status 0.
func TestBwrapSettledAfterAgain(t *testing.T) {
	b, ws, litter := vanishingLitter(t)
	var starts atomic.Int32
	bwrapStarting = func() {
		if starts.Add(1) == 1 {
			os.RemoveAll(litter)
			os.WriteFile(litter, nil, 0o600)
		}
	}
	defer func() { bwrapStarting = nil }()
	ran := filepath.Join(ws, "ran")
	c, err := b.Start("/bin/sh", []string{"sh", "-c", "echo ran >> " + ran + "; sleep 1"}, []string{"PATH=/usr/bin:/bin"}, os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Settled():
	case <-time.After(10 * time.Second):
		t.Fatal("the child never said it runs")
	}
	if n := starts.Load(); n != 2 {
		t.Errorf("running after %d starts of bwrap, want 2 (the first failed to set up)", n)
	}
	if code, err := c.Wait(); err != nil || code != 0 {
		t.Fatalf("exit %d, %v", code, err)
	}
	if out, _ := os.ReadFile(ran); string(out) != "ran\n" {
		t.Errorf("the command ran %q, want once", out)
	}
	select {
	case <-c.Settled():
	default:
		t.Error("Settled still open after the end")
	}
}

// TestBwrapNotAgainOnceRun checks that a program that ran and failed
// with bwrap's own setup status (1) is not started again.
func TestBwrapNotAgainOnceRun(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	p := &Policy{Workspace: ws, Scratch: []string{root}, Writable: []string{ws}, Network: NetworkOff}
	b, err := newBwrap(p, t.TempDir())
	if err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ran := filepath.Join(ws, "ran")
	c, err := b.Start("/bin/sh", []string{"sh", "-c", "echo ran >> " + ran + "; exit 1"}, []string{"PATH=/usr/bin:/bin"}, os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := c.Wait(); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if out, _ := os.ReadFile(ran); string(out) != "ran\n" {
		t.Errorf("the command ran %q, want once", out)
	}
}

// TestBwrapOtherUsersDirectory hides a file in another user's 0700
// directory in scratch (root's battery meeting an ordinary user's): no
// command of this user can enter it, and bwrap, without capabilities over
// that user's files, could not lay anything there. The command runs.
func TestBwrapOtherUsersDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a directory of another user's")
	}
	root := t.TempDir()
	ws, theirs := filepath.Join(root, "ws"), filepath.Join(root, "theirs")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(theirs, 0o700)
	hidden := filepath.Join(theirs, "s.sock")
	os.WriteFile(hidden, []byte("x"), 0o600)
	if err := os.Chown(hidden, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	p := &Policy{Workspace: ws, Scratch: []string{root}, Writable: []string{ws}, Hidden: []string{hidden}, Network: NetworkOff}
	b, err := newBwrap(p, t.TempDir())
	if err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	c, err := b.Start("/bin/sh", []string{"sh", "-c", "cat " + hidden + " 2>/dev/null; exit 0"}, []string{"PATH=/usr/bin:/bin"}, os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := c.Wait(); err != nil || code != 0 {
		t.Fatalf("exit %d, %v", code, err)
	}
}

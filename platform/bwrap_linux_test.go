package platform

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
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
	}
	b := &bwrapBackend{policy: p, probe: &BwrapProbe{Path: "/usr/bin/bwrap", Options: map[string]bool{"--disable-userns": true}}}
	var fds [][]byte
	args, err := b.args("/usr/bin/bash", []string{"/usr/bin/bash", "-c", "true"}, "/w", true, func(data []byte) (int, error) {
		fds = append(fds, data)
		return 100 + len(fds) - 1, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(args, " ")
	for _, want := range []string{
		"--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --die-with-parent --cap-drop ALL --unshare-net --disable-userns --new-session",
		"--ro-bind / / --dev /dev --proc /proc",
		// Parents before children: the workspace under /tmp stays.
		"--bind " + tmp + " " + tmp + " --bind " + tmp + "/ws " + tmp + "/ws --bind " + tmp + "/ws/.git " + tmp + "/ws/.git --ro-bind " + tmp + "/ws/.git/config " + tmp + "/ws/.git/config --ro-bind " + tmp + "/ws/.git/hooks",
		"--perms 0000 --ro-bind-data 100 " + home + "/.netrc",
		"--perms 0111 --tmpfs " + home + "/.ssh --ro-bind " + home + "/.ssh/known_hosts",
		"--remount-ro " + home + "/.ssh",
		"--seccomp 101 --chdir /w -- /usr/bin/bash -c true",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("bwrap's command line lacks %q:\n%s", want, line)
		}
	}
	if len(fds) != 2 || len(fds[0]) != 0 || len(fds[1])%8 != 0 || len(fds[1]) == 0 {
		t.Errorf("data descriptors: %d, want an empty one and the filter", len(fds))
	}
	if args[0] != "/usr/bin/bwrap" {
		t.Errorf("args[0] = %q", args[0])
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
	want := []string{"/home/u/.cache", "/home/u/.ssh", "/home/u/.ssh/known_hosts", "/tmp", "/tmp/a/ws", "/tmp/a/ws/.git", "/tmp/a/ws/.git/hooks", "/tmp/ssh-x"}
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

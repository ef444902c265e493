//go:build !windows

package platform

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInstalled makes real files, links and owners and checks which are
// taken for installed software: only a file no sandboxed command could
// have written or can change.
func TestInstalled(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	opt := filepath.Join(base, "opt")
	for _, d := range []string{ws, opt, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) string {
		if err := os.WriteFile(p, []byte("#!/usr/bin/env bash\necho hi\n"), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode) // past the umask
		return p
	}
	link := func(target, p string) string {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	roots := []string{ws}
	tool := write(filepath.Join(opt, "tool"), 0o755)
	inWS := write(filepath.Join(ws, "tool"), 0o755)
	cases := []struct {
		name, path string
		want       bool
	}{
		{"outside", tool, true},
		{"outside, by a link outside", link(tool, filepath.Join(opt, "tool-link")), true},
		{"outside, through a linked directory outside", filepath.Join(link(opt, filepath.Join(base, "opt-link")), "tool"), true},
		{"inside the workspace", inWS, false},
		{"a link outside into the workspace", link(inWS, filepath.Join(opt, "ws-link")), false},
		{"a directory link outside into the workspace", filepath.Join(link(ws, filepath.Join(opt, "ws-dir")), "tool"), false},
		{"a link in the workspace to a file outside", link(tool, filepath.Join(ws, "out-link")), false},
		{"a chain through a link in the workspace", link(filepath.Join(ws, "out-link"), filepath.Join(opt, "chain")), false},
		{"group-writable", write(filepath.Join(opt, "gw"), 0o775), false},
		{"world-writable", write(filepath.Join(opt, "ow"), 0o757), false},
		{"relative", "opt/tool", false},
		{"with ..", filepath.Join(ws, "sub") + "/../../opt/tool", false},
		{"a directory", opt, false},
		{"missing", filepath.Join(opt, "missing"), false},
		{"a dangling link", link(filepath.Join(opt, "missing"), filepath.Join(opt, "dangling")), false},
		{"/proc", "/proc/self/exe", false},
		{"/dev", "/dev/null", false},
		{"under a root that is /", tool, false},
	}
	for i, c := range cases {
		r := roots
		if i == len(cases)-1 {
			r = []string{"/"}
		}
		if got := Installed(c.path, later, fixed(r)); got != c.want {
			t.Errorf("%s (%s): installed %v, want %v", c.name, c.path, got, c.want)
		}
	}
	if os.Getuid() == 0 {
		// The workspace mounted a second time, outside it: its files
		// are the agent's under that name too.
		mnt := filepath.Join(base, "mnt")
		os.MkdirAll(mnt, 0o755)
		if err := exec.Command("mount", "--bind", ws, mnt).Run(); err != nil {
			t.Logf("no bind mount here (%v): that case is not tried", err)
		} else {
			t.Cleanup(func() { exec.Command("umount", mnt).Run() })
			if Installed(filepath.Join(mnt, "tool"), later, fixed(roots)) {
				t.Errorf("a workspace file through a bind mount of the workspace is taken for installed software")
			}
		}
		other := write(filepath.Join(opt, "other"), 0o755)
		if err := os.Chown(other, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if Installed(other, later, fixed(roots)) {
			t.Errorf("a file of another user (uid 12345) is taken for installed software")
		}
	}
}

// later is an agent's start after every file the tests write.
func later() time.Time { return time.Now().Add(time.Hour) }

func fixed(roots []string) func() ([]string, error) {
	return func() ([]string, error) { return roots, nil }
}

// BenchmarkInstalled is what a shim run adds when the command runs a
// script file: the look at the file and the links to it (the writable
// roots come with the policy).
func BenchmarkInstalled(b *testing.B) {
	base, _ := filepath.EvalSymlinks(b.TempDir())
	p := filepath.Join(base, "home", ".pyenv", "shims", "python3")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("#!/usr/bin/env bash\n"), 0o755)
	roots := []string{"/tmp/ws", "/var/tmp", filepath.Join(base, "home", ".cache"), filepath.Join(base, "home", ".npm"), filepath.Join(base, "home", ".claude")}
	for b.Loop() {
		if !Installed(p, later, fixed(roots)) {
			b.Fatal("not installed")
		}
	}
}

// TestInstalledSinceAgent: a file of this user that changed after the
// agent started may be the work of the agent's own file tools, which
// never pass cordon, and is not installed software, whatever its times
// say; one last changed before is.
func TestInstalledSinceAgent(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := fixed([]string{filepath.Join(base, "ws")})
	tool := filepath.Join(base, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tool, 0o755)
	// Change times come from a coarse clock: a tick apart.
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	at := func() time.Time { return start }
	if !Installed(tool, at, roots) {
		t.Fatal("a file written before the agent started is not taken for installed software")
	}
	if Installed(tool, func() time.Time { return start.Add(-time.Hour) }, roots) {
		t.Error("a file written after the agent started is taken for installed software")
	}
	if Installed(tool, func() time.Time { return time.Time{} }, roots) {
		t.Error("with the agent's start unknown, a file of this user is taken for installed software")
	}
	time.Sleep(20 * time.Millisecond)
	// Rewritten by the agent, then dated back: the status change stays.
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nrm -rf \"$HOME\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := start.Add(-24 * time.Hour)
	if err := os.Chtimes(tool, old, old); err != nil {
		t.Fatal(err)
	}
	if Installed(tool, at, roots) {
		t.Error("a file rewritten after the agent started, its times set back, is taken for installed software")
	}
	// A second name made for an old file by the agent changes the file's status too.
	plain := filepath.Join(base, "plain")
	os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o755)
	os.Chmod(plain, 0o755)
	time.Sleep(20 * time.Millisecond)
	start = time.Now()
	time.Sleep(20 * time.Millisecond)
	if err := os.Link(plain, filepath.Join(base, "plain2")); err != nil {
		t.Fatal(err)
	}
	if Installed(filepath.Join(base, "plain2"), at, roots) {
		t.Error("a hard link the agent made is taken for installed software")
	}
	// Root's files: the agent cannot have written them unless it runs
	// as root.
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	if fi, err := os.Stat(sh); err != nil || fi.Sys().(*syscall.Stat_t).Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
		t.Skipf("%s is not root's alone", sh)
	}
	unknown := func() time.Time { return time.Time{} }
	if got, want := Installed(sh, unknown, roots), os.Getuid() != 0; got != want {
		t.Errorf("root's %s with the agent's start unknown, as uid %d: installed %v, want %v", sh, os.Getuid(), got, want)
	}
}

// TestInstalledRootsBeforeSince: a file inside the writable roots (an
// agent's shell snapshot) is answered without asking for the agent's
// start, whose walk up the processes a judgement alone (cordon check)
// would otherwise pay for every sourced snapshot; one outside still asks,
// and is installed only if it was last changed before.
func TestInstalledRootsBeforeSince(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, opt := filepath.Join(base, "ws"), filepath.Join(base, "opt")
	for _, d := range []string{ws, opt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inWS, outside := filepath.Join(ws, "snapshot.sh"), filepath.Join(opt, "tool")
	for _, p := range []string{inWS, outside} {
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o644)
	}
	asked := 0
	since := func(t time.Time) func() time.Time {
		return func() time.Time { asked++; return t }
	}
	roots := fixed([]string{ws})
	if Installed(inWS, since(time.Now().Add(time.Hour)), roots) || asked != 0 {
		t.Errorf("a file in the writable roots: the agent's start asked %d times (want none, and not installed)", asked)
	}
	asked = 0
	if !Installed(outside, since(time.Now().Add(time.Hour)), roots) || asked != 1 {
		t.Errorf("a file outside, older than the agent: asked %d times (want once, and installed)", asked)
	}
	if Installed(outside, since(time.Now().Add(-time.Hour)), roots) {
		t.Errorf("a file outside, changed since the agent started, is taken for installed software")
	}
}

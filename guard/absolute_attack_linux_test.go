package guard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConfigsSharedDirsSwappedBetweenPatterns: a process a command left
// running swaps a directory the configuration files' walk went through
// for an earlier pattern (lib, shared by two repositories) while the walk
// reads that pattern's file (its git runs for a change of a safe key, a
// millisecond an inotify watch on the file sees coming): the walk of the
// next pattern must check the file the path now names, as a walk from
// the root would, not the one in the directory moved away. (The fake
// git does the swap at the moment a process waiting on the file's
// IN_OPEN would.)
func TestConfigsSharedDirsSwappedBetweenPatterns(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	ws := t.TempDir()
	write := func(p, data string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	x, y := filepath.Join(ws, "lib/x/.git/config"), filepath.Join(ws, "lib/y/.git/config")
	write(x, "[user]\n\tname = x\n")
	write(y, "[user]\n\tname = y\n")
	pats := []string{x, y}
	trusted := snapshotConfigs(pats)
	// The command: a safe change to x (its check runs git), and the
	// new lib it will swap in, with y's configuration planted.
	write(x, "[user]\n\tname = x2\n")
	evil := filepath.Join(ws, "evil")
	write(filepath.Join(evil, "x/.git/config"), "[user]\n\tname = x2\n")
	write(filepath.Join(evil, "y/.git/config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n")
	fake := filepath.Join(t.TempDir(), "git")
	script := fmt.Sprintf("#!/bin/sh\nif [ ! -e %[1]s/done ]; then : > %[1]s/done; mv %[1]s/lib %[1]s/lib-old && mv %[1]s/evil %[1]s/lib; fi\nexec %[2]s \"$@\"\n", ws, git)
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	lines := reconcileConfigs(pats, trusted, &keyGuard{git: fake, safe: testSafe}, newQuarantine(t.TempDir()))
	if _, err := os.Stat(filepath.Join(ws, "done")); err != nil {
		t.Fatal("the fake git did not run")
	}
	if data, _ := os.ReadFile(y); strings.Contains(string(data), "fsmonitor") {
		t.Errorf("core.fsmonitor planted at %s survived the reconcile (lines %q): the walk checked the directory moved away", y, lines)
	}
}

// TestConfigsManyDirs: past the bound of directories kept open, every
// pattern is still walked, what a command planted in each repository is
// put back, and no descriptor is left open.
func TestConfigsManyDirs(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	ws := t.TempDir()
	var pats []string
	for i := range 3 * maxCachedDirs {
		p := filepath.Join(ws, fmt.Sprintf("r%03d/.git/config", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("[user]\n\tname = a\n"), 0o644)
		pats = append(pats, p, filepath.Join(ws, fmt.Sprintf("r%03d/.git/modules/*/config", i)))
	}
	fds := func() int { e, _ := os.ReadDir("/proc/self/fd"); return len(e) }
	before := fds()
	trusted := snapshotConfigs(pats)
	if len(trusted) != 3*maxCachedDirs {
		t.Fatalf("recorded %d files", len(trusted))
	}
	for _, p := range pats {
		if !strings.Contains(p, "*") {
			os.WriteFile(p, []byte("[core]\n\tpager = touch /tmp/pwned\n"), 0o644)
		}
	}
	lines := reconcileConfigs(pats, trusted, &keyGuard{git: git, safe: testSafe}, newQuarantine(t.TempDir()))
	if len(lines) != 3*maxCachedDirs {
		t.Errorf("%d lines, want %d", len(lines), 3*maxCachedDirs)
	}
	for _, p := range pats {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "pager") {
			t.Errorf("%s: not put back", p)
		}
	}
	if after := fds(); after != before {
		t.Errorf("descriptors: %d before, %d after", before, after)
	}
}

// TestConfigsFewDescriptorsLeft: in a process near its limit of open
// descriptors (a manager with many connections), the directories kept
// open must not use up what the walk needs: every planted key is still
// put back.
func TestConfigsFewDescriptorsLeft(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	ws := t.TempDir()
	var pats []string
	for i := range 40 {
		p := filepath.Join(ws, fmt.Sprintf("r%03d/.git/config", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("[user]\n\tname = a\n"), 0o644)
		pats = append(pats, p)
	}
	trusted := snapshotConfigs(pats)
	// Planted in the last repositories: the walk keeps every directory
	// before them open.
	for _, p := range pats[len(pats)-4:] {
		os.WriteFile(p, []byte("[core]\n\tpager = touch /tmp/pwned\n"), 0o644)
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	// Room for 32 more descriptors: a walk's own (its path's
	// directories, a listing, git's pipes) and a few more.
	e, _ := os.ReadDir("/proc/self/fd")
	open := map[int]bool{}
	for _, d := range e {
		if n, err := strconv.Atoi(d.Name()); err == nil {
			open[n] = true
		}
	}
	free, n := 0, 0
	for ; free < 32; n++ {
		if !open[n] {
			free++
		}
	}
	low := lim
	low.Cur = uint64(n)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	q := newQuarantine(t.TempDir())
	lines := func() []string {
		defer unix.Setrlimit(unix.RLIMIT_NOFILE, &lim)
		return reconcileConfigs(pats, trusted, &keyGuard{git: git, safe: testSafe}, q)
	}()
	for _, p := range pats {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "pager") {
			t.Errorf("%s: not put back (%d lines)", p, len(lines))
		}
	}
}

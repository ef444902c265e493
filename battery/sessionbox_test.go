//go:build linux

package battery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/sessionbox"
	"github.com/cordonsh/cordon/snapshot"
)

// A sessionRig runs commands through the shim (as bash) in one session,
// named by CORDON_SESSION, with the battery's fake home and workspace,
// the backend chosen in the settings.
type sessionRig struct {
	*battery
	shim string
	env  []string
}

func newSessionRig(t *testing.T, backend string, settings ...string) *sessionRig {
	t.Helper()
	b := newBattery(t, backend)
	conf := filepath.Join(b.home, ".config", "cordon", "config.yaml")
	os.MkdirAll(filepath.Dir(conf), 0o755)
	data := "sandbox:\n  backend: " + backend + "\n" + strings.Join(settings, "")
	if err := os.WriteFile(conf, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &sessionRig{battery: b, shim: linkShim(t, "bash"),
		env: append(slices.Clone(b.env), "CORDON_SESSION=rig-"+filepath.Base(b.base))}
	t.Cleanup(func() { stopSessions(t, b.home) })
	return r
}

// sh runs script with the shim in the workspace and returns its stdout,
// its stderr and its exit status.
func (r *sessionRig) sh(script string) (string, string, int) {
	r.t.Helper()
	return r.shIn(r.ws, script)
}

// shIn is sh with the shell's directory dir, as an agent's shell that
// went there (cd dir) in an earlier command runs the next.
func (r *sessionRig) shIn(dir, script string) (string, string, int) {
	r.t.Helper()
	cmd := exec.Command(r.shim, "-c", script)
	cmd.Args[0] = "bash"
	cmd.Dir, cmd.Env = dir, r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	r.noSandbox(errb.String())
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// background runs the python program writer, which ends by making the
// file "wrote", in the background of a session command, and waits until
// it has.
func (r *sessionRig) background(python, writer string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.ws, "writer.py"), []byte(writer), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if out, errs, code := r.sh("nohup " + python + " writer.py >/dev/null 2>&1 & echo left"); out != "left\n" || code != 0 {
		r.t.Fatalf("exit %d, %q, %s", code, out, errs)
	}
	r.waitWrote("the background writer")
}

// waitWrote waits until what a command left running (who) has made the
// file "wrote" in the workspace, its last write: the test fails after
// ten seconds without it.
func (r *sessionRig) waitWrote(who string) {
	r.t.Helper()
	wrote := filepath.Join(r.ws, "wrote")
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(wrote); err == nil {
			return
		}
		if time.Since(start) > 10*time.Second {
			r.t.Fatal(who + " never wrote")
		}
	}
}

// inSession fails the test unless script's command ran in the session's
// sandbox: its shell's parent is the keeper.
func (r *sessionRig) inSession(want bool) {
	r.t.Helper()
	out, errs, _ := r.sh("cat /proc/$PPID/comm")
	if got := out == sessionbox.KeeperRole+"\n"; got != want {
		r.t.Fatalf("in the session's sandbox: %v, want %v (the shell's parent: %q, %s)", got, want, out, errs)
	}
}

// TestSessionBackgroundServer is the first case: a server started
// in the background by one command answers the next; ps shows the
// session's processes (and, with bwrap, none of the host's); stopping the
// session leaves nothing running.
func TestSessionBackgroundServer(t *testing.T) {
	python := needPython(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			// The server takes a free port itself, where it listens (the
			// session's network namespace), and says which. A port found
			// free on the host before could be taken there by then: the
			// session's forwarder listens on the host's loopback ports
			// and on one of its own, and the server failed with "Address
			// already in use" while curl reached the forwarder (exit 22).
			server := fmt.Sprintf("http.server 0 --bind 127.0.0.1 --directory %s", r.ws)
			marker := strings.ReplaceAll(server, " ", "\x00")
			out, errs, code := r.sh(fmt.Sprintf("nohup %s -u -m %s >server.log 2>&1 & echo started", python, server))
			if out != "started\n" || code != 0 {
				t.Fatalf("starting the server: exit %d, %q, %s", code, out, errs)
			}
			port := ""
			for start := time.Now(); port == ""; time.Sleep(20 * time.Millisecond) {
				log, _ := os.ReadFile(filepath.Join(r.ws, "server.log"))
				if m := regexp.MustCompile(`Serving HTTP on \S+ port (\d+) `).FindSubmatch(log); m != nil {
					port = string(m[1])
				} else if time.Since(start) > 10*time.Second {
					t.Fatalf("the server does not say its port (%d server processes): %q", countProcessesContaining(marker), log)
				}
			}
			client := fmt.Sprintf(`curl -sf -o /dev/null http://127.0.0.1:%s/ && echo 200`, port)
			said := "" // the first stderr of a polling command: a new session says why there
			for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
				out, errs, code = r.sh(client)
				if out == "200\n" && code == 0 {
					break
				}
				if said == "" {
					said = errs
				}
				if time.Since(start) > 10*time.Second {
					log, _ := os.ReadFile(filepath.Join(r.ws, "server.log"))
					t.Fatalf("the next command cannot reach the server: exit %d, %q, %s\n(%d server processes, %d session managers; the first to say: %q; server.log: %q)",
						code, out, errs, countProcessesContaining(marker), len(managersOf(r.home)), said, log)
				}
			}
			ps, _, _ := r.sh("ps -ww -eo pid,args")
			if !strings.Contains(ps, server) {
				t.Errorf("ps does not show the session's server:\n%s", ps)
			}
			if backend == "bwrap" {
				// A pid namespace of the session's: none of the host's
				// processes (this test, the session's manager).
				if strings.Contains(ps, sessionbox.ManagerRole) || strings.Contains(ps, filepath.Base(os.Args[0])) || strings.Count(ps, "\n") > 12 {
					t.Errorf("ps inside shows the host's processes:\n%s", ps)
				}
			}
			if countProcessesContaining(marker) == 0 {
				t.Fatal("the server is not seen on the host")
			}
			stopSessions(t, r.home)
			gone(t, marker, "the server outlived the stopped session")
		})
	}
}

// TestSessionAgentExit checks that the session ends with its agent: a
// fake agent (python) runs the shim, which finds it up the parent chain
// (no CORDON_SESSION); a background process started by its command
// lives on while the agent does, and dies with it.
func TestSessionAgentExit(t *testing.T) {
	python := needPython(t)
	for i, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			marker := fmt.Sprintf("%d.%d%d", 900+os.Getpid()%100, time.Now().UnixNano()%1000, i)
			agent := exec.Command(python, "-c", `import subprocess, sys, time
p = subprocess.run([sys.argv[1], "-c", "nohup sleep `+marker+` >/dev/null 2>&1 & cat /proc/$PPID/comm"], capture_output=True, text=True)
print(p.returncode, p.stdout.strip(), p.stderr.strip(), flush=True)
time.sleep(600)`, r.shim)
			agent.Dir = r.ws
			agent.Env = slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool { return strings.HasPrefix(kv, "CORDON_SESSION=") })
			out, err := agent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := agent.Start(); err != nil {
				t.Fatal(err)
			}
			defer agent.Process.Kill()
			line, _ := bufio.NewReader(out).ReadString('\n')
			if line != "0 "+sessionbox.KeeperRole+" \n" {
				r.noSandbox(line)
				t.Fatalf("the agent's command: %q", line)
			}
			for start := time.Now(); countProcesses("sleep\x00"+marker) != 1; time.Sleep(20 * time.Millisecond) {
				if time.Since(start) > 5*time.Second {
					t.Fatal("the background process is not running while the agent is")
				}
			}
			time.Sleep(300 * time.Millisecond)
			if countProcesses("sleep\x00"+marker) != 1 {
				t.Fatal("the background process died with the command that started it")
			}
			managers := managersOf(r.home)
			if len(managers) != 1 {
				t.Fatalf("%d session managers, want 1", len(managers))
			}
			agent.Process.Kill()
			agent.Wait()
			gone(t, "sleep\x00"+marker, "the session's processes outlived the agent")
			for start := time.Now(); syscall.Kill(managers[0], 0) == nil; time.Sleep(20 * time.Millisecond) {
				if time.Since(start) > 5*time.Second {
					t.Fatal("the session's manager outlived the agent")
				}
			}
		})
	}
}

// TestSessionAgentsFirstSecond: an agent whose first command comes
// within a second of its start (the bound of the files it may have
// written passes over so young a process) and whose next comes later
// keeps one session: what the first left running is there for the
// second, and no line says the session was replaced. Named
// (CORDON_SESSION) or found by the agent's process.
func TestSessionAgentsFirstSecond(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap/agent", "bwrap/named", "landlock/agent", "landlock/named"}, func(t *testing.T, name string) {
		backend, kind, _ := strings.Cut(name, "/")
		r := newSessionRig(t, backend)
		marker := fmt.Sprintf("%d.%d", 700+os.Getpid()%100, time.Now().UnixNano()%100000)
		agent := exec.Command(python, "-c", `import subprocess, sys, time
def run(script):
    p = subprocess.run([sys.argv[1], "-c", script], capture_output=True, text=True)
    print(repr((p.returncode, p.stdout, p.stderr)), flush=True)
run("nohup sleep `+marker+` >/dev/null 2>&1 & echo one")
time.sleep(1.5)
run("echo two")
time.sleep(600)`, r.shim)
		agent.Dir = r.ws
		agent.Env = r.env
		if kind == "agent" {
			agent.Env = slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool { return strings.HasPrefix(kv, "CORDON_SESSION=") })
		}
		out, err := agent.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := agent.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			// (The sessions end with the agent, and put the workspace
			// back as they do: before its directory is removed.)
			managers := managersOf(r.home)
			agent.Process.Kill()
			agent.Wait()
			for _, m := range managers {
				for start := time.Now(); syscall.Kill(m, 0) == nil && time.Since(start) < 5*time.Second; time.Sleep(20 * time.Millisecond) {
				}
			}
		}()
		lines := bufio.NewReader(out)
		first, _ := lines.ReadString('\n')
		second, _ := lines.ReadString('\n')
		if !strings.Contains(first, `'one\n'`) || !strings.Contains(second, `'two\n'`) {
			r.noSandbox(first + second)
			t.Fatalf("the agent's commands:\n%s%s", first, second)
		}
		if strings.Contains(second, "new session sandbox") {
			t.Errorf("the agent's second command said its session was replaced:\n%s", second)
		}
		if n := len(managersOf(r.home)); n != 1 {
			t.Errorf("%d session managers after the agent's second command, want 1 (its first command's session kept)", n)
		}
	})
}

// managersOf lists the managers of the sessions of a fake home.
func managersOf(home string) []int {
	files, _ := filepath.Glob(filepath.Join(home, ".local", "state", "cordon", "sessions", "*.pid"))
	var pids []int
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var pid int
		if _, err := fmt.Sscan(string(data), &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// gone waits up to 5 seconds for no process to have a command line that
// starts with cmdline.
func gone(t *testing.T, cmdline, msg string) {
	t.Helper()
	for start := time.Now(); countProcessesContaining(cmdline) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatal(msg)
		}
	}
}

// countProcessesContaining counts the processes whose command line
// (arguments separated by NUL) holds s.
func countProcessesContaining(s string) int {
	return countOwn(func(data []byte) bool { return bytes.Contains(data, []byte(s)) })
}

// needPython returns the system's python3 (a version manager's shim on
// PATH needs the real home).
func needPython(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
		t.Fatal("python3 is needed in /usr/bin")
	}
	t.Skip("python3 is not installed in /usr/bin")
	return ""
}

// shellResult is what a shell did with given stdin and descriptors 3, 4
// and 10.
type shellResult struct {
	Stdout, Stderr string
	Status         string
	FD4, FD10      string
}

// runShell runs argv with stdin, "three" to read on fd 3, and fds 4 and
// 10 to write to, in dir, with umask 027.
func runShell(t *testing.T, path string, argv []string, dir string, env []string, stdin string) shellResult {
	t.Helper()
	r3, w3, _ := os.Pipe()
	r4, w4, _ := os.Pipe()
	r10, w10, _ := os.Pipe()
	w3.WriteString("three\n")
	w3.Close()
	// ExtraFiles[i] is fd 3+i: 5 to 9 are filled with /dev/null.
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: dir, Env: env, Stdin: strings.NewReader(stdin),
		ExtraFiles: []*os.File{r3, w4, null, null, null, null, null, w10}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	old := syscall.Umask(0o027)
	err := cmd.Start()
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	r3.Close()
	w4.Close()
	w10.Close()
	fd4, _ := io.ReadAll(r4)
	fd10, _ := io.ReadAll(r10)
	cmd.Wait()
	return shellResult{out.String(), errb.String(), statusOf(cmd.ProcessState), string(fd4), string(fd10)}
}

// TestSessionTransparent compares what the shell does in the session's
// sandbox with the real bash outside: output bytes, exit status (a death
// by signal too), stdin, descriptors 3, 4 and 10, the directory, umask.
func TestSessionTransparent(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			sub := filepath.Join(r.ws, "sub")
			os.Mkdir(sub, 0o755)
			r.inSession(true)
			scripts := []string{
				`printf 'a\0b\377\n'; echo err >&2; exit 3`,
				`read -r line; echo "stdin: $line"; cat; read -r x <&3; echo "fd3: $x"; echo four >&4; echo ten >&10; pwd; umask`,
				`kill -TERM $$`,
				`kill -KILL $$`,
				`exit 130`,
				`sleep 0.1 & echo bg; exit 0`,
			}
			for _, s := range scripts {
				got := runShell(t, r.shim, []string{"bash", "-c", s}, sub, r.env, "first\nrest\n")
				want := runShell(t, r.bash, []string{"bash", "-c", s}, sub, r.env, "first\nrest\n")
				if got != want {
					t.Errorf("%s:\nsession: %+v\nbash:    %+v", s, got, want)
				}
			}
		})
	}
}

// TestSessionShimKilled checks that killing the shim's process group with
// SIGKILL (an agent's timeout) kills the command, background processes
// of its group included, and that the session goes on.
func TestSessionShimKilled(t *testing.T) {
	for i, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			r.inSession(true)
			marker := fmt.Sprintf("%d.%d%d", 800+os.Getpid()%100, time.Now().UnixNano()%1000, i)
			cmd := exec.Command(r.shim, "-c", "sleep "+marker+" & sleep "+marker+"; echo never")
			cmd.Args[0] = "bash"
			cmd.Dir, cmd.Env = r.ws, r.env
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for start := time.Now(); countProcesses("sleep\x00"+marker) != 2; time.Sleep(10 * time.Millisecond) {
				if time.Since(start) > 5*time.Second {
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					t.Fatalf("%d sleeps before the kill, want 2", countProcesses("sleep\x00"+marker))
				}
			}
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			gone(t, "sleep\x00"+marker, "the command outlived the SIGKILL of the shim's process group")
			if out.String() != "" {
				t.Errorf("output after the kill: %q", out.String())
			}
			r.inSession(true)
		})
	}
}

// TestSessionPaths shows which path each shape of command takes: the
// session's sandbox, or a sandbox of its own (a terminal, sessions off
// in the settings, a sessions directory cordon cannot trust); and that a
// killed keeper means a new session's sandbox, never no sandbox.
func TestSessionPaths(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			r.inSession(true)

			// A terminal: the shell must have it as its own.
			master, slave := openPty(t)
			defer master.Close()
			cmd := exec.Command(r.shim, "-c", "cat /proc/$PPID/comm; echo done")
			cmd.Args[0] = "bash"
			cmd.Dir, cmd.Env = r.ws, r.env
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			if err := cmd.Run(); err != nil {
				t.Fatalf("with a terminal: %v", err)
			}
			slave.Close()
			got, _ := io.ReadAll(master)
			if strings.Contains(string(got), sessionbox.KeeperRole) || !strings.Contains(string(got), "done") {
				t.Errorf("with a terminal, the command ran in the session's sandbox, or not at all: %q", got)
			}

			// The keeper killed (by a command of the session): that
			// command ends, the next one gets a new sandbox.
			r.sh("nohup sleep 600 >/dev/null 2>&1 &")
			_, errs, code := r.sh("kill -KILL $PPID; sleep 5")
			if code == 0 {
				t.Errorf("the command that killed its keeper ended with 0 (%s)", errs)
			}
			r.inSession(true)
			if out, _, _ := r.sh("ps -e -o args | grep -c '^sleep 600'"); backend == "bwrap" && out != "0\n" {
				t.Errorf("the old session's processes are in the new one: %q", out)
			}

			// A sessions directory of another mode: not trusted.
			dir := sessionbox.Dir(filepath.Join(r.home, ".local", "state", "cordon"))
			os.Chmod(dir, 0o755)
			r.inSession(false)
			os.Chmod(dir, 0o700)
			r.inSession(true)
		})
	}
}

// TestSessionOff checks that sandbox.session: off runs each command in a
// sandbox of its own.
func TestSessionOff(t *testing.T) {
	r := newSessionRig(t, "bwrap", "  session: off\n")
	r.inSession(false)
	if out, _, code := r.sh("echo ok"); out != "ok\n" || code != 0 {
		t.Fatalf("exit %d, %q", code, out)
	}
}

// forgeScript lists the sessions' directory, then connects to the socket
// argv[1] and sends it a well-formed request, with this process's
// standard streams, to run argv[2]; it prints what happened.
const forgeScript = `import array, json, os, socket, struct, sys
try:
    print("listed:", os.listdir(os.path.dirname(sys.argv[1])))
except OSError as e:
    print("list refused:", e.errno)
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    req = json.dumps({"path": "/bin/sh", "argv": ["sh", "-c", sys.argv[2]], "env": [], "dir": "/", "umask": 18, "fds": [0, 1, 2]}).encode()
    s.sendmsg([struct.pack(">I", len(req)) + req], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
    s.settimeout(5)
    print("answer:", s.recv(100))
except OSError as e:
    print("connect refused:", e.errno)
`

// TestSessionIsolation checks that a process of one session can neither
// see the sessions' sockets nor get a command run by another session's
// keeper (a forged request, to the other session's socket), nor write
// the other session's workspace, even when it outlives its command.
func TestSessionIsolation(t *testing.T) {
	python := needPython(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			// Session B: another agent, another workspace, outside the
			// scratch directories every sandbox may write.
			wsB := filepath.Join(r.base, "wsB")
			os.MkdirAll(wsB, 0o755)
			r.host("git init -q " + wsB)
			b := exec.Command(r.shim, "-c", "cat /proc/$PPID/comm")
			b.Args[0] = "bash"
			b.Dir = wsB
			b.Env = append(slices.DeleteFunc(slices.Clone(r.env), func(kv string) bool { return strings.HasPrefix(kv, "CORDON_SESSION=") }), "CORDON_SESSION=other")
			if out, err := b.CombinedOutput(); string(out) != sessionbox.KeeperRole+"\n" {
				t.Fatalf("session B: %q, %v", out, err)
			}
			socks, _ := filepath.Glob(filepath.Join(sessionbox.Dir(filepath.Join(r.home, ".local", "state", "cordon")), "*.sock"))
			if len(socks) != 1 {
				t.Fatalf("sockets: %v", socks)
			}
			pwned := filepath.Join(wsB, "pwned")
			// A program written to disk, which the judge does not read
			// (as a prompt-injected agent would have it).
			if err := os.WriteFile(filepath.Join(r.ws, "forge.py"), []byte(forgeScript), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errs, _ := r.sh(fmt.Sprintf("%s forge.py %s 'echo forged > %s; echo RAN'", python, socks[0], pwned))
			if strings.Contains(out, "pid ") || strings.Contains(out, "RAN") {
				t.Errorf("a command of session A got session B's keeper to run a command:\n%s%s", out, errs)
			}
			if !strings.Contains(out, "connect refused") && !strings.Contains(out, "answer: b''") {
				t.Errorf("unexpected output:\n%s%s", out, errs)
			}
			if strings.Contains(out, "listed:") {
				// Hidden paths under cordon's state directory are readable
				// under Landlock without a mount namespace (the snapshots
				// directory too): a gap of the Landlock backend, outside
				// this package. The manager's peer check still refuses.
				if mountsDegraded(t, linkShim(t, "cordon"), backend, r.ws, r.env) {
					t.Logf("known gap: the sessions directory is listable under Landlock without root:\n%s", out)
				} else {
					t.Errorf("the sessions directory is visible inside the sandbox:\n%s", out)
				}
			}
			// A process left behind by session A.
			r.sh(fmt.Sprintf("nohup sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do echo x > %s; echo x > %s/.git/hooks/pre-commit; sleep 0.1; done' >/dev/null 2>&1 &", pwned, wsB))
			time.Sleep(1500 * time.Millisecond)
			for _, f := range []string{pwned, filepath.Join(wsB, ".git", "hooks", "pre-commit")} {
				if _, err := os.Lstat(f); err == nil {
					t.Errorf("session A wrote session B's workspace: %s", f)
				}
			}
		})
	}
}

// TestSessionLandlockHomeChanges: a Landlock session's sandbox lists the
// home directory's entries when it is made (hidden paths are in it). A
// file the host writes and renames into place there (an agent saving its
// settings at every turn) keeps the session, and what runs in it; a new
// entry, or a directory made again under its old name, makes a new
// session, where it is readable.
func TestSessionLandlockHomeChanges(t *testing.T) {
	r := newSessionRig(t, "landlock")
	keeper := func() string {
		t.Helper()
		out, errs, code := r.sh("echo $PPID")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		return out
	}
	first := keeper()
	save := filepath.Join(r.home, ".agent.json")
	for i := range 3 {
		tmp := save + ".tmp"
		os.WriteFile(tmp, []byte(strconv.Itoa(i)), 0o644)
		if err := os.Rename(tmp, save); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if got := keeper(); got != first {
				t.Fatalf("a file saved by rename in the home made a new session (keeper %s, then %s)", first, got)
			}
		} else {
			first = keeper() // the first save is a new name
		}
	}
	os.MkdirAll(filepath.Join(r.home, ".tool", "bin"), 0o755)
	os.WriteFile(filepath.Join(r.home, ".tool", "bin", "v"), []byte("one\n"), 0o644)
	if out, errs, _ := r.sh("cat ~/.tool/bin/v"); out != "one\n" {
		t.Fatalf("a new entry in the home is not readable in the session: %q %s", out, errs)
	}
	second := keeper()
	os.RemoveAll(filepath.Join(r.home, ".tool"))
	os.MkdirAll(filepath.Join(r.home, ".tool", "bin"), 0o755)
	os.WriteFile(filepath.Join(r.home, ".tool", "bin", "v"), []byte("two\n"), 0o644)
	if out, errs, _ := r.sh("cat ~/.tool/bin/v"); out != "two\n" {
		t.Fatalf("a directory made again in the home is not readable in the session: %q %s", out, errs)
	}
	if keeper() == second {
		t.Error("a directory made again in the home kept the old session")
	}
}

// TestSessionWorkspaceMadeAgain: a workspace outside scratch space removed
// and made again under its name (rm -rf app && git clone ... app) gets a
// new session, whose sandbox shows the new directory: the old one's shows
// the removed directory, where every write fails (EROFS). File systems give
// the freed inode number to the next directory made, so the session's key
// must tell the two apart by more than the inode number.
func TestSessionWorkspaceMadeAgain(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			r.ws = filepath.Join(r.base, "app")
			store := snapshot.Open(filepath.Join(r.home, ".local", "state", "cordon"), snapshot.Budgets{})
			for i := range 3 {
				store.WaitPending(r.ws) // (the snapshot saver reads the repository after each command)
				if err := os.RemoveAll(r.ws); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(r.ws, 0o755); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command("git", "init", "-q", r.ws).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v: %s", err, out)
				}
				out, errs, code := r.sh("echo " + strconv.Itoa(i) + " > f && cat f")
				if code != 0 || out != strconv.Itoa(i)+"\n" {
					t.Fatalf("round %d: writing in the workspace made again: exit %d, %q, %s", i, code, out, errs)
				}
				r.inSession(true)
			}
		})
	}
}

// TestSessionBetweenCommands: a process a command left running in the
// session's sandbox writes places the host runs from (.envrc, .npmrc's
// script-shell, .vscode/tasks.json) after the command has ended. Each is
// put back within a second, not at the next command, which here does not
// come: the person's own npm test or direnv would run it meanwhile. (The
// writer is a script written by an earlier command: the judge reads a
// file's content only when the same command wrote it.)
func TestSessionBetweenCommands(t *testing.T) {
	names := []string{".envrc", ".npmrc", ".vscode/tasks.json"}
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		python := needPython(t)
		// A submodule.s git directory (.git/modules/lib),
		// the person.s own: its configuration too.
		lib := filepath.Join(t.TempDir(), "lib")
		for _, c := range [][]string{{"init", "-q", lib}, {"-C", lib, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "-q", "--allow-empty", "-m", "x"},
			{"-C", r.ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib"}} {
			if out, err := exec.Command("git", c...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", c, err, out)
			}
		}
		modcfg := filepath.Join(r.ws, ".git/modules/lib/config")
		before, _ := os.ReadFile(modcfg)
		writer := "import os, time\n" +
			"time.sleep(0.5)\n" +
			"open('.envrc', 'w').write('touch pwned\\n')\n" +
			"open('.npmrc', 'w').write('script-shell=/tmp/x\\n')\n" +
			"for i in range(5):\n" + // (the watch may put .vscode back between the two)
			"    try:\n" +
			"        os.makedirs('.vscode', exist_ok=True)\n" +
			"        open('.vscode/tasks.json', 'w').write('{}')\n" +
			"        break\n" +
			"    except FileNotFoundError:\n" +
			"        pass\n" +
			"time.sleep(0.5)\n" + // (a write of its own, after the others are put back)
			"open('.git/modules/lib/config', 'a').write('[core]\\n\\tfsmonitor = touch pwned\\n')\n" +
			"open('wrote', 'w').close()\n"
		r.background(python, writer)
		time.Sleep(time.Second)
		for _, name := range names {
			if _, err := os.Stat(filepath.Join(r.ws, name)); err == nil {
				t.Errorf("%s written by the session's background process is on the host a second later", name)
			}
		}
		if after, _ := os.ReadFile(modcfg); string(after) != string(before) {
			t.Errorf("a submodule's configuration written by the session's background process is on the host a second later:\n%s", after)
		}
		// The next command says what was put back.
		if _, errs, _ := r.sh("true"); !strings.Contains(errs, ".envrc") {
			t.Errorf("the next command does not say what was put back: %q", errs)
		}
	})
}

// TestSessionBelowRootBetweenCommands: a process a command left running
// in a session writes auto-run places below the workspace's root after
// the command's round (a person's committed packages/app/.npmrc, a new
// directory's .envrc and .vscode/tasks.json): each is moved aside within
// a second, an ordinary file beside them stays, and the next command
// says what was moved.
func TestSessionBelowRootBetweenCommands(t *testing.T) {
	python := needPython(t)
	// One backend after the other: the watch has a second to put back
	// what the background process wrote, and both at once on a loaded
	// machine (CI's ordinary user, beside the race and fuzz checks)
	// missed it once.
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			npmrc := filepath.Join(r.ws, "packages/app/.npmrc")
			os.MkdirAll(filepath.Dir(npmrc), 0o755)
			if err := os.WriteFile(npmrc, []byte("save-exact=true\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r.host("git add packages && git -c user.name=p -c user.email=p@x commit -q -m npmrc")
			writer := "import os, time\n" +
				"time.sleep(1.5)\n" + // (after the command's round)
				"open('packages/app/.npmrc', 'a').write('script-shell=/tmp/x\\n')\n" +
				"os.makedirs('deep/er/.vscode', exist_ok=True)\n" +
				"open('deep/er/.vscode/tasks.json', 'w').write('{}')\n" +
				"open('deep/.envrc', 'w').write('touch pwned\\n')\n" +
				"open('packages/app/index.js', 'w').write('1\\n')\n" +
				// (A repository made below the root, a hook planted in it.)
				"os.system(\"git init -q deep/repo && printf '#!/bin/sh\\\\ntouch pwned\\\\n' > deep/repo/.git/hooks/pre-commit && chmod +x deep/repo/.git/hooks/pre-commit\")\n" +
				"open('wrote', 'w').close()\n"
			r.background(python, writer)
			// The watch puts them back within a second on a quiet
			// machine; the battery runs many tests at once beside CI's
			// race and fuzz checks, where the planted hook was still
			// there after one second (twice, as the ordinary user): up
			// to three, and a log line when it took more than one.
			names := []string{"packages/app/.npmrc", "deep/er/.vscode/tasks.json", "deep/.envrc", "deep/repo/.git/hooks/pre-commit"}
			for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
				left := slices.DeleteFunc(slices.Clone(names), func(name string) bool {
					_, err := os.Stat(filepath.Join(r.ws, name))
					return err != nil
				})
				if len(left) == 0 {
					if d := time.Since(start); d > time.Second {
						t.Logf("put back after %v", d)
					}
					break
				}
				if time.Since(start) > 3*time.Second {
					t.Errorf("%s written by the session's background process still on the host three seconds later; %s", strings.Join(left, ", "), ledgerSummary(r.env))
					break
				}
			}
			if _, err := os.Stat(filepath.Join(r.ws, "packages/app/index.js")); err != nil {
				t.Errorf("an ordinary file the background process wrote was moved: %v", err)
			}
			if _, errs, _ := r.sh("true"); !strings.Contains(errs, "packages/app/.npmrc") {
				t.Errorf("the next command does not say what was moved: %q", errs)
			}
		})
	}
}

// ledgerSummary says, for a failure's message, what the guard's ledgers
// of env's state directory hold: tickets, roots and adopted repositories.
func ledgerSummary(env []string) string {
	state := decide.StateDir(func(name string) string {
		for _, kv := range slices.Backward(env) {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return ""
	})
	ledgers, _ := filepath.Glob(filepath.Join(state, "guard", "*.json"))
	var out []string
	for _, l := range ledgers {
		data, err := os.ReadFile(l)
		var v struct {
			Active  []json.RawMessage `json:"active"`
			Roots   []string          `json:"roots"`
			Adopted []string          `json:"adopted"`
		}
		if err != nil || json.Unmarshal(data, &v) != nil {
			continue
		}
		out = append(out, fmt.Sprintf("ledger %s: %d tickets, roots %q, adopted %q", filepath.Base(l), len(v.Active), v.Roots, v.Adopted))
	}
	if len(out) == 0 {
		return "no ledger in " + state
	}
	return strings.Join(out, "; ")
}

// TestSessionShimIgnoringSignals: a shim started with SIGINT and SIGHUP
// ignored (an agent's command run in a script's background, or under
// nohup) keeps its session from one command to the next. The key holds
// the signals the shim was started with ignored, which it read after
// its own catching of those signals had begun or not yet, as the
// goroutine ran: now and then a later command made a new sandbox, out
// of reach of what the session ran (TestSessionBackgroundServer's curl
// could not connect to its server: 2 runs in 240 of a loop run in a
// script's background). And every command's shell starts with them
// ignored, as the real shell started so does: catching them, to pass
// them on, had them at their default in whatever cordon started next
// (the session's manager, and so its shells, as the race went; the
// shell of a sandbox per command, always).
func TestSessionShimIgnoringSignals(t *testing.T) {
	const ignoring = `trap "" INT HUP; exec "$0" -c "$1"`
	const show = "sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status"
	real, err := exec.Command("/bin/sh", "-c", ignoring, realShell("bash"), show).Output()
	if err != nil || len(real) == 0 {
		t.Fatalf("the real shell: %v, %q", err, real)
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		for _, session := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/session=%v", backend, session), func(t *testing.T) {
				var settings []string
				if !session {
					settings = append(settings, "  session: off\n")
				}
				r := newSessionRig(t, backend, settings...)
				sh := func(script string) (string, string, int) {
					cmd := exec.Command("/bin/sh", "-c", ignoring, r.shim, script)
					cmd.Dir, cmd.Env = r.ws, r.env
					var out, errb bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &errb
					cmd.Run()
					r.noSandbox(errb.String())
					return out.String(), errb.String(), cmd.ProcessState.ExitCode()
				}
				for i := 1; i <= 4; i++ {
					if out, errs, code := sh(show); out != string(real) || code != 0 || errs != "" {
						t.Fatalf("command %d: the shell's ignored signals %q, the real shell's %q (exit %d, %s)", i, out, real, code, errs)
					}
				}
				if !session {
					return
				}
				out, errs, code := sh("sleep 300 >/dev/null 2>&1 & echo $!")
				pid := strings.TrimSpace(out)
				if code != 0 || pid == "" || errs != "" {
					t.Fatalf("exit %d, %q, %s", code, out, errs)
				}
				for i := 2; i <= 30; i++ {
					if out, errs, code := sh("kill -0 " + pid + " && echo alive"); out != "alive\n" || code != 0 || errs != "" {
						t.Fatalf("command %d: exit %d, %q, %s", i, code, out, errs)
					}
				}
			})
		}
	}
}

// TestSessionSurvivesSocketChurn: sockets appear and vanish in /tmp all
// the time (an app's, a test run's); the session's sandbox, and what a
// command left running in it, stays: the next command still sees its
// background process. (An ssh-agent's, which the rules hide by name,
// makes a new sandbox that covers it: TestSandboxHostSockets.)
func TestSessionSurvivesSocketChurn(t *testing.T) {
	python := needPython(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			out, errs, code := r.sh("sleep 300 >/dev/null 2>&1 & echo $!")
			pid := strings.TrimSpace(out)
			if code != 0 || pid == "" {
				t.Fatalf("exit %d, %q, %s", code, out, errs)
			}
			dir, err := os.MkdirTemp("/tmp", "app-churn")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			plain := filepath.Join("/tmp", "churn-"+filepath.Base(dir)+".sock")
			defer os.Remove(plain)
			// Sockets made on the host, then one of them removed.
			mk := exec.Command(python, "-c", `import socket,sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX); s.bind(p)`, filepath.Join(dir, "app.sock"), plain)
			if out, err := mk.CombinedOutput(); err != nil {
				t.Fatalf("making sockets: %v %s", err, out)
			}
			if out, errs, code := r.sh("kill -0 " + pid + " && echo alive"); out != "alive\n" || code != 0 {
				t.Errorf("after sockets appeared in /tmp, the session's background process is gone: exit %d, %q, %s", code, out, errs)
			}
			os.Remove(plain)
			if out, errs, code := r.sh("kill -0 " + pid + " && echo alive"); out != "alive\n" || code != 0 {
				t.Errorf("after a socket vanished from /tmp, the session's background process is gone: exit %d, %q, %s", code, out, errs)
			}
			// A repository the agent makes in /tmp (a clone to look at)
			// does not replace the session either.
			clone := filepath.Join("/tmp", "churn-clone-"+filepath.Base(dir))
			defer os.RemoveAll(clone)
			if out, errs, code := r.sh("git init -q " + clone + " && kill -0 " + pid + " && echo alive"); out != "alive\n" || code != 0 {
				t.Fatalf("exit %d, %q, %s", code, out, errs)
			}
			if out, errs, code := r.sh("kill -0 " + pid + " && echo alive"); out != "alive\n" || code != 0 {
				t.Errorf("after a repository was made in /tmp, the session's background process is gone: exit %d, %q, %s", code, out, errs)
			}
			// Nor one made in the workspace (guarded, at the guard's own
			// pace: not in the session's key).
			if out, errs, code := r.sh("git init -q nested-clone && kill -0 " + pid + " && echo alive"); out != "alive\n" || code != 0 {
				t.Fatalf("exit %d, %q, %s", code, out, errs)
			}
			if out, errs, code := r.sh("kill -0 " + pid + " && echo alive"); out != "alive\n" || code != 0 {
				t.Errorf("after a repository was made in the workspace, the session's background process is gone: exit %d, %q, %s", code, out, errs)
			}
			// An ssh-agent's directory made after the session started is
			// covered all the same (a new sandbox).
			agent, err := os.MkdirTemp("/tmp", "ssh-churn")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(agent)
			if out, err := exec.Command(python, "-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", filepath.Join(agent, "agent.1")).CombinedOutput(); err != nil {
				t.Fatalf("making the agent's socket: %v %s", err, out)
			}
			out, errs, _ = r.sh("ls " + agent + " 2>/dev/null; echo done")
			// (Gone at once: a directory by that name in the shared /tmp
			// is hidden in every sandbox started meanwhile, other tests'.)
			os.RemoveAll(agent)
			if strings.Contains(out, "agent.1") {
				t.Errorf("an ssh-agent's socket made after the session started is listed in it:\n%s", out)
			}
			// The new sandbox is no secret: what ran in the previous one
			// is out of reach from now on.
			if !strings.Contains(errs, "new session sandbox (the hidden paths changed)") {
				t.Errorf("the session was replaced without a word:\n%s", errs)
			}
			if out, errs, _ := r.sh("echo again"); out != "again\n" || errs != "" {
				t.Errorf("the next command in the new session says %q", errs)
			}
		})
	}
}

// TestSessionSlowExitSettles: a process a command left that ends a
// moment after the command (later than the manager waits at the
// command's end) leaves the session marked as running something only
// until it has ended: then the person's own changes to the guarded
// places are theirs again (not put back as a sandboxed command's), and
// a session replaced later says nothing of a server there is not.
func TestSessionSlowExitSettles(t *testing.T) {
	python := needPython(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			hook := filepath.Join(r.ws, ".git", "hooks", "pre-commit")
			if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			if out, errs, code := r.sh("sleep 0.4 >/dev/null 2>&1 & echo left"); out != "left\n" || code != 0 {
				t.Fatalf("exit %d, %q, %s", code, out, errs)
			}
			time.Sleep(2 * time.Second)
			// The person removes their hook: it stays removed.
			if err := os.Remove(hook); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
			if _, err := os.Stat(hook); err == nil {
				t.Errorf("the person's removal of their hook, after what the command left had ended, was undone")
			}
			// A new session sandbox (an ssh-agent's directory appears)
			// has nothing to say of the previous one.
			agent, err := os.MkdirTemp("/tmp", "ssh-settle")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(agent)
			if out, err := exec.Command(python, "-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", filepath.Join(agent, "agent.1")).CombinedOutput(); err != nil {
				t.Fatalf("making the agent's socket: %v %s", err, out)
			}
			_, errs, _ := r.sh("true")
			os.RemoveAll(agent)
			if strings.Contains(errs, "pre-commit") || strings.Contains(errs, "in the background") {
				t.Errorf("the next command says:\n%s", errs)
			}
		})
	}
}

// TestBytesThrough: arguments and variables that are not UTF-8 reach the
// real shell byte for byte, in a session's sandbox and in one of its own
// (the hand-offs to the keeper and to the guard were JSON, which made
// each such byte U+FFFD).
func TestBytesThrough(t *testing.T) {
	arg, val := "caf\xe9 \xff\xfe", "\x80x\x81"
	for _, backend := range []string{"bwrap", "landlock"} {
		for _, session := range []string{"on", "off"} {
			t.Run(backend+"/session-"+session, func(t *testing.T) {
				r := newSessionRig(t, backend, "  session: "+session+"\n")
				cmd := exec.Command(r.shim, "-c", `printf '%s|%s' "$1" "$X" | od -An -tx1`, "sh", arg)
				cmd.Args[0] = "bash"
				cmd.Dir, cmd.Env = r.ws, append(slices.Clone(r.env), "X="+val)
				out, err := cmd.CombinedOutput()
				plain := exec.Command("/bin/bash", "-c", `printf '%s|%s' "$1" "$X" | od -An -tx1`, "sh", arg)
				plain.Env = []string{"X=" + val, "PATH=/usr/bin:/bin"}
				want, _ := plain.Output()
				if err != nil || string(out) != string(want) {
					t.Errorf("through cordon: %v\n%s\nplain bash:\n%s", err, out, want)
				}
			})
		}
	}
}

// TestSessionWorkspaceMadeAgainLedger: a workspace removed and made again
// while a session of the old one still runs something starts a guard
// ledger of its own: the person's new hook and .envrc are theirs, not
// taken for planted ones.
func TestSessionWorkspaceMadeAgainLedger(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			if out, errs, code := r.sh("sleep 200 >/dev/null 2>&1 & echo left"); out != "left\n" || code != 0 {
				t.Fatalf("exit %d, %q, %s", code, out, errs)
			}
			r.sh("true") // (waits for the last command's snapshot, which writes .git)
			// (The session's watch may put a guarded place back while it
			// goes: a removal is looked at only by the next command.)
			var err error
			for range 10 {
				if err = os.RemoveAll(r.ws); err == nil {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("git", "init", "-q", r.ws).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			hook := filepath.Join(r.ws, ".git/hooks/pre-commit")
			os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755)
			os.WriteFile(filepath.Join(r.ws, ".envrc"), []byte("export A=1\n"), 0o644)
			out, errs, _ := r.sh("echo ok")
			if out != "ok\n" || strings.Contains(errs, "made by a sandboxed command") {
				t.Errorf("the person's files in the new workspace were taken for planted ones: %q %s", out, errs)
			}
			for _, p := range []string{hook, filepath.Join(r.ws, ".envrc")} {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s is gone: %v", p, err)
				}
			}
		})
	}
}

// waitListen waits up to ten seconds for address to take connections.
func waitListen(network, address string) bool {
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial(network, address); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// TestHostLoopbackServices: a server the person runs on the host's
// loopback (a dev server, a database) is reached from inside at the same
// address and port, with no flags: curl localhost:PORT and bash's
// /dev/tcp get its bytes; a port the rules close, or one that was not
// listening, is refused. Per command and in a session, on both backends.
func TestHostLoopbackServices(t *testing.T) {
	python := needPython(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	port := freePort(t)
	www := t.TempDir()
	os.WriteFile(filepath.Join(www, "hello.txt"), []byte("hello from the host\n"), 0o644)
	server := exec.Command(python, "-m", "http.server", strconv.Itoa(port), "--bind", "127.0.0.1", "--directory", www)
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer server.Process.Kill()
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the host's server did not start")
		}
	}
	closed := freePort(t)
	// The same server on IPv6's loopback, and one on a port the built-in
	// rules close as a proxy's (Tor's SOCKS port): a relay out of the
	// allowlist, refused even while listening.
	port6 := freePort(t)
	server6 := exec.Command(python, "-m", "http.server", strconv.Itoa(port6), "--bind", "::1", "--directory", www)
	v6 := server6.Start() == nil && waitListen("tcp6", fmt.Sprintf("[::1]:%d", port6))
	if v6 {
		defer server6.Process.Kill()
	}
	const relay = 9050
	relayServer := exec.Command(python, "-m", "http.server", strconv.Itoa(relay), "--bind", "127.0.0.1", "--directory", www)
	withRelay := relayServer.Start() == nil && waitListen("tcp", fmt.Sprintf("127.0.0.1:%d", relay))
	if withRelay {
		defer relayServer.Process.Kill()
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		for _, session := range []string{"on", "off"} {
			t.Run(backend+"/session-"+session, func(t *testing.T) {
				r := newSessionRig(t, backend, "  session: "+session+"\n")
				os.MkdirAll(filepath.Join(r.home, ".config/cordon/rules"), 0o755)
				os.WriteFile(filepath.Join(r.home, ".config/cordon/rules/close.yaml"), []byte(fmt.Sprintf("version: 1\nnetwork:\n  deny: [\"127.0.0.1:%d\"]\n", closed)), 0o644)
				script := fmt.Sprintf(`curl -s http://localhost:%d/hello.txt
exec 3<>/dev/tcp/127.0.0.1/%d && printf 'GET /hello.txt HTTP/1.0\r\n\r\n' >&3 && tail -1 <&3
curl -s -o /dev/null -w 'closed %%{http_code}\n' http://127.0.0.1:%d/ || echo closed refused`, port, port, closed)
				out, errs, code := r.sh(script)
				if strings.Count(out, "hello from the host") != 2 || !strings.Contains(out, "closed refused") {
					t.Errorf("exit %d:\n%s\n%s", code, out, errs)
				}
				if v6 {
					out, errs, code := r.sh(fmt.Sprintf("curl -s -g http://[::1]:%d/hello.txt", port6))
					if !strings.Contains(out, "hello from the host") {
						t.Errorf("the host's server on [::1] was not reached (exit %d):\n%s\n%s", code, out, errs)
					}
				}
				if withRelay {
					out, errs, _ := r.sh(fmt.Sprintf("curl -s -m 5 http://127.0.0.1:%d/hello.txt || echo relay refused", relay))
					if strings.Contains(out, "hello from the host") || !strings.Contains(out, "relay refused") {
						t.Errorf("a relay's port on the host's loopback was reached:\n%s\n%s", out, errs)
					}
				}
			})
		}
	}
}

// TestSessionBelowGitPointerBetweenCommands: a process a session's
// command left running makes, after the command's round, a .git file
// and a .git link deep below the root leading to a git directory of its
// own whose core.fsmonitor runs a script: moved aside at once, so the
// person's git status there runs nothing; a worktree git makes meanwhile
// stays.
func TestSessionBelowGitPointerBetweenCommands(t *testing.T) {
	python := needPython(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			marker := filepath.Join(r.base, "pwned")
			writer := "import os, time\n" +
				"time.sleep(1.5)\n" + // (after the command's round)
				"os.system(\"git init -q --bare node_modules/g && git --git-dir=node_modules/g config core.bare false && " +
				"printf '#!/bin/sh\\\\ntouch " + marker + "\\\\n' > node_modules/g/fsm && chmod +x node_modules/g/fsm && " +
				"git --git-dir=node_modules/g config core.fsmonitor $PWD/node_modules/g/fsm\")\n" +
				"os.makedirs('deep/x', exist_ok=True)\n" +
				"os.makedirs('deep/y', exist_ok=True)\n" +
				"open('deep/x/.git', 'w').write('gitdir: ../../node_modules/g\\n')\n" +
				"os.symlink('../../node_modules/g', 'deep/y/.git')\n" +
				"os.system('git worktree add -q sub/a/wt -b side >wt.log 2>&1')\n" +
				"open('wrote', 'w').close()\n"
			r.background(python, writer)
			time.Sleep(time.Second)
			for _, d := range []string{"deep/x", "deep/y"} {
				r.host("git -C " + d + " status >/dev/null 2>&1; true")
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("the person's git status in %s ran a program a session's background process named through %s/.git", d, d)
					os.Remove(marker)
				}
			}
			if _, err := os.Stat(filepath.Join(r.ws, "sub/a/wt")); err != nil {
				log, _ := os.ReadFile(filepath.Join(r.ws, "wt.log"))
				t.Fatalf("git worktree add in the background failed: %v\n%s", err, log)
			}
			if got := r.host("git -C sub/a/wt rev-parse --abbrev-ref HEAD"); got != "side\n" {
				t.Errorf("a worktree the background process added does not work on the host: %q", got)
			}
		})
	}
}

// TestSessionBelowBareBetweenCommands: a process a session's command
// left running makes, after the command's round, the person's tracked
// lib/src a bare repository whose configuration gives it a work tree and
// a core.fsmonitor that touches a marker: adopted at once (its
// configuration put back to what git makes), so the person's git status
// below it runs nothing.
func TestSessionBelowBareBetweenCommands(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		marker := filepath.Join(r.base, "pwned")
		r.host("mkdir -p lib/src/pkg && echo 'int main(){}' > lib/src/pkg/main.c && git add lib && git commit -qm src")
		writer := "import os, time\n" +
			"time.sleep(1.5)\n" + // (after the command's round)
			"os.system('git init -q --bare lib/src')\n" +
			"open('lib/src/config', 'w').write('[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = \"touch " + marker + "; false\"\\n')\n" +
			"open('wrote', 'w').close()\n"
		r.background(python, writer)
		time.Sleep(time.Second)
		r.host("git -C lib/src/pkg status >/dev/null 2>&1; true")
		if _, err := os.Stat(marker); err == nil {
			t.Error("the person's git status in lib/src/pkg ran a program a session's background process planted in a bare repository")
		}
	})
}

// TestSessionOwnRepositoryBetweenCommands: a process a command left
// running in a session writes a code-running key and a hook into the
// person's own clone below the root (vendor/lib, named by no index)
// between commands: both are put back within a second, before the next
// command, as in a repository directly in the workspace.
func TestSessionOwnRepositoryBetweenCommands(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		python := needPython(t)
		r.host("git init -q vendor/lib")
		config := filepath.Join(r.ws, "vendor/lib/.git/config")
		hook := filepath.Join(r.ws, "vendor/lib/.git/hooks/post-checkout")
		before, _ := os.ReadFile(config)
		writer := "import os, time\n" +
			"time.sleep(0.5)\n" +
			"open('vendor/lib/.git/config', 'a').write('[core]\\n\\tfsmonitor = touch pwned\\n')\n" +
			"open('vendor/lib/.git/hooks/post-checkout', 'w').write('#!/bin/sh\\ntouch pwned\\n')\n" +
			"os.chmod('vendor/lib/.git/hooks/post-checkout', 0o755)\n" +
			"open('wrote', 'w').close()\n"
		r.background(python, writer)
		time.Sleep(time.Second)
		if after, _ := os.ReadFile(config); string(after) != string(before) {
			t.Errorf("the person's repository's configuration written by the session's background process is on the host a second later:\n%s", after)
		}
		if _, err := os.Lstat(hook); err == nil {
			t.Error("a hook written by the session's background process into the person's repository is on the host a second later")
		}
	})
}

// TestSessionKeeperLayered: with the caches' private layers, the
// layers' process goes on as the session's keeper without an exec
// where the runtime can reach every thread (a binary without cgo, as
// cordon is released), and that keeper is what an exec'd one was: named
// cordon-keeper, no capability left in any set of any of its threads,
// no new privileges, its seccomp filter, nothing open of what the
// layers needed, and the command's limits and environment as before.
func TestSessionKeeperLayered(t *testing.T) {
	r := newSessionRig(t, "bwrap")
	entry := filepath.Join(r.home, ".cache", "go-build", "ab", "entry")
	os.MkdirAll(filepath.Dir(entry), 0o755)
	if err := os.WriteFile(entry, []byte("object\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := r.sh(`cat /proc/$PPID/comm; head -c 4096 /proc/$PPID/cmdline | tr '\0' '\n' | head -1
cat ~/.cache/go-build/ab/entry; echo changed > ~/.cache/go-build/ab/entry
grep -h -E '^(Cap[A-Za-z]+|NoNewPrivs|Seccomp):' /proc/$PPID/task/*/status | sort | uniq -c
echo "files $(ulimit -Sn) $(ulimit -Hn)"; echo "proxy ${ALL_PROXY:+set}"`)
	if code != 0 {
		t.Fatalf("the command failed (%d): %s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 4 || lines[0] != sessionbox.KeeperRole || lines[2] != "object" {
		t.Fatalf("not run by the session's keeper over the caches' layers:\n%s%s", out, errs)
	}
	// Fused only where every thread can drop its capabilities at once.
	_, _, errno := syscall.AllThreadsSyscall(syscall.SYS_GETPID, 0, 0, 0)
	fused := errno != syscall.ENOTSUP
	if got := filepath.Base(lines[1]) == "cordon-layers"; got != fused {
		t.Errorf("the keeper is the layers' process: %v, want %v (its argv[0] %q)", got, fused, lines[1])
	}
	threads := 0
	for _, l := range lines[3:] {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[1] == "CapInh:" || f[1] == "CapPrm:" || f[1] == "CapEff:" || f[1] == "CapBnd:" || f[1] == "CapAmb:":
			if strings.Trim(f[2], "0") != "" {
				t.Errorf("a thread of the keeper holds capabilities: %s", l)
			}
			threads, _ = strconv.Atoi(f[0])
		case f[1] == "NoNewPrivs:" && f[2] != "1", f[1] == "Seccomp:" && f[2] != "2":
			t.Errorf("a thread of the keeper lost a restriction: %s", l)
		}
	}
	if threads == 0 || !strings.Contains(out, fmt.Sprintf("%d NoNewPrivs:\t1", threads)) {
		t.Errorf("the keeper's threads were not all read:\n%s", out)
	}
	if !strings.Contains(out, "\nproxy set\n") {
		t.Errorf("the command lost the forwarder's variables:\n%s", out)
	}
	// The open files' soft limit cordon's runtime raised (to the hard
	// limit, or one below it), as an exec'd keeper passed it on: not the
	// soft limit the layers' process started with.
	var files syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &files)
	if !strings.Contains(out, fmt.Sprintf("\nfiles %d %d\n", files.Max-1, files.Max)) && !strings.Contains(out, fmt.Sprintf("\nfiles %d %d\n", files.Max, files.Max)) {
		t.Errorf("the command's open files limit (hard %d):\n%s", files.Max, out)
	}
	// Every command in the layers' mount namespace, wherever the keeper's
	// runtime runs its goroutines: the caches writable, privately.
	for i := range 6 {
		out, errs, code := r.sh(fmt.Sprintf("echo %d > ~/.cache/go-build/ab/w%d && cat ~/.cache/go-build/ab/entry && grep -c ' - overlay ' /proc/self/mountinfo", i, i))
		if code != 0 || !strings.HasPrefix(out, "changed\n") || out == "changed\n0\n" {
			t.Fatalf("command %d did not run over the caches' layers (exit %d):\n%s%s", i, code, out, errs)
		}
	}
	r.unchanged(entry, "object\n")
	r.absent(filepath.Join(filepath.Dir(entry), "w0"))
	// The keeper's descriptors (readable from the host by root alone: it
	// is not dumpable): the standard ones, its sockets and the runtime's
	// own, nothing of the mounts it made.
	if os.Getuid() != 0 {
		return
	}
	dirs, _ := os.ReadDir("/proc")
	found := false
	for _, d := range dirs {
		comm, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "comm"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if string(comm) != sessionbox.KeeperRole+"\n" || !bytes.Contains(cmdline, []byte(r.home)) {
			continue
		}
		found = true
		fds, err := os.ReadDir(filepath.Join("/proc", d.Name(), "fd"))
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range fds {
			target, _ := os.Readlink(filepath.Join("/proc", d.Name(), "fd", fd.Name()))
			if target != os.DevNull && !strings.HasPrefix(target, "socket:") && !strings.HasPrefix(target, "anon_inode:") && !strings.HasPrefix(target, "/sys/fs/cgroup/") {
				t.Errorf("the keeper holds descriptor %s: %s", fd.Name(), target)
			}
		}
	}
	if !found {
		t.Error("the session's keeper was not found from the host")
	}
}

// TestSessionNoStrayDescriptors: a command of a session has the
// descriptors its shim was started with, and none of cordon's (found by
// an attacker: every command of a bwrap session had the manager's
// connection to the first shim, a socket from outside the sandbox, at fd
// 3). The first command and a later one, on each backend, against the
// real bash given the same descriptors.
func TestSessionNoStrayDescriptors(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			// (The shell's own glob: no process beside it holds a pipe of
			// its at the moment it looks.) Standard input, output and
			// error alone: a descriptor leaked at 3 would show. (What
			// this test process was started with stays here: passed on
			// at 10, it would make the keeper close 3 to 9 for the
			// command.)
			if names, err := os.ReadDir("/proc/self/fd"); err == nil {
				for _, n := range names {
					if fd, err := strconv.Atoi(n.Name()); err == nil && fd > 2 {
						syscall.CloseOnExec(fd)
					}
				}
			}
			run := func(path string) string {
				cmd := exec.Command(path, "-c", `cd /proc/$$/fd && echo *`)
				cmd.Args[0], cmd.Dir, cmd.Env = "bash", r.ws, r.env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v: %s", path, err, out)
				}
				return string(out)
			}
			want := run(r.bash)
			if !strings.HasPrefix(want, "0 1 ") {
				t.Fatalf("the real bash has descriptors %q", want)
			}
			for _, which := range []string{"first", "later"} {
				if got := run(r.shim); got != want {
					t.Errorf("%s command: descriptors %q, the real bash's %q", which, got, want)
				}
			}
			r.inSession(true)
		})
	}
}

// TestSessionMappedWriterBetweenCommands: a process a command left
// running maps .git/config shared and writes through the mapping, which
// makes no event the guard's watch between commands sees: an attacker
// planted core.fsmonitor so, for the person's next git status, and the
// file stayed until the session's next command. The session now ends as
// soon as such a process holds a place the host runs from open for
// writing or mapped writable (its processes killed, the place put back),
// and the next command says why.
func TestSessionMappedWriterBetweenCommands(t *testing.T) {
	// The mapping made writable at once, and one made read-only from a
	// descriptor opened for writing, which mprotect makes writable later
	// (found by a review of the first fix: it looked at writable
	// mappings only).
	writers := map[string]string{
		"writable": "import mmap, time\n" +
			"time.sleep(0.3)\n" +
			"f = open('.git/config', 'r+b')\n" +
			"m = mmap.mmap(f.fileno(), 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)\n" +
			"f.close()\n" +
			"time.sleep(0.2)\n" +
			"plant = b'[core]\\n\\tfsmonitor = \"touch pwned\"\\n'\n" +
			"m[:len(plant)] = plant\n" +
			"m.flush()\n" +
			"time.sleep(30)\n",
		"mprotect": "import ctypes, os, time\n" +
			"libc = ctypes.CDLL(None, use_errno=True)\n" +
			"libc.mmap.restype = ctypes.c_void_p\n" +
			"libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]\n" +
			"libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]\n" +
			"time.sleep(0.3)\n" +
			"fd = os.open('.git/config', os.O_RDWR)\n" +
			"n = os.fstat(fd).st_size\n" +
			"addr = libc.mmap(None, n, 1, 1, fd, 0)\n" + // PROT_READ, MAP_SHARED
			"os.close(fd)\n" +
			"time.sleep(1.0)\n" +
			"libc.mprotect(addr, n, 3)\n" +
			"plant = b'[core]\\n\\tfsmonitor = \"touch pwned\"\\n'\n" +
			"ctypes.memmove(addr, plant, len(plant))\n" +
			"libc.mprotect(addr, n, 1)\n" +
			"time.sleep(30)\n",
	}
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		for _, kind := range []string{"writable", "mprotect"} {
			r := newSessionRig(t, backend)
			python := needPython(t)
			config := filepath.Join(r.ws, ".git", "config")
			before, err := os.ReadFile(config)
			if err != nil || len(before) < 40 {
				t.Fatalf("the workspace's .git/config: %v (%d bytes)", err, len(before))
			}
			script := "mapper-" + backend + "-" + kind + ".py"
			if err := os.WriteFile(filepath.Join(r.ws, script), []byte(writers[kind]), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, errs, code := r.sh("nohup " + python + " " + script + " >/dev/null 2>&1 & echo left"); out != "left\n" || code != 0 {
				t.Fatalf("exit %d, %q, %s", code, out, errs)
			}
			// The manager looks every 250 ms (the write comes 0.5 or
			// 1.3 s after the start); a machine loaded past 20 runnable
			// processes on 2 cores (CI beside other tests) once took
			// longer than 2.5 s: the place must be back within 8.
			time.Sleep(2500 * time.Millisecond)
			after, _ := os.ReadFile(config)
			for deadline := time.Now().Add(5500 * time.Millisecond); string(after) != string(before) && time.Now().Before(deadline); after, _ = os.ReadFile(config) {
				time.Sleep(100 * time.Millisecond)
			}
			if string(after) != string(before) {
				t.Errorf("%s: a .git/config written through a shared mapping by the session's background process is on the host 8 s later:\n%s", kind, after)
			}
			if out, err := exec.Command("pgrep", "-f", script).Output(); err == nil {
				t.Errorf("%s: the process that mapped .git/config still runs: %s", kind, out)
				exec.Command("pkill", "-f", script).Run()
			}
			if _, errs, _ := r.sh("true"); !strings.Contains(errs, "was ended") {
				t.Errorf("%s: the next command does not say why the session ended: %q", kind, errs)
			}
		}
	})
}

// TestSessionMappedWriterUnseen: three ways, found by an attacker, in
// which a process a command left running wrote core.fsmonitor into
// .git/config through a shared mapping past the session's look for
// such writers (and the write makes no event the watch between
// commands sees): a mapping of a hard link since removed (named
// ".git/hl (deleted)", no place's name); one kept by a thread whose
// leader exited (a zombie leader's maps and fd read empty); a
// descriptor parked in a unix socket between looks, taken back,
// mapped, written and unmapped. Each is put back within a second of
// the write, or the session ended before it, and stays put back.
func TestSessionMappedWriterUnseen(t *testing.T) {
	const ctypesMmap = "import ctypes, os, platform, time\n" +
		"libc = ctypes.CDLL(None, use_errno=True)\n" +
		"libc.mmap.restype = ctypes.c_void_p\n" +
		"libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]\n" +
		"plant = b'[core]\\n\\tfsmonitor = \"touch pwned\"\\n#'\n"
	writers := map[string]string{
		// (Mapped in the command, which then ends: a reconcile between
		// commands that saw the link would replace the file.)
		"hardlink": ctypesMmap +
			"os.link('.git/config', '.git/hl')\n" +
			"fd = os.open('.git/hl', os.O_RDWR)\n" +
			"os.unlink('.git/hl')\n" +
			"addr = libc.mmap(None, os.fstat(fd).st_size, 3, 1, fd, 0)\n" + // PROT_READ|PROT_WRITE, MAP_SHARED
			"os.close(fd)\n" +
			"if os.fork(): os._exit(0)\n" +
			"time.sleep(0.6)\n" +
			"ctypes.memmove(addr, plant, len(plant))\n" +
			"open('wrote-hardlink', 'w').close()\n" +
			"time.sleep(30)\n",
		"exitedleader": ctypesMmap + "import threading\n" +
			"def work():\n" +
			"    time.sleep(0.6)\n" +
			"    ctypes.memmove(addr, plant, len(plant))\n" +
			"    open('wrote-exitedleader', 'w').close()\n" +
			"    time.sleep(30)\n" +
			"if os.fork(): os._exit(0)\n" +
			"time.sleep(0.3)\n" +
			"fd = os.open('.git/config', os.O_RDWR)\n" +
			"addr = libc.mmap(None, os.fstat(fd).st_size, 3, 1, fd, 0)\n" +
			"os.close(fd)\n" +
			"threading.Thread(target=work).start()\n" +
			"libc.syscall(93 if platform.machine() in ('aarch64', 'arm64') else 60, 0)\n", // SYS_exit: the leader alone
		"inflight": "import mmap, os, socket, time\n" +
			"plant = b'[core]\\n\\tfsmonitor = \"touch pwned\"\\n#'\n" +
			"a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n" +
			"if os.fork(): os._exit(0)\n" +
			"time.sleep(0.3)\n" +
			"fd = os.open('.git/config', os.O_RDWR)\n" +
			"n = os.fstat(fd).st_size\n" +
			"socket.send_fds(a, [b'x'], [fd])\n" +
			"os.close(fd)\n" + // its only reference in flight
			"time.sleep(0.6)\n" +
			"fd = socket.recv_fds(b, 1, 1)[1][0]\n" +
			"m = mmap.mmap(fd, n, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)\n" +
			"m[:len(plant)] = plant\n" +
			"m.close()\n" +
			"socket.send_fds(a, [b'x'], [fd])\n" +
			"os.close(fd)\n" +
			"open('wrote-inflight', 'w').close()\n" +
			"time.sleep(30)\n",
	}
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		for _, kind := range []string{"hardlink", "exitedleader", "inflight"} {
			r := newSessionRig(t, backend)
			python := needPython(t)
			config := filepath.Join(r.ws, ".git", "config")
			before, err := os.ReadFile(config)
			if err != nil || len(before) < 40 {
				t.Fatalf("the workspace's .git/config: %v (%d bytes)", err, len(before))
			}
			script := "unseen-" + backend + "-" + kind + ".py"
			if err := os.WriteFile(filepath.Join(r.ws, script), []byte(writers[kind]), 0o644); err != nil {
				t.Fatal(err)
			}
			// (Each forks what it leaves running.)
			out, errs, code := r.sh(python + " " + script + " >/dev/null 2>&1; echo left")
			if out != "left\n" || code != 0 {
				t.Fatalf("exit %d, %q, %s", code, out, errs)
			}
			r.mappedPutBack(kind, config, before, errs)
			exec.Command("pkill", "-f", script).Run()
		}
	})
}

// mappedPutBack checks that what the background writer kind wrote into
// config (before, as it was) through a mapping is put back within a
// second of the write (the file "wrote-KIND" made after it), or that
// the session was ended before it wrote (said by the command that left
// it, whose stderr is said, or the next), and that config then stays
// as it was: the person's git never reads the plant.
func (r *sessionRig) mappedPutBack(kind, config string, before []byte, said string) {
	r.t.Helper()
	wrote := filepath.Join(r.ws, "wrote-"+kind)
	start := time.Now()
	for ; time.Since(start) < 4*time.Second; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(wrote); err == nil {
			break
		}
	}
	if _, err := os.Stat(wrote); err != nil {
		// (Ended before it wrote: the next command says so.)
		if _, errs, _ := r.sh("true"); !strings.Contains(said+errs, "was ended") {
			r.t.Errorf("%s: the background writer never wrote, and the session was not ended: %q", kind, said+errs)
		}
	}
	written := time.Now()
	back := false
	for time.Since(written) < 2*time.Second {
		now, _ := os.ReadFile(config)
		same := string(now) == string(before)
		if !same && back {
			r.t.Errorf("%s: .git/config was put back, then written again through the mapping:\n%s", kind, now)
			return
		}
		if !same && time.Since(written) > time.Second {
			r.t.Errorf("%s: a .git/config written through a shared mapping is on the host a second later:\n%s", kind, now)
			return
		}
		back = same
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSessionHardLinkBetweenCommands: a process a command left running
// links .git/config under another name and writes through that name:
// the events name the link, not the place (found by this round's
// review: the person's git status ran the core.fsmonitor written so).
// The place's own inode is watched too: it is put back within a second.
func TestSessionHardLinkBetweenCommands(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		python := needPython(t)
		config := filepath.Join(r.ws, ".git", "config")
		before, _ := os.ReadFile(config)
		writer := "import os, time\n" +
			"time.sleep(0.5)\n" +
			"os.link('.git/config', '.git/foo')\n" +
			"time.sleep(0.3)\n" +
			"open('.git/foo', 'a').write('[core]\\n\\tfsmonitor = touch pwned\\n')\n" +
			"open('wrote', 'w').close()\n" +
			"time.sleep(30)\n"
		r.background(python, writer)
		time.Sleep(time.Second)
		if after, _ := os.ReadFile(config); string(after) != string(before) {
			t.Errorf("a .git/config written through a hard link by the session's background process is on the host a second later:\n%s", after)
		}
	})
}

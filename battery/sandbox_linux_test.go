//go:build linux

package battery

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The battery's checks that only Linux can make: /proc, mounts, user
// namespaces, seccomp, the guard process (see sandbox_test.go).

// backends are the sandboxes the battery tries on this system.
// backends are the battery's backends, each also with its commands in a
// session's sandbox.
var backends = []string{"bwrap", "landlock", "bwrap/session", "landlock/session"}

func TestSandboxProcRootFails(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			target := filepath.Join(b.base, "via-proc")
			me := strconv.Itoa(os.Getpid())
			b.mustFail("/proc/1/root", "echo x > /proc/1/root"+target)
			b.mustFail("/proc/self/root", "echo x > /proc/self/root"+target)
			b.mustFail("/proc/<host pid>/root", "echo x > /proc/"+me+"/root"+target)
			b.mustFail("/proc/<host pid>/cwd", "echo x > /proc/"+me+"/cwd/via-proc-cwd")
			b.mustFail("the parent's root", "echo x > /proc/$PPID/root"+target)
			b.absent(target)
			b.absent("via-proc-cwd")
		})
	}
}

func TestSandboxRemountFails(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			target := filepath.Join(b.base, "after-remount")
			b.mustFail("remount / read-write", "mount -o remount,rw / && echo x > "+target)
			b.mustFail("remount / read-write (bind)", "mount -o remount,rw,bind / && echo x > "+target)
			b.mustFail("bind the host root over the workspace", "mount --bind / ./r && echo x > ./r"+target)
			b.mustFail("a new mount namespace", "unshare -m --propagation private sh -c 'mount -o remount,rw / && echo x > "+target+"'")
			b.mustFail("a user namespace", "unshare -Ur sh -c 'echo x > "+target+"'")
			b.absent(target)
			out, _ := b.run("on", "grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status")
			want := []string{"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapAmb:\t0000000000000000", "NoNewPrivs:\t1"}
			if !b.withoutMounts() {
				// An ordinary user cannot clear its bounding set without
				// a user namespace; no_new_privs makes it moot.
				want = append(want, "CapBnd:\t0000000000000000")
			}
			for _, want := range want {
				if !strings.Contains(out, want) {
					t.Errorf("in the sandbox, want %q in:\n%s", want, out)
				}
			}
		})
	}
}

// TestSandboxTerminalInjection checks that a confined command cannot push
// input into the terminal it shares with the caller (TIOCSTI), where the
// caller's shell would run it after the command ends.
func TestSandboxTerminalInjection(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("perl is not installed")
	}
	inject := `my $c = "x"; ioctl(STDIN, 0x5412, $c) or die "TIOCSTI: $!\n"; print "injected\n"`
	onTerminal := func(name string, args ...string) (string, error) {
		master, slave := openPty(t)
		defer master.Close()
		defer slave.Close()
		cmd := exec.Command(name, args...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		cmd.Env = os.Environ()
		err := cmd.Run()
		slave.Close()
		out, _ := readAvailable(master)
		return out, err
	}
	if out, err := onTerminal(perl, "-e", inject); err != nil {
		t.Skipf("TIOCSTI is refused outside the sandbox already (dev.tty.legacy_tiocsti=0?): %v %s", err, out)
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			out, err := onTerminal(b.cordon, "run", "--backend", b.backend, "--workspace", b.ws, "--", perl, "-e", inject)
			b.noSandbox(out)
			if err == nil || strings.Contains(out, "injected") || !strings.Contains(out, "TIOCSTI: Operation not permitted") {
				t.Errorf("TIOCSTI got through: %v\n%s", err, out)
			}
		})
	}
}

// openPty returns a new pseudo-terminal's two ends.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return master, slave
}

// readAvailable reads what the terminal's master has, without waiting
// for more.
func readAvailable(master *os.File) (string, error) {
	master.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	var b bytes.Buffer
	buf := make([]byte, 4096)
	for {
		n, err := master.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String(), err
		}
	}
}

// TestSandboxTransparent checks that a confined command keeps what the
// caller gave it: descriptors beyond the standard three (agents use 3, 4
// and 10+), the working directory and the exit status.
func TestSandboxTransparent(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			os.MkdirAll(filepath.Join(b.ws, "sub"), 0o755)
			script := `cat <&3; echo to fd 4 >&4; pwd; ls /proc/self/fd | tr '\n' ' ' >&2; exit 7`
			run := func(argv ...string) (cmd *exec.Cmd, out, errOut, fd4 string) {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				r3, w3, _ := os.Pipe()
				w3.WriteString("from fd 3\n")
				w3.Close()
				cmd = exec.Command(argv[0], argv[1:]...)
				cmd.Dir, cmd.Env = filepath.Join(b.ws, "sub"), b.env
				cmd.ExtraFiles = []*os.File{r3, w}
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				cmd.Run()
				w.Close()
				r3.Close()
				data, _ := io.ReadAll(r)
				r.Close()
				return cmd, o.String(), e.String(), string(data)
			}
			_, _, hostFDs, _ := run(b.bash, "-c", script)
			cmd, out, errOut, fd4 := run(b.cordon, "run", "--backend", b.backend, "--workspace", b.ws, "--", b.bash, "-c", script)
			b.noSandbox(errOut)
			if code := cmd.ProcessState.ExitCode(); code != 7 {
				t.Errorf("exit status %d, want 7: %s", code, errOut)
			}
			if want := "from fd 3\n" + filepath.Join(b.ws, "sub") + "\n"; out != want {
				t.Errorf("stdout %q, want %q", out, want)
			}
			if fd4 != "to fd 4\n" {
				t.Errorf("fd 4 got %q", fd4)
			}
			// The caller's descriptors, as the real shell sees them:
			// nothing of cordon's or bwrap's leaks in.
			if errOut != hostFDs {
				t.Errorf("descriptors in the sandbox: %s, outside: %s", errOut, hostFDs)
			}
		})
	}
}

// TestSandboxRedTeam holds the escapes a review found, each tried again.
func TestSandboxRedTeam(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			// The host's kernel settings (root could set core_pattern).
			b.mustFail("writing /proc/sys", "cat /proc/sys/kernel/core_pattern > /proc/sys/kernel/core_pattern")
			b.mustFail("sysrq", "echo h > /proc/sysrq-trigger")
			// New user namespaces.
			b.mustFail("unshare -U", "unshare -U true")
			// The host's abstract Unix sockets (an X server's), with the
			// network on.
			name := fmt.Sprintf("cordon-battery-%d-%s", os.Getpid(), backend)
			if abi, _ := ll.LandlockGetABIVersion(); abi < 6 {
				// Not scoped there; cordon sandbox says so.
			} else if l, err := net.Listen("unix", "@"+name); err == nil {
				defer l.Close()
				if perl, err := exec.LookPath("perl"); err == nil {
					b.mustFail("an abstract socket outside", perl+` -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) or die; connect(S, pack_sockaddr_un("\0`+name+`")) or die "$!\n"'`)
				}
			}
			// The user's runtime directory: the session bus, agents'
			// sockets, the keyring.
			run := filepath.Join(b.base, "run")
			os.MkdirAll(run, 0o700)
			os.WriteFile(filepath.Join(run, "keyring"), []byte(secret), 0o600)
			out, code := b.run("on", "cat $XDG_RUNTIME_DIR/keyring", "XDG_RUNTIME_DIR="+run)
			if code == 0 || strings.Contains(out, secret) {
				t.Errorf("the runtime directory is readable: %s", out)
			}
			// Credentials beyond the classic list, and in the environment.
			os.WriteFile(filepath.Join(b.home, ".pgpass"), []byte(secret), 0o600)
			b.mustFail("~/.pgpass", "cat ~/.pgpass")
			out, _ = b.run("on", "env", "STRIPE_KEY="+secret, "DATABASE_URI=postgres://u:"+secret+"@db/x", "MYSQL_PWD="+secret)
			if strings.Contains(out, secret) {
				t.Errorf("a credential variable reached the sandbox:\n%s", out)
			}
			// A link a command makes under a credential's name in a
			// writable directory does not hide its target from the next
			// command (a link to / would stop everything).
			b.run("on", "mkdir -p ~/.cache/huggingface && ln -s / ~/.cache/huggingface/token")
			if out, code := b.run("on", "echo next"); code != 0 || out != "next\n" {
				t.Errorf("after a link under a credential's name: exit %d: %s", code, out)
			}
			// TMPDIR is the caller's: naming the home directory does not
			// make it scratch.
			b.mustFail("TMPDIR=$HOME", "TMPDIR="+b.home+" && echo x > $TMPDIR/via-tmpdir")
			if out, code := b.run("on", "echo x > $TMPDIR/via-tmpdir", "TMPDIR="+b.home); code == 0 {
				t.Errorf("TMPDIR=$HOME made the home writable: %s", out)
			}
			b.absent(filepath.Join(b.home, "via-tmpdir"))
			// Files that tools run or obey, made where none was: moved to
			// the quarantine once the command ends, with a word on stderr.
			out, code = b.run("on", "echo 'echo pwned' > .envrc; mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.json; echo /tmp/evil > .git/commondir; echo done")
			if code != 0 || !strings.Contains(out, "done") || !strings.Contains(out, "cordon: "+b.ws+"/.envrc was made by a sandboxed command") {
				t.Errorf("exit %d:\n%s", code, out)
			}
			for _, f := range []string{".envrc", ".claude/settings.json", ".git/commondir"} {
				b.absent(filepath.Join(b.ws, f))
				if _, err := os.Lstat(filepath.Join(b.home, ".local/state/cordon/quarantine")); err != nil {
					t.Errorf("%s was not quarantined: %v", f, err)
				}
			}
			if !strings.Contains(b.host("git status --short; echo ok"), "ok") {
				t.Error("git broke")
			}
		})
	}
}

// TestSandboxScratchLinks checks that a link made in /tmp under a name the
// sandbox hides (ssh-*) cannot stop the next sandbox from starting.
func TestSandboxScratchLinks(t *testing.T) {
	b := newBattery(t, "bwrap")
	link := filepath.Join("/tmp", fmt.Sprintf("ssh-cordon-battery-%d", os.Getpid()))
	os.Remove(link)
	if err := os.Symlink(filepath.Join(b.home, ".bashrc"), link); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(link)
	if out, code := b.run("on", "echo ok"); code != 0 || out != "ok\n" {
		t.Errorf("a link in /tmp broke the sandbox: exit %d: %s", code, out)
	}
}

// TestSignalReachesConfinedShell checks that a signal sent to the shim's
// pid (as agents stop a command) reaches the shell inside the sandbox,
// whose trap runs, and that the caller sees the shell's exit status.
func TestSignalReachesConfinedShell(t *testing.T) {
	needShell(t, "bash")
	shimPath := linkShim(t, "bash")
	for _, group := range []bool{false, true} {
		signalShell(t, shimPath, group)
	}
}

// signalShell sends SIGTERM to the shim's pid, or to its process group
// (as agents stop a command), and checks that the shell's trap ran.
func signalShell(t *testing.T, shimPath string, group bool) {
	cmd := &exec.Cmd{Path: shimPath, Dir: t.TempDir(), Args: []string{"bash", "-c",
		`trap 'echo got TERM; exit 3' TERM; echo ready; while :; do sleep 0.05; done`},
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("first line %q, %v", line, err)
	}
	target := cmd.Process.Pid
	if group {
		target = -target
	}
	if err := syscall.Kill(target, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	err = cmd.Wait()
	if string(rest) != "got TERM\n" || cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("after SIGTERM (to the group: %v): output %q, %v; want the trap's output and exit status 3", group, rest, err)
	}
}

// TestKillEndsSandbox checks that killing the shim (SIGKILL, which it
// cannot forward) ends every process inside the sandbox: the agent never
// loses track of what it started.
func TestKillEndsSandbox(t *testing.T) {
	needShell(t, "bash")
	shimPath := linkShim(t, "bash")
	marker := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1000)
	cmd := &exec.Cmd{Path: shimPath, Dir: t.TempDir(), Args: []string{"bash", "-c",
		"sleep " + marker + " & sleep " + marker + " & echo ready; wait"}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("first line %q, %v", line, err)
	}
	// The two sleeps may not have started yet when "ready" arrives.
	for start := time.Now(); countProcesses("sleep\x00"+marker) != 2; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 3*time.Second {
			cmd.Process.Kill()
			t.Fatalf("%d sleep processes before the kill, want 2", countProcesses("sleep\x00"+marker))
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(3 * time.Second)
	for countProcesses("sleep\x00"+marker) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("processes of the sandbox outlived the shim")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countProcesses counts the processes whose command line starts with
// cmdline (arguments separated by NUL).
func countProcesses(cmdline string) int {
	return countOwn(func(data []byte) bool { return bytes.HasPrefix(data, []byte(cmdline)) })
}

// countOwn counts this user's processes whose command line (NUL
// separated) match takes. Only this user's: the suite runs as root and
// as an ordinary user side by side, with the same commands.
func countOwn(match func(cmdline []byte) bool) int {
	n := 0
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", d.Name()), &st) != nil || st.Uid != uint32(os.Getuid()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && match(data) {
			n++
		}
	}
	return n
}

// TestSandboxLimits checks that the settings' resource limits reach the
// confined program, and do not starve cordon itself (a memory limit on
// the Go runtime would crash it).
func TestSandboxLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		cfg := filepath.Join(b.base, "config")
		os.MkdirAll(filepath.Join(cfg, "cordon"), 0o755)
		os.WriteFile(filepath.Join(cfg, "cordon", "config.yaml"), []byte("version: 1\nsandbox:\n  limits: {memory: 268435456, open_files: 64}\n"), 0o644)
		// Limits set after the program starts were missing in 5 of
		// 20 runs: try it often enough to see such a race.
		for i := 0; i < 12; i++ {
			out, code := b.run("on", "ulimit -v; ulimit -n", "XDG_CONFIG_HOME="+cfg)
			if code != 0 || out != "262144\n64\n" {
				t.Fatalf("limits, run %d: exit %d: %q", i, code, out)
			}
		}
		// Behind the allowlist's forwarder, cordon in the sandbox
		// (Go) starts before the program: the limits are the
		// program's only.
		if out, code := b.run("allowlist", "ulimit -v; ulimit -n", "XDG_CONFIG_HOME="+cfg); code != 0 || out != "262144\n64\n" {
			t.Fatalf("limits behind the allowlist: exit %d: %q", code, out)
		}
	})
}

//go:build linux

package battery

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// unixClient connects to the Unix socket named by its argument ("@name"
// for an abstract one) and says so.
const unixClient = `import socket, sys
a = sys.argv[1]
s = socket.socket(socket.AF_UNIX)
s.connect("\0" + a[1:] if a.startswith("@") else a)
print("connected")`

// ownSockets is ordinary work: a server and a client in the same command,
// on a socket in /tmp and one in the workspace, and a multiprocessing
// Manager (a server process on a socket in a directory of its own).
const ownSockets = `import os, socket, sys
from multiprocessing.managers import SyncManager
for path in sys.argv[1:]:
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(path)
    srv.listen(1)
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    a, _ = srv.accept()
    c.sendall(b"hi")
    assert a.recv(2) == b"hi"
    os.unlink(path)
if __name__ == "__main__":
    m = SyncManager()
    m.start()
    d = m.dict()
    d["k"] = 1
    assert d["k"] == 1
    m.shutdown()
print("own ok")`

// hostListener listens on the Unix socket at addr ("@name": abstract) in
// this process, a program of the host's, and counts the connections it
// accepts.
func hostListener(t *testing.T, addr string) *atomic.Int32 {
	t.Helper()
	if !strings.HasPrefix(addr, "@") {
		if err := os.MkdirAll(filepath.Dir(addr), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

// TestSandboxHostSockets tries to reach programs of the host through
// their Unix sockets from inside the sandbox: in /tmp outside the names
// scratch_private hides, in the runtime directory, in the home directory
// and in a writable cache, and an abstract one. Each must fail; a socket
// the settings name must connect; the command's own sockets must work.
func TestSandboxHostSockets(t *testing.T) {
	py := pythonBinary()
	if py == "" {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal("python3 is needed for the socket battery")
		}
		t.Skip("python3 is not installed")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			tmp, err := os.MkdirTemp("/tmp", "cordon-battery-sock-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(tmp) })
			run := filepath.Join(b.base, "run")
			xdg := "XDG_RUNTIME_DIR=" + run
			sockets := map[string]string{
				"in /tmp":                  tmp + "-top",
				"in a directory of /tmp":   filepath.Join(tmp, "ctl"),
				"in the runtime directory": filepath.Join(run, "app", "ctl"),
				"in the home directory":    filepath.Join(b.home, ".app", "ctl"),
				"in a writable cache":      filepath.Join(b.home, ".cache", "ctl"),
			}
			t.Cleanup(func() { os.Remove(tmp + "-top") })
			accepted := map[string]*atomic.Int32{}
			for what, path := range sockets {
				accepted[what] = hostListener(t, path)
			}
			abstract := fmt.Sprintf("@cordon-battery-%d-%s", os.Getpid(), backend)
			accepted["abstract"] = hostListener(t, abstract)
			sockets["abstract"] = abstract

			// Scripts in the workspace: the rules do not judge their code.
			for name, code := range map[string]string{"client.py": unixClient, "own.py": ownSockets} {
				if err := os.WriteFile(filepath.Join(b.ws, name), []byte(code), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			status := b.sandboxReport(xdg)
			unreachable := !strings.Contains(status, "the host's Unix sockets (an editor's")
			if !unreachable {
				// Only Landlock without a mount namespace (an ordinary
				// user) and without ABI 9 may say so.
				if abi, _ := ll.LandlockGetABIVersion(); b.backend == "bwrap" || os.Geteuid() == 0 || abi >= 9 {
					t.Fatalf("cordon sandbox says the host's sockets stay reachable:\n%s", status)
				}
				t.Logf("%s here cannot cover the host's sockets, and cordon sandbox says so", backend)
			}
			for what, path := range sockets {
				if what == "abstract" {
					if abi, _ := ll.LandlockGetABIVersion(); abi < 6 {
						continue // not scoped there; cordon sandbox says so
					}
				} else if !unreachable {
					continue
				}
				out, code := b.run("on", py+" client.py "+path, xdg)
				if !strings.Contains(out, "Error") {
					t.Errorf("a host socket %s: the client did not run (exit %d):\n%s", what, code, out)
				}
				if code == 0 || strings.Contains(out, "connected") || accepted[what].Load() > 0 {
					t.Errorf("a host socket %s (%s) was reached from the sandbox (exit %d):\n%s", what, path, code, out)
				}
			}

			own := filepath.Join("/tmp", fmt.Sprintf("cordon-battery-own-%d.sock", os.Getpid()))
			defer os.Remove(own)
			if out, code := b.run("on", py+" own.py "+own+" ./app.sock", xdg); code != 0 || !strings.Contains(out, "own ok") {
				t.Errorf("the command's own sockets do not work (exit %d):\n%s", code, out)
			}

			// The settings name two of them: those connect.
			named := []string{sockets["in a directory of /tmp"], sockets["in the runtime directory"], sockets["in the home directory"]}
			cfg := filepath.Join(b.home, ".config", "cordon", "config.yaml")
			os.MkdirAll(filepath.Dir(cfg), 0o755)
			if err := os.WriteFile(cfg, []byte("version: 1\nsandbox:\n  sockets: ["+strings.Join(named, ", ")+"]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, path := range named {
				if out, code := b.run("on", py+" client.py "+path, xdg); code != 0 || !strings.Contains(out, "connected") {
					t.Errorf("the named socket %s cannot be reached (exit %d):\n%s", path, code, out)
				}
			}
			if unreachable {
				path := sockets["in a writable cache"]
				if out, code := b.run("on", py+" client.py "+path, xdg); code == 0 {
					t.Errorf("naming some sockets made %s reachable:\n%s", path, out)
				}
			}
		})
	}
}

// sandboxReport returns what cordon sandbox says for the battery's
// workspace, with the network on.
func (b *battery) sandboxReport(extraEnv ...string) string {
	b.t.Helper()
	cmd := exec.Command(b.cordon, "sandbox", "--backend", b.backend, "--network", "on", "--workspace", b.ws)
	cmd.Dir, cmd.Env = b.ws, append(append([]string{}, b.env...), extraEnv...)
	out, _ := cmd.CombinedOutput()
	b.noSandbox(string(out))
	return string(out)
}

// pythonBinary returns the first python3 on PATH that is a program, not
// a version manager's shim script (which would run through the shims
// under test), or "".
func pythonBinary() string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p, err := filepath.EvalSymlinks(filepath.Join(dir, "python3"))
		if err != nil || !filepath.IsAbs(p) {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		magic := make([]byte, 4)
		n, _ := f.Read(magic)
		f.Close()
		if n == 4 && string(magic) == "\x7fELF" {
			return p
		}
	}
	return ""
}

// TestSandboxScratchLitter fills /tmp with what other programs leave
// behind (a socket nobody listens on, a FIFO, a dangling link, a socket in
// a directory cordon cannot read, sockets made and removed while commands
// start) and runs ordinary commands in the sandbox meanwhile: none of it
// may stop a command on either backend.
func TestSandboxScratchLitter(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			tmp, err := os.MkdirTemp("/tmp", "cordon-battery-litter-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				os.Chmod(filepath.Join(tmp, "closed"), 0o755)
				os.RemoveAll(tmp)
			})
			// A socket left behind by a program that exited, at the top
			// of /tmp and one level down (srt-mux-*.sock broke Landlock).
			stale := func(path string) {
				l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
				if err != nil {
					t.Fatal(err)
				}
				l.SetUnlinkOnClose(false)
				l.Close()
			}
			top := fmt.Sprintf("%s-top.sock", tmp) // unique: a run beside this one, or one before, has its own
			stale(top)
			t.Cleanup(func() { os.Remove(top) })
			stale(filepath.Join(tmp, "stale.sock"))
			if err := syscall.Mkfifo(filepath.Join(tmp, "fifo"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(tmp, "gone", "x.sock"), filepath.Join(tmp, "dangling.sock")); err != nil {
				t.Fatal(err)
			}
			closed := filepath.Join(tmp, "closed")
			os.MkdirAll(closed, 0o755)
			stale(filepath.Join(closed, "s.sock"))
			os.Chmod(closed, 0)

			// Sockets that come and go while the sandbox is set up.
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					dir := filepath.Join(tmp, fmt.Sprintf("churn%d", i%4))
					os.MkdirAll(dir, 0o755)
					p := filepath.Join(dir, "c.sock")
					if l, err := net.Listen("unix", p); err == nil {
						l.Close()
					}
					os.RemoveAll(dir)
				}
			}()
			defer func() { close(stop); <-done }()

			for i := 0; i < 8; i++ {
				out, code := b.run("on", "echo hi; ls >/dev/null")
				if code != 0 || out != "hi\n" {
					t.Fatalf("run %d: litter in /tmp stopped the command (exit %d):\n%s", i, code, out)
				}
			}
		})
	}
}

// TestSessionHostSocketDeep is this round's attacker's: a command of a
// session moved the directory of a host program's socket in /tmp deeper
// than the socket search looks, or filled /tmp past its budget, and the
// next session's sandbox left it uncovered. The directory cannot be
// moved from inside (it is a mount point of the sandbox's, bound by a
// descriptor), and a socket bound on the host is covered at any depth
// below the search's roots (found in /proc/net/unix).
func TestSessionHostSocketDeep(t *testing.T) {
	py := needPython(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			r := newSessionRig(t, backend)
			if status := r.sandboxReport(); strings.Contains(status, "the host's Unix sockets (an editor's") {
				t.Skipf("%s here cannot cover the host's sockets, and cordon sandbox says so", backend)
			}
			dir, err := os.MkdirTemp("/tmp", "cordon-battery-deep-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			moved := dir + "-moved"
			t.Cleanup(func() { os.RemoveAll(moved) })
			near, deep := filepath.Join(dir, "ctl"), filepath.Join(dir, "a", "b", "ctl")
			nearN, deepN := hostListener(t, near), hostListener(t, deep)
			if err := os.WriteFile(filepath.Join(r.ws, "client.py"), []byte(unixClient), 0o644); err != nil {
				t.Fatal(err)
			}
			for what, path := range map[string]string{"in /tmp": near, "deeper than the search looks": deep} {
				out, errs, code := r.sh(py + " client.py " + path)
				if code == 0 || strings.Contains(out, "connected") {
					t.Errorf("a host socket %s (%s) was reached from the session (exit %d):\n%s%s", what, path, code, out, errs)
				}
			}
			out, errs, _ := r.sh("mv " + dir + " " + moved + "; echo moved $?")
			if _, err := os.Stat(near); err != nil || !strings.Contains(out, "moved 1") {
				t.Errorf("the directory of a covered host socket was moved from the sandbox (%v):\n%s%s", err, out, errs)
			}
			if nearN.Load()+deepN.Load() > 0 {
				t.Errorf("the host's listeners accepted %d connections from the session", nearN.Load()+deepN.Load())
			}
		})
	}
}

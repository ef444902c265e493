//go:build linux || darwin

package battery

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cordonsh/cordon/sessionbox"
	"github.com/cordonsh/cordon/snapshot"
)

// The sandbox battery: each claim of DESIGN §5 is tried for real through
// `cordon run`, on each backend of this system (bwrap and Landlock on
// Linux, Seatbelt on macOS: backends), and fails the test if it gets
// through. The checks only Linux can make are in sandbox_linux_test.go,
// those only macOS can in sandbox_darwin_test.go. scripts/test.sh runs it
// as root and again as an ordinary user.
// With CORDON_REQUIRE_SANDBOX=1 (CI), a backend that cannot run here fails
// instead of skipping.

// A battery is a fake home outside /tmp with credentials in it, and a
// git workspace under /tmp, as agents have them.
type battery struct {
	t       *testing.T
	backend string
	cordon  string // the test binary, linked as cordon
	bash    string // the real bash
	base    string // outside every writable path: holds home and outside/
	home    string
	ws      string
	env     []string
	session bool // commands run in a session's sandbox (package sessionbox)
}

// batteryBase makes the directory that holds a battery's fake home, and
// returns it. Not t.TempDir: /tmp is scratch, writable in the sandbox.
//
// Inside this run's testBase, not beside it: a Landlock session's key
// holds the names in the directories on the way to its hidden paths
// (docs/session.md), and a test's directory made or removed in the home
// directory while another test's session lived replaced that session.
func batteryBase(t testing.TB) string {
	t.Helper()
	base, err := os.MkdirTemp(ownBase(t), "t-")
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// eachBackend runs f for every backend, as subtests that run at once:
// most of their time is spent waiting (the agent's margin, sandboxes
// starting), not computing. They are not t.Parallel, so -parallel
// (GOMAXPROCS by default, 2 in CI) does not hold them back, and no other
// test runs beside them.
//
// Each makes its directories in one of its own, made before any starts
// and removed after all have ended: an entry made or removed in
// testBase, on the way to a sibling's hidden paths, would change that
// sibling's Landlock session key, so replace its sandbox mid-test (see
// batteryBase). Run f only where the subtests share nothing else: no
// listener, no process name they count, no file outside their own.
func eachBackend(t *testing.T, f func(t *testing.T, backend string)) {
	t.Helper()
	atOnce(t, backends, f)
}

// atOnce runs f for each of names as eachBackend does for backends.
func atOnce(t *testing.T, names []string, f func(t *testing.T, name string)) {
	t.Helper()
	dirs := make([]string, len(names))
	for i := range names {
		dir, err := os.MkdirTemp(testBase, "each-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		dirs[i] = dir
	}
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			t.Run(name, func(t *testing.T) {
				ownBases.Store(t.Name(), dirs[i])
				t.Cleanup(func() { ownBases.Delete(t.Name()) })
				f(t, name)
			})
		})
	}
	wg.Wait()
}

// secret is the content of every fake credential.
const secret = "SECRET-c0rd0n-7f3a"

func newBattery(t *testing.T, backend string) *battery {
	t.Helper()
	bash := needShell(t, "bash")
	base := batteryBase(t)
	t.Cleanup(func() { os.RemoveAll(base) })
	backend, session := strings.CutSuffix(backend, "/session")
	b := &battery{t: t, backend: backend, cordon: linkShim(t, "cordon"), bash: bash, base: base,
		home: filepath.Join(base, "home"), ws: filepath.Join(t.TempDir(), "ws"), session: session}
	// The shim b.shim runs, linked now: its directory made after a
	// command started the session would replace a Landlock session.
	linkShim(t, "bash")
	files := map[string]string{
		".ssh/id_ed25519":           secret,
		".ssh/known_hosts":          "github.com ssh-ed25519 AAAA\n",
		".aws/credentials":          secret,
		".netrc":                    secret,
		".git-credentials":          secret,
		".config/gh/hosts.yml":      secret,
		".docker/config.json":       secret,
		".claude/.credentials.json": secret,
		".bashrc":                   "# rc\n",
		".profile":                  "# profile\n",
		".cache/.keep":              "",
		"../outside/file":           "outside\n",
	}
	for name, data := range files {
		p := filepath.Join(b.home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b.env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + b.home, "LANG=C",
		"GITHUB_TOKEN=" + secret, "ANTHROPIC_API_KEY=" + secret, "OPENAI_API_KEY=" + secret,
		"DB_PASSWORD=" + secret, "AWS_SECRET_ACCESS_KEY=" + secret, "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off",
		// What the attacks make in the shared /tmp is named after the
		// test's base, and goes with it.
		"BATTERY_ID=" + filepath.Base(base),
	}
	t.Cleanup(func() {
		made, _ := filepath.Glob(filepath.Join("/tmp", filepath.Base(base)+"-*"))
		for _, d := range made {
			os.RemoveAll(d)
		}
	})
	if err := os.MkdirAll(b.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if session {
		// Every command of the battery, cordon run included, in the
		// sandbox of one session (one per policy: --network on and off
		// are two).
		b.env = append(b.env, "CORDON_SESSION=battery-"+filepath.Base(base))
		t.Cleanup(func() { stopSessions(t, b.home) })
	}
	// The continuous snapshot saver outlives the shim: the workspace is
	// removed only once it is done with it (this cleanup runs before
	// t.TempDir's).
	t.Cleanup(func() {
		snapshot.Open(filepath.Join(b.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(b.ws)
	})
	b.host("git init -q && echo one > tracked && git add tracked && git commit -qm one")
	return b
}

// host runs script on the host, in the workspace, and fails the test if
// it fails.
func (b *battery) host(script string) string {
	b.t.Helper()
	cmd := exec.Command(b.bash, "-c", script)
	cmd.Dir, cmd.Env = b.ws, b.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.t.Fatalf("on the host: %s: %v\n%s", script, err, out)
	}
	return string(out)
}

// run runs script with bash in the sandbox, in the workspace, and returns
// its output and exit status. A sandbox that cannot start fails the test,
// or skips it when CORDON_REQUIRE_SANDBOX is not set.
func (b *battery) run(network, script string, extraEnv ...string) (string, int) {
	b.t.Helper()
	cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", network, "--workspace", b.ws, "--", b.bash, "-c", script)
	cmd.Dir, cmd.Env = b.ws, append(append([]string{}, b.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run()
	b.noSandbox(out.String())
	return out.String(), cmd.ProcessState.ExitCode()
}

// noSandbox ends the test when output says the backend cannot run here:
// a failure under CORDON_REQUIRE_SANDBOX (CI), else a skip.
func (b *battery) noSandbox(output string) {
	b.t.Helper()
	if !strings.Contains(output, "no sandbox (") {
		return
	}
	if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
		b.t.Fatalf("the %s sandbox cannot run here:\n%s", b.backend, output)
	}
	b.t.Skipf("the %s sandbox cannot run here:\n%s", b.backend, output)
}

// mustFail runs script in the sandbox and fails the test if it succeeds
// or if secret shows in its output.
func (b *battery) mustFail(what, script string) {
	b.t.Helper()
	out, code := b.run("on", script)
	if code == 0 || strings.Contains(out, secret) {
		b.t.Errorf("%s: got through (exit %d):\n%s", what, code, out)
	}
}

// unchanged fails the test if the host file at path does not hold want.
func (b *battery) unchanged(path, want string) {
	b.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil || string(data) != want {
		b.t.Errorf("%s changed on the host: %q, %v", path, data, err)
	}
}

// skipWithoutMounts skips the test when the backend reports that it
// cannot keep paths inside the workspace read-only here (see
// [mountsDegraded]).
func (b *battery) skipWithoutMounts() {
	b.t.Helper()
	if b.withoutMounts() {
		b.t.Skipf("landlock cannot keep paths in the workspace read-only here (reported by cordon sandbox)")
	}
}

// withoutMounts is [mountsDegraded] for the battery's backend.
func (b *battery) withoutMounts() bool {
	return mountsDegraded(b.t, b.cordon, b.backend, b.ws, b.env)
}

// mountsDegraded reports whether cordon sandbox says that backend cannot
// keep paths inside workspace ws read-only here. Landlock's rights are
// inherited downwards, so that takes a mount namespace, which an
// ordinary user only gets through a user namespace, which the kernel
// may refuse (a sysctl, AppArmor, a container's seccomp filter).
func mountsDegraded(t *testing.T, cordon, backend, ws string, env []string) bool {
	t.Helper()
	if backend != "landlock" || os.Geteuid() == 0 {
		return false
	}
	cmd := exec.Command(cordon, "sandbox", "--backend", backend, "--workspace", ws)
	cmd.Dir, cmd.Env = ws, env
	out, _ := cmd.CombinedOutput()
	if degraded := strings.Contains(string(out), "read-only paths inside writable directories"); degraded {
		t.Logf("cordon sandbox:\n%s", out)
		return true
	}
	return false
}

func (b *battery) absent(path string) {
	b.t.Helper()
	if _, err := os.Lstat(path); err == nil {
		b.t.Errorf("%s was created on the host", path)
	}
}

func TestSandboxCredentialsUnreadable(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		for _, f := range []string{".ssh/id_ed25519", ".aws/credentials", ".netrc",
			".docker/config.json", ".claude/.credentials.json"} {
			b.mustFail("reading ~/"+f, "cat ~/"+f)
		}
		// Shown filtered (tokenfiles_test.go): a line that is a bare
		// value is left out.
		for _, f := range []string{".git-credentials", ".config/gh/hosts.yml"} {
			if out, _ := b.run("on", "cat ~/"+f); strings.Contains(out, secret) {
				t.Errorf("reading ~/%s: got through:\n%s", f, out)
			}
		}
		// The same files where XDG_CONFIG_HOME puts them (found by
		// an attacker: only the ~/.config spellings were listed).
		xdg := filepath.Join(b.home, "xdg")
		for f, text := range map[string]string{"gh/hosts.yml": "github.com:\n    oauth_token: " + secret + "\n", "git/credentials": "https://person:" + secret + "@github.com\n"} {
			os.MkdirAll(filepath.Dir(filepath.Join(xdg, f)), 0o755)
			os.WriteFile(filepath.Join(xdg, f), []byte(text), 0o600)
		}
		b.env = append(b.env, "XDG_CONFIG_HOME="+xdg)
		for _, f := range []string{"gh/hosts.yml", "git/credentials"} {
			if out, _ := b.run("on", "cat $XDG_CONFIG_HOME/"+f); strings.Contains(out, secret) {
				t.Errorf("reading $XDG_CONFIG_HOME/%s: got through:\n%s", f, out)
			}
		}
		if b.backend != "landlock" {
			// Landlock lets the names in a hidden directory be
			// listed (see platform/landlock_linux.go); bwrap and
			// Seatbelt not.
			b.mustFail("listing ~/.ssh", "ls ~/.ssh | grep -q id_ed25519")
		}
		b.mustFail("copying ~/.aws out", "cp -r ~/.aws ./aws && cat ./aws/credentials")
		if out, code := b.run("on", "cat ~/.ssh/known_hosts"); code != 0 || !strings.Contains(out, "github.com") {
			t.Errorf("~/.ssh/known_hosts should stay readable: exit %d: %s", code, out)
		}
	})
}

func TestSandboxWritesOutsideFail(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		outside := filepath.Join(b.base, "outside")
		b.mustFail("appending to ~/.bashrc", "echo evil >> ~/.bashrc")
		b.mustFail("creating a file in home", "touch ~/new")
		b.mustFail("deleting ~/.profile", "rm -f ~/.profile && test ! -e ~/.profile")
		b.mustFail("deleting a directory outside", "rm -rf "+outside+" && test ! -e "+outside)
		b.mustFail("writing next to the workspace", "echo x > "+filepath.Join(b.base, "new"))
		b.mustFail("writing in /etc", "echo x > /etc/cordon-battery")
		b.mustFail("writing in /usr", "touch /usr/cordon-battery")
		b.mustFail("renaming a file outside", "mv ~/.profile ~/.profile2")
		b.unchanged(filepath.Join(b.home, ".bashrc"), "# rc\n")
		b.unchanged(filepath.Join(b.home, ".profile"), "# profile\n")
		b.unchanged(filepath.Join(outside, "file"), "outside\n")
		b.absent(filepath.Join(b.home, "new"))
		b.absent(filepath.Join(b.base, "new"))
		b.absent("/etc/cordon-battery")
		b.absent("/usr/cordon-battery")
	})
}

func TestSandboxSymlinkOutFails(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			rc := filepath.Join(b.home, ".bashrc")
			if err := os.Symlink(rc, filepath.Join(b.ws, "planted")); err != nil {
				t.Fatal(err)
			}
			b.mustFail("writing through a link planted in the workspace", "echo evil > planted")
			b.mustFail("writing through a link made in the sandbox", "ln -s "+rc+" made && echo evil >> made")
			b.mustFail("a link to a directory outside", "ln -s "+b.home+" h && touch h/new")
			b.mustFail("a hard link to a file outside", "ln "+rc+" hard && echo evil >> hard")
			b.unchanged(rc, "# rc\n")
			b.absent(filepath.Join(b.home, "new"))
		})
	}
}

func TestSandboxGitMetadataReadOnly(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.skipWithoutMounts()
			// (.git/config is writable, its code-running keys guarded:
			// see gitconfig_test.go.)
			b.mustFail("writing a hook", "echo 'echo pwned' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit")
			b.mustFail("replacing the hooks directory", "mv .git/hooks .git/h2 && mkdir .git/hooks")
			b.absent(filepath.Join(b.ws, ".git/hooks/pre-commit"))
		})
	}
}

// TestSandboxGitMetadataReadOnlyFromInside: a command started in the
// directory a sandbox pins (.git, a mount point of its own) writes the
// hooks by a relative path: the directory is entered again once the
// mounts are made, so the path leads to the read-only hooks, not to the
// ones below the pin (Landlock's mount namespace kept the process on the
// mount beneath).
func TestSandboxGitMetadataReadOnlyFromInside(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.skipWithoutMounts()
			cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "on", "--workspace", b.ws, "--", b.bash, "-c", "echo 'echo pwned' > hooks/pre-commit")
			cmd.Dir, cmd.Env = filepath.Join(b.ws, ".git"), b.env
			out, err := cmd.CombinedOutput()
			b.noSandbox(string(out))
			if err == nil {
				t.Errorf("writing a hook from inside .git: got through:\n%s", out)
			}
			b.absent(filepath.Join(b.ws, ".git/hooks/pre-commit"))
		})
	}
}

func TestSandboxCredentialEnvGone(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			out, code := b.run("on", "env")
			if code != 0 {
				t.Fatalf("env: exit %d: %s", code, out)
			}
			for _, name := range []string{"GITHUB_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "SSH_AUTH_SOCK"} {
				if strings.Contains(out, name+"=") {
					t.Errorf("%s reached the sandbox", name)
				}
			}
			if strings.Contains(out, secret) {
				t.Errorf("a credential's value reached the sandbox:\n%s", out)
			}
			if !strings.Contains(out, "HOME="+b.home) || !strings.Contains(out, "GIT_AUTHOR_NAME=t") {
				t.Errorf("ordinary variables are missing:\n%s", out)
			}
			// A variable passed through by name in the user's settings.
			cfg := filepath.Join(b.base, "config")
			os.MkdirAll(filepath.Join(cfg, "cordon"), 0o755)
			os.WriteFile(filepath.Join(cfg, "cordon", "config.yaml"), []byte("version: 1\nsandbox:\n  pass_env: [GITHUB_TOKEN]\n"), 0o644)
			out, _ = b.run("on", "printenv GITHUB_TOKEN; printenv OPENAI_API_KEY || echo unset", "XDG_CONFIG_HOME="+cfg)
			if out != secret+"\nunset\n" {
				t.Errorf("pass_env: got %q", out)
			}
		})
	}
}

func TestSandboxNetwork(t *testing.T) {
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpPort := tcp.Addr().(*net.TCPAddr).Port
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port
	tcpScript := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", tcpPort)
	udpScript := fmt.Sprintf("echo hello > /dev/udp/127.0.0.1/%d", udpPort)
	received := func() bool {
		udp.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		buf := make([]byte, 64)
		n, _, err := udp.ReadFrom(buf)
		return err == nil && string(buf[:n]) == "hello\n"
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			drain(accepted)
			if out, code := b.run("off", tcpScript); code == 0 {
				t.Errorf("network off: TCP connect to the host's loopback succeeded: %s", out)
			}
			if len(accepted) > 0 {
				t.Errorf("network off: the host's listener accepted a connection")
			}
			b.run("off", udpScript)
			if received() {
				t.Errorf("network off: a UDP datagram reached the host's loopback")
			}
			if out, code := b.run("off", "exec 3<>/dev/tcp/::1/"+strconv.Itoa(tcpPort)); code == 0 {
				t.Errorf("network off: IPv6 connect succeeded: %s", out)
			}
			if out, code := b.run("on", tcpScript); code != 0 {
				t.Errorf("network on: TCP connect failed: %s", out)
			}
			if out, code := b.run("on", udpScript); code != 0 || !received() {
				t.Errorf("network on: UDP datagram not received (exit %d): %s", code, out)
			}
			// The allowlist: the host's loopback only through the proxy
			// (HTTP CONNECT, by address, open by default; the ports
			// listening on 127.0.0.1 are forwarded to it, docs/network.md),
			// no direct route (127.0.0.2 is the sandbox's own), no UDP.
			if tcp2, err := net.Listen("tcp", "127.0.0.2:0"); err == nil {
				defer tcp2.Close()
				reached := make(chan struct{}, 4)
				go func() {
					for {
						c, err := tcp2.Accept()
						if err != nil {
							return
						}
						reached <- struct{}{}
						c.Close()
					}
				}()
				out, code := b.run("allowlist", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.2/%d && echo connected", tcp2.Addr().(*net.TCPAddr).Port))
				if code == 0 || strings.Contains(out, "connected") || len(reached) > 0 {
					t.Errorf("allowlist: a direct TCP connect to the host's 127.0.0.2 got through: %s", out)
				}
			}
			drain(accepted)
			b.run("allowlist", udpScript)
			if received() {
				t.Errorf("allowlist: a UDP datagram reached the host's loopback")
			}
			connect := func(dest string) string {
				return fmt.Sprintf(`hp=${HTTP_PROXY#http://}; exec 3<>/dev/tcp/${hp%%:*}/${hp#*:} && printf 'CONNECT %s HTTP/1.1\r\n\r\n' >&3 && head -1 <&3`, dest)
			}
			if out, code := b.run("allowlist", connect(fmt.Sprintf("127.0.0.1:%d", tcpPort))); code != 0 || !strings.HasPrefix(out, "HTTP/1.1 200") || len(accepted) != 1 {
				t.Errorf("allowlist: the host's loopback through the proxy (exit %d, %d accepted): %s", code, len(accepted), out)
			}
			// Refused by the proxy itself, before any connection: an
			// address no rule allows (TEST-NET-1), and cloud metadata.
			for _, dest := range []string{"192.0.2.1:80", "169.254.169.254:80"} {
				if out, _ := b.run("allowlist", connect(dest)); !strings.HasPrefix(out, "HTTP/1.1 403 Forbidden") {
					t.Errorf("allowlist: CONNECT %s was not refused with a 403: %s", dest, out)
				}
			}
		})
	}
}

func drain(c chan struct{}) {
	for len(c) > 0 {
		<-c
	}
}

func TestSandboxSignalsStayInside(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			victim := exec.Command("sleep", "60")
			if err := victim.Start(); err != nil {
				t.Fatal(err)
			}
			defer victim.Process.Kill()
			b.mustFail("killing a process outside", fmt.Sprintf("kill -9 %d", victim.Process.Pid))
			time.Sleep(50 * time.Millisecond)
			if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
				t.Errorf("a process outside the sandbox was killed from inside")
			}
		})
	}
}

func TestSandboxOrdinaryWork(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	// The Go cache is warmed once on the host (a cold build of the
	// runtime is ~20 s of CPU); each backend starts from a copy, reads
	// it through its private layer and compiles and caches a program of
	// its own there, leaving the host's cache as it was.
	warm := filepath.Join(t.TempDir(), "go-build")
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module warm\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "main.go"), []byte("package main\nfunc main() {}\n"), 0o644)
	build := exec.Command(goBin, "build", "-o", os.DevNull, ".")
	build.Dir, build.Env = mod, append(os.Environ(), "GOCACHE="+warm, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("warming the Go cache: %v\n%s", err, out)
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			cache := filepath.Join(b.home, ".cache", "go-build")
			os.RemoveAll(cache)
			b.host("cp -a " + warm + " " + cache)
			before := b.host("find " + cache + " | sort | md5sum")
			goroot := strings.TrimSpace(b.host(goBin + " env GOROOT"))
			script := `set -e
echo two >> tracked && mkdir -p src && echo 'package main
func main() { println("built") }
const backend = "` + backend + `"' > src/main.go && printf 'module x\ngo 1.21\n' > go.mod
git add -A && git commit -qm two && git log --oneline | wc -l
echo scratch > /tmp/cordon-battery-$$ && cat /tmp/cordon-battery-$$ && rm /tmp/cordon-battery-$$
GOROOT=` + goroot + ` ` + goBin + ` build -o app ./src && ./app 2>&1
ls "$(GOROOT=` + goroot + ` ` + goBin + ` env GOCACHE)" >/dev/null && echo cached
echo done`
			out, code := b.run("on", script)
			if code != 0 || !strings.Contains(out, "2\nscratch\nbuilt\ncached\ndone\n") {
				t.Fatalf("ordinary work failed (exit %d):\n%s", code, out)
			}
			if log := b.host("git log --oneline | wc -l"); strings.TrimSpace(log) != "2" {
				t.Errorf("the commit is not on the host: %s", log)
			}
			if after := b.host("find " + cache + " | sort | md5sum"); after != before {
				t.Errorf("the build in the sandbox changed the host's Go cache")
			}
		})
	}
}

// TestSandboxAgentFiles checks that agents' own protocol files stay
// writable (Claude Code's shell snapshots and its cwd file under $TMPDIR,
// Codex's snapshots under $CODEX_HOME) while the agents' settings and
// credentials do not.
func TestSandboxAgentFiles(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			tmpdir := filepath.Join(b.base, "agent-tmp")
			codex := filepath.Join(b.base, "codex-home")
			for _, d := range []string{filepath.Join(b.home, ".claude/shell-snapshots"), tmpdir, filepath.Join(codex, "shell_snapshots")} {
				os.MkdirAll(d, 0o755)
			}
			os.WriteFile(filepath.Join(b.home, ".claude/settings.json"), []byte("{}"), 0o644)
			env := []string{"TMPDIR=" + tmpdir, "CODEX_HOME=" + codex}
			out, code := b.run("on", `set -e
echo snap > ~/.claude/shell-snapshots/snapshot-bash-1.sh
pwd -P >| "$TMPDIR/claude-1a2b-cwd"
echo snap > "$CODEX_HOME/shell_snapshots/t.sh"
echo ok`, env...)
			if code != 0 || out != "ok\n" {
				t.Fatalf("agents' files are not writable (exit %d):\n%s", code, out)
			}
			if data, _ := os.ReadFile(filepath.Join(tmpdir, "claude-1a2b-cwd")); string(data) != b.ws+"\n" {
				t.Errorf("the cwd file holds %q", data)
			}
			out, code = b.run("on", `echo '{"hooks":{}}' > ~/.claude/settings.json`, env...)
			if code == 0 {
				t.Errorf("the agent's settings are writable:\n%s", out)
			}
			b.unchanged(filepath.Join(b.home, ".claude/settings.json"), "{}")
		})
	}
}

// TestSandboxRuleFilesReadOnly checks that a sandboxed command cannot
// change the rules that judge the agent: the project's .cordon files, and
// the user's rule files.
func TestSandboxRuleFilesReadOnly(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.skipWithoutMounts()
			rule := "version: 1\npolicies: []\n"
			proj := filepath.Join(b.ws, ".cordon", "rules.yaml")
			user := filepath.Join(b.home, ".config", "cordon", "rules", "user.yaml")
			for _, p := range []string{proj, user} {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(rule), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b.mustFail("editing the project's rules", "echo 'x: 1' >> .cordon/rules.yaml")
			b.mustFail("removing the project's rules", "rm .cordon/rules.yaml")
			b.mustFail("adding a project rule file", "echo 'version: 1' > .cordon/new.yaml")
			b.mustFail("moving .cordon away", "mv .cordon .cordon.old")
			b.mustFail("editing the user's rules", "echo 'x: 1' >> ~/.config/cordon/rules/user.yaml")
			b.mustFail("adding a user rule file", "echo 'version: 1' > ~/.config/cordon/rules/new.yaml")
			b.unchanged(proj, rule)
			b.unchanged(user, rule)
			b.absent(filepath.Join(b.ws, ".cordon", "new.yaml"))
			b.absent(filepath.Join(b.ws, ".cordon.old"))
			b.absent(filepath.Join(b.home, ".config", "cordon", "rules", "new.yaml"))
		})
	}
}

// TestSandboxGitMetadataNotReplaced checks the way around read-only
// .git/hooks: moving .git away and putting a copy with writable hooks in
// its place.
func TestSandboxGitMetadataNotReplaced(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.skipWithoutMounts()
			b.mustFail("moving .git away", "mv .git .git.old")
			b.mustFail("replacing .git with a copy", "cp -r .git /tmp/g$$ && rm -rf .git; mv /tmp/g$$ .git && echo 'echo pwned' > .git/hooks/pre-commit")
			b.absent(filepath.Join(b.ws, ".git/hooks/pre-commit"))
			b.absent(filepath.Join(b.ws, ".git.old"))
		})
	}
}

// TestSandboxCredentialKinds checks that variables holding credentials
// by the word parts of their names or by their values are removed from
// the environment, through `cordon run` and through the bash shim, that
// ordinary variables stay, and that credential-only files beyond the
// classic list are hidden while settings tools need stay readable.
func TestSandboxCredentialKinds(t *testing.T) {
	creds := []string{
		"DB_PASS=" + secret, "SMTP_PASS=" + secret, "GPG_PASSPHRASE=" + secret, "SLACK_WEBHOOK_URL=https://hooks.example/" + secret,
		"npm_config_//registry.npmjs.org/:_authToken=" + secret, "MYSQL_ROOT_PWD=" + secret, "dbPassword=" + secret,
		"REDIS_URL=redis://default:" + secret + "@cache:6379", "SENTRY_DSN=https://" + secret + "@o.example/1",
	}
	ordinary := []string{"PASSENGER_COUNT=2", "KEYBOARD=us", "TOKENIZERS_PARALLELISM=false", "AUTHOR_NAME=a", "API_URL=https://api.example.com/v1"}
	files := []string{".config/containers/auth.json", ".pulumi/credentials.json", ".config/sops/age/keys.txt", ".yarnrc", ".databrickscfg"}
	check := func(t *testing.T, b *battery, out string) {
		t.Helper()
		for _, kv := range creds {
			name, _, _ := strings.Cut(kv, "=")
			if strings.Contains(out, name+"=") {
				t.Errorf("%s reached the sandbox", name)
			}
		}
		if strings.Contains(out, secret) {
			t.Errorf("a credential's value reached the sandbox:\n%s", out)
		}
		for _, kv := range ordinary {
			if !strings.Contains(out, kv+"\n") {
				t.Errorf("%s is missing in the sandbox:\n%s", kv, out)
			}
		}
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			for _, f := range files {
				p := filepath.Join(b.home, f)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(secret), 0o600)
			}
			os.WriteFile(filepath.Join(b.home, ".gitconfig"), []byte("[user]\n\tname = t\n"), 0o644)
			b.env = append(b.env, append(creds, ordinary...)...)
			out, code := b.run("on", "env")
			if code != 0 {
				t.Fatalf("env: exit %d: %s", code, out)
			}
			check(t, b, out)
			for _, f := range files {
				b.mustFail("reading ~/"+f, "cat ~/"+f)
			}
			if out, code := b.run("on", "git config --global user.name"); code != 0 || out != "t\n" {
				t.Errorf("~/.gitconfig should stay readable: exit %d: %q", code, out)
			}
			if b.backend == "landlock" {
				return
			}
			// The shim itself, as an agent runs it.
			cmd := exec.Command(linkShim(t, "bash"), "-c", "env")
			cmd.Dir, cmd.Env = b.ws, b.env
			var buf bytes.Buffer
			cmd.Stdout, cmd.Stderr = &buf, &buf
			err := cmd.Run()
			b.noSandbox(buf.String())
			if err != nil {
				t.Fatalf("the shim: %v: %s", err, buf.String())
			}
			check(t, b, buf.String())
		})
	}
}

// TestShimArgv0 checks that the confined shell gets the argv[0] the
// agent gave, not the path of the real shell (sandbox-exec would pass
// that): $0 is the caller's.
func TestShimArgv0(t *testing.T) {
	b := newBattery(t, backends[0])
	// (The test binary learns its role from the base name of argv[0],
	// and testscript passes that name on: only a bare name can be tried.)
	for _, argv0 := range []string{"bash"} {
		cmd := &exec.Cmd{Path: linkShim(t, "bash"), Args: []string{argv0, "-c", `echo "$0"`}, Dir: b.ws, Env: b.env}
		out, _ := cmd.CombinedOutput()
		b.noSandbox(string(out))
		if string(out) != argv0+"\n" {
			t.Errorf("argv[0] %q: the shell says $0 is %q", argv0, out)
		}
	}
}

// stopSessions ends the session sandboxes of the fake home.
func stopSessions(t *testing.T, home string) {
	t.Helper()
	if _, err := sessionbox.Stop(filepath.Join(home, ".local", "state", "cordon")); err != nil {
		t.Errorf("stopping the sessions: %v", err)
	}
}

// TestSandboxGitMetadataReadOnlyFromInsidePWD: as
// TestSandboxGitMetadataReadOnlyFromInside, with PWD naming the current
// directory through /proc/self/cwd (the same directory by its identity,
// which os.Getwd takes as it is): entered again by that name once the
// mounts are made, the process stays on the mount below the pin, where
// the hooks are not read-only.
func TestSandboxGitMetadataReadOnlyFromInsidePWD(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.skipWithoutMounts()
			// From .git and from the read-only hooks themselves.
			for _, c := range [][2]string{{".git", "hooks/pre-commit"}, {".git/hooks", "pre-commit"}} {
				cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "on", "--workspace", b.ws, "--", b.bash, "-c", "echo 'echo pwned' > "+c[1])
				cmd.Dir = filepath.Join(b.ws, c[0])
				cmd.Env = append(slices.Clone(b.env), "PWD=/proc/self/cwd")
				out, err := cmd.CombinedOutput()
				b.noSandbox(string(out))
				if err == nil {
					t.Errorf("writing a hook from inside %s, PWD=/proc/self/cwd: got through:\n%s", c[0], out)
				}
				b.absent(filepath.Join(b.ws, ".git/hooks/pre-commit"))
			}
		})
	}
}

package platform

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
	"time"

	"github.com/cordonsh/cordon/netproxy"
)

// TestMain lets this test binary be cordon inside the sandbox: bwrap runs
// it as NetRole with the network allowlist.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == NetRole {
		os.Exit(NetMain(os.Args))
	}
	if os.Getenv("CORDON_TEST_SOCKETS") != "" {
		os.Exit(trySockets())
	}
	if len(os.Args) > 1 && os.Args[0] == LimitRole && os.Args[1] == "limits" {
		os.Exit(LimitMain(os.Args)) // (a sandbox with limits: trampHelper's)
	}
	if os.Getenv("CORDON_TEST_TRAMP") != "" {
		os.Exit(trampHelper())
	}
	os.Exit(m.Run())
}

// socketFamilies are the families TestAllowlistSocketFamilies tries.
var socketFamilies = []struct {
	name   string
	family int
	typ    int
}{
	{"unix", unix.AF_UNIX, unix.SOCK_STREAM},
	{"inet", unix.AF_INET, unix.SOCK_STREAM},
	{"inet6", unix.AF_INET6, unix.SOCK_STREAM},
	{"netlink", unix.AF_NETLINK, unix.SOCK_RAW},
	{"vsock", unix.AF_VSOCK, unix.SOCK_STREAM},
	{"packet", unix.AF_PACKET, unix.SOCK_DGRAM},
}

// trySockets prints, for each of socketFamilies, whether a socket of it
// can be made here: "NAME ok" or "NAME ERROR".
func trySockets() int {
	for _, f := range socketFamilies {
		fd, err := unix.Socket(f.family, f.typ|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Printf("%s %v\n", f.name, err)
			continue
		}
		unix.Close(fd)
		fmt.Printf("%s ok\n", f.name)
	}
	return 0
}

// TestAllowlistSocketFamilies: with the allowlist, a command makes
// sockets of the families its network namespace holds (Unix, IPv4,
// IPv6, netlink) and of no other: AF_VSOCK is not the namespace's, and
// reaches the hypervisor (the machine that runs the VM, WSL's Windows)
// past the proxy (found by an attacker: a vsock port bound on the host
// was in use inside, both backends).
func TestAllowlistSocketFamilies(t *testing.T) {
	hostVsock := false
	if fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err == nil {
		unix.Close(fd)
		hostVsock = true
	}
	for _, backend := range []string{BackendBwrap, BackendLandlock} {
		t.Run(backend, func(t *testing.T) {
			ws, stateDir := t.TempDir(), t.TempDir()
			os.MkdirAll(SessionsDir(stateDir), 0o700)
			s := &Spec{Workspace: ws, Scratch: []string{os.TempDir()}, Network: NetworkAllowlist, Hidden: []string{SessionsDir(stateDir)}}
			p, err := NewPolicy(s, []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			b := allowlistBackend(t, backend, p, stateDir)
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(ws, "out")
			c, err := b.Start("/bin/sh", []string{"sh", "-c", "\"$0\" >" + out + " 2>&1", self}, append(p.Env, "PWD="+ws, "CORDON_TEST_SOCKETS=1"), os.Stdin)
			if err != nil {
				t.Fatal(err)
			}
			if code, err := c.Wait(); err != nil || code != 0 {
				t.Errorf("exit %d, %v", code, err)
			}
			data, _ := os.ReadFile(out)
			got := string(data)
			for _, want := range []string{"unix ok", "inet ok", "inet6 ok", "netlink ok", "packet address family not supported"} {
				if !strings.Contains(got, want) {
					t.Errorf("inside, no %q:\n%s", want, got)
				}
			}
			if hostVsock && !strings.Contains(got, "vsock address family not supported") {
				t.Errorf("a vsock socket was made inside (the host's vsock, past the proxy):\n%s", got)
			}
		})
	}
}

// TestNetworkAllowlist runs one bash with the allowlist under each
// backend and tries, from inside, what the allowlist must let through
// and what it must stop: local servers on the host's loopback stand in
// for the outside, names are resolved by the proxy's table.
func TestNetworkAllowlist(t *testing.T) {
	t.Parallel()
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer web.Close()
	webPort := web.Listener.Addr().(*net.TCPAddr).Port
	closed, err := net.Listen("tcp", "127.0.0.1:0") // a local database the rules close
	if err != nil {
		t.Fatal(err)
	}
	defer closed.Close()
	var mu sync.Mutex
	accepted := 0
	go func() {
		for {
			c, err := closed.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			c.Close()
		}
	}()
	closedPort := closed.Addr().(*net.TCPAddr).Port
	loop := netip.MustParseAddr("127.0.0.1")
	testResolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "allowed.test", "other-host.test":
			return []netip.Addr{loop}, nil
		case "meta.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	var refused []string
	NetRefused = func(p *Policy, r *netproxy.Refusal) {
		mu.Lock()
		refused = append(refused, r.Host)
		mu.Unlock()
	}
	defer func() { testResolve, NetRefused = nil, nil }()

	for _, backend := range []string{BackendBwrap, BackendLandlock} {
		t.Run(backend, func(t *testing.T) {
			mu.Lock()
			refused = nil
			mu.Unlock()
			testAllowlist(t, backend, webPort, closedPort, &mu, &accepted, &refused)
		})
	}
}

// testAllowlist is TestNetworkAllowlist under one backend.
func testAllowlist(t *testing.T, backend string, webPort, closedPort int, mu *sync.Mutex, accepted *int, refused *[]string) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ".env"), []byte("SECRET=hunter2\n"), 0o600)
	// The sessions' directory, which holds the proxy's socket, is
	// hidden, as cordon's own is.
	stateDir := t.TempDir()
	os.MkdirAll(SessionsDir(stateDir), 0o700)
	s := &Spec{Workspace: ws, Scratch: []string{os.TempDir()}, Network: NetworkAllowlist, Hidden: []string{SessionsDir(stateDir)},
		NetAllow: []string{"allowed.test", "meta.test", "127.0.0.0/8"},
		NetDeny:  []string{fmt.Sprintf("127.0.0.1:%d", closedPort)}}
	p, err := NewPolicy(s, []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b := allowlistBackend(t, backend, p, stateDir)
	// get URL: a plain-HTTP request through the proxy in HTTP_PROXY,
	// with bash's /dev/tcp (no curl needed); prints the status line
	// and the body's first line.
	script := `
get() {
	hp=${HTTP_PROXY#http://}
	exec 3<>/dev/tcp/${hp%:*}/${hp#*:} || { echo "get $1: no proxy"; return; }
	printf 'GET %s HTTP/1.1\r\nHost: x\r\n\r\n' "$1" >&3
	head -c 2000 <&3 | tr -d '\r' | sed -n '1p;$p' | tr '\n' ' '
	echo
	exec 3>&-
}
echo "proxy=$HTTP_PROXY all=$ALL_PROXY no=$NO_PROXY"
get http://allowed.test:` + fmt.Sprint(webPort) + `/
get http://other-host.test:` + fmt.Sprint(webPort) + `/
get http://meta.test/
get http://127.0.0.1:` + fmt.Sprint(closedPort) + `/
# The host's loopback ports that were listening and that the rules open
# are reached at the same address, through the proxy (the web server
# answers); one the rules close is refused; other addresses have no
# route, and UDP goes nowhere.
exec 4<>/dev/tcp/127.0.0.1/` + fmt.Sprint(webPort) + ` && printf 'GET / HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n' >&4 && head -1 <&4 | tr -d '\r' | sed 's/^/direct loopback: /'; exec 4>&-
(exec 4<>/dev/tcp/127.0.0.1/` + fmt.Sprint(closedPort) + `) 2>/dev/null && echo "direct closed: connected" || echo "direct closed: failed"
(exec 4<>/dev/tcp/192.0.2.1/80) 2>/dev/null && echo "direct out: connected" || echo "direct out: failed"
(echo x >/dev/udp/192.0.2.1/53) 2>/dev/null && echo "udp: sent" || echo "udp: failed"
# git over SSH: GIT_SSH_COMMAND's ProxyCommand, cordon's connect role,
# speaks SOCKS5 to the forwarder.
echo "ssh=$GIT_SSH_COMMAND"
netfwd=${GIT_SSH_COMMAND#*ProxyCommand=}; netfwd=${netfwd%% *}
printf 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' | "$netfwd" connect allowed.test ` + fmt.Sprint(webPort) + ` | head -1 | sed 's/^/connect: /'
"$netfwd" connect other-host.test ` + fmt.Sprint(webPort) + ` </dev/null || echo "connect refused: $?"
if command -v curl >/dev/null; then
	curl -s -m 5 -d @.env http://other-host.test:` + fmt.Sprint(webPort) + `/ | head -1
	curl -s -m 5 -o /dev/null -w 'https %{http_connect}\n' https://other-host.test:` + fmt.Sprint(webPort) + `/
fi
true
`
	out := filepath.Join(ws, "out")
	c, err := b.Start("/bin/bash", []string{"bash", "-c", "{ " + script + "\n} >" + out + " 2>&1"}, append(p.Env, "PWD="+ws), os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := c.Wait(); err != nil || code != 0 {
		t.Errorf("bash: exit %d, %v", code, err)
	}
	data, _ := os.ReadFile(out)
	got := string(data)
	t.Logf("inside:\n%s", got)
	for _, want := range []string{
		"proxy=http://127.0.0.1:", "all=socks5h://127.0.0.1:", "no=localhost,127.0.0.1,::1",
		"HTTP/1.1 200 OK hello from ",
		"HTTP/1.1 403 Forbidden No rule can open it", // meta.test: its last line
		"direct loopback: HTTP/1.1 200 OK", "direct closed: failed", "direct out: failed", "udp: failed",
		"ssh=ssh -o 'ProxyCommand=" + filepath.Join(stateDir, "keeper") + "/", "/" + NetRole + " connect %h %p'",
		"connect: HTTP/1.1 200 OK", "cordon refused the connection to other-host.test:", "connect refused: 255",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("inside, no %q", want)
		}
	}
	if n := strings.Count(got, "HTTP/1.1 403 Forbidden"); n != 3 {
		t.Errorf("%d refusals inside, want 3 (other-host, meta, the closed port)", n)
	}
	if !strings.Contains(got, "`cordon approve --host other-host.test`") {
		t.Error("the refusal does not say how to allow the host")
	}
	if strings.Contains(got, "hunter2") || strings.Contains(got, "hello from other-host") {
		t.Error("data reached a host outside the allowlist")
	}
	if _, err := exec.LookPath("curl"); err == nil {
		if !strings.Contains(got, "cordon refused the connection to other-host.test") || !strings.Contains(got, "https 403") {
			t.Error("curl -d @.env to another host was not refused by the proxy")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if *accepted != 0 {
		t.Errorf("the closed loopback port got %d connections", *accepted)
	}
	if len(*refused) < 3 {
		t.Errorf("refusals reported: %v", *refused)
	}
	if left, _ := filepath.Glob(filepath.Join(SessionsDir(stateDir), "proxy-*")); len(left) > 0 {
		t.Errorf("the proxy's socket outlived the command: %v", left)
	}
	// The forwarder ends with the program (Landlock has no pid
	// namespace that would end it).
	serve := NetRole + "\x00serve\x00" + SessionsDir(stateDir)
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		left := slices.ContainsFunc(cmdlines, func(f string) bool {
			data, _ := os.ReadFile(f)
			return strings.HasPrefix(string(data), serve)
		})
		if !left {
			break
		}
		if time.Now().After(deadline) {
			t.Error("the forwarder outlived the command")
			break
		}
	}
}

// TestCleanProxies: a proxy socket whose process is gone is removed; one
// whose process runs is kept.
func TestCleanProxies(t *testing.T) {
	state := t.TempDir()
	dir := SessionsDir(state)
	os.MkdirAll(dir, 0o700)
	live := filepath.Join(dir, fmt.Sprintf("proxy-%d-abc", os.Getpid()))
	dead := filepath.Join(dir, "proxy-4194303-abc")
	other := filepath.Join(dir, "0123.sock")
	for _, f := range []string{live, dead, other} {
		os.WriteFile(f, nil, 0o600)
	}
	CleanProxies(state)
	for f, want := range map[string]bool{live: true, dead: false, other: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", f, err == nil, want)
		}
	}
}

// allowlistBackend returns the backend named backend for p with its
// proxy's state in stateDir; it skips the test (fails it where the
// sandbox is required) when the backend, or Landlock's network
// namespace, is missing here.
func allowlistBackend(t *testing.T, backend string, p *Policy, stateDir string) Backend {
	t.Helper()
	var b Backend
	var err error
	if backend == BackendBwrap {
		b, err = newBwrap(p, stateDir)
	} else {
		var l *landlockBackend
		if l, err = newLandlock(p); err == nil && l.nsErr != nil {
			err = l.nsErr
		}
		if err == nil {
			l.stateDir, b = stateDir, l
		}
	}
	if err != nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return b
}

// TestForwarderProxyPortNotHosts: the forwarder's own port (the proxy's,
// a port the kernel chooses) is never one of the host's ports it listens
// on for the host's servers: if it were, a program connecting to that
// server would reach the proxy instead (curl's TLS answered by the
// proxy's plain "400", "wrong version number"). In a network namespace
// of its own whose port range is two ports, the one the kernel prefers
// for a bind (of the other parity than the range's low end) is the host's.
func TestForwarderProxyPortNotHosts(t *testing.T) {
	const other, host = 40000, 40001
	if os.Getenv("CORDON_FORWARDER_TEST") == "child" {
		err := loopbackUp()
		if err == nil {
			err = os.WriteFile("/proc/sys/net/ipv4/ip_local_port_range", []byte(fmt.Sprintf("%d %d", other, host)), 0)
		}
		if err != nil {
			fmt.Println("set-up:", err)
			os.Exit(0)
		}
		for range 10 {
			proxy, addr, hosts, addrs, err := listenForwarder(fmt.Sprint(host))
			if err != nil {
				fmt.Println("listenForwarder:", err)
				os.Exit(0)
			}
			if addr != fmt.Sprintf("127.0.0.1:%d", other) || !slices.Contains(addrs, fmt.Sprintf("127.0.0.1:%d", host)) {
				fmt.Printf("the proxy's listener is at %s, the host's ports at %q\n", addr, addrs)
			}
			proxy.Close()
			for _, f := range hosts {
				f.Close()
			}
		}
		fmt.Println("done")
		os.Exit(0)
	}
	skipNested(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestForwarderProxyPortNotHosts$")
	cmd.Env = append(os.Environ(), "CORDON_FORWARDER_TEST=child")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.Process == nil {
		if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
			t.Fatalf("cannot make a user and network namespace: %v", err)
		}
		t.Skipf("cannot make a user and network namespace: %v", err)
	}
	if err != nil || strings.TrimSpace(string(out)) != "done" {
		t.Errorf("%v:\n%s", err, out)
	}
}

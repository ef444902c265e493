package platform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/cordonsh/cordon/netproxy"
	"golang.org/x/sys/unix"
)

// The network allowlist (docs/network.md): the process that starts bwrap
// serves the proxy (package netproxy) on a Unix socket of the host for
// as long as the sandbox runs; bwrap gives the sandbox a network
// namespace of its own (loopback only) and binds the socket into it;
// inside, cordon re-executed as NetRole listens on 127.0.0.1, starts the
// forwarder, sets the proxy variables and execs the program.

// A hostProxy is a proxy serving one sandbox.
type hostProxy struct {
	sock string
	ln   net.Listener
}

// startProxy starts the proxy for policy p on a fresh socket in the
// sessions' directory (named proxy-PID-RANDOM: not *.sock, which are the
// sessions'), handing the tunnels that take a credential to bk when it
// is not nil. The error says why the allowlist cannot be served: then
// nothing may run.
func startProxy(p *Policy, stateDir string, bk *Brokerage) (*hostProxy, error) {
	rules, err := netproxy.Compile(p.NetAllow, p.NetDeny)
	if err != nil {
		return nil, fmt.Errorf("the network rules: %v; fix the rule file, or set sandbox.network to on or off", err)
	}
	if stateDir == "" {
		return nil, errors.New("the network allowlist needs cordon's state directory for its proxy's socket (set HOME or XDG_STATE_HOME), or set sandbox.network to on or off")
	}
	dir := SessionsDir(stateDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot make the directory of the network proxy: %w", err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	sock := filepath.Join(dir, "proxy-"+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(rnd[:]))
	name, done, err := UnixName(sock)
	if err != nil {
		return nil, fmt.Errorf("cannot start the network proxy: %w", err)
	}
	ln, err := net.Listen("unix", name)
	done()
	if err != nil {
		return nil, fmt.Errorf("cannot start the network proxy: %w", err)
	}
	// Closing must not unlink by the name it was bound by (the
	// directory may be closed by then): stop removes the socket.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	srv := &netproxy.Server{Rules: rules, Resolve: testResolve}
	if NetRefused != nil {
		srv.Refused = func(r *netproxy.Refusal) { NetRefused(p, r) }
	}
	if bk != nil {
		srv.Broker = bk.Broker
		if NetRefused != nil && bk.Broker.Refused == nil {
			bk.Broker.Refused = func(host string, port int, reason string) {
				NetRefused(p, &netproxy.Refusal{Host: host, Port: port, Reason: reason, Never: true})
			}
		}
	}
	go srv.Serve(ln)
	return &hostProxy{sock: sock, ln: ln}, nil
}

// CleanProxies removes the proxies' sockets in state directory
// stateDir that outlived the process that served them (a proxy-PID-RANDOM
// whose PID runs no more: killed before it could remove it). Called when a
// session starts, off the per-command path.
func CleanProxies(stateDir string) {
	dir := SessionsDir(stateDir)
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, d := range des {
		rest, ok := strings.CutPrefix(d.Name(), "proxy-")
		if !ok {
			continue
		}
		p, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(p)
		if err != nil || pid <= 0 || ProcessStart(pid) != "" {
			continue
		}
		os.Remove(filepath.Join(dir, d.Name()))
	}
}

// UnixName is the name to bind or connect the Unix socket at path by:
// path itself, or, when it is longer than an address holds (a long home
// directory), /proc/self/fd/N/NAME through its directory, opened; done
// closes that directory once the socket is bound or connected.
func UnixName(path string) (string, func(), error) {
	if len(path) < len(unix.RawSockaddrUnix{}.Path) {
		return path, func() {}, nil
	}
	dir, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	name := "/proc/self/fd/" + strconv.Itoa(dir) + "/" + filepath.Base(path)
	if len(name) >= len(unix.RawSockaddrUnix{}.Path) {
		unix.Close(dir)
		return "", nil, fmt.Errorf("the socket name %s is too long", filepath.Base(path))
	}
	return name, func() { unix.Close(dir) }, nil
}

// dialUnix connects to the Unix socket at path, however long.
func dialUnix(path string) (net.Conn, error) {
	name, done, err := UnixName(path)
	if err != nil {
		return nil, err
	}
	defer done()
	return net.Dial("unix", name)
}

// testResolve, when set (by tests), resolves names for the proxy.
var testResolve func(ctx context.Context, host string) ([]netip.Addr, error)

// stop ends the proxy: no new connection, the socket removed.
func (h *hostProxy) stop() {
	if h != nil {
		h.ln.Close()
		os.Remove(h.sock)
	}
}

// withProxy returns b and env for one start: with the network
// allowlist, a copy of b with a proxy started for it (the caller stops
// it when the sandbox has ended), and the policy's credentials brokered
// (see brokerFor).
func (b *bwrapBackend) withProxy(env []string) (*bwrapBackend, *hostProxy, []string, error) {
	if b.policy.Network != NetworkAllowlist {
		return b, nil, WithGitConfig(env, (*Brokerage)(nil).GitConfig(b.policy)), nil
	}
	p, env, bk := brokerFor(b.policy, b.stateDir, env)
	h, err := startProxy(p, b.stateDir, bk)
	if err != nil {
		return nil, nil, nil, err
	}
	c := *b
	c.proxySock, c.policy = h.sock, p
	return &c, h, env, nil
}

// servesProxy reports whether a start serves the allowlist's proxy:
// not in the setup step, whose caller serves it already.
func (l *landlockBackend) servesProxy() bool {
	return l.p.Network == NetworkAllowlist && l.p.Proxy == ""
}

// withProxy returns l for one start, the program to run and its
// environment: with the network allowlist, a copy of l whose policy
// names a proxy started for it (the caller stops it when the program
// has ended) and binds the bundle of a broker (see brokerFor), the
// program behind the forwarder (this binary itself, argv[0] the link
// that names the role), and env with the placeholders.
func (l *landlockBackend) withProxy(path string, argv, env []string) (*landlockBackend, *hostProxy, string, []string, []string, error) {
	if !l.servesProxy() {
		if l.p.Network != NetworkAllowlist {
			env = WithGitConfig(env, (*Brokerage)(nil).GitConfig(l.p))
		}
		return l, nil, path, argv, env, nil
	}
	if !l.netns {
		return nil, nil, "", nil, nil, errors.New("landlock: the network allowlist needs a network namespace of the command's own, which cannot be made here; set sandbox.network to on or off")
	}
	self, err := selfPath()
	if err != nil {
		return nil, nil, "", nil, nil, fmt.Errorf("cannot find cordon's own binary for the network forwarder: %w", err)
	}
	bp, env, bk := brokerFor(l.p, l.stateDir, env)
	h, err := startProxy(bp, l.stateDir, bk)
	if err != nil {
		return nil, nil, "", nil, nil, err
	}
	cmd, err := netWrap(l.stateDir, h.sock, bp, path, argv)
	if err != nil {
		h.stop()
		return nil, nil, "", nil, nil, err
	}
	p := *bp
	p.Proxy, p.Sockets = h.sock, append(slices.Clip(p.Sockets), h.sock)
	c := *l
	c.p = &p
	if l.mounts != nil {
		m := *l.mounts
		m.proxy = h.sock
		m.caBundle, m.caTargets, m.shown = p.CABundle, p.CATargets, p.Shown
		c.mounts = &m
	}
	return &c, h, self, cmd, env, nil
}

// netArgs are bwrap's options for the policy's network: its own network
// namespace unless the network is on, and the proxy's socket bound in
// for the allowlist.
func (b *bwrapBackend) netArgs() []string {
	if b.policy.Network == NetworkOn {
		return nil
	}
	return []string{"--unshare-net"}
}

// proxyMount binds the proxy's socket into the sandbox at its own path
// (in the sessions' directory, an empty directory there, which gets
// search permission for it), for the allowlist; and the bundle that
// trusts the credential broker over the host's bundles.
func (b *bwrapBackend) proxyMount() []string {
	if b.policy.Network != NetworkAllowlist {
		return nil
	}
	a := []string{"--ro-bind", b.socket(), b.socket()}
	for _, t := range b.policy.CATargets {
		a = append(a, "--ro-bind", b.policy.CABundle, t)
	}
	return a
}

// socket is the proxy's socket, or, before one is started (cordon
// sandbox shows the command line), where it would be.
func (b *bwrapBackend) socket() string {
	if b.proxySock == "" {
		return filepath.Join(SessionsDir(b.stateDir), "proxy-PID-RANDOM")
	}
	return b.proxySock
}

// netCommand wraps the program's command line for the allowlist: cordon
// itself starts first, as NetRole, and execs the program with argv kept
// (so bwrap's --argv0 is not needed).
func (b *bwrapBackend) netCommand(path string, argv []string) ([]string, error) {
	cmd, err := netWrap(b.stateDir, b.socket(), b.policy, path, argv)
	return append([]string{"--"}, cmd...), err
}

// netWrap is the command line that runs the program at path with argv
// behind the forwarder for the proxy at sock: [link, sock, ports, path,
// argv...], link being the path that runs cordon as NetRole (which is
// also its argv[0]), ports the host's loopback ports policy p's rules
// open.
func netWrap(stateDir, sock string, p *Policy, path string, argv []string) ([]string, error) {
	link, err := RoleLink(stateDir, NetRole)
	if err != nil {
		return nil, fmt.Errorf("cannot make the link that starts the network forwarder in cordon's state directory: %w", err)
	}
	return append([]string{link, sock, portList(openLoopbackPorts(p)), p.Limits.arg(), path}, argv...), nil
}

// openLoopbackPorts are the host's loopback ports listening now that the
// policy's rules let commands reach (see hostLoopbackPorts): only those
// are listened on inside, so that a closed one is refused at once, as it
// would be on the host, rather than accepted and cut.
func openLoopbackPorts(p *Policy) []int {
	rules, err := netproxy.Compile(p.NetAllow, p.NetDeny)
	if err != nil {
		return nil
	}
	lo := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	return slices.DeleteFunc(hostLoopbackPorts(), func(port int) bool {
		return rules.CheckAddr(lo.String(), port, lo, false) != nil
	})
}

// portList is ports as NetMain takes them: "3000,5432", "-" for none.
func portList(ports []int) string {
	if len(ports) == 0 {
		return "-"
	}
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

// maxLoopbackPorts bounds the host's loopback ports forwarded.
const maxLoopbackPorts = 256

// hostLoopbackPorts are the TCP ports listening on the host's loopback
// (127.0.0.0/8, ::1, or every address) now, from /proc/net/tcp and tcp6,
// but 53 (a resolver there answers any name: the rules deny it too):
// the dev servers and databases a person started, which a command
// reaches at the same address and port inside its own network
// namespace (see NetMain). Which of them the proxy then lets through is
// the rules' business (network: allow, deny).
func hostLoopbackPorts() []int {
	var ports []int
	add := func(a netip.Addr, n int) {
		a = a.Unmap()
		if n > 0 && n != 53 && (a.IsLoopback() || a.IsUnspecified()) && !slices.Contains(ports, n) {
			ports = append(ports, n)
		}
	}
	v4, err4 := listeningTCP(unix.AF_INET)
	v6, err6 := listeningTCP(unix.AF_INET6)
	if err4 == nil && err6 == nil {
		for _, ap := range slices.Concat(v4, v6) {
			add(ap.Addr(), int(ap.Port()))
		}
	} else {
		ports = procLoopbackPorts()
	}
	slices.Sort(ports)
	if len(ports) > maxLoopbackPorts {
		ports = ports[:maxLoopbackPorts]
	}
	return ports
}

// procLoopbackPorts is hostLoopbackPorts read from /proc, where socket
// diagnostics are not to be had.
func procLoopbackPorts() []int {
	var ports []int
	// This thread's network namespace: /proc/net is the main thread's,
	// which the Landlock probe may have moved to one of its own and left
	// there (the host's ports would all look closed); a thread that runs
	// this goroutine is none that a probe holds. (The netlink socket
	// above is this thread's too.)
	for _, name := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile("/proc/thread-self/net/" + name)
		if err != nil {
			data, err = os.ReadFile("/proc/net/" + name)
		}
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // LISTEN
				continue
			}
			addr, port, ok := strings.Cut(f[1], ":")
			n, err := strconv.ParseUint(port, 16, 16)
			if !ok || err != nil || n == 0 || n == 53 || !loopbackHex(addr) || slices.Contains(ports, int(n)) {
				continue
			}
			ports = append(ports, int(n))
		}
	}
	return ports
}

// loopbackHex reports whether an address of /proc/net/tcp{,6} (hex, in
// the kernel's byte order) is a loopback one or every address.
func loopbackHex(addr string) bool {
	switch addr {
	case "00000000", "00000000000000000000000000000000", // every address
		"00000000000000000000000001000000": // ::1
		return true
	}
	// 127.0.0.0/8, little-endian: the last byte is 7F.
	return len(addr) == 8 && strings.HasSuffix(addr, "7F") ||
		len(addr) == 32 && strings.HasPrefix(addr, "0000000000000000FFFF0000") && strings.HasSuffix(addr, "7F") // ::ffff:127.x
}

// NetMain is cordon inside the sandbox as NetRole (see there). It
// returns only on failure.
func NetMain(args []string) int {
	code, _ := netMain(args)
	return code
}

// netMain is NetMain; goOn says that this process goes on as the
// program, the session's keeper, without an exec (see layerMain).
func netMain(args []string) (code int, goOn bool) {
	fail := func(format string, a ...any) (int, bool) {
		fmt.Fprintf(os.Stderr, "cordon: the network forwarder: "+format+"\n", a...)
		return 126, false
	}
	switch {
	case len(args) == 4 && args[1] == "serve":
		return serveForward(args[2], args[3]), false
	case len(args) == 4 && args[1] == "connect":
		return connect(args[2], args[3]), false
	case len(args) < 6:
		return fail("started by cordon itself, not by hand")
	}
	link, sock, ports, path, argv := args[0], args[1], args[2], args[4], args[5:]
	// The resource limits are the program's: set on this process, whose
	// Go runtime a memory limit would starve, only at its exec.
	l, err := parseLimits(args[3])
	if err != nil {
		return fail("%v", err)
	}
	// The host's ports are listened on here, before the program runs,
	// and handed to the forwarder: a connection the program makes at
	// once then waits in the backlog instead of being refused.
	proxy, addr, listeners, addrs, err := listenForwarder(ports)
	if err != nil {
		return fail("cannot listen on the sandbox's loopback: %v; nothing was run", err)
	}
	null, err := unix.Open(os.DevNull, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("%v; nothing was run", err)
	}
	// The forwarder is a process of its own, in a session of its own so
	// that the command's group signals do not reach it; it ends with the
	// program (its parent death signal: the program is this thread once
	// exec'd, which the fork and the exec are both made from), as bwrap's
	// sandbox does; Landlock's has no pid namespace to end it. What the
	// program inherits (the agent's pipes, a keeper's control socket)
	// is kept from it: close-on-exec while it starts, then inherited
	// again by the program.
	files := []uintptr{uintptr(null), uintptr(null), uintptr(null), proxy.Fd()}
	for _, lf := range listeners {
		files = append(files, lf.Fd())
	}
	inherited := markCloseOnExec()
	runtime.LockOSThread()
	// (syscall.ForkExec, not os.StartProcess, which first forks once
	// more to probe for pidfds.)
	_, err = syscall.ForkExec("/proc/self/exe", []string{NetRole, "serve", sock, strings.Join(append([]string{"-"}, addrs...), ",")}, &syscall.ProcAttr{
		Files: files,
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
	for _, fd := range inherited {
		unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
	}
	unix.Close(null)
	proxy.Close()
	for _, lf := range listeners {
		lf.Close()
	}
	if err != nil {
		return fail("cannot start: %v; nothing was run", err)
	}
	env := WithProxyEnv(os.Environ(), addr, link)
	if inProcess && keeperHere(path) && l.Memory == 0 {
		if err := continueAs(argv, env, l); err != nil {
			return fail("cannot run %s: %v", path, err)
		}
		return 0, true
	}
	err = execLimited(path, argv, env, l)
	return fail("cannot run %s: %v", path, err)
}

// listenForwarder makes the forwarder's listeners on the sandbox's
// loopback: one at each of addrs, the loopback addresses of the host's
// ports (see [loopbackAddrs]; one that cannot be made, in use or no IPv6
// here, is left out), then proxy, the proxy's, at addr, a port the
// kernel chooses. The host's come first so that the kernel cannot choose
// one of them for the proxy's: a program connecting to that host port
// would reach the proxy instead of the host's server.
func listenForwarder(ports string) (proxy *os.File, addr string, hosts []*os.File, addrs []string, err error) {
	for _, a := range loopbackAddrs(ports) {
		l, err := net.Listen("tcp", a)
		if err != nil {
			continue
		}
		lf, err := l.(*net.TCPListener).File()
		l.Close()
		if err != nil {
			continue
		}
		hosts = append(hosts, lf)
		addrs = append(addrs, a)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		addr = ln.Addr().String()
		proxy, err = ln.(*net.TCPListener).File()
		ln.Close()
	}
	if err != nil {
		for _, lf := range hosts {
			lf.Close()
		}
		return nil, "", nil, nil, err
	}
	return proxy, addr, hosts, addrs, nil
}

// markCloseOnExec sets close-on-exec on every descriptor above 2 that
// lacks it, and returns them.
func markCloseOnExec() []int {
	entries, _ := os.ReadDir("/proc/self/fd")
	var out []int
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
			out = append(out, fd)
		}
	}
	return out
}

// loopbackAddrs are the addresses the forwarder listens on for ports,
// the host's loopback ports listening when the sandbox was made ("3000,
// 5432", "-" for none): each on 127.0.0.1 and ::1.
func loopbackAddrs(ports string) []string {
	var out []string
	for _, p := range strings.Split(ports, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			continue
		}
		for _, host := range []string{"127.0.0.1", "::1"} {
			out = append(out, net.JoinHostPort(host, strconv.Itoa(n)))
		}
	}
	return out
}

// serveForward is the forwarder: it accepts on the listener inherited at
// descriptor 3 and pipes each connection to the proxy's socket. It also
// accepts on the listeners inherited at descriptors 4 on, listening on
// the sandbox's loopback at addrs ("-,127.0.0.1:3000,[::1]:3000", in
// that order; see [loopbackAddrs]), and takes each connection there to
// the same address of the host's loopback, through the proxy, which
// applies the rules: a person's dev server or database is reached at the
// address it has on the host.
func serveForward(sock, addrs string) int {
	// Not dumpable, as a session's keeper is not: a session's forwarder
	// is one of its sandbox's processes at rest (not counted as left
	// running by a command), and runs as the commands' user, who must
	// not ptrace it or write its memory, to have it write the guarded
	// places after the command's end.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 126
	}
	ln, err := net.FileListener(os.NewFile(3, "forwarder"))
	if err != nil {
		return 126
	}
	proxy := ln.Addr().String()
	for i, a := range strings.Split(addrs, ",")[1:] {
		host, port, err := net.SplitHostPort(a)
		n, err2 := strconv.Atoi(port)
		if err != nil || err2 != nil {
			continue
		}
		l, err := net.FileListener(os.NewFile(uintptr(4+i), a))
		if err != nil {
			continue
		}
		go netproxy.Forward(l, func() (net.Conn, error) { return netproxy.DialSOCKS(proxy, host, n) })
	}
	netproxy.Forward(ln, func() (net.Conn, error) { return dialUnix(sock) })
	return 126
}

// connect is ssh's ProxyCommand in the sandbox: it connects to
// host:port through the forwarder (ALL_PROXY) and pipes standard
// input and output to the connection.
func connect(host, port string) int {
	n, err := strconv.Atoi(port)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cordon: bad port %q\n", port)
		return 255
	}
	c, err := netproxy.DialSOCKS(strings.TrimPrefix(os.Getenv("ALL_PROXY"), "socks5h://"), host, n)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cordon: %v\n", err)
		return 255
	}
	netproxy.Join(c, os.Stdin, os.Stdout)
	return 0
}

// proxyVars are the variables that point programs at a proxy, and
// NO_PROXY, in both cases.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"}

// WithProxyEnv returns env with the proxy variables set for the
// forwarder at addr (host:port), replacing any it had: HTTP and HTTPS
// through it as an HTTP proxy, ALL_PROXY as SOCKS5 with names resolved
// by the proxy, the sandbox's own loopback directly (NO_PROXY), and,
// unless env sets one, a GIT_SSH_COMMAND whose ssh connects through it
// with link, the path that runs NetRole.
func WithProxyEnv(env []string, addr, link string) []string {
	out := make([]string, 0, len(env)+len(proxyVars)+2)
	gitSSH := false
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		gitSSH = gitSSH || name == "GIT_SSH_COMMAND" || name == "GIT_SSH"
		if !slices.Contains(proxyVars, name) {
			out = append(out, kv)
		}
	}
	for _, v := range proxyVars {
		val := "http://" + addr
		switch strings.ToUpper(v) {
		case "ALL_PROXY":
			val = "socks5h://" + addr
		case "NO_PROXY":
			val = "localhost,127.0.0.1,::1"
		}
		out = append(out, v+"="+val)
	}
	if !gitSSH && !strings.ContainsAny(link, "'\"\\ %") {
		out = append(out, "GIT_SSH_COMMAND=ssh -o 'ProxyCommand="+link+" connect %h %p'")
	}
	return out
}

package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestCompile(t *testing.T) {
	for _, bad := range []string{"", ":80", "a.com:0", "a.com:70000", "a.com:9-8", "a.com:x", "[::1", "[nothost]", "10.0.0.0/33", "a b", "[::1]x"} {
		if _, err := Compile([]string{bad}, nil); err == nil {
			t.Errorf("Compile(%q): no error", bad)
		}
	}
	for _, good := range []string{"a.com", "*.a.com:443", "*", "127.0.0.0/8", "[::1]", "[fd00::/8]:22", "localhost:8000-9000", "*:*"} {
		if err := CheckEntry(good); err != nil {
			t.Errorf("CheckEntry(%q): %v", good, err)
		}
	}
}

func TestRules(t *testing.T) {
	r, err := Compile(
		[]string{"registry.npmjs.org", "*.github.com:443", "127.0.0.0/8", "[::1]", "10.1.0.0/16:22"},
		[]string{"evil.github.com", "127.0.0.1:5432", "127.0.0.1:6000-6100"})
	if err != nil {
		t.Fatal(err)
	}
	a := netip.MustParseAddr
	for _, c := range []struct {
		host string
		port int
		addr string
		ok   bool
	}{
		{"registry.npmjs.org", 443, "104.16.0.1", true},
		{"registry.npmjs.org", 80, "104.16.0.1", true},
		{"api.github.com", 443, "140.82.0.1", true},
		{"api.github.com", 80, "140.82.0.1", false},   // port not allowed
		{"evil.github.com", 443, "140.82.0.1", false}, // denied by name
		{"github.com", 443, "140.82.0.1", false},      // *.github.com is subdomains only
		{"other.example", 443, "93.184.0.1", false},
		{"93.184.0.1", 443, "93.184.0.1", false},
		{"localhost", 8080, "127.0.0.1", true},
		{"localhost", 5432, "127.0.0.1", false},          // closed loopback port
		{"registry.npmjs.org", 5432, "127.0.0.1", false}, // closed by address under an allowed name
		{"registry.npmjs.org", 6050, "127.0.0.1", false},
		{"registry.npmjs.org", 80, "169.254.169.254", false}, // metadata under an allowed name
		{"registry.npmjs.org", 80, "::ffff:169.254.169.254", false},
		{"registry.npmjs.org", 80, "fd00:ec2::254", false},
		{"registry.npmjs.org", 80, "fe80::1", false},
		{"registry.npmjs.org", 80, "0.0.0.0", false},
		{"10.1.2.3", 22, "10.1.2.3", true},
		{"10.1.2.3", 80, "10.1.2.3", false},
		{"::1", 3000, "::1", true},
	} {
		byName, ref := r.CheckName(c.host, c.port)
		if ref == nil {
			ref = r.CheckAddr(c.host, c.port, a(c.addr), byName)
		}
		if (ref == nil) != c.ok {
			t.Errorf("%s:%d (%s): allowed %v, want %v (%v)", c.host, c.port, c.addr, ref == nil, c.ok, ref)
		}
	}
	// A loopback address is opened by an address entry only: with none,
	// an allowed name that resolves to loopback is refused.
	closed, _ := Compile([]string{"*.example.com"}, nil)
	if ref := closed.CheckAddr("a.example.com", 80, a("127.0.0.1"), true); ref == nil {
		t.Error("loopback reached through an allowed name with loopback closed")
	}
	if ref := closed.CheckAddr("a.example.com", 80, a("93.184.0.1"), true); ref != nil {
		t.Errorf("allowed name refused: %v", ref)
	}
}

// TestRulesDenyLoopback: a deny entry that names the host's loopback (an
// address of it, or localhost) closes its ports at every address of the
// loopback: a server listening on all addresses (a port Docker
// publishes) answers at 127.0.0.2 and [::1] as well as at 127.0.0.1.
func TestRulesDenyLoopback(t *testing.T) {
	a := netip.MustParseAddr
	for _, deny := range []string{"127.0.0.1:5432", "[::1]:5432", "localhost:5432", "127.0.0.0/8:5432"} {
		r, err := Compile([]string{"localhost", "127.0.0.0/8", "[::1]", "registry.npmjs.org"}, []string{deny})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			host, addr string
			port       int
			ok         bool
		}{
			{"127.0.0.1", "127.0.0.1", 5432, false},
			{"127.0.0.2", "127.0.0.2", 5432, false},
			{"127.255.255.254", "127.255.255.254", 5432, false},
			{"::ffff:127.0.0.2", "::ffff:127.0.0.2", 5432, false},
			{"::1", "::1", 5432, false},
			{"localhost", "127.0.0.1", 5432, false},
			{"registry.npmjs.org", "127.0.0.3", 5432, false},
			{"127.0.0.2", "127.0.0.2", 5433, true},
			{"::1", "::1", 3000, true},
			{"registry.npmjs.org", "104.16.0.1", 5432, true},
		} {
			byName, ref := r.CheckName(c.host, c.port)
			if ref == nil {
				ref = r.CheckAddr(c.host, c.port, a(c.addr), byName)
			}
			if (ref == nil) != c.ok {
				t.Errorf("deny %s: %s:%d (%s): allowed %v, want %v (%v)", deny, c.host, c.port, c.addr, ref == nil, c.ok, ref)
			}
		}
	}
}

// fixture is a proxy on a loopback listener in front of local servers
// that stand in for the outside, with names resolved by a table.
type fixture struct {
	proxy    string // host:port
	web      *httptest.Server
	webPort  int
	mu       sync.Mutex
	lookups  []string
	refused  []*Refusal
	dialled  []netip.AddrPort
	resolved map[string][]netip.Addr
}

func newFixture(t *testing.T, allow, deny []string) *fixture {
	t.Helper()
	f := &fixture{}
	f.web = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "hello %s %s %d", r.Host, r.URL.RequestURI(), len(body))
	}))
	t.Cleanup(f.web.Close)
	u, _ := url.Parse(f.web.URL)
	fmt.Sscan(u.Port(), &f.webPort)
	loop := netip.MustParseAddr("127.0.0.1")
	f.resolved = map[string][]netip.Addr{
		"allowed.test":   {loop},
		"other.test":     {loop},
		"meta.test":      {netip.MustParseAddr("169.254.169.254")},
		"mixed.test":     {loop, netip.MustParseAddr("169.254.169.254")},
		"metadata6.test": {netip.MustParseAddr("fd00:ec2::254")},
	}
	rules, err := Compile(allow, deny)
	if err != nil {
		t.Fatal(err)
	}
	d := &net.Dialer{}
	s := &Server{
		Rules: rules,
		Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.lookups = append(f.lookups, host)
			if a, ok := f.resolved[host]; ok {
				return a, nil
			}
			return nil, errors.New("no such host")
		},
		Dial: func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
			f.mu.Lock()
			f.dialled = append(f.dialled, ap)
			f.mu.Unlock()
			return d.DialContext(ctx, "tcp", ap.String())
		},
		Refused: func(r *Refusal) {
			f.mu.Lock()
			f.refused = append(f.refused, r)
			f.mu.Unlock()
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go s.Serve(ln)
	f.proxy = ln.Addr().String()
	return f
}

// get fetches rawURL through the proxy as an HTTP proxy (CONNECT when
// tunnel is true) and returns the status and body.
func (f *fixture) get(t *testing.T, rawURL string, tunnel bool) (int, string) {
	t.Helper()
	u, _ := url.Parse(rawURL)
	c, err := net.Dial("tcp", f.proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	if tunnel {
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host, u.Host)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			body, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(body)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", u.RequestURI(), u.Host)
	} else {
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nProxy-Connection: keep-alive\r\nContent-Length: 4\r\n\r\nabcd", rawURL, u.Host)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestProxyHTTP(t *testing.T) {
	f := newFixture(t, []string{"allowed.test", "meta.test", "mixed.test", "metadata6.test", "127.0.0.0/8"}, []string{"127.0.0.1:1"})
	port := f.webPort
	for _, tunnel := range []bool{false, true} {
		code, body := f.get(t, fmt.Sprintf("http://allowed.test:%d/x?q=1", port), tunnel)
		if code != 200 || !strings.HasPrefix(body, fmt.Sprintf("hello allowed.test:%d /x?q=1", port)) {
			t.Errorf("tunnel %v: allowed host: %d %q", tunnel, code, body)
		}
		if !tunnel && !strings.HasSuffix(body, " 4") {
			t.Errorf("the request's body did not arrive: %q", body)
		}
		code, body = f.get(t, fmt.Sprintf("http://other.test:%d/", port), tunnel)
		if code != 403 || !strings.Contains(body, "cordon refused the connection to other.test:") ||
			!strings.Contains(body, "cordon approve --host other.test") || !strings.Contains(body, "network: {allow:") {
			t.Errorf("tunnel %v: other host: %d %q", tunnel, code, body)
		}
		for _, h := range []string{"meta.test", "mixed.test", "metadata6.test", "169.254.169.254"} {
			code, body = f.get(t, fmt.Sprintf("http://%s:%d/", h, port), tunnel)
			if code != 403 || !strings.Contains(body, "metadata") || strings.Contains(body, "cordon approve") {
				t.Errorf("tunnel %v: %s: %d %q", tunnel, h, code, body)
			}
		}
		// Loopback is open, but port 1 is closed, also by address.
		code, body = f.get(t, "http://127.0.0.1:1/", tunnel)
		if code != 403 || !strings.Contains(body, "deny rule") {
			t.Errorf("tunnel %v: closed loopback port: %d %q", tunnel, code, body)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.lookups {
		if h == "other.test" {
			t.Error("a name outside the allow list was looked up")
		}
	}
	for _, ap := range f.dialled {
		if ap.Addr().String() != "127.0.0.1" || int(ap.Port()) != port {
			t.Errorf("dialled %v", ap)
		}
	}
	if len(f.refused) != 12 {
		t.Errorf("%d refusals reported, want 12: %v", len(f.refused), f.refused)
	}
}

// socks connects to host:port through the proxy with SOCKS5 and returns
// the reply code and the connection.
func socks(t *testing.T, proxy, host string, port int, cmd byte) (byte, net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Write([]byte{5, 1, 0})
	var m [2]byte
	if _, err := io.ReadFull(c, m[:]); err != nil || m != [2]byte{5, 0} {
		t.Fatalf("method: %v %v", m, err)
	}
	req := []byte{5, cmd, 0}
	if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
		req = append(append(req, 1), a.AsSlice()...)
	} else {
		req = append(append(req, 3, byte(len(host))), host...)
	}
	req = append(req, byte(port>>8), byte(port))
	c.Write(req)
	var rep [10]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		t.Fatalf("reply: %v", err)
	}
	return rep[1], c
}

func TestProxySOCKS(t *testing.T) {
	f := newFixture(t, []string{"allowed.test", "meta.test", "127.0.0.0/8"}, []string{"127.0.0.1:1"})
	code, c := socks(t, f.proxy, "allowed.test", f.webPort, 1)
	if code != 0 {
		t.Fatalf("allowed: reply %d", code)
	}
	fmt.Fprintf(c, "GET /s HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("through SOCKS: %v %v", resp, err)
	}
	for _, c := range []struct {
		host string
		port int
		cmd  byte
		want byte
	}{
		{"other.test", f.webPort, 1, socksNotAllowed},
		{"meta.test", 80, 1, socksNotAllowed},
		{"169.254.169.254", 80, 1, socksNotAllowed},
		{"127.0.0.1", 1, 1, socksNotAllowed},
		{"allowed.test", f.webPort, 3, socksNoCommand}, // UDP ASSOCIATE
		{"nosuch.test", 80, 1, socksNotAllowed},
	} {
		if code, _ := socks(t, f.proxy, c.host, c.port, c.cmd); code != c.want {
			t.Errorf("%s:%d cmd %d: reply %d, want %d", c.host, c.port, c.cmd, code, c.want)
		}
	}
}

// TestForward: the forwarder pipes a loopback connection to the proxy's
// Unix socket, both ways, half closes included.
func TestForward(t *testing.T) {
	f := newFixture(t, []string{"allowed.test", "127.0.0.0/8"}, nil)
	sock, proxy := t.TempDir()+"/proxy.sock", f.proxy
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", proxy)
				if err != nil {
					return
				}
				defer up.Close()
				pipe(c, nil, up)
			}()
		}
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go Forward(ln, func() (net.Conn, error) { return net.Dial("unix", sock) })
	f.proxy = ln.Addr().String()
	if code, body := f.get(t, fmt.Sprintf("http://allowed.test:%d/f", f.webPort), true); code != 200 || !strings.Contains(body, "/f") {
		t.Errorf("through the forwarder: %d %q", code, body)
	}
	if code, _ := f.get(t, fmt.Sprintf("http://other.test:%d/f", f.webPort), false); code != 403 {
		t.Errorf("through the forwarder, other host: %d", code)
	}
}

// TestOwnAddresses: a name allowed at any port that resolves to an
// address of this machine (its LAN address: a host a person approved,
// a remote on the machine itself) reaches only the ports its loopback
// opens: the services listening on all addresses (Docker's API at
// 0.0.0.0:2375) answer at that address as at 127.0.0.1, and stay
// closed (found by an attacker).
func TestOwnAddresses(t *testing.T) {
	own := []netip.Addr{netip.MustParseAddr("10.9.9.9"), netip.MustParseAddr("fd00::9")}
	defer func(f func() ([]net.Addr, error)) { interfaceAddrs = f }(interfaceAddrs)
	interfaceAddrs = func() ([]net.Addr, error) {
		var out []net.Addr
		for _, a := range own {
			out = append(out, &net.IPNet{IP: a.AsSlice()})
		}
		return out, nil
	}
	var dialled []netip.AddrPort
	s := &Server{
		Rules: mustCompile(t, []string{"devbox.test", "other.test", "127.0.0.0/8", "[::1]"}, "127.0.0.0/8:2375", "[::1]:2375"),
		Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "devbox.test":
				return own[:1], nil
			case "devbox6.test":
				return own[1:], nil
			}
			return []netip.Addr{netip.MustParseAddr("93.184.0.1")}, nil
		},
		Dial: func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
			dialled = append(dialled, ap)
			a, b := net.Pipe()
			b.Close()
			return a, nil
		},
	}
	for _, c := range []struct {
		host string
		port int
		ok   bool
	}{
		{"devbox.test", 2375, false},
		{"devbox.test", 8080, true},
		{"other.test", 2375, true}, // not this machine
	} {
		up, ref, err := s.connect(c.host, c.port)
		if up != nil {
			up.Close()
		}
		if (ref == nil && err == nil) != c.ok {
			t.Errorf("%s:%d: refusal %v, error %v; want allowed %v", c.host, c.port, ref, err, c.ok)
		}
	}
	s.Rules = mustCompile(t, []string{"devbox6.test", "[::1]"}, "[::1]:9222")
	if _, ref, _ := s.connect("devbox6.test", 9222); ref == nil {
		t.Error("devbox6.test:9222, an IPv6 address of this machine at a port its loopback closes, was reached")
	}
	for _, ap := range dialled {
		if ap.Port() == 2375 && ap.Addr() == own[0] || ap.Port() == 9222 {
			t.Errorf("dialled %v", ap)
		}
	}
}

// TestOwnAddressesUnreadable: when the machine's interfaces cannot be
// read (no descriptor left for the netlink socket), an address is taken
// as the machine's own: the ports its loopback rules close stay closed
// at every address, not open at the machine's LAN address (they were,
// for a second, after a failed read), and the list is read again at the
// next call.
func TestOwnAddressesUnreadable(t *testing.T) {
	fail := true
	defer func(f func() ([]net.Addr, error)) { interfaceAddrs = f }(interfaceAddrs)
	interfaceAddrs = func() ([]net.Addr, error) {
		if fail {
			return nil, errors.New("too many open files")
		}
		return []net.Addr{&net.IPNet{IP: net.ParseIP("192.0.2.77"), Mask: net.CIDRMask(24, 32)}}, nil
	}
	s := &Server{
		Rules: mustCompile(t, []string{"devbox.test", "other.test", "127.0.0.0/8", "[::1]"}, "127.0.0.0/8:2375", "[::1]:2375"),
		Resolve: func(ctx context.Context, host string) ([]netip.Addr, error) {
			if host == "devbox.test" {
				return []netip.Addr{netip.MustParseAddr("192.0.2.77")}, nil
			}
			return []netip.Addr{netip.MustParseAddr("93.184.0.1")}, nil
		},
		Dial: func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
			a, b := net.Pipe()
			b.Close()
			return a, nil
		},
	}
	if _, ref, _ := s.connect("devbox.test", 2375); ref == nil {
		t.Error("devbox.test:2375, this machine, was reached while its interfaces could not be read")
	}
	if up, ref, err := s.connect("devbox.test", 8080); ref != nil || err != nil {
		t.Errorf("devbox.test:8080: %v %v", ref, err)
	} else {
		up.Close()
	}
	fail = false
	if up, ref, err := s.connect("other.test", 2375); ref != nil || err != nil {
		t.Errorf("other.test:2375 once the interfaces are read: %v %v", ref, err)
	} else {
		up.Close()
	}
	if _, ref, _ := s.connect("devbox.test", 2375); ref == nil {
		t.Error("devbox.test:2375 once the interfaces are read was reached")
	}
}

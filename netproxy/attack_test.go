package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAttackSpellings: destinations spelled to slip past the rules (a
// closed loopback port under other spellings of the address, names
// outside the list dressed as allowed ones) are refused, through CONNECT,
// plain HTTP and SOCKS5, and no such name is looked up.
func TestAttackSpellings(t *testing.T) {
	f := newFixture(t, []string{"allowed.test", "localhost", "127.0.0.0/8", "[::1]"}, []string{"127.0.0.1:1", "[::1]:1"})
	f.resolved["localhost"] = f.resolved["allowed.test"]
	for _, h := range []string{
		"127.0.0.1:1", "[::ffff:127.0.0.1]:1", "[::ffff:7f00:1]:1", "localhost:1", "LOCALHOST.:1", "allowed.test.:1",
		"ALLOWED.TEST:1", "127.1:1", "2130706433:1", "0x7f000001:1", "0177.0.0.1:1", "0.0.0.0:1", "[::]:1",
		"[::127.0.0.1]:1", "[::ffff:0:127.0.0.1]:1", "[::1%lo]:1", "[fe80::1%25lo]:1", "other.test:1",
		"allowed.test.other.test:80", "other.test\x00.allowed.test:80", "xn--llowed-test-xyz:80",
		strings.Repeat("a", 300) + ".allowed.test:80",
	} {
		for _, tunnel := range []bool{true, false} {
			code, body := rawAsk(t, f.proxy, h, tunnel)
			if code == 200 {
				t.Errorf("%q tunnel %v: reached: %q", h, tunnel, body)
			}
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.lookups {
		if l != "allowed.test" && l != "localhost" {
			t.Errorf("looked up %q", l)
		}
	}
	for _, ap := range f.dialled {
		if ap.Port() == 1 {
			t.Errorf("dialled %v", ap)
		}
	}
}

// rawAsk asks the proxy for hostport as written, with CONNECT (then a
// GET in the tunnel) or a plain absolute-URI GET, and returns the status
// and body of the answer (0 when the connection ended without one).
func rawAsk(t *testing.T, proxy, hostport string, tunnel bool) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	if tunnel {
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return 0, err.Error()
		}
		if resp.StatusCode != 200 {
			body, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(body)
		}
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	} else {
		fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: x\r\n\r\n", hostport)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, err.Error()
	}
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestAttackHostHeader: a plain HTTP request goes to the host its URI
// names, with that Host (a different Host header would reach another
// site served at the allowed address: domain fronting), and only that
// one request goes on: a second one pipelined behind it, for another
// host, is not sent.
func TestAttackHostHeader(t *testing.T) {
	f := newFixture(t, []string{"allowed.test", "127.0.0.0/8"}, nil)
	c, err := net.Dial("tcp", f.proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "POST http://allowed.test:%d/a HTTP/1.1\r\nHost: evil.test\r\nContent-Length: 2\r\n\r\nokGET http://other.test/b HTTP/1.1\r\nHost: other.test\r\n\r\n", f.webPort)
	all, _ := io.ReadAll(c)
	if want := fmt.Sprintf("hello allowed.test:%d /a 2", f.webPort); !strings.Contains(string(all), want) {
		t.Errorf("the request did not reach the allowed host as itself (want %q): %q", want, all)
	}
	if n := strings.Count(string(all), "HTTP/1.1 "); n != 1 {
		t.Errorf("%d answers, want 1: %q", n, all)
	}
}

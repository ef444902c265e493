package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
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

// flakyListener fails its first Accept as a process out of descriptors
// does.
type flakyListener struct {
	net.Listener
	failed bool
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if !l.failed {
		l.failed = true
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestAttackConnections: a command that opens connections without end
// (idle ones, slowloris) gets at most MaxConns served at once, the rest
// closed at once, and the proxy serves again when they end; a failure
// to accept (no descriptor left) does not end the proxy.
func TestAttackConnections(t *testing.T) {
	f := newFixture(t, []string{"allowed.test", "127.0.0.0/8"}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv := &Server{Rules: mustCompile(t, []string{"127.0.0.0/8"}), MaxConns: 4}
	go srv.Serve(&flakyListener{Listener: ln})
	proxy := ln.Addr().String()
	var idle []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", proxy)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	// One byte each: every idle connection is being served (no EOF).
	for _, c := range idle {
		c.Write([]byte("G"))
	}
	extra, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := extra.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("a connection beyond MaxConns was not closed: %d %v", n, err)
	}
	idle[0].Close()
	// A slot comes free when its connection ends: poll for it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := rawAsk(t, proxy, fmt.Sprintf("127.0.0.1:%d", f.webPort), true)
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection served after one ended: %d %q", code, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// mustCompile compiles allow and deny, failing the test on an error.
func mustCompile(t *testing.T, allow []string, deny ...string) *Rules {
	t.Helper()
	r, err := Compile(allow, deny)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAttackFraming: a plain-HTTP body whose length two readers could
// read differently (Content-Length with Transfer-Encoding, two lengths,
// an unknown coding) is refused, and a chunked body goes on whole while
// a request hidden after it does not.
func TestAttackFraming(t *testing.T) {
	f := newFixture(t, []string{"allowed.test", "127.0.0.0/8"}, nil)
	send := func(req string) string {
		c, err := net.Dial("tcp", f.proxy)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, req)
		all, _ := io.ReadAll(c)
		return string(all)
	}
	url := fmt.Sprintf("http://allowed.test:%d/a", f.webPort)
	for _, headers := range []string{
		"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n",
		"Content-Length: 2\r\nContent-Length: 40\r\n",
		"Transfer-Encoding: gzip, chunked\r\n",
		"Content-Length: +2\r\n",
	} {
		got := send("POST " + url + " HTTP/1.1\r\n" + headers + "\r\n2\r\nok\r\n0\r\n\r\nGET http://other.test/ HTTP/1.1\r\n\r\n")
		if !strings.HasPrefix(got, "HTTP/1.1 400") || strings.Contains(got, "hello") {
			t.Errorf("%q: not refused: %q", headers, got)
		}
	}
	got := send("POST " + url + " HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3\r\nabc\r\n0\r\n\r\nGET http://other.test/b HTTP/1.1\r\nHost: other.test\r\n\r\n")
	if want := fmt.Sprintf("hello allowed.test:%d /a 5", f.webPort); !strings.Contains(got, want) || strings.Count(got, "HTTP/1.1 ") != 1 {
		t.Errorf("chunked body: want one answer with %q: %q", want, got)
	}
}

package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Server is the proxy. Its zero value is not usable: Rules must be
// set; Resolve and Dial default to the system's.
type Server struct {
	Rules *Rules
	// Resolve returns the addresses of a name (tests give their own).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to a checked address.
	Dial func(ctx context.Context, addr netip.AddrPort) (net.Conn, error)
	// Refused, when set, is told every refusal (the audit log).
	Refused func(*Refusal)
	// Timeout bounds resolving and connecting; 0 means 15 s.
	Timeout time.Duration
	// MaxConns bounds the connections served at once; 0 means 1024.
	MaxConns int
	// Broker, when set, is handed the connections to the hosts that take
	// a credential the sandbox holds by placeholder, and refuses a
	// placeholder on its way anywhere else (package broker).
	Broker Interceptor

	// This machine's addresses ([Server.own]), read at most once a
	// second.
	ownMu   sync.Mutex
	ownAt   time.Time
	ownList []netip.Addr
}

// An Interceptor puts credentials on requests in transit (package
// broker): the proxy opens the tunnel, checked by its rules, and hands
// the client's end over.
type Interceptor interface {
	// Intercepts reports whether a tunnel to host:port is handed over.
	Intercepts(host string, port int) bool
	// Serve serves the client's end c of a tunnel to host:port already
	// answered; dial connects to the destination, checked again.
	Serve(c net.Conn, host string, port int, dial func(ctx context.Context) (net.Conn, error))
	// Carried names the credential whose placeholder text carries when
	// it may not go to host:port, or "".
	Carried(host string, port int, text string) string
}

// Serve accepts connections on ln and serves each on a goroutine of its
// own, until ln is closed. It serves at most MaxConns at once: a
// connection beyond is closed at once, so that a command cannot spend
// the descriptors of the process that runs the proxy (the guard, the
// session's manager). A failure to accept (no descriptor left) is
// retried after a pause, not the end of the proxy.
func (s *Server) Serve(ln net.Listener) error {
	limit := s.MaxConns
	if limit <= 0 {
		limit = 1024
	}
	slots := make(chan struct{}, limit)
	pause := time.Duration(0)
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			pause = min(max(pause*2, 5*time.Millisecond), time.Second)
			time.Sleep(pause)
			continue
		}
		pause = 0
		select {
		case slots <- struct{}{}:
			go func() {
				defer func() { <-slots }()
				s.serve(c)
			}()
		default:
			c.Close()
		}
	}
}

// maxHead bounds an HTTP request's head (request line and headers).
const maxHead = 64 << 10

func (s *Server) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 4096)
	c.SetReadDeadline(time.Now().Add(s.timeout()))
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == 5 {
		s.socks(c, br)
		return
	}
	s.http(c, br)
}

func (s *Server) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 15 * time.Second
}

// connect decides on host:port, resolves and checks it, and connects to
// the first checked address that answers.
func (s *Server) connect(host string, port int) (net.Conn, *Refusal, error) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if port < 1 || port > 65535 {
		return nil, s.refuse(&Refusal{Host: host, Port: port, Reason: "no valid port"}), nil
	}
	byName, ref := s.Rules.CheckName(host, port)
	if ref != nil {
		return nil, s.refuse(ref), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout())
	defer cancel()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return nil, s.refuse(&Refusal{Host: host, Port: port, Reason: "an address with a zone"}), nil
		}
		addrs = []netip.Addr{a}
	} else {
		if !byName {
			// Not resolved: a name outside the list is not even
			// looked up (a lookup can carry data out through DNS).
			return nil, s.refuse(&Refusal{Host: host, Port: port, Reason: "it is not in the network allow list"}), nil
		}
		resolve := s.Resolve
		if resolve == nil {
			resolve = func(ctx context.Context, h string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", h)
			}
		}
		var err error
		if addrs, err = resolve(ctx, host); err != nil || len(addrs) == 0 {
			return nil, nil, fmt.Errorf("cannot resolve %s: %v", host, err)
		}
	}
	// Every address is checked, not just the one dialled: a name that
	// resolves to one good and one forbidden address is refused.
	for _, a := range addrs {
		if ref := s.Rules.CheckAddr(host, port, a, byName); ref != nil {
			return nil, s.refuse(ref), nil
		}
		// An address of this machine's own (its LAN address, a
		// bridge's) reaches the services listening on all addresses
		// as its loopback does: the rules' loopback entries decide
		// (Docker's API on 0.0.0.0:2375 stays closed under a name
		// allowed at any port that resolves to the machine).
		if lo, ok := s.ownAsLoopback(a); ok {
			if ref := s.Rules.CheckAddr(host, port, lo, false); ref != nil {
				ref.Reason = fmt.Sprintf("it is (or resolves to) %s, an address of this machine, whose services the rules close at port %d as on its loopback", a.Unmap(), port)
				return nil, s.refuse(ref), nil
			}
		}
	}
	dial := s.Dial
	if dial == nil {
		d := &net.Dialer{}
		dial = func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", ap.String())
		}
	}
	var last error
	for _, a := range addrs {
		up, err := dial(ctx, netip.AddrPortFrom(a.Unmap(), uint16(port)))
		if err == nil {
			return up, nil, nil
		}
		last = err
	}
	return nil, nil, fmt.Errorf("cannot connect to %s: %v", joinHostPort(host, port), last)
}

// ownAsLoopback returns the loopback address (127.0.0.1, ::1) that a,
// when it is an address of this machine's own other than a loopback
// one, is decided as.
//
// When the interfaces cannot be read, every address is taken as this
// machine's: the ports the loopback rules close are closed everywhere
// (an error must not open Docker's API at the machine's LAN address).
func (s *Server) ownAsLoopback(a netip.Addr) (netip.Addr, bool) {
	a = a.Unmap()
	if a.IsLoopback() {
		return netip.Addr{}, false
	}
	if own, ok := s.own(); ok && !slices.Contains(own, a) {
		return netip.Addr{}, false
	}
	if a.Is4() {
		return netip.AddrFrom4([4]byte{127, 0, 0, 1}), true
	}
	return netip.IPv6Loopback(), true
}

// own returns this machine's addresses, its interfaces', read again
// when a second old; ok is false when they cannot be read (they are
// read again at the next call).
func (s *Server) own() (_ []netip.Addr, ok bool) {
	s.ownMu.Lock()
	defer s.ownMu.Unlock()
	if time.Since(s.ownAt) < time.Second {
		return s.ownList, true
	}
	addrs, err := interfaceAddrs()
	if err != nil {
		return nil, false
	}
	s.ownAt, s.ownList = time.Now(), nil
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(n.IP); ok {
				s.ownList = append(s.ownList, a.Unmap().WithZone(""))
			}
		}
	}
	return s.ownList, true
}

// interfaceAddrs lists the addresses of this machine's interfaces
// (tests make it fail).
var interfaceAddrs = net.InterfaceAddrs

func (s *Server) refuse(r *Refusal) *Refusal {
	if s.Refused != nil {
		s.Refused(r)
	}
	return r
}

// http serves one HTTP proxy request: CONNECT opens a tunnel, an
// absolute-URI request is sent on with "Connection: close" (one request
// per connection: a client's next request, maybe for another host,
// comes on a new one).
func (s *Server) http(c net.Conn, br *bufio.Reader) {
	head, err := readHead(br)
	if err != nil {
		reply(c, 400, err.Error()+"\n")
		return
	}
	f := strings.Fields(head[0])
	if len(f) != 3 {
		reply(c, 400, "cordon's network proxy: not an HTTP/1 request\n")
		return
	}
	method, target, version := f[0], f[1], f[2]
	if !strings.HasPrefix(version, "HTTP/1.") {
		reply(c, 400, "cordon's network proxy: not an HTTP/1 request\n")
		return
	}
	var host string
	var port int
	var req *request
	if method == "CONNECT" {
		h, p, err := net.SplitHostPort(target)
		if err != nil {
			reply(c, 400, "cordon's network proxy: CONNECT wants host:port\n")
			return
		}
		host, port = h, atoiPort(p)
	} else {
		rest, ok := cutPrefixFold(target, "http://")
		if !ok {
			reply(c, 400, "cordon's network proxy takes CONNECT and http:// requests (an https:// URL goes through CONNECT); this is not one\n")
			return
		}
		authority, path := rest, "/"
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			authority, path = rest[:i], rest[i:]
			path, _, _ = strings.Cut(path, "#")
			if !strings.HasPrefix(path, "/") {
				path = "/" + path
			}
		}
		if i := strings.LastIndexByte(authority, '@'); i >= 0 {
			authority = authority[i+1:]
		}
		h, p, err := net.SplitHostPort(authority)
		if err != nil {
			h, p = strings.Trim(authority, "[]"), "80"
		}
		host, port = h, atoiPort(p)
		if req, err = oneRequest(method+" "+path+" "+version, head[1:], authority); err != nil {
			reply(c, 400, "cordon's network proxy: "+err.Error()+"\n")
			return
		}
	}
	if ref := s.carried(host, port, strings.Join(head, "\n")); ref != nil {
		reply(c, 403, ref.Message())
		return
	}
	up, ref, err := s.connect(host, port)
	switch {
	case ref != nil:
		reply(c, 403, ref.Message())
		return
	case err != nil:
		reply(c, 502, "cordon's network proxy: "+err.Error()+"\n")
		return
	}
	defer up.Close()
	c.SetReadDeadline(time.Time{})
	if method == "CONNECT" {
		if _, err := io.WriteString(c, version+" 200 Connection established\r\n\r\n"); err != nil {
			return
		}
		s.tunnel(c, br, up, host, port)
		return
	}
	// One request, its body framed as its headers say; what the client
	// sends after it (a second request, maybe for another host) is
	// read and dropped, not sent on.
	go func() {
		if req.write(up, br) == nil {
			io.Copy(io.Discard, br)
		}
		closeWrite(up)
	}()
	io.Copy(c, up)
	closeWrite(c)
}

// request is one plain-HTTP request to send on: its head, rewritten,
// and how its body is framed.
type request struct {
	head   string
	length int64 // the body's length, or -1 for a chunked body
}

// oneRequest makes, from an absolute-URI request whose request line (in
// origin form) and header lines were read, the one request of the
// connection: with the Host of its URI (a different Host header would
// reach another site at the same address), without the hop-by-hop
// headers, with "Connection: close". A body whose length its headers do
// not tell in one way only (both Content-Length and Transfer-Encoding,
// lengths that differ, a coding other than chunked) is refused: two
// readers could frame it differently and see a second request in it.
func oneRequest(line string, header []string, authority string) (*request, error) {
	r := &request{}
	var b strings.Builder
	b.WriteString(line + "\r\n")
	lengths, codings := []string{}, []string{}
	for _, h := range header {
		name, value, ok := strings.Cut(h, ":")
		if !ok || name != strings.TrimSpace(name) || name == "" {
			return nil, fmt.Errorf("a malformed header line %q", h)
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(name) {
		case "host", "proxy-connection", "proxy-authorization", "connection", "keep-alive", "te", "upgrade":
			continue
		case "content-length":
			lengths = append(lengths, value)
		case "transfer-encoding":
			codings = append(codings, value)
		}
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Host: " + authority + "\r\nConnection: close\r\n\r\n")
	r.head = b.String()
	switch {
	case len(codings) > 0 && len(lengths) > 0:
		return nil, errors.New("a request with both Content-Length and Transfer-Encoding")
	case len(codings) > 0:
		if len(codings) != 1 || !strings.EqualFold(codings[0], "chunked") {
			return nil, fmt.Errorf("a transfer coding it does not frame (%s)", strings.Join(codings, ", "))
		}
		r.length = -1
	case len(lengths) > 0:
		n, err := strconv.ParseInt(lengths[0], 10, 64)
		for _, l := range lengths[1:] {
			if l != lengths[0] {
				err = errors.New("differ")
			}
		}
		if err != nil || n < 0 || lengths[0][0] == '+' {
			return nil, fmt.Errorf("a Content-Length it cannot read (%s)", strings.Join(lengths, ", "))
		}
		r.length = n
	}
	return r, nil
}

// write sends the request's head and its body, read from br as framed,
// and nothing after it.
func (r *request) write(up io.Writer, br *bufio.Reader) error {
	if _, err := io.WriteString(up, r.head); err != nil {
		return err
	}
	if r.length >= 0 {
		_, err := io.CopyN(up, br, r.length)
		return err
	}
	for {
		line, err := readLine(br)
		if err != nil {
			return err
		}
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("a chunk size it cannot read: %q", line)
		}
		if _, err := io.WriteString(up, line+"\r\n"); err != nil {
			return err
		}
		if n == 0 {
			break
		}
		if _, err := io.CopyN(up, br, n); err != nil {
			return err
		}
		if crlf, err := readLine(br); err != nil || crlf != "" {
			return errors.New("a chunk not ended by CRLF")
		}
		if _, err := io.WriteString(up, "\r\n"); err != nil {
			return err
		}
	}
	for { // the trailer, up to its empty line
		line, err := readLine(br)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(up, line+"\r\n"); err != nil || line == "" {
			return err
		}
	}
}

// readLine reads one line of at most 8 KiB, without its CRLF.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, more, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		if b = append(b, part...); len(b) > 8<<10 {
			return "", errors.New("a line too long")
		}
		if !more {
			return string(b), nil
		}
	}
}

// readHead reads an HTTP request's head: its lines, without the empty
// one that ends it.
func readHead(br *bufio.Reader) ([]string, error) {
	var lines []string
	n := 0
	for {
		line, err := br.ReadString('\n')
		n += len(line)
		if err != nil {
			return nil, errors.New("cordon's network proxy: the request ended early")
		}
		if n > maxHead {
			return nil, errors.New("cordon's network proxy: the request's head is too long")
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if len(lines) == 0 {
				continue
			}
			return lines, nil
		}
		lines = append(lines, line)
	}
}

// reply writes a short HTTP response that closes the connection.
func reply(c net.Conn, code int, body string) {
	status := map[int]string{400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[code]
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nX-Cordon: refused\r\n\r\n%s", code, status, len(body), body)
}

func atoiPort(p string) int {
	n, err := strconv.Atoi(p)
	if err != nil {
		return 0
	}
	return n
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// SOCKS5 reply codes (RFC 1928).
const (
	socksOK          = 0
	socksFailure     = 1
	socksNotAllowed  = 2
	socksUnreachable = 4
	socksRefused     = 5
	socksNoCommand   = 7
	socksNoAddrType  = 8
)

// socks serves one SOCKS5 request: no authentication, CONNECT only.
func (s *Server) socks(c net.Conn, br *bufio.Reader) {
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	if !strings.ContainsRune(string(methods), 0) {
		c.Write([]byte{5, 0xff})
		return
	}
	if _, err := c.Write([]byte{5, 0}); err != nil {
		return
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != 5 {
		return
	}
	var host string
	switch req[3] {
	case 1, 4:
		b := make([]byte, map[byte]int{1: 4, 4: 16}[req[3]])
		if _, err := io.ReadFull(br, b); err != nil {
			return
		}
		a, _ := netip.AddrFromSlice(b)
		host = a.Unmap().String()
	case 3:
		n, err := br.ReadByte()
		if err != nil {
			return
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return
		}
		host = string(b)
	default:
		socksReply(c, socksNoAddrType)
		return
	}
	var pb [2]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return
	}
	port := int(pb[0])<<8 | int(pb[1])
	if req[1] != 1 {
		socksReply(c, socksNoCommand)
		return
	}
	if s.carried(host, port, host) != nil {
		socksReply(c, socksNotAllowed)
		return
	}
	up, ref, err := s.connect(host, port)
	switch {
	case ref != nil:
		socksReply(c, socksNotAllowed)
		return
	case err != nil:
		code := byte(socksUnreachable)
		if strings.Contains(err.Error(), "refused") {
			code = socksRefused
		}
		socksReply(c, code)
		return
	}
	defer up.Close()
	c.SetReadDeadline(time.Time{})
	if socksReply(c, socksOK) != nil {
		return
	}
	s.tunnel(c, br, up, host, port)
}

// carried refuses a request whose head (or a tunnel whose destination)
// text carries a credential's placeholder that may not go to host:port.
func (s *Server) carried(host string, port int, text string) *Refusal {
	if s.Broker == nil {
		return nil
	}
	name := s.Broker.Carried(strings.ToLower(strings.TrimSuffix(host, ".")), port, text)
	if name == "" {
		return nil
	}
	return s.refuse(&Refusal{Host: host, Port: port, Never: true,
		Reason: "it would carry " + name + ", a credential cordon puts only on requests to its own hosts"})
}

// tunnel joins the client c (whose reader br may hold bytes already
// read) to up, the destination host:port: through the broker when it
// takes the host, else as a pipe whose bytes nobody reads.
func (s *Server) tunnel(c net.Conn, br *bufio.Reader, up net.Conn, host string, port int) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if s.Broker == nil || !s.Broker.Intercepts(host, port) {
		pipe(c, br, up)
		return
	}
	first := up
	s.Broker.Serve(&bufConn{Conn: c, r: br}, host, port, func(ctx context.Context) (net.Conn, error) {
		if first != nil {
			u := first
			first = nil
			return u, nil
		}
		u, ref, err := s.connect(host, port)
		if ref != nil {
			return nil, ref
		}
		return u, err
	})
}

// bufConn is a connection whose reads come through r, which may hold
// bytes already read from it.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

func socksReply(c net.Conn, code byte) error {
	_, err := c.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err
}

// pipe copies between the client c (whose reader br, when not nil, may
// hold bytes already read) and up, each way until its end, passing the end on as
// a half close. The copies splice on Linux: TCP and Unix stream sockets
// both ways.
func pipe(c net.Conn, br *bufio.Reader, up net.Conn) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if br != nil && br.Buffered() > 0 {
			b, _ := br.Peek(br.Buffered())
			if _, err := up.Write(b); err != nil {
				closeWrite(up)
				return
			}
		}
		io.Copy(up, c)
		closeWrite(up)
	}()
	io.Copy(c, up)
	closeWrite(c)
	wg.Wait()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

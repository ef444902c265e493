package broker

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cordonsh/cordon/credvar"
	"github.com/cordonsh/cordon/internal/starglob"
)

// A Credential is one secret the host holds and the sandbox knows by its
// placeholder.
type Credential struct {
	// Name says what it is in messages and the log: the variable
	// (GH_TOKEN), or the file and key it came from.
	Name string
	// Placeholder is what the sandbox holds instead of the value.
	Placeholder string
	// Value is the real secret. Empty when Lookup gives it.
	Value string
	// Hosts are where it may go: names or globs of names ("*"
	// matches any run of characters, dots too), each with an optional
	// ":PORT" (443 when none; "*" for any).
	Hosts []string
	// Paths, when set, are the paths on those hosts it is for: it goes
	// only on requests for one of them or below it (git's credential:
	// the workspace's remotes' repositories, "/me/app.git" and
	// "/me/app"; an .npmrc token for //HOST/PATH/: that path).
	Paths []string
	// PathsSaid, when set, is what a refusal names instead of Paths
	// (git's: the repositories, not each of their endpoints).
	PathsSaid string
	// Lookup, when set, gives the user and password for a request to
	// host that carries the placeholder (git over HTTPS: the person's
	// own credential helper, run on the host when a request needs it).
	// In basic authentication both are put in; anywhere else the
	// password replaces the placeholder.
	Lookup func(ctx context.Context, host string) (user, password string, err error)
}

// A Broker holds the credentials of one sandbox (a command, or a
// session) and serves the connections the proxy hands it. Safe for use
// by several goroutines.
type Broker struct {
	ca *CA
	// Refused, when set, is told each request refused (a placeholder
	// sent to a host that does not take it, a credential the broker did
	// not give): the audit log.
	Refused func(host string, port int, reason string)
	// Roots verify the real hosts' certificates; nil means the host's
	// own trust (its system bundle, or SSL_CERT_FILE and SSL_CERT_DIR).
	Roots *x509.CertPool

	mu    sync.RWMutex
	creds []*held

	once     sync.Once
	slots    chan struct{} // one per connection served
	buffered atomic.Int64  // bytes of request bodies held to check
}

// held is a credential with its hosts parsed, and what Lookup gave.
type held struct {
	Credential
	hosts []hostPort

	mu     sync.Mutex
	looked map[string][2]string // host: user, password
}

type hostPort struct {
	name string // lowercase, "*" a glob
	port int    // 0: any
}

// New returns a Broker that ends TLS with certificates of ca.
func New(ca *CA) *Broker { return &Broker{ca: ca} }

// Add adds credentials, or replaces those with the same placeholder. A
// credential without a placeholder or hosts is left out.
func (b *Broker) Add(cs ...Credential) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range cs {
		if len(c.Placeholder) < len(placeholderPrefix)+16 || len(c.Hosts) == 0 || (c.Value == "" && c.Lookup == nil) {
			continue
		}
		h := &held{Credential: c}
		for _, p := range c.Hosts {
			h.hosts = append(h.hosts, parseHost(p))
		}
		replaced := false
		for i, o := range b.creds {
			if o.Placeholder == c.Placeholder {
				b.creds[i], replaced = h, true
			}
		}
		if !replaced {
			b.creds = append(b.creds, h)
		}
	}
}

// parseHost reads HOST, HOST:PORT, [ADDR]:PORT, [ADDR] or a bare IPv6
// address; no port means 443, "*" any.
func parseHost(p string) hostPort {
	p = strings.ToLower(strings.TrimSpace(p))
	name, port := p, "443"
	switch {
	case strings.HasPrefix(p, "["):
		if h, pt, err := net.SplitHostPort(p); err == nil {
			name, port = h, pt
		} else {
			name = strings.Trim(p, "[]")
		}
	case strings.Count(p, ":") == 1:
		name, port, _ = strings.Cut(p, ":")
	}
	hp := hostPort{name: strings.TrimSuffix(name, ".")}
	if port != "*" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			n = -1 // matches nothing
		}
		hp.port = n
	}
	return hp
}

// refuses says why a request to host:port for the path escaped (as sent)
// must not carry h, or "" when it may. A credential for some hosts goes
// to those only; one for some paths only (git's, for the workspace's
// remotes) goes to a path that every server reads as one of them: none
// with an escaped slash or backslash, a ";" (a Java server drops "..;"
// as a path parameter and goes up), a "%" left once unescaped (a server
// or proxy that unescapes again reads "%252e" as "."), a name "." or
// "..", a "//"; and none with a header some servers route by instead of
// the path.
func (h *held) refuses(req *http.Request, host string, port int) string {
	if !h.takes(host, port) {
		return fmt.Sprintf("it would send %s, which goes only to %s", h.Name, strings.Join(h.Hosts, ", "))
	}
	if len(h.Paths) == 0 {
		return ""
	}
	for name := range req.Header {
		if routingHeader(name) {
			return fmt.Sprintf("it would send %s with a header some servers route by instead of the path (%s: %s): it goes only to some paths", h.Name, name, strings.Join(routingHeaders, ", "))
		}
	}
	escaped := req.URL.EscapedPath()
	if h.takesPath(escaped) {
		return ""
	}
	said := h.PathsSaid
	if said == "" {
		said = strings.Join(h.Paths, ", ")
	}
	return fmt.Sprintf("it would send %s to %s, which is not a path it is for (%s): git's credential goes only to the workspace's own remotes, a token file's for a path only to that path", h.Name, escaped, said)
}

// takesPath reports whether the path escaped is, read by any server, one
// of h's paths or below one (see [held.refuses]).
func (h *held) takesPath(escaped string) bool {
	lower := strings.ToLower(escaped)
	if strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") {
		return false
	}
	p, err := url.PathUnescape(escaped)
	if err != nil || strings.ContainsAny(p, ";\\%") || !clean(p) {
		return false
	}
	for _, want := range h.Paths {
		want = strings.TrimRight(want, "/")
		if p == want || strings.HasPrefix(p, want+"/") {
			return true
		}
	}
	return false
}

// routingHeaders are request headers some servers and proxies route a
// request by instead of its path (IIS's URL Rewrite, older Symfony and
// Zend: X-Original-URL, X-Rewrite-URL; nginx's auth_request, Traefik
// and Envoy: X-Original-URI, X-Forwarded-URI, X-Envoy-Original-Path) or
// its host (X-Forwarded-Host, RFC 7239's Forwarded).
var routingHeaders = []string{"X-Original-Url", "X-Rewrite-Url", "X-Original-Uri", "X-Forwarded-Uri", "X-Envoy-Original-Path",
	"X-Forwarded-Host", "Forwarded", "X-Forwarded-Prefix", "X-Forwarded-Path"}

// routingHeader reports whether a request header named name is one of
// routingHeaders, its name read as [credvar.HeaderName] reads it.
func routingHeader(name string) bool {
	name = credvar.HeaderName(name)
	for _, k := range routingHeaders {
		if strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}

// clean reports whether p is absolute and the same cleaned, but for a
// "/" at its end.
func clean(p string) bool {
	c := path.Clean(p)
	return strings.HasPrefix(p, "/") && (c == p || c+"/" == p)
}

func (h *held) takes(host string, port int) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, hp := range h.hosts {
		if (hp.port == 0 || hp.port == port) && starglob.Match(hp.name, host) {
			return true
		}
	}
	return false
}

func (b *Broker) all() []*held {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.creds
}

// Intercepts reports whether a connection to host:port goes through the
// broker: a credential held takes that host.
func (b *Broker) Intercepts(host string, port int) bool {
	for _, h := range b.all() {
		if h.takes(host, port) {
			return true
		}
	}
	return false
}

// Carried names the credential whose placeholder text carries (a plain
// HTTP request's head, a CONNECT target), as it is or in basic
// authentication, when that credential may not go to host:port; "" when
// none does.
func (b *Broker) Carried(host string, port int, text string) string {
	vs := views(text)
	for _, h := range b.all() {
		if holds(vs, h.Placeholder) && !h.takes(host, port) {
			return h.Name
		}
	}
	return ""
}

// carries reports whether text holds ph: as it is, percent-encoded in
// part, or inside a base64 "Basic" value.
func carries(text, ph string) bool { return holds(views(text), ph) }

// views returns the forms of text a placeholder may hide in: text,
// text percent-decoded, and each long field of it base64-decoded. Each
// field is decoded twice (the standard and the URL alphabet, padding
// or not), whatever the number of credentials looked for.
func views(text string) []string {
	vs := []string{text}
	if strings.Contains(text, "%") {
		if u, err := url.PathUnescape(text); err == nil {
			vs = append(vs, u)
		}
	}
	for _, f := range strings.Fields(text) {
		f = strings.TrimRight(f, ",;=")
		if len(f) < 16 {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if d, err := enc.DecodeString(f); err == nil {
				vs = append(vs, string(d))
				break
			}
		}
	}
	return vs
}

// holds reports whether one of views contains ph.
func holds(views []string, ph string) bool {
	for _, v := range views {
		if strings.Contains(v, ph) {
			return true
		}
	}
	return false
}

// Serve serves the client connection c, whose tunnel to host:port the
// proxy has already opened (the client was told "200" or SOCKS's
// success): TLS with a certificate for host, then each HTTP request
// with its placeholders swapped, sent on over a connection dial makes
// (the proxy's, to an address its rules checked), its TLS verified
// against the host's trust. It returns when the client is done.
func (b *Broker) Serve(c net.Conn, host string, port int, dial func(ctx context.Context) (net.Conn, error)) {
	defer c.Close()
	b.once.Do(func() { b.slots = make(chan struct{}, maxServed) })
	select {
	case b.slots <- struct{}{}:
		defer func() { <-b.slots }()
	default:
		if b.Refused != nil {
			b.Refused(host, port, fmt.Sprintf("more than %d connections at once through the credential broker", maxServed))
		}
		return
	}
	cert, err := b.ca.leaf(strings.ToLower(host))
	if err != nil {
		return
	}
	tc := tls.Server(c, &tls.Config{
		Certificates: []tls.Certificate{*cert},
		NextProtos:   []string{"http/1.1"},
		MinVersion:   tls.VersionTLS12,
	})
	c.SetDeadline(time.Now().Add(15 * time.Second))
	if tc.Handshake() != nil {
		return
	}
	c.SetDeadline(time.Time{})
	lc := &limitedConn{Conn: tc}
	s := &served{b: b, client: tc, in: lc, br: bufio.NewReader(lc), host: host, port: port, dial: dial}
	defer s.closeUp()
	for s.one() {
	}
}

// served is one client connection the broker serves, and its upstream.
type served struct {
	b      *Broker
	client net.Conn
	in     *limitedConn // client, read through br
	br     *bufio.Reader
	host   string
	port   int
	dial   func(ctx context.Context) (net.Conn, error)

	up   net.Conn
	upBr *bufio.Reader
}

func (s *served) closeUp() {
	if s.up != nil {
		s.up.Close()
		s.up = nil
	}
}

// one serves one request; false when the connection is done.
func (s *served) one() bool {
	// A request's head is bounded (the command must not fill the
	// memory of the process that serves the proxy), its body not.
	s.in.left = maxHead
	s.client.SetReadDeadline(time.Now().Add(idle))
	req, err := http.ReadRequest(s.br)
	s.client.SetReadDeadline(time.Time{})
	s.in.left = -1
	if err != nil {
		if s.in.exceeded {
			s.reply(431, fmt.Sprintf("cordon's credential broker: a request's head is larger than %d bytes\n", maxHead))
			s.drain()
		}
		return false
	}
	if !s.sameHost(req.Host) {
		return s.refuse(403, fmt.Sprintf("the request names the host %q inside a connection to %s", req.Host, s.hostPort()))
	}
	if req.ProtoMajor != 1 {
		return s.refuse(505, fmt.Sprintf("it is %s; the credential broker speaks HTTP/1", req.Proto))
	}
	reason, echo := s.b.swap(req, s.host, s.port)
	if reason != "" {
		return s.refuse(403, reason)
	}
	if switchesProtocol(req.Header) {
		return s.refuse(403, fmt.Sprintf("it asks to switch protocols (Upgrade: %s): what would follow (a WebSocket's frames) cordon could neither check for a credential that is not the person's nor mask, so a credential's host is reached over plain HTTP requests only", req.Header.Get("Upgrade")))
	}
	// Uncompressed, so that what the host echoes can be masked.
	req.Header.Set("Accept-Encoding", "identity")
	if checked(req.Header) && req.ContentLength > maxBody {
		return s.refuse(413, tooLarge().reason)
	}
	if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
		req.Header.Del("Expect")
		io.WriteString(s.client, "HTTP/1.1 100 Continue\r\n\r\n")
	}
	ref, release := s.b.checkBody(req)
	defer release()
	if ref != nil {
		return s.refuse(ref.code, ref.reason)
	}
	removeHopHeaders(req.Header)
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // none added
	}
	if err := s.connectUp(); err != nil {
		s.reply(502, fmt.Sprintf("cordon's credential broker could not reach %s: %v\n", s.hostPort(), err))
		return false
	}
	// The body goes up while the answer comes back: a server may answer
	// (401, 413) before it has read all of it.
	sent := make(chan error, 1)
	go func() { sent <- req.Write(s.up) }()
	resp, err := http.ReadResponse(s.upBr, req)
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
		// Informational answers (103 Early Hints) are masked as the
		// final one: a service may quote the request in them too.
		s.b.maskResponse(resp, echo...)
		resp.Write(s.client)
		resp, err = http.ReadResponse(s.upBr, req)
	}
	if err == nil && resp.StatusCode == http.StatusSwitchingProtocols {
		err = errors.New("it switched protocols unasked")
	}
	if err != nil {
		s.closeUp()
		<-sent
		s.reply(502, fmt.Sprintf("cordon's credential broker: %s answered badly: %v\n", s.hostPort(), err))
		return false
	}
	s.b.maskResponse(resp, echo...)
	werr := resp.Write(s.client)
	resp.Body.Close()
	wait := time.NewTimer(time.Second)
	defer wait.Stop()
	select {
	case err := <-sent:
		if err != nil {
			s.closeUp()
			return false
		}
	case <-wait.C:
		// Answered before the request was all sent, and no longer
		// read: the connection's framing is lost; end it.
		s.closeUp()
		<-sent
		return false
	}
	if werr != nil || req.Close || resp.Close {
		return false
	}
	return true
}

func (s *served) hostPort() string {
	return net.JoinHostPort(s.host, strconv.Itoa(s.port))
}

// sameHost reports whether a request's Host names the host the
// connection was opened to (a different one would reach another site
// at the same address with the credential on it).
func (s *served) sameHost(h string) bool {
	if h == "" {
		return true
	}
	name, port := h, s.port
	if hh, p, err := net.SplitHostPort(h); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		name, port = hh, n
	} else if s.port != 443 && !strings.Contains(h, ":") {
		port = 443
	}
	name = strings.Trim(name, "[]")
	return port == s.port && strings.EqualFold(strings.TrimSuffix(name, "."), strings.TrimSuffix(strings.Trim(s.host, "[]"), "."))
}

func (s *served) connectUp() error {
	if s.up != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	raw, err := s.dial(ctx)
	if err != nil {
		return err
	}
	roots := s.b.Roots
	if roots == nil {
		if roots, err = x509.SystemCertPool(); err != nil {
			raw.Close()
			return fmt.Errorf("the host's trusted certificates: %v", err)
		}
	}
	tc := tls.Client(raw, &tls.Config{
		ServerName: strings.Trim(s.host, "[]"),
		RootCAs:    roots,
		NextProtos: []string{"http/1.1"},
		MinVersion: tls.VersionTLS12,
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return err
	}
	s.up, s.upBr = tc, bufio.NewReader(tc)
	return nil
}

// refuse answers code with why the request is refused, and ends the
// connection.
func (s *served) refuse(code int, reason string) bool {
	if s.b.Refused != nil {
		s.b.Refused(s.host, s.port, reason)
	}
	s.reply(code, fmt.Sprintf("cordon refused the request to %s: %s.\nA credential the sandbox holds is a placeholder that cordon's proxy swaps for the real one on requests to that credential's own hosts only (docs/network.md).\n", s.hostPort(), reason))
	return false
}

// drain reads and drops what the client still sends, up to a bound and
// for a moment, before the connection is closed: closed with unread
// input, it is reset, and a client still writing its request loses the
// answer before it reads it.
func (s *served) drain() {
	s.client.SetReadDeadline(time.Now().Add(time.Second))
	io.CopyN(io.Discard, s.client, 256<<10)
}

func (s *served) reply(code int, body string) {
	fmt.Fprintf(s.client, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", code, http.StatusText(code), len(body), body)
}

// idle is how long a kept-alive connection waits for its next request.
const idle = 2 * time.Minute

// maxHead bounds a request's line and headers, as the proxy's own.
const maxHead = 64 << 10

// maxServed bounds the connections a broker serves at once: each may
// hold a request head parsed into many small headers (several times its
// 64 KiB in memory), in the process that serves the proxy.
const maxServed = 64

// limitedConn is a connection whose reads stop after left more bytes
// (none when below 0).
type limitedConn struct {
	net.Conn
	left     int64
	exceeded bool
}

func (c *limitedConn) Read(p []byte) (int, error) {
	if c.left >= 0 {
		if c.left == 0 {
			c.exceeded = true
			return 0, errors.New("a request head too large")
		}
		p = p[:min(int64(len(p)), c.left)]
	}
	n, err := c.Conn.Read(p)
	if c.left >= 0 {
		c.left -= int64(n)
	}
	return n, err
}

// maskResponse puts each credential's placeholder back in place of its
// real value in resp's headers and, when not compressed, its body: a
// service that echoes the request (an error quoting the header it
// refused) gives the sandbox nothing.
func (b *Broker) maskResponse(resp *http.Response, extra ...string) {
	pairs := extra
	for _, h := range b.all() {
		if h.Value != "" {
			pairs = append(pairs, h.Value, h.Placeholder)
		}
		h.mu.Lock()
		for _, v := range h.looked {
			if v[1] != "" {
				pairs = append(pairs, v[1], h.Placeholder)
			}
		}
		h.mu.Unlock()
	}
	// Cookies are not sent up (no session of anyone's), so none is
	// taken back: one could carry a value cut across several lines.
	resp.Header.Del("Set-Cookie")
	// Nor trailers, which come after the body, past where the headers
	// are masked (the request's are dropped too).
	resp.Trailer = nil
	if len(pairs) == 0 {
		return
	}
	r := strings.NewReplacer(pairs...)
	// The status line's reason phrase is the service's text, passed on
	// as it came ("401 no such token ..."): masked as a header.
	resp.Status = r.Replace(resp.Status)
	for _, vs := range resp.Header {
		for i, v := range vs {
			vs[i] = r.Replace(v)
		}
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		return
	}
	// Asked for uncompressed, a service may compress all the same: an
	// echo in a compressed body would pass the masking unseen. gzip is
	// decoded (the command gets it plain); another coding is not
	// passed on.
	switch ce := strings.ToLower(strings.TrimSpace(strings.Join(resp.Header.Values("Content-Encoding"), ","))); ce {
	case "", "identity":
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(resp.Body)
		if err != nil {
			unreadable(resp, ce)
			return
		}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{z, resp.Body}
		resp.Header.Del("Content-Encoding")
	default:
		unreadable(resp, ce)
		return
	}
	resp.Body = maskStream(resp.Body, pairs)
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	if resp.ProtoAtLeast(1, 1) {
		resp.TransferEncoding = []string{"chunked"} // the connection stays open
	} else {
		resp.Close = true
	}
}

// unreadable replaces resp, whose body is in a coding cordon cannot
// read (so cannot mask), with a refusal that says so.
func unreadable(resp *http.Response, coding string) {
	resp.Body.Close()
	text := fmt.Sprintf("cordon's credential broker: the answer came in a coding it cannot read (Content-Encoding: %s), though it asked for none: what a service quotes back there could not be masked\n", coding)
	resp.StatusCode, resp.Status = 502, "502 Bad Gateway"
	resp.Header = http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
	resp.Body = io.NopCloser(strings.NewReader(text))
	resp.ContentLength = int64(len(text))
	resp.TransferEncoding = nil
}

// maskStream returns rc with each pairs[2i] replaced by pairs[2i+1].
func maskStream(rc io.ReadCloser, pairs []string) io.ReadCloser {
	longest := 0
	for i := 0; i < len(pairs); i += 2 {
		longest = max(longest, len(pairs[i]))
	}
	return &maskedBody{rc: rc, r: strings.NewReplacer(pairs...), keep: longest - 1}
}

// maskedBody replaces secrets in a stream, holding back the last keep
// bytes read until more come (a secret split across two reads).
type maskedBody struct {
	rc   io.ReadCloser
	r    *strings.Replacer
	keep int
	in   []byte // read, not yet replaced
	out  []byte // replaced, not yet returned
	eof  bool
}

func (m *maskedBody) Read(p []byte) (int, error) {
	for len(m.out) == 0 {
		if m.eof {
			return 0, io.EOF
		}
		buf := make([]byte, 32<<10)
		n, err := m.rc.Read(buf)
		m.in = append(m.in, buf[:n]...)
		if err != nil {
			m.eof = true
			if err != io.EOF {
				return 0, err
			}
		}
		cut := len(m.in) - m.keep
		if m.eof {
			cut = len(m.in)
		}
		if cut <= 0 {
			continue
		}
		// Replace in what is held and read, then give out all but the
		// tail, which may begin a secret: the tail is replaced again
		// with what follows (a replacement never holds a secret).
		rep := m.r.Replace(string(m.in))
		if m.eof {
			m.out, m.in = []byte(rep), nil
			continue
		}
		tail := min(m.keep, len(rep))
		m.out, m.in = []byte(rep[:len(rep)-tail]), []byte(rep[len(rep)-tail:])
	}
	n := copy(p, m.out)
	m.out = m.out[n:]
	return n, nil
}

func (m *maskedBody) Close() error { return m.rc.Close() }

// hopHeaders are the headers of one connection, not of the request.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Upgrade"}

// switchesProtocol reports whether a request asks to switch protocols
// (a WebSocket, h2c).
func switchesProtocol(h http.Header) bool {
	if len(h.Values("Upgrade")) > 0 || len(h.Values("Http2-Settings")) > 0 {
		return true
	}
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			if strings.EqualFold(strings.TrimSpace(name), "upgrade") {
				return true
			}
		}
	}
	return false
}

func removeHopHeaders(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}

// swap puts the real values in place of the placeholders of req, a
// request to host:port; the reason it must be refused otherwise.
//
// A placeholder is swapped only where a credential travels: the whole
// value of an authorization header (Authorization's "Bearer PH", "token
// PH", "PH"; an API-key header's "PH"), or the whole password of basic
// authentication. Anywhere else (a path, a query, another header) the
// real value would come back from a service that echoes the request (an
// error that quotes the path it did not find), so a placeholder there is
// refused. On a host that takes the person's credential, another
// credential (the command's own: an authorization header, a
// credential-like query parameter, a cookie, a placeholder mixed with
// another token) is refused or dropped: a stranger's token would make the
// host a way out to the stranger's account.
//
// echo pairs each header value swapped in with the one it replaced (a
// basic authentication's base64 holds the value in a form the masking
// of the answer would not see otherwise).
func (b *Broker) swap(req *http.Request, host string, port int) (reason string, echo []string) {
	creds := b.all()
	head := headViews(req)
	for _, h := range creds {
		if !holds(head, h.Placeholder) {
			continue
		}
		if why := h.refuses(req, host, port); why != "" {
			return why, nil
		}
	}
	if carriesAny(req.URL.String(), creds) {
		return "a credential's placeholder in its path or query: cordon puts credentials only in the Authorization header or the service's API-key header", nil
	}
	if name := queryStranger(req.URL.RawQuery); name != "" {
		return fmt.Sprintf("its query parameter %q carries a credential that is not the one cordon holds for %s (the command's own)", name, host), nil
	}
	req.Header.Del("Cookie") // no session of anyone's
	req.Trailer = nil        // nor a header after the body
	for name, values := range req.Header {
		auth := credvar.AuthHeader(name)
		for i, v := range values {
			if !auth {
				if carriesAny(v, creds) {
					return fmt.Sprintf("a credential's placeholder in its %s header: cordon puts credentials only in the Authorization header or the service's API-key header", name), nil
				}
				continue
			}
			if strings.TrimSpace(v) == "" {
				continue
			}
			nv, reason := b.swapAuth(req.Context(), v, creds, host, port)
			if reason != "" {
				return fmt.Sprintf("its %s header %s", name, reason), nil
			}
			if nv != v {
				echo = append(echo, nv, v)
				// The parameter alone too (basic authentication's
				// base64, quoted without its scheme, or with the scheme
				// spelled the service's way).
				if _, np, ok := strings.Cut(strings.TrimSpace(nv), " "); ok {
					_, op, _ := strings.Cut(strings.TrimSpace(v), " ")
					if np, op = strings.TrimSpace(np), strings.TrimSpace(op); np != op && np != "" {
						echo = append(echo, np, op)
					}
				}
			}
			values[i] = nv
		}
	}
	return "", echo
}

// carriesAny reports whether text carries the placeholder of one of creds.
func carriesAny(text string, creds []*held) bool {
	vs := views(text)
	for _, h := range creds {
		if holds(vs, h.Placeholder) {
			return true
		}
	}
	return false
}

// headViews returns the views of req's URL and header values.
func headViews(req *http.Request) []string {
	vs := views(req.URL.String())
	for _, hv := range req.Header {
		for _, v := range hv {
			vs = append(vs, views(v)...)
		}
	}
	return vs
}

// swapAuth returns the authorization header value v with the real value
// in place of the placeholder it is made of, or why it is refused: it is
// not one of the shapes a credential of the broker's takes (see
// [Broker.swap]).
func (b *Broker) swapAuth(ctx context.Context, v string, creds []*held, host string, port int) (string, string) {
	own := func(ph string) *held {
		for _, h := range creds {
			if h.Placeholder == ph && h.takes(host, port) {
				return h
			}
		}
		return nil
	}
	const stranger = "carries a credential that is not the one cordon holds for this host (the command's own, or one mixed with it)"
	// swapped is v made with the value of h by make, or why not.
	swapped := func(h *held, make func(user, secret string) string) (string, string) {
		u, secret, err := h.value(ctx, host)
		if err != nil {
			return "", fmt.Sprintf("needs the value of %s, which cannot be had: %v", h.Name, err)
		}
		return make(u, secret), ""
	}
	scheme, param, hasParam := strings.Cut(strings.TrimSpace(v), " ")
	param = strings.TrimSpace(param)
	if !hasParam {
		scheme, param = "", scheme
	}
	if strings.EqualFold(scheme, "basic") {
		d, err := base64.StdEncoding.DecodeString(param)
		if err != nil {
			return "", stranger
		}
		user, pass, _ := strings.Cut(string(d), ":")
		basic := func(u, p string) string { return scheme + " " + base64.StdEncoding.EncodeToString([]byte(u+":"+p)) }
		// The placeholder is the whole password (any user name: it
		// names nobody's account but the credential's), or the whole
		// user name with no password (GitHub's token as the user).
		if h := own(pass); h != nil && !carriesAny(user, creds) {
			return swapped(h, func(u, secret string) string {
				if h.Lookup != nil {
					return basic(u, secret)
				}
				return basic(user, secret)
			})
		}
		if h := own(user); h != nil && h.Lookup == nil && (pass == "" || pass == "x-oauth-basic") {
			return swapped(h, func(_, secret string) string { return basic(secret, pass) })
		}
		return "", stranger
	}
	h := own(param)
	if h == nil {
		return "", stranger
	}
	return swapped(h, func(_, secret string) string {
		if scheme == "" {
			return secret
		}
		return scheme + " " + secret
	})
}

// value returns the credential's user (from Lookup only) and secret for
// a request to host; what Lookup gave is kept for the broker's life.
func (h *held) value(ctx context.Context, host string) (string, string, error) {
	if h.Lookup == nil {
		return "", h.Value, nil
	}
	host = strings.ToLower(host)
	h.mu.Lock()
	defer h.mu.Unlock()
	if v, ok := h.looked[host]; ok {
		return v[0], v[1], nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	user, pass, err := h.Lookup(ctx, host)
	if err != nil {
		return "", "", err
	}
	if pass == "" {
		return "", "", fmt.Errorf("no credential for %s", host)
	}
	if h.looked == nil {
		h.looked = map[string][2]string{}
	}
	h.looked[host] = [2]string{user, pass}
	return user, pass, nil
}

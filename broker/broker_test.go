package broker_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordonsh/cordon/broker"
	"github.com/cordonsh/cordon/netproxy"
)

const real = "ghp_REALsecretVALUE0123456789"

// rig is a host service that answers only the real token, the proxy
// with a broker in front of it, and a client that trusts the broker's
// authority (as a sandbox does) and goes through the proxy.
type rig struct {
	t        *testing.T
	upstream *httptest.Server
	host     string // 127.0.0.1:PORT of the service
	ph       string
	client   *http.Client
	b        *broker.Broker
	proxy    string         // the proxy's address
	roots    *x509.CertPool // the sandbox's trust: the broker's authority

	mu      sync.Mutex
	seen    []string // the Authorization headers the service got
	refused []string
}

func newRig(t *testing.T) *rig {
	r := &rig{t: t}
	r.upstream = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Get("Authorization")+"|"+req.Header.Get("X-Api-Key")+"|"+req.URL.RawQuery+"|"+fmt.Sprint(req.Header)+"|"+string(body))
		r.mu.Unlock()
		ok := req.Header.Get("Authorization") == "Bearer "+real || req.URL.Query().Get("key") == real
		if u, p, b := req.BasicAuth(); b {
			ok = u == "person" && p == real || u == real && p == "x-oauth-basic"
		}
		if req.URL.Path == "/early" {
			// Early hints that quote the request (103, before the answer).
			w.Header().Set("X-Echo", req.Header.Get("Authorization"))
			w.Header().Set("Set-Cookie", "a="+req.Header.Get("Authorization"))
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Del("X-Echo")
			w.Header().Del("Set-Cookie")
			io.WriteString(w, "ok\n")
			return
		}
		if req.URL.Path == "/echo-parts" {
			// A service that quotes the request where the masking of
			// headers and body does not look: its status line, a
			// trailer; and the credentials of basic authentication
			// without their scheme, or with the scheme spelled its way.
			a := req.Header.Get("Authorization")
			_, blob, _ := strings.Cut(a, " ")
			conn, bw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			body := fmt.Sprintf("credentials %s; Basic %s", blob, blob)
			fmt.Fprintf(bw, "HTTP/1.1 401 no such token %s\r\nTrailer: X-Echo\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n%s\r\n0\r\nX-Echo: %s\r\n\r\n", a, len(body), body, a)
			bw.Flush()
			return
		}
		if coding, ok := strings.CutPrefix(req.URL.Path, "/echo-coded/"); ok {
			// A service that quotes the request back compressed,
			// whatever the client asked for.
			w.Header().Set("Content-Encoding", coding)
			var out io.Writer = w
			if coding == "gzip" || coding == "x-gzip" {
				z := gzip.NewWriter(w)
				defer z.Close()
				out = z
			}
			fmt.Fprintf(out, "you sent %q", req.Header.Get("Authorization"))
			return
		}
		if req.URL.Path == "/echo" {
			// A service that quotes the request back, compressed when
			// the client takes it.
			w.Header().Set("X-Echo", req.Header.Get("Authorization"))
			// A value cut across cookies, put together by the client.
			a := req.Header.Get("Authorization")
			w.Header().Add("Set-Cookie", "a="+a[:len(a)/2])
			w.Header().Add("Set-Cookie", "b="+a[len(a)/2:])
			var out io.Writer = w
			if strings.Contains(req.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				z := gzip.NewWriter(w)
				defer z.Close()
				out = z
			}
			fmt.Fprintf(out, "you sent %q to %s", req.Header.Get("Authorization"), req.URL)
			return
		}
		if !ok {
			w.WriteHeader(401)
			io.WriteString(w, "no\n")
			return
		}
		fmt.Fprintf(w, "ok %s %d\n", req.URL.Path, len(body))
	}))
	t.Cleanup(r.upstream.Close)
	r.host = strings.TrimPrefix(r.upstream.URL, "https://")
	ca, err := broker.LoadCA(filepath.Join(t.TempDir(), "broker"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(r.upstream.Certificate())
	r.b = broker.New(ca)
	r.b.Roots = roots
	r.b.Refused = func(host string, port int, reason string) {
		r.mu.Lock()
		r.refused = append(r.refused, reason)
		r.mu.Unlock()
	}
	r.ph = broker.Placeholder([]byte("session key"), "TEST_TOKEN", real)
	r.b.Add(broker.Credential{Name: "TEST_TOKEN", Placeholder: r.ph, Value: real, Hosts: []string{r.host}})
	rules, err := netproxy.Compile([]string{"127.0.0.1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	srv := &netproxy.Server{Rules: rules, Broker: r.b}
	go srv.Serve(ln)
	sandboxRoots := x509.NewCertPool()
	pem, err := os.ReadFile(ca.CertFile())
	if err != nil || !sandboxRoots.AppendCertsFromPEM(pem) {
		t.Fatalf("the authority's certificate: %v", err)
	}
	r.proxy = ln.Addr().String()
	r.roots = sandboxRoots
	proxy, _ := url.Parse("http://" + ln.Addr().String())
	r.client = &http.Client{Transport: &http.Transport{
		Proxy:           http.ProxyURL(proxy),
		TLSClientConfig: &tls.Config{RootCAs: sandboxRoots},
	}}
	return r
}

func (r *rig) do(method, path string, header map[string]string, body io.Reader) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest(method, "https://"+r.host+path, body)
	if err != nil {
		r.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		r.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (r *rig) leaked() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seen {
		if strings.Contains(s, r.ph) {
			r.t.Errorf("the service got the placeholder: %q", s)
		}
	}
}

// TestSwap: the placeholder becomes the real token on requests to the
// credential's host, in a bearer header, basic authentication and the
// query, over one kept-alive connection, bodies and all.
func TestSwap(t *testing.T) {
	r := newRig(t)
	for i, c := range []struct {
		header map[string]string
		path   string
	}{
		{map[string]string{"Authorization": "Bearer " + r.ph}, "/user"},
		{map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("person:"+r.ph))}, "/basic"},
		{map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(r.ph+":x-oauth-basic"))}, "/basic-user"},
	} {
		code, body := r.do("POST", c.path, c.header, strings.NewReader(strings.Repeat("x", 100000)))
		if code != 200 || !strings.HasPrefix(body, "ok ") || !strings.Contains(body, " 100000") {
			t.Errorf("case %d: %d %q, want 200 ok with the whole body", i, code, body)
		}
	}
	// A chunked body of unknown length.
	pr, pw := io.Pipe()
	go func() {
		for range 50 {
			pw.Write([]byte(strings.Repeat("y", 1000)))
		}
		pw.Close()
	}()
	if code, body := r.do("PUT", "/chunked", map[string]string{"Authorization": "Bearer " + r.ph}, pr); code != 200 || !strings.Contains(body, " 50000") {
		t.Errorf("chunked: %d %q", code, body)
	}
	// No credential: the service's own answer comes back.
	if code, _ := r.do("GET", "/anon", nil, nil); code != 401 {
		t.Errorf("no credential: %d, want the service's 401", code)
	}
	r.leaked()
}

// TestRefusals: what must not reach the service does not: a stranger's
// token on the credential's host, a Host header naming another site, a
// placeholder on its way to another host in plain HTTP.
func TestRefusals(t *testing.T) {
	r := newRig(t)
	before := func() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.seen) }
	n := before()
	if code, body := r.do("GET", "/", map[string]string{"Authorization": "Bearer attackers-own-token"}, nil); code != 403 || !strings.Contains(body, "cordon refused") {
		t.Errorf("a stranger's token: %d %q, want cordon's 403", code, body)
	}
	if code, _ := r.do("GET", "/", map[string]string{"X-Api-Key": "attackers-own-key"}, nil); code != 403 {
		t.Errorf("a stranger's API key: %d, want 403", code)
	}
	req, _ := http.NewRequest("GET", "https://"+r.host+"/", nil)
	req.Host = "other.example"
	req.Header.Set("Authorization", "Bearer "+r.ph)
	if resp, err := r.client.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("another Host inside the tunnel: %v %v, want 403", resp, err)
	}
	if before() != n {
		t.Errorf("the service was reached by a refused request: %q", r.seen[n:])
	}

	// Plain HTTP to another loopback port, placeholder in a header,
	// in basic authentication, in the URL: refused by the proxy before
	// it connects.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		t.Errorf("the other host got a request with %q", req.Header)
	}))
	defer other.Close()
	for _, c := range []struct {
		path   string
		header map[string]string
	}{
		{"/", map[string]string{"Authorization": "token " + r.ph}},
		{"/", map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("x:"+r.ph))}},
		{"/?t=" + r.ph, nil},
		{"/", map[string]string{"X-Note": url.QueryEscape("k=" + r.ph)}},
	} {
		req, _ := http.NewRequest("GET", other.URL+c.path, nil)
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !strings.Contains(string(b), "TEST_TOKEN") {
			t.Errorf("placeholder to another host %v: %d %q, want 403 naming the credential", c, resp.StatusCode, b)
		}
	}
	// A placeholder mixed with a stranger's token, in a query, a path
	// or another header; a stranger's token in a query: refused before
	// the service sees anything.
	n = before()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, c := range []struct {
		path   string
		header map[string]string
	}{
		{"/", map[string]string{"Authorization": "Basic " + b64(r.ph+":ghp_STRANGER")}},
		{"/", map[string]string{"Authorization": "Basic " + b64("ghp_STRANGER"+r.ph+":"+r.ph)}},
		{"/", map[string]string{"Authorization": "Bearer ghp_STRANGER " + r.ph}},
		{"/", map[string]string{"Authorization": r.ph + "ghp_STRANGER"}},
		{"/v1/" + r.ph, map[string]string{"Authorization": "Bearer " + r.ph}},
		{"/?key=" + r.ph, nil},
		{"/?private_token=ghp_STRANGER", nil},
		{"/?access_token=ghp_STRANGER", map[string]string{"Authorization": "Bearer " + r.ph}},
		{"/", map[string]string{"X-Note": r.ph, "Authorization": "Bearer " + r.ph}},
	} {
		if code, body := r.do("GET", c.path, c.header, nil); code != 403 || !strings.Contains(body, "cordon refused") {
			t.Errorf("%v: %d %q, want cordon's 403", c, code, body)
		}
	}
	if before() != n {
		t.Errorf("the service was reached by a refused request: %q", r.seen[n:])
	}
	if len(r.refused) < 3 {
		t.Errorf("refusals logged: %q", r.refused)
	}
}

// TestEcho: a service that quotes the request back (an error naming the
// header it refused) gives the sandbox the placeholder, not the value,
// in its headers and its body, however the body is cut.
func TestEcho(t *testing.T) {
	r := newRig(t)
	basic := base64.StdEncoding.EncodeToString([]byte("person:" + real))
	for _, auth := range []string{"Bearer " + r.ph, "Basic " + base64.StdEncoding.EncodeToString([]byte("person:"+r.ph))} {
		req, _ := http.NewRequest("GET", "https://"+r.host+"/echo", nil)
		req.Header.Set("Authorization", auth)
		req.Header.Set("Accept-Encoding", "gzip") // asked for, not decoded by the client
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := string(b) + resp.Header.Get("X-Echo")
		if c := resp.Header.Values("Set-Cookie"); len(c) > 0 {
			t.Errorf("the echo of %q set cookies %q, which can carry the value in parts", auth, c)
		}
		if strings.Contains(got, real) || strings.Contains(got, basic) || !strings.Contains(got, auth) {
			t.Errorf("the echo of %q: %q, X-Echo %q", auth, b, resp.Header.Get("X-Echo"))
		}
	}
}

// TestEchoCoded: a service that compresses its answer though the broker
// asked for none (Accept-Encoding: identity) gives the sandbox the
// placeholder, not the value: gzip is decoded and masked, a coding the
// broker cannot read is not passed on (it was, unmasked: found by an
// attacker).
func TestEchoCoded(t *testing.T) {
	r := newRig(t)
	for _, coding := range []string{"gzip", "x-gzip", "br"} {
		req, _ := http.NewRequest("GET", "https://"+r.host+"/echo-coded/"+coding, nil)
		req.Header.Set("Authorization", "Bearer "+r.ph)
		req.Header.Set("Accept-Encoding", coding) // not decoded by the client
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ce := resp.Header.Get("Content-Encoding"); strings.Contains(ce, "gzip") {
			if z, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
				b, _ = io.ReadAll(z)
			}
		}
		if strings.Contains(string(b), real) {
			t.Errorf("the echo in %s gave the value back: %q", coding, b)
		}
		if coding != "br" && !strings.Contains(string(b), r.ph) {
			t.Errorf("the echo in %s: %q, want the placeholder", coding, b)
		}
	}
}

// TestEchoParts: what a service quotes back of the request in its
// status line or a trailer, or of basic authentication without its
// scheme or with the scheme in another case, is masked too.
func TestEchoParts(t *testing.T) {
	r := newRig(t)
	basic := base64.StdEncoding.EncodeToString([]byte("person:" + real))
	for _, scheme := range []string{"Basic", "basic", "Bearer"} {
		auth := scheme + " " + base64.StdEncoding.EncodeToString([]byte("person:"+r.ph))
		if scheme == "Bearer" {
			auth = scheme + " " + r.ph
		}
		req, _ := http.NewRequest("GET", "https://"+r.host+"/echo-parts", nil)
		req.Header.Set("Authorization", auth)
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := resp.Status + "\n" + string(b) + "\n" + fmt.Sprint(resp.Header) + "\n" + fmt.Sprint(resp.Trailer)
		if strings.Contains(got, real) || strings.Contains(got, basic) {
			t.Errorf("the echo of %q gave the value back: %q", auth, got)
		}
	}
}

// TestEchoInformational: what a service quotes back in an informational
// answer (103 Early Hints, before the real one) is masked too.
func TestEchoInformational(t *testing.T) {
	r := newRig(t)
	basic := base64.StdEncoding.EncodeToString([]byte("person:" + real))
	for _, auth := range []string{"Bearer " + r.ph, "Basic " + base64.StdEncoding.EncodeToString([]byte("person:"+r.ph))} {
		var early []string
		trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			early = append(early, fmt.Sprint(code, h))
			return nil
		}}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "GET", "https://"+r.host+"/early", nil)
		req.Header.Set("Authorization", auth)
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got := strings.Join(early, "\n")
		if len(early) != 1 || strings.Contains(got, real) || strings.Contains(got, basic) || !strings.Contains(got, auth) || strings.Contains(got, "Set-Cookie") {
			t.Errorf("the early hints to %q: %q", auth, early)
		}
	}
}

// TestMaskedBody: a secret split across reads of any size is replaced.
func TestMaskedBody(t *testing.T) {
	text := strings.Repeat("x", 100) + real + "y" + real + strings.Repeat("z", 7)
	for size := 1; size < 40; size++ {
		m := broker.MaskStream(io.NopCloser(&chunked{s: text, n: size}), map[string]string{real: "PH"})
		got, _ := io.ReadAll(m)
		if want := strings.ReplaceAll(text, real, "PH"); string(got) != want {
			t.Errorf("reads of %d: %q", size, got)
		}
	}
}

type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := min(c.n, len(p), len(c.s))
	copy(p, c.s[:k])
	c.s = c.s[k:]
	return k, nil
}

// TestUntrustedUpstream: a service whose certificate the host does not
// trust gets nothing: the broker says why, with a 502.
func TestUntrustedUpstream(t *testing.T) {
	r := newRig(t)
	r.b.Roots = x509.NewCertPool()
	code, body := r.do("GET", "/", map[string]string{"Authorization": "Bearer " + r.ph}, nil)
	if code != 502 || !strings.Contains(body, "certificate") {
		t.Errorf("untrusted service: %d %q, want 502 about its certificate", code, body)
	}
	if len(r.seen) != 0 {
		t.Errorf("the untrusted service got %q", r.seen)
	}
}

// TestLookup: a credential given by Lookup (git's helper on the host)
// fills basic authentication's user and password, once per host.
func TestLookup(t *testing.T) {
	r := newRig(t)
	calls := 0
	ph := broker.Placeholder([]byte("k"), "git:"+r.host, "")
	r.b.Add(broker.Credential{Name: "git", Placeholder: ph, Hosts: []string{r.host},
		Lookup: func(ctx context.Context, host string) (string, string, error) {
			calls++
			return "person", real, nil
		}})
	for range 2 {
		if code, _ := r.do("GET", "/", map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("cordon:"+ph))}, nil); code != 200 {
			t.Errorf("git's placeholder: %d", code)
		}
	}
	if calls != 1 {
		t.Errorf("Lookup ran %d times, want 1", calls)
	}
}

// TestRepositories: git's credential for a host goes only to the
// workspace's own repositories there (its paths, and below them); a push
// to another repository on the same host is refused before the service
// sees the value, however its path is spelled.
func TestRepositories(t *testing.T) {
	r := newRig(t)
	ph := broker.Placeholder([]byte("k"), "git:"+r.host, "")
	r.b.Add(broker.Credential{Name: "git credential", Placeholder: ph, Hosts: []string{r.host}, Paths: []string{"/me/app", "/me/app.git", "/team/tool", "/team/tool.git"},
		Lookup: func(ctx context.Context, host string) (string, string, error) { return "person", real, nil }})
	auth := map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("cordon:"+ph))}
	for _, path := range []string{"/me/app.git/info/refs?service=git-receive-pack", "/me/app/git-receive-pack", "/me/app.git", "/team/tool.git/info/lfs/objects/batch", "/team/tool/info/refs"} {
		if code, body := r.do("GET", path, auth, nil); code != 200 {
			t.Errorf("%s: %d %q, want 200", path, code, body)
		}
	}
	r.mu.Lock()
	n := len(r.seen)
	r.mu.Unlock()
	for _, path := range []string{"/me/drop.git/git-receive-pack", "/me/app.gitx/info/refs", "/me/apps/info/refs", "/me/app.git/../drop.git/info/refs",
		"/me/app.git/%2e%2e/drop.git/info/refs", "/me%2fapp.git/info/refs", "/ME/app.git/info/refs", "/team/tool/./../x/info/refs", "/",
		// What a Java server (Tomcat: Bitbucket Data Center) reads as
		// /me/drop.git: a path parameter, "..;" going up.
		"/me/app.git/..;/drop.git/info/refs", "/me/app.git/..%3b/drop.git/info/refs", "/me/app.git/;x/info/refs",
		"/me/app.git//info/refs", "/me/app.git/info/refs/..",
		// Escaped twice: a server or proxy that unescapes again reads
		// /me/app.git/../drop.git.
		"/me/app.git/%252e%252e/drop.git/info/refs", "/me/app.git%252f..%252fdrop.git/info/refs"} {
		code, body := r.do("GET", path, auth, nil)
		if code != 403 || !strings.Contains(body, "not a path it is for") {
			t.Errorf("%s: %d %q, want 403 naming the remotes", path, code, body)
		}
	}
	// A header some servers route by instead of the path (IIS's URL
	// Rewrite, older Symfony: found by an attacker).
	// The same with "_" for "-", as CGI, PHP and Rack read a header's
	// name (HTTP_X_ORIGINAL_URL); the path in a proxy's header of its
	// own (nginx's auth_request, Traefik, Envoy); the host in RFC 7239's.
	for _, k := range []string{"X-Original-URL", "X-Rewrite-URL", "X-Forwarded-Host",
		"X_Original_URL", "x_rewrite_url", "X_Forwarded_Host", "X-Forwarded-Prefix", "X_Forwarded_Prefix",
		"X-Original-URI", "X-Forwarded-URI", "X-Envoy-Original-Path", "Forwarded",
		// Any other character of a name for "-", as lighttpd's CGI and
		// FastCGI read it, PHP "." too (found by an attacker).
		"X.Original.URL", "X~Original~URL", "X-Original.URL", "X_Original.URI"} {
		h := map[string]string{"Authorization": auth["Authorization"], k: "/me/drop.git/info/refs"}
		if code, body := r.do("GET", "/me/app.git/info/refs", h, nil); code != 403 {
			t.Errorf("%s: %d %q, want 403", k, code, body)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen) != n {
		t.Errorf("the service was reached by a refused request: %q", r.seen[n:])
	}
}

// TestCA: the authority is made once, kept private, read back the same;
// a bundle holds the system's certificates and the authority's.
func TestCA(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "broker")
	a, err := broker.LoadCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := broker.LoadCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := os.ReadFile(a.CertFile())
	pb, _ := os.ReadFile(b.CertFile())
	if string(pa) != string(pb) || len(pa) == 0 {
		t.Error("a second load made a new authority")
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v", fi.Mode())
	}
	if fi, err := os.Stat(filepath.Join(dir, "ca-key.pem")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode: %v %v", fi, err)
	}
	// The system bundle: another authority's certificate, with what
	// the file named by SSL_CERT_FILE may hold besides (a command names
	// it): only certificates come through.
	other, err := broker.LoadCA(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	po, _ := os.ReadFile(other.CertFile())
	key, _ := os.ReadFile(filepath.Join(filepath.Dir(other.CertFile()), "ca-key.pem"))
	sys := filepath.Join(t.TempDir(), "system.pem")
	os.WriteFile(sys, []byte("token=SECRET-LINE\n"+string(key)+string(po)+"-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n"), 0o644)
	bundle, err := a.Bundle(sys)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(bundle)
	if !strings.HasPrefix(string(got), string(po)) || !strings.HasSuffix(string(got), string(pa)) {
		t.Errorf("bundle:\n%s", got)
	}
	if strings.Contains(string(got), "PRIVATE") || strings.Contains(string(got), "SECRET") || strings.Contains(string(got), "bm90") {
		t.Errorf("the bundle holds more than certificates:\n%s", got)
	}
	if _, err := a.Bundle("/dev/zero"); err == nil {
		t.Error("a bundle made of /dev/zero")
	}
	os.WriteFile(filepath.Join(dir, "ca-key.pem"), []byte("garbage"), 0o600)
	if _, err := broker.LoadCA(dir); err == nil || !strings.Contains(err.Error(), "remove") {
		t.Errorf("a broken key: %v, want an error that says what to do", err)
	}
}

func TestPlaceholder(t *testing.T) {
	a := broker.Placeholder([]byte("k1"), "GH_TOKEN", "v")
	if a != broker.Placeholder([]byte("k1"), "GH_TOKEN", "v") {
		t.Error("not stable")
	}
	for _, b := range []string{broker.Placeholder([]byte("k2"), "GH_TOKEN", "v"), broker.Placeholder([]byte("k1"), "GH_TOKEN", "w"), broker.Placeholder([]byte("k1"), "NPM_TOKEN", "v")} {
		if a == b {
			t.Error("a placeholder does not change with its key, name or value")
		}
	}
	if !strings.HasPrefix(a, "cordon_") || len(a) != 47 {
		t.Errorf("placeholder %q", a)
	}
}

// TestHugeHead: a request head past the bound ends the connection with
// 431, not the memory of the process that serves the proxy.
func TestHugeHead(t *testing.T) {
	r := newRig(t)
	code, body := r.do("GET", "/", map[string]string{"Authorization": "Bearer " + r.ph, "X-Fill": strings.Repeat("a", 100<<10)}, nil)
	if code != 431 || !strings.Contains(body, "cordon") {
		t.Errorf("a 100 KiB header: %d %q, want cordon's 431", code, body)
	}
	if len(r.seen) != 0 {
		t.Errorf("the service got %d requests", len(r.seen))
	}
}

// TestServedBound: a command that opens tunnels to a brokered host and
// holds them is served at most 64 at once; the one beyond is closed and
// logged, not parsed into the memory of the process that serves the
// proxy.
func TestServedBound(t *testing.T) {
	r := newRig(t)
	open := func() (net.Conn, error) {
		c, err := net.Dial("tcp", r.proxy)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", r.host, r.host)
		buf := make([]byte, 64)
		if _, err := c.Read(buf); err != nil {
			return nil, err
		}
		return c, nil
	}
	// The proxy says "200" before the broker takes its slot, so which
	// of the 65 is refused is a race: exactly one of them must be.
	conns := make([]net.Conn, 65)
	for i := range conns {
		c, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	closed := make(chan bool, len(conns))
	for _, c := range conns {
		go func() {
			c.SetReadDeadline(time.Now().Add(3 * time.Second))
			_, err := c.Read(make([]byte, 1))
			closed <- err == io.EOF
		}()
	}
	n := 0
	for range conns {
		if <-closed {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d of 65 tunnels closed, want exactly the one past the bound", n)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.refused) == 0 || !strings.Contains(r.refused[len(r.refused)-1], "connections at once") {
		t.Errorf("refusals: %q", r.refused)
	}
}

// TestBundleStamped: a bundle made from a system bundle that has not
// changed is not made again (its certificates are not parsed at every
// session's start), and one made from a system bundle that changed since
// is: the new certificates are in it, the old ones gone, the authority's
// own last.
func TestBundleStamped(t *testing.T) {
	a, err := broker.LoadCA(filepath.Join(t.TempDir(), "a"))
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := os.ReadFile(a.CertFile())
	certOf := func(name string) string {
		c, err := broker.LoadCA(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		p, _ := os.ReadFile(c.CertFile())
		return string(p)
	}
	one, two := certOf("one"), certOf("two")
	sys := filepath.Join(t.TempDir(), "system.pem")
	if err := os.WriteFile(sys, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	broker.Later(t, time.Minute) // the system file as it is a while after it was written
	check := func(want, not string) string {
		t.Helper()
		bundle, err := a.Bundle(sys)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(bundle)
		if !strings.Contains(string(got), want) || strings.Contains(string(got), not) || !strings.HasSuffix(string(got), string(pa)) {
			t.Fatalf("bundle:\n%s", got)
		}
		return bundle
	}
	check(one, two)
	before := broker.Parsed()
	if check(one, two); broker.Parsed() != before {
		t.Error("the system bundle was parsed again though it did not change")
	}
	// The system bundle replaced (a package update), and rewritten in
	// place with the same size (an editor): each time the bundle follows.
	// (A moment between writes: the kernel's file clock ticks every few
	// milliseconds; a file older than filestamp.Margin has no such twin.)
	tmp := sys + ".new"
	os.WriteFile(tmp, []byte(two), 0o644)
	if err := os.Rename(tmp, sys); err != nil {
		t.Fatal(err)
	}
	check(two, one)
	time.Sleep(20 * time.Millisecond)
	if err := os.WriteFile(sys, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	check(one, two)
	// Changed just now (as the clock stands): no stamp is trusted, the
	// bundle is made from the file's content.
	broker.Later(t, -time.Minute)
	time.Sleep(20 * time.Millisecond)
	if err := os.WriteFile(sys, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	check(two, one)
}

// BenchmarkBundle is the sandbox's certificate bundle at a sandbox's
// start from the host's bundle: unchanged since it was last made (only
// its stamp compared), and changed each time (its certificates parsed).
func BenchmarkBundle(b *testing.B) {
	sys := "/etc/ssl/certs/ca-certificates.crt"
	if _, err := os.Stat(sys); err != nil {
		b.Skipf("no host bundle: %v", err)
	}
	a, err := broker.LoadCA(filepath.Join(b.TempDir(), "a"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		ahead time.Duration
	}{{"unchanged", time.Minute}, {"changed", -100 * 365 * 24 * time.Hour}} {
		b.Run(c.name, func(b *testing.B) {
			// Far behind: the host's bundle seems to change as it is read,
			// so no stamp is taken and it is parsed each time.
			broker.Later(b, c.ahead)
			before := broker.Parsed()
			for b.Loop() {
				if _, err := a.Bundle(sys); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(broker.Parsed()-before)/float64(b.N), "parses/op")
		})
	}
}

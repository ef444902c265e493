package broker_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestStrangers: a stranger's token on the credential's host is refused
// wherever a lenient server (Rack, which GitLab runs; PHP; CGI) would
// read it, not only where Go's parsers look: a form, JSON or multipart
// body, a query split at ";", a name or value with a bad %-escape, an
// API-key header spelled with "_" or in another case. The service is
// never reached; ordinary requests still are.
func TestStrangers(t *testing.T) {
	r := newRig(t)
	bearer := map[string]string{"Authorization": "Bearer " + r.ph}
	with := func(kv ...string) map[string]string {
		h := map[string]string{"Authorization": "Bearer " + r.ph}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = kv[i+1]
		}
		return h
	}
	form := "application/x-www-form-urlencoded"
	mp := func(name, filename, content string) (string, string) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		if filename == "" {
			w.WriteField(name, content)
		} else {
			f, _ := w.CreateFormFile(name, filename)
			io.WriteString(f, content)
		}
		w.Close()
		return w.FormDataContentType(), b.String()
	}
	mpType, mpBody := mp("private_token", "", "glpat-STRANGER")
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	io.WriteString(z, `{"private_token":"glpat-STRANGER"}`)
	z.Close()
	raw := "--XX\r\nContent-Disposition: form-data; name=private_token\r\n\r\nglpat-STRANGER\r\n--XX--\r\n"
	folded := "--XX\r\ncontent-disposition: form-data;\r\n\tNAME = \"access_token\"\r\n\r\nglpat-STRANGER\r\n--XX--\r\n"
	star := "--XX\r\nContent-Disposition: form-data; name*=utf-8''private%5Ftoken\r\n\r\nglpat-STRANGER\r\n--XX--\r\n"
	for _, c := range []struct {
		what   string
		method string
		path   string
		header map[string]string
		body   string
		code   int
	}{
		{"form body", "POST", "/api", with("Content-Type", form), "private_token=glpat-STRANGER", 403},
		{"form body, no type (Rack parses a POST as a form)", "POST", "/api", bearer, "private_token=glpat-STRANGER", 403},
		{"form body, ';' pair", "POST", "/api", with("Content-Type", "Application/X-WWW-Form-Urlencoded; charset=utf-8"), "a=1;access_token=glpat-STRANGER", 403},
		{"form body, bad escape", "POST", "/api", with("Content-Type", form), "private%5Ftoken=glpat%zzSTRANGER", 403},
		{"JSON body", "POST", "/api", with("Content-Type", "application/json"), `{"title":"x","private_token":"glpat-STRANGER"}`, 403},
		{"JSON body, escaped key", "PUT", "/api", with("Content-Type", "application/vnd.api+json"), `{"a":[1,{"b":2}],"\u0070rivate_token":"glpat-STRANGER"}`, 403},
		{"JSON body, not JSON", "POST", "/api", with("Content-Type", "application/json"), `{"private_token":"glpat-STRANGER"`, 400},
		{"JSON body, compressed", "POST", "/api", with("Content-Type", "application/json", "Content-Encoding", "gzip"), gz.String(), 415},
		{"multipart body", "POST", "/api", with("Content-Type", mpType), mpBody, 403},
		{"multipart, unquoted name", "POST", "/api", with("Content-Type", "multipart/form-data; boundary=XX"), raw, 403},
		{"multipart, folded head", "POST", "/api", with("Content-Type", "multipart/form-data; boundary=XX"), folded, 403},
		{"multipart, name*", "POST", "/api", with("Content-Type", "multipart/form-data; boundary=XX"), star, 403},
		{"query, ';' pair", "GET", "/api?x=1;private_token=glpat-STRANGER", bearer, "", 403},
		{"query, bad escape in the value", "GET", "/api?private_token=glpat-STRANGER%zz", bearer, "", 403},
		{"query, bad escape in the name", "GET", "/api?x=%&private%5Ftoken%=glpat-STRANGER", bearer, "", 403},
		{"query, '+'", "GET", "/api?private+token=glpat-STRANGER", bearer, "", 403},
		{"header with '_'", "GET", "/api", with("Private_Token", "glpat-STRANGER"), "", 403},
		{"header with '.'", "GET", "/api", with("Private.Token", "glpat-STRANGER"), "", 403},
		{"header with '~'", "GET", "/api", with("X~Api~Key", "glpat-STRANGER"), "", 403},
		{"header upper case with '_'", "GET", "/api", with("X_API_KEY", "STRANGER-key"), "", 403},
		{"header job_token", "GET", "/api", with("job_token", "glcbt-STRANGER"), "", 403},
		{"two Content-Type headers", "POST", "/api", nil, "private_token=glpat-STRANGER", 400},
	} {
		n := len(r.seenNow())
		req, err := http.NewRequest(c.method, "https://"+r.host+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.header {
			req.Header[k] = []string{v} // as spelled
		}
		if c.header == nil {
			req.Header["Authorization"] = []string{"Bearer " + r.ph}
			req.Header["Content-Type"] = []string{"text/plain", form}
		}
		resp, err := r.client.Do(req)
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(b), "cordon refused") {
			t.Errorf("%s: %d %q, want cordon's %d", c.what, resp.StatusCode, b, c.code)
		}
		if seen := r.seenNow(); len(seen) != n {
			t.Errorf("%s: the service was reached: %q", c.what, seen[n:])
		}
	}

	// A body past the bound is refused before it is sent (curl asks
	// with Expect: 100-continue first), and when it turns out larger.
	n := len(r.seenNow())
	if code, body := r.raw(t, "POST", "/api", with("Content-Type", form, "Expect", "100-continue", "Content-Length", fmt.Sprint(33<<20)), ""); code != 413 || !strings.Contains(body, "MiB") {
		t.Errorf("a 33 MiB form announced: %d %q, want cordon's 413", code, body)
	}
	if code, body := r.raw(t, "POST", "/api", with("Content-Type", form, "Transfer-Encoding", "chunked"), fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", 33<<20, strings.Repeat("x", 33<<20))); code != 413 {
		t.Errorf("a 33 MiB chunked form: %d %q, want cordon's 413", code, body)
	}
	if seen := r.seenNow(); len(seen) != n {
		t.Errorf("a body past the bound reached the service: %d requests", len(seen)-n)
	}

	// What a command ordinarily sends goes through, bodies whole.
	fileType, fileBody := mp("file", "api_token.txt", "name=token\n")
	for _, c := range []struct {
		what, ctype, body string
	}{
		{"JSON", "application/json", `{"title":"x","body":"y","max_tokens":5}`},
		{"JSON a model API takes", "application/json", `{"model":"m","prompt_cache_key":"k1","max_tokens":5}`},
		{"JSON of a key's own (gh ssh-key add, gh secret set)", "application/json", `{"title":"laptop","key":"ssh-ed25519 AAAA","key_id":"012","encrypted_value":"x"}`},
		{"JSON with an image, 8 MiB", "application/json", `{"image":"` + strings.Repeat("A", 8<<20) + `"}`},
		{"JSON array", "application/json", `[{"private_token":"x"}]`},
		{"form", form, "a=1&b=2;c=%zz"},
		{"multipart file", fileType, fileBody},
		{"large binary", "application/octet-stream", strings.Repeat("x", 5<<20)},
	} {
		code, body := r.do("POST", "/api", with("Content-Type", c.ctype), strings.NewReader(c.body))
		if want := fmt.Sprintf(" %d\n", len(c.body)); code != 200 || !strings.HasSuffix(body, want) {
			t.Errorf("%s: %d %q, want 200 with the whole body", c.what, code, body)
		}
	}
	r.leaked()
}

// TestUpgradeRefused: a protocol switch (a WebSocket, h2c) on a
// credential's host is refused: its frames would pass unchecked and
// unmasked both ways.
func TestUpgradeRefused(t *testing.T) {
	r := newRig(t)
	for _, h := range []map[string]string{
		{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-Websocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-Websocket-Version": "13"},
		{"Connection": "Upgrade, HTTP2-Settings", "Upgrade": "h2c", "Http2-Settings": "AAMAAABkAAQAoAAAAAIAAAAA"},
	} {
		h["Authorization"] = "Bearer " + r.ph
		n := len(r.seenNow())
		code, body := r.raw(t, "GET", "/ws", h, "")
		if code != 403 || !strings.Contains(body, "switch protocols") {
			t.Errorf("upgrade %q: %d %q, want cordon's 403", h["Upgrade"], code, body)
		}
		if seen := r.seenNow(); len(seen) != n {
			t.Errorf("upgrade %q reached the service: %q", h["Upgrade"], seen[n:])
		}
	}
}

// TestRawHeads: request heads Go's client would not send: a header name
// with space before its colon or folded onto two lines, smuggling with
// Transfer-Encoding and Content-Length, two Content-Lengths, HTTP/2's
// preface. None gets a stranger's token to the service.
func TestRawHeads(t *testing.T) {
	r := newRig(t)
	ph := "Authorization: Bearer " + r.ph + "\r\n"
	for _, head := range []string{
		"GET /api HTTP/1.1\r\nHost: H\r\n" + ph + "Private-Token : glpat-STRANGER\r\n\r\n",
		"GET /api HTTP/1.1\r\nHost: H\r\n" + ph + "X-Note: a\r\n Private-Token: glpat-STRANGER\r\n\r\n",
		"POST /api HTTP/1.1\r\nHost: H\r\n" + ph + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /api?private_token=glpat-STRANGER HTTP/1.1\r\nHost: H\r\n\r\n",
		"POST /api HTTP/1.1\r\nHost: H\r\n" + ph + "Content-Length: 0\r\nContent-Length: 70\r\n\r\nGET /api?private_token=glpat-STRANGER HTTP/1.1\r\nHost: H\r\n\r\n",
		"POST /api HTTP/1.1\r\nHost: H\r\n" + ph + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	} {
		head = strings.ReplaceAll(head, "Host: H", "Host: "+r.host)
		c := r.tunnel(t)
		io.WriteString(c, head)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		io.ReadAll(c)
		c.Close()
	}
	for _, s := range r.seenNow() {
		// (A folded line is sent on as one: "X-Note: a Private-Token: ...".)
		if strings.Contains(s, "Private-Token:[") || strings.Contains(s, "private_token=") {
			t.Errorf("the service got a stranger's token: %q", s)
		}
	}
}

func (r *rig) seenNow() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// tunnel opens a connection to the service through the proxy, over TLS
// ended by the broker, as a sandboxed client would.
func (r *rig) tunnel(t *testing.T) *tls.Conn {
	t.Helper()
	c, err := net.Dial("tcp", r.proxy)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", r.host, r.host)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	host, _, _ := net.SplitHostPort(r.host)
	tc := tls.Client(c, &tls.Config{RootCAs: r.roots, ServerName: host})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	return tc
}

// raw sends one request with headers as spelled and returns the answer.
func (r *rig) raw(t *testing.T, method, path string, header map[string]string, body string) (int, string) {
	t.Helper()
	c := r.tunnel(t)
	defer c.Close()
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, r.host)
	for k, v := range header {
		fmt.Fprintf(c, "%s: %s\r\n", k, v)
	}
	if header["Content-Length"] == "" && header["Transfer-Encoding"] == "" {
		fmt.Fprintf(c, "Content-Length: %d\r\n", len(body))
	}
	fmt.Fprintf(c, "\r\n%s", body)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

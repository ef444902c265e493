//go:build linux

package battery

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Credentials used, never held (docs/network.md): a credential the rules
// declare reaches its own host from inside the sandbox, the request
// carrying the real value, while the sandbox only ever holds a
// placeholder; sent anywhere else, the placeholder is refused or
// worthless. Each test tries to get the real value out and fails if it
// can.

// The test's own authority, trusted by the host side (SSL_CERT_FILE),
// as a system's would be: the broker verifies the real server by it.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // its PEM
}

func newTestCA(t *testing.T, dir string) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "battery test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	file := filepath.Join(dir, "test-ca.pem")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return &testCA{cert, key, file}
}

// leaf returns a server certificate of the test CA for 127.0.0.1 and
// localhost.
func (ca *testCA) leaf(t *testing.T) tls.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// server starts an HTTPS server on 127.0.0.1 with a certificate of the
// test CA, answering 200 "granted" only to a request that carries one of
// tokens, and remembering every Authorization it saw.
func (ca *testCA) server(t *testing.T, tokens ...string) (int, func() []string) {
	t.Helper()
	cert := ca.leaf(t)
	var mu sync.Mutex
	var seen []string
	granted := func(r *http.Request) bool {
		auth := r.Header.Get("Authorization")
		mu.Lock()
		seen = append(seen, auth+" "+r.URL.String())
		mu.Unlock()
		_, password, basic := r.BasicAuth()
		for _, tok := range tokens {
			if auth == "Bearer "+tok || auth == "token "+tok || basic && password == tok {
				return true
			}
		}
		return false
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !granted(r) {
			// What makes git ask its credential helpers.
			w.Header().Set("WWW-Authenticate", `Basic realm="battery"`)
			w.WriteHeader(401)
			fmt.Fprintln(w, "denied")
			return
		}
		if strings.HasSuffix(r.URL.Path, "/info/refs") {
			// An empty repository, as git's smart HTTP shows one.
			w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
			fmt.Fprint(w, "001e# service=git-upload-pack\n0000")
			fmt.Fprint(w, "0000")
			return
		}
		if r.URL.Path == "/-/whoami" {
			fmt.Fprintln(w, `{"username": "granted"}`) // npm whoami
			return
		}
		fmt.Fprintln(w, "granted")
	}), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// brokerRules declares TEST_TOKEN for the host 127.0.0.1:port in the
// person's own rules.
func brokerRules(t *testing.T, home string, port int) {
	dir := filepath.Join(home, ".config/cordon/rules")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "creds.yaml"), []byte(fmt.Sprintf("version: 1\ncredentials:\n  - {env: TEST_TOKEN, hosts: [\"127.0.0.1:%d\"]}\n", port)), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	realTokenA = "REALtokenA-7c1e9b0d4f2a6c8e"
	realTokenB = "REALtokenB-93d5f7a1c3e5b7d9"
)

// leaks fails the test when out holds a real value.
func leaks(t *testing.T, what, out string) {
	t.Helper()
	if strings.Contains(out, "REALtoken") {
		t.Errorf("%s shows the real value:\n%s", what, out)
	}
}

// TestBrokeredCredentials runs the attack and the use on each backend,
// per command and in a session, through cordon run.
func TestBrokeredCredentials(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			ca := newTestCA(t, filepath.Join(b.base, "certs"))
			port, seen := ca.server(t, realTokenA, realTokenB)
			other, otherSeen := ca.server(t, realTokenA, realTokenB)
			brokerRules(t, b.home, port)
			env := []string{"TEST_TOKEN=" + realTokenA, "SSL_CERT_FILE=" + ca.file}
			run := func(script string, extra ...string) (string, int) {
				t.Helper()
				out, code := b.run("allowlist", script, append(env, extra...)...)
				leaks(t, script, out)
				return out, code
			}
			// The use: curl reaches the credential's host with the real
			// value, which the sandbox never held.
			curl := fmt.Sprintf(`curl -sS -H "Authorization: Bearer $TEST_TOKEN" https://127.0.0.1:%d/`, port)
			if out, code := run(curl); code != 0 || !strings.Contains(out, "granted") {
				t.Fatalf("curl to the credential's host (exit %d):\n%s\nthe server saw: %q", code, out, seen())
			}
			// What the sandbox holds: a placeholder, in the variable, the
			// environment of every process, and no value in the bundle.
			out, _ := run(`echo "v=$TEST_TOKEN"; env; cat /proc/self/environ | tr '\0' '\n'; cat "$SSL_CERT_FILE" "$NODE_EXTRA_CA_CERTS" >/dev/null && echo bundle-ok`)
			if !strings.Contains(out, "v=cordon_") || !strings.Contains(out, "bundle-ok") {
				t.Errorf("the sandbox's variable is not a placeholder:\n%s", out)
			}
			if out, _ := run(`grep -c REALtoken "$SSL_CERT_FILE" /proc/1/environ /proc/$PPID/environ 2>/dev/null; cat "$SSL_CERT_FILE" | tail -3`); strings.Contains(out, "REALtoken") {
				t.Errorf("a file in the sandbox holds the value:\n%s", out)
			}
			// The authority's key and directory are out of reach.
			state := filepath.Join(b.home, ".local/state/cordon/broker")
			if _, err := os.Stat(filepath.Join(state, "ca-key.pem")); err != nil {
				t.Errorf("no authority was made in %s: %v", state, err)
			}
			if out, _ := run(fmt.Sprintf(`cat %[1]s/ca-key.pem; ls %[1]s; cat %[1]s/*`, state)); strings.Contains(out, "PRIVATE KEY") || strings.Contains(out, "\nca.pem") || strings.HasPrefix(out, "ca.pem") {
				t.Errorf("the broker's directory is readable in the sandbox:\n%s", out)
			}
			// Another host, over TLS: the placeholder goes in the tunnel,
			// where the broker does not look, and is worthless there.
			out, _ = run(fmt.Sprintf(`curl -sS -H "Authorization: Bearer $TEST_TOKEN" https://127.0.0.1:%d/; echo`, other))
			if strings.Contains(out, "granted") {
				t.Errorf("the placeholder was granted by another host:\n%s", out)
			}
			for _, s := range otherSeen() {
				leaks(t, "the other host's request", s)
			}
			// Another host in plain HTTP through the proxy: refused.
			if out, _ := run(fmt.Sprintf(`curl -sS --noproxy '' -x "$HTTP_PROXY" -H "Authorization: Bearer $TEST_TOKEN" http://127.0.0.1:%d/ -o /dev/null -w '%%{http_code}\n'`, other)); !strings.Contains(out, "403") {
				t.Errorf("a plain HTTP request carrying the placeholder elsewhere was not refused:\n%s", out)
			}
			// Python's urllib, Node's fetch, git over HTTPS.
			if _, err := os.Stat("/usr/bin/python3"); err == nil {
				py := fmt.Sprintf(`/usr/bin/python3 -c 'import os,urllib.request as u; print(u.urlopen(u.Request("https://127.0.0.1:%d/", headers={"Authorization": "Bearer "+os.environ["TEST_TOKEN"]})).read().decode())'`, port)
				if out, code := run(py); code != 0 || !strings.Contains(out, "granted") {
					t.Errorf("python3 urllib (exit %d):\n%s", code, out)
				}
			}
			if _, err := exec.LookPath("node"); err == nil {
				js := fmt.Sprintf(`node -e 'fetch("https://127.0.0.1:%d/", {headers: {Authorization: "Bearer " + process.env.TEST_TOKEN}}).then(r => r.text()).then(t => console.log(t), e => { console.log(String(e), e.cause); process.exit(1) })'`, port)
				if out, code := run(js); code != 0 || !strings.Contains(out, "granted") {
					t.Errorf("node fetch (exit %d):\n%s", code, out)
				}
			}
			before := len(seen())
			out, code := run(fmt.Sprintf(`git -c http.extraHeader="Authorization: Bearer $TEST_TOKEN" ls-remote https://127.0.0.1:%d/repo.git; echo "git exit $?"`, port))
			gitGranted := false
			for _, s := range seen()[before:] {
				gitGranted = gitGranted || strings.HasPrefix(s, "Bearer "+realTokenA+" /repo.git/info/refs")
			}
			if !gitGranted || !strings.Contains(out, "git exit 0") {
				t.Errorf("git over HTTPS (exit %d): the server saw %q:\n%s", code, seen()[before:], out)
			}
			// Sessions: the same value, the same placeholder; a new value
			// in a later command, a new one, which works too.
			if b.session {
				p1, _ := run(`echo "$TEST_TOKEN"`)
				p2, _ := run(`echo "$TEST_TOKEN"`)
				p3, _ := run(`echo "$TEST_TOKEN"`, "TEST_TOKEN="+realTokenB)
				if p1 != p2 || p1 == p3 || !strings.HasPrefix(p3, "cordon_") {
					t.Errorf("session placeholders: %q, %q, then with another value %q", p1, p2, p3)
				}
				if out, code := run(curl, "TEST_TOKEN="+realTokenB); code != 0 || !strings.Contains(out, "granted") {
					t.Errorf("a new value in a later command of the session (exit %d):\n%s", code, out)
				}
			}
			// The network on: no proxy, no broker; the variable is
			// withheld as before.
			if out, _ := b.run("on", `echo "v=$TEST_TOKEN."`, env...); !strings.Contains(out, "v=.") {
				t.Errorf("network on: the variable was not withheld:\n%s", out)
			}
		})
	}
}

// TestBrokeredJudge: through the shim, as an agent runs it, a command
// that sends a brokered credential to its host is no secret sent (the
// sandbox holds a placeholder) and runs; with the network on, where the
// variable is withheld, the judge still takes it for one.
func TestBrokeredJudge(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		for _, session := range []string{"on", "off"} {
			t.Run(backend+"/session-"+session, func(t *testing.T) {
				r := newSessionRig(t, backend, "  session: "+session+"\n")
				ca := newTestCA(t, filepath.Join(r.base, "certs"))
				port, seen := ca.server(t, realTokenA)
				brokerRules(t, r.home, port)
				r.env = append(r.env, "TEST_TOKEN="+realTokenA, "SSL_CERT_FILE="+ca.file)
				curl := fmt.Sprintf(`curl -sS -H "Authorization: Bearer $TEST_TOKEN" https://127.0.0.1:%d/`, port)
				out, errs, code := r.sh(curl)
				leaks(t, "the command's output", out+errs)
				if code != 0 || !strings.Contains(out, "granted") {
					t.Errorf("exit %d:\n%s\n%s\nthe server saw %q", code, out, errs, seen())
				}
				// The network on: withheld, and judged a secret sent.
				conf := filepath.Join(r.home, ".config", "cordon", "config.yaml")
				os.WriteFile(conf, []byte("sandbox:\n  backend: "+backend+"\n  session: "+session+"\n  network: \"on\"\n"), 0o644)
				out, errs, code = r.sh(curl)
				leaks(t, "the command's output", out+errs)
				if code == 0 || strings.Contains(out, "granted") {
					t.Errorf("network on: exit %d:\n%s\n%s", code, out, errs)
				}
			})
		}
	}
}

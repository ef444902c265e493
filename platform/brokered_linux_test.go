package platform

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/broker"
	"github.com/cordonsh/cordon/internal/wire"
)

const realToken = "ghp_REALVALUE0123456789abcdefREAL"

func brokerSpec(ws string, network Network) *Spec {
	return &Spec{
		Workspace:      ws,
		CredentialVars: []string{"*_TOKEN"},
		Credentials: []CredentialKind{
			{Env: "GH_TOKEN", Hosts: []string{"api.github.com", "github.com:8443"}},
			{Env: "UNSET_TOKEN", Hosts: []string{"example.com"}},
			{Env: "ODD", Hosts: []string{"odd.example"}},
		},
		Network: network,
	}
}

// A declared credential is never in the policy's environment nor in
// anything encoded from the policy; with the allowlist, the policy
// names it and its hosts, and keeps its value apart.
func TestBrokerPolicy(t *testing.T) {
	root := tree(t, "home/proj/")
	env := []string{"HOME=" + filepath.Join(root, "home"), "GH_TOKEN=" + realToken, "ODD=" + realToken + "2", "PATH=/usr/bin"}
	state := filepath.Join(root, "state")
	p, err := NewPolicyCached(brokerSpec(filepath.Join(root, "home/proj"), NetworkAllowlist), env, state)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range p.Env {
		if strings.HasPrefix(kv, "GH_TOKEN=") || strings.HasPrefix(kv, "ODD=") {
			t.Errorf("the policy's environment holds %s", kv)
		}
	}
	if len(p.Credentials) != 2 || p.Credentials[0].Env != "GH_TOKEN" || p.Credentials[1].Env != "ODD" {
		t.Errorf("credentials %+v, want GH_TOKEN and ODD (not UNSET_TOKEN)", p.Credentials)
	}
	if !slices.Contains(p.NetAllow, "api.github.com:443") || !slices.Contains(p.NetAllow, "github.com:8443") || slices.Contains(p.NetAllow, "example.com:443") {
		t.Errorf("allowlist %q", p.NetAllow)
	}
	if !slices.Contains(p.secrets, "GH_TOKEN="+realToken) {
		t.Errorf("secrets %q", p.secrets)
	}
	data, _ := json.Marshal(p)
	if strings.Contains(string(data), "REALVALUE") {
		t.Errorf("the encoded policy holds the value: %s", data)
	}
	// As processes hand it each other (the setup step, a session's key).
	line, err := wire.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(string(line))
	if strings.Contains(string(raw), "REALVALUE") {
		t.Error("the policy as processes hand it on holds the value")
	}
	// The policy cache, written beside the state: no value either.
	filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "REALVALUE") {
				t.Errorf("%s holds the value", path)
			}
		}
		return nil
	})

	// Network on or off: withheld, as before, and nothing brokered.
	for _, n := range []Network{NetworkOn, NetworkOff} {
		p, err := NewPolicy(brokerSpec(filepath.Join(root, "home/proj"), n), env)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Credentials)+len(p.secrets) > 0 || slices.ContainsFunc(p.Env, func(kv string) bool { return strings.Contains(kv, "REALVALUE") }) {
			t.Errorf("network %s: credentials %+v, secrets %d, env %q", n, p.Credentials, len(p.secrets), p.Env)
		}
	}
	// A placeholder already (a shell inside a sandbox that brokers):
	// kept, nothing brokered.
	ph := "cordon_0123456789abcdef0123456789abcdef01234567"
	if p, _ := NewPolicy(brokerSpec(filepath.Join(root, "home/proj"), NetworkAllowlist), []string{"GH_TOKEN=" + ph}); !slices.Contains(p.Env, "GH_TOKEN="+ph) || len(p.Credentials) != 0 {
		t.Errorf("placeholder: env %q, credentials %+v", p.Env, p.Credentials)
	}
	// pass_env keeps the variable itself: nothing to broker.
	s := brokerSpec(filepath.Join(root, "home/proj"), NetworkAllowlist)
	s.PassEnv = []string{"GH_TOKEN"}
	if p, _ := NewPolicy(s, env); !slices.Contains(p.Env, "GH_TOKEN="+realToken) || slices.ContainsFunc(p.Credentials, func(k CredentialKind) bool { return k.Env == "GH_TOKEN" }) {
		t.Errorf("pass_env: env %q, credentials %+v", p.Env, p.Credentials)
	}
}

// A start that brokers gives the sandbox placeholders and the bundle's
// variables, never the value; the bundle holds no value either.
func TestBrokerFor(t *testing.T) {
	root := tree(t, "home/proj/", "certs/system.pem")
	// The system's bundle: another authority's certificate, and a line
	// that is none (only certificates come through).
	other, err := broker.LoadCA(filepath.Join(root, "other"))
	if err != nil {
		t.Fatal(err)
	}
	sys, _ := os.ReadFile(other.CertFile())
	os.WriteFile(filepath.Join(root, "certs/system.pem"), append([]byte("GH_TOKEN=REALVALUE\n"), sys...), 0o644)
	env := []string{"HOME=" + filepath.Join(root, "home"), "GH_TOKEN=" + realToken, "SSL_CERT_FILE=" + filepath.Join(root, "certs/system.pem")}
	p, err := NewPolicy(brokerSpec(filepath.Join(root, "home/proj"), NetworkAllowlist), env)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(root, "state")
	bp, benv, bk := brokerFor(p, state, p.Env)
	if bk == nil {
		t.Fatal("no broker")
	}
	if bp.CABundle == "" || !Within(bp.CABundle, BrokerDir(state)) || bp.CATargets[0] != filepath.Join(root, "certs/system.pem") {
		t.Errorf("bundle %q over %q", bp.CABundle, bp.CATargets)
	}
	ph := Getenv(benv, "GH_TOKEN")
	if !strings.HasPrefix(ph, "cordon_") || Getenv(benv, "SSL_CERT_FILE") != bp.CATargets[0] || Getenv(benv, "NODE_EXTRA_CA_CERTS") != bp.CATargets[0] {
		t.Errorf("env %q", benv)
	}
	if b, _ := os.ReadFile(bp.CABundle); strings.Contains(string(b), "REALVALUE") || !strings.HasPrefix(string(b), string(sys)) {
		t.Errorf("bundle: %s", b)
	}
	for _, kv := range benv {
		if strings.Contains(kv, "REALVALUE") {
			t.Errorf("the sandbox's environment holds %s", kv)
		}
	}
	if !bk.Broker.Intercepts("api.github.com", 443) || bk.Broker.Intercepts("example.com", 443) {
		t.Error("the broker does not take GH_TOKEN's hosts alone")
	}
	// Another start: another key, another placeholder.
	_, benv2, _ := brokerFor(p, state, p.Env)
	if Getenv(benv2, "GH_TOKEN") == ph {
		t.Error("two one-shot starts got the same placeholder")
	}
	// A session's key: the same placeholder for the same value.
	key := []byte("0123456789abcdef0123456789abcdef")
	s1, _ := NewBrokerage(state, key)
	s2, _ := NewBrokerage(state, key)
	e1, _ := s1.SessionEnv(p, p.secrets)
	e2, _ := s2.SessionEnv(p, p.secrets)
	if Getenv(e1, "GH_TOKEN") == "" || Getenv(e1, "GH_TOKEN") != Getenv(e2, "GH_TOKEN") {
		t.Errorf("session placeholders %q, %q", e1, e2)
	}
	// A CA that cannot be made: nothing brokered, the variable withheld.
	bad := filepath.Join(root, "home/proj/file")
	os.WriteFile(bad, nil, 0o644)
	if _, benv, bk := brokerFor(p, bad, p.Env); bk != nil || Getenv(benv, "GH_TOKEN") != "" {
		t.Errorf("with no CA: broker %v, GH_TOKEN=%q", bk, Getenv(benv, "GH_TOKEN"))
	}
}

// TestBrokeredSandbox runs curl in a sandbox of each backend that holds
// GH_TOKEN for api.cred.test (a name the proxy's table resolves to a
// server on the host's loopback): the request reaches it with the real
// value, the sandbox holds a placeholder, and the placeholder to another
// name is refused.
func TestBrokeredSandbox(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageCertSign}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, key.Public(), key)
	caCert, _ := x509.ParseCertificate(caDER)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), DNSNames: []string{"api.cred.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, _ := x509.CreateCertificate(rand.Reader, leafTmpl, caCert, key.Public(), key)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "token "+realToken {
			fmt.Fprintln(w, "granted")
			return
		}
		w.WriteHeader(401)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}}
	srv.StartTLS()
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	roots := x509.NewCertPool()
	roots.AddCert(caCert)
	testBrokerRoots = roots
	testResolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "api.cred.test" || host == "other.cred.test" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	defer func() { testResolve, testBrokerRoots = nil, nil }()
	for _, backend := range []string{BackendBwrap, BackendLandlock} {
		t.Run(backend, func(t *testing.T) {
			ws := t.TempDir()
			stateDir := t.TempDir()
			os.MkdirAll(SessionsDir(stateDir), 0o700)
			os.MkdirAll(BrokerDir(stateDir), 0o700)
			s := &Spec{Workspace: ws, Scratch: []string{os.TempDir()}, Network: NetworkAllowlist,
				Hidden:      []string{SessionsDir(stateDir), BrokerDir(stateDir)},
				NetAllow:    []string{"other.cred.test", "127.0.0.0/8"},
				Credentials: []CredentialKind{{Env: "GH_TOKEN", Hosts: []string{fmt.Sprintf("api.cred.test:%d", port)}}}}
			p, err := NewPolicy(s, []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "GH_TOKEN=" + realToken})
			if err != nil {
				t.Fatal(err)
			}
			b := allowlistBackend(t, backend, p, stateDir)
			script := fmt.Sprintf(`echo "v=$GH_TOKEN"
curl -sS -H "Authorization: token $GH_TOKEN" https://api.cred.test:%[1]d/
curl -sS -H "Authorization: token $GH_TOKEN" https://other.cred.test:%[1]d/ || echo "other failed"
cat /proc/self/environ | tr '\0' '\n' | grep -c cordon_
cat %[2]s/* 2>&1 | head -2`, port, BrokerDir(stateDir))
			out := filepath.Join(ws, "out")
			c, err := b.Start("/bin/bash", []string{"bash", "-c", "{ " + script + "\n} >" + out + " 2>&1"}, append(p.Env, "PWD="+ws), os.Stdin)
			if err != nil {
				t.Fatal(err)
			}
			c.Wait()
			data, _ := os.ReadFile(out)
			got := string(data)
			t.Logf("inside:\n%s", got)
			if strings.Contains(got, "REALVALUE") || strings.Contains(got, "PRIVATE KEY") {
				t.Error("the real value or the authority's key reached the sandbox")
			}
			for _, want := range []string{"v=cordon_", "granted", "other failed"} {
				if !strings.Contains(got, want) {
					t.Errorf("inside, no %q", want)
				}
			}
			if strings.Count(got, "granted") != 1 {
				t.Error("the placeholder was granted on another host")
			}
		})
	}
}

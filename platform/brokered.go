package platform

import (
	"crypto/rand"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/broker"
)

// Credentials used, never held (docs/network.md): with the network
// allowlist, a credential variable the rules declare is not removed from
// the sandbox's environment but replaced by a placeholder, and the broker
// behind the proxy puts the real value on requests to the variable's
// own hosts. The policy carries the kinds (names and hosts) and, apart,
// the values (Secrets); the process that starts the sandbox (the guard,
// or the session's manager) makes the placeholders and holds the broker.

// A CredentialKind is a credential variable and the hosts it may go to:
// names or globs of names, each with an optional ":PORT" (443 when none).
type CredentialKind struct {
	Env   string           `json:"env"`
	Hosts []string         `json:"hosts"`
	Files []CredentialFile `json:"files,omitempty"`
}

// brokerEnv takes the declared credential variables out of p.Env (they
// are credentials, whatever the globs say) but those PassEnv keeps, and,
// with the network allowlist, records those env sets as p.Credentials,
// their values as p.secrets and their hosts in p.NetAllow.
func (p *Policy) brokerEnv(s *Spec, env []string) {
	if len(s.Credentials) == 0 {
		return
	}
	declared := func(name string) bool {
		return !slices.Contains(s.PassEnv, name) && slices.ContainsFunc(s.Credentials, func(k CredentialKind) bool { return k.Env == name })
	}
	p.Env = slices.DeleteFunc(p.Env, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return declared(name)
	})
	// A placeholder already (a shell started inside a sandbox that
	// brokers it): worthless anywhere but through that sandbox's proxy,
	// kept as it is.
	for _, kv := range env {
		if name, v, _ := strings.Cut(kv, "="); declared(name) && placeholder(v) && Getenv(env, name) == v {
			p.Env = SetVars(p.Env, []string{kv})
		}
	}
	if p.Network != NetworkAllowlist {
		return
	}
	for _, k := range s.Credentials {
		v := Getenv(env, k.Env)
		if v == "" || placeholder(v) || !declared(k.Env) || slices.ContainsFunc(p.Credentials, func(o CredentialKind) bool { return o.Env == k.Env }) {
			continue
		}
		p.Credentials = append(p.Credentials, CredentialKind{Env: k.Env, Hosts: slices.Clone(k.Hosts)})
		p.secrets = append(p.secrets, k.Env+"="+v)
		for _, h := range k.Hosts {
			if h = withPort(h); !slices.Contains(p.NetAllow, h) {
				p.NetAllow = append(p.NetAllow, h)
			}
		}
	}
}

// placeholder reports whether v is a broker's placeholder
// ([broker.Placeholder]: "cordon_" and 40 hex digits).
func placeholder(v string) bool {
	hex, ok := strings.CutPrefix(v, "cordon_")
	return ok && len(hex) == 40 && strings.Trim(hex, "0123456789abcdef") == ""
}

// withPort is a credential's host as an allowlist entry: with its port,
// 443 when it names none.
func withPort(h string) string {
	switch {
	case strings.HasPrefix(h, "["):
		if strings.Contains(h, "]:") {
			return h
		}
	case strings.Count(h, ":") == 1:
		return h
	case strings.Contains(h, ":"):
		return "[" + h + "]:443"
	}
	return h + ":443"
}

// Secrets are the values of p's credentials, "NAME=value": never
// encoded with the policy.
func (p *Policy) Secrets() []string { return p.secrets }

// SetSecrets sets the values of p's credentials (see [Policy.Secrets]),
// as a process that starts the sandbox got them.
func (p *Policy) SetSecrets(secrets []string) { p.secrets = secrets }

// SetBrokerage makes every start of p serve its credentials with b (a
// session's broker, which its manager keeps adding to).
func (p *Policy) SetBrokerage(b *Brokerage) { p.brokerage = b }

// BrokerDir is the directory of the broker's certificate authority in
// cordon's state directory stateDir, which every sandbox hides.
func BrokerDir(stateDir string) string { return filepath.Join(stateDir, "broker") }

// A Brokerage is the broker of one sandbox (a command's, or a session's)
// and the key its placeholders are made with.
type Brokerage struct {
	Broker *broker.Broker
	CA     *broker.CA
	key    []byte
}

// NewBrokerage loads (or makes) the certificate authority in stateDir
// and returns a broker whose placeholders are made under key: a
// session's, the same for all its commands; nil makes a fresh one (one
// command's). The error says why no credential can be brokered: they
// are withheld then.
func NewBrokerage(stateDir string, key []byte) (*Brokerage, error) {
	if !filepath.IsAbs(stateDir) {
		return nil, errors.New("no state directory for the broker's certificate authority")
	}
	ca, err := broker.LoadCA(BrokerDir(stateDir))
	if err != nil {
		return nil, err
	}
	if key == nil {
		key = make([]byte, 32)
		rand.Read(key)
	}
	b := &Brokerage{Broker: broker.New(ca), CA: ca, key: key}
	b.Broker.Roots = testBrokerRoots
	return b, nil
}

// testBrokerRoots, when set (by tests), verifies the real hosts instead
// of the host's trust.
var testBrokerRoots *x509.CertPool

// Add gives the broker the credentials of p's sandbox whose values
// secrets ("NAME=value") holds, and returns what the sandbox's
// environment gets for them ("NAME=placeholder").
func (b *Brokerage) Add(p *Policy, secrets []string) []string {
	creds, env := Brokered(p, b.key, secrets)
	b.Broker.Add(creds...)
	return env
}

// Brokered is the one place that says what the sandbox of p holds by
// placeholder, and what the broker holds for it: for each of
// p.Credentials whose variable secrets ("NAME=value") sets, the
// credential (its placeholder made under key) and the sandbox's
// variable ("NAME=placeholder"). Every start and every command of a
// session gets its credentials and variables from here.
func Brokered(p *Policy, key []byte, secrets []string) ([]broker.Credential, []string) {
	var creds []broker.Credential
	var env []string
	for _, k := range p.Credentials {
		v := Getenv(secrets, k.Env)
		if v == "" || len(k.Hosts) == 0 {
			continue
		}
		ph := broker.Placeholder(key, k.Env, v)
		creds = append(creds, broker.Credential{Name: k.Env, Placeholder: ph, Value: v, Hosts: slices.Clone(k.Hosts)})
		env = append(env, k.Env+"="+ph)
	}
	// git's, for the workspace's own HTTPS remotes: their configuration
	// in the environment is [Brokerage.GitConfig]'s.
	git, _ := GitCredentials(p, key, true)
	return append(creds, git...), env
}

// GitConfig is the git configuration a command of p's sandbox gets (see
// [WithGitConfig]): helpers answering with b's placeholders, or, for a
// nil b (nothing brokers the sandbox), helpers that say why git cannot
// authenticate.
func (b *Brokerage) GitConfig(p *Policy) [][2]string {
	if b == nil {
		_, config := GitCredentials(p, nil, false)
		return config
	}
	_, config := GitCredentials(p, b.key, true)
	return config
}

// brokersAny reports whether p's sandbox has anything to broker.
func (p *Policy) brokersAny() bool {
	return len(p.Credentials) > 0 || len(p.GitRemotes) > 0 || len(p.TokenFiles) > 0
}

// caVars are the variables that point programs at a certificate bundle
// (OpenSSL and Python's ssl, Node, Python's requests, curl, git, Cargo,
// Deno, the AWS tools, pip): a sandbox that brokers credentials sets
// each to the bundle that trusts the broker's authority.
var caVars = []string{"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
	"GIT_SSL_CAINFO", "CARGO_HTTP_CAINFO", "DENO_CERT", "AWS_CA_BUNDLE", "PIP_CERT"}

// WithCAEnv returns env with each of caVars set to bundle.
func WithCAEnv(env []string, bundle string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(caVars, name)
	})
	for _, v := range caVars {
		out = append(out, v+"="+bundle)
	}
	return out
}

// SetVars returns env with the entries of set ("NAME=value") replacing
// those of the same names.
func SetVars(env, set []string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") })
	})
	return append(out, set...)
}

// systemBundles are where systems keep their bundle of trusted
// certificates (Debian, Fedora, openSUSE, Alpine, Arch).
var systemBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// SystemBundle returns the host's bundle of trusted certificates for
// p's sandbox: SSL_CERT_FILE of p's environment when it names a file,
// else the first of the usual places that exists (its real path), or ""
// for none. targets are that file and the other usual places that
// exist, by their real paths: each gets the bundle that trusts the
// broker too. A file inside a hidden path is none.
func SystemBundle(p *Policy) (system string, targets []string) {
	add := func(f string) {
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			return
		}
		if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
			return
		}
		if slices.ContainsFunc(p.Hidden, func(h string) bool { return Within(real, h) }) || p.PrivateTmp && Within(real, "/tmp") {
			return
		}
		if !slices.Contains(targets, real) {
			targets = append(targets, real)
		}
	}
	if f := Getenv(p.Env, "SSL_CERT_FILE"); filepath.IsAbs(f) {
		add(f)
	}
	for _, f := range systemBundles {
		add(f)
	}
	if len(targets) == 0 {
		return "", nil
	}
	return targets[0], targets
}

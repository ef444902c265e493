package broker

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cordonsh/cordon/filelock"
	"github.com/cordonsh/cordon/internal/filestamp"
)

// A CA is the person's certificate authority for sandboxes: its
// certificate is trusted inside every sandbox that brokers a credential,
// never on the host, and its key never leaves the state directory.
type CA struct {
	dir  string
	cert *x509.Certificate
	pem  []byte
	key  crypto.Signer

	mu      sync.Mutex
	leafKey *ecdsa.PrivateKey
	leaves  map[string]*tls.Certificate
}

const (
	keyFile  = "ca-key.pem"
	certFile = "ca.pem"
	// caLife is how long a new authority is valid; one that expires
	// within caRenew is made again.
	caLife  = 10 * 365 * 24 * time.Hour
	caRenew = 30 * 24 * time.Hour
	// leafLife is how long a host's certificate is valid: a broker
	// lives as long as a command or a session.
	leafLife = 7 * 24 * time.Hour
)

// LoadCA returns the certificate authority kept in dir (made there on
// first use: the directory 0700, the key 0600). An error means no
// interception: the caller keeps the credentials out, as without a
// broker, and says why.
func LoadCA(dir string) (*CA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot make the credential broker's directory: %w", err)
	}
	if err := private(dir); err != nil {
		return nil, err
	}
	// One process makes it, the others wait and read it: two that made
	// their own would leave a sandbox trusting the other's.
	unlock, err := filelock.Make(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, fmt.Errorf("cannot lock the credential broker's directory: %w", err)
	}
	defer unlock()
	ca, err := readCA(dir)
	if err == nil && time.Until(ca.cert.NotAfter) > caRenew {
		return ca, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("the credential broker's authority in %s cannot be read (%v): remove %s and %s to make a new one", dir, err, keyFile, certFile)
	}
	return makeCA(dir)
}

// private refuses a directory that others can read or that is not the
// caller's: the key would not be the person's alone.
func private(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot read the credential broker's directory: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("the credential broker's directory %s is open to others (%v) and cannot be closed: %w", dir, fi.Mode().Perm(), err)
		}
	}
	if !ownedBySelf(fi) {
		return fmt.Errorf("the credential broker's directory %s is not yours: remove it", dir)
	}
	return nil
}

func readCA(dir string) (*CA, error) {
	keyPEM, err := os.ReadFile(filepath.Join(dir, keyFile))
	if err != nil {
		return nil, err
	}
	certPEM, err := os.ReadFile(filepath.Join(dir, certFile))
	if err != nil {
		return nil, err
	}
	kb, _ := pem.Decode(keyPEM)
	cb, _ := pem.Decode(certPEM)
	if kb == nil || cb == nil {
		return nil, errors.New("not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, err
	}
	key, ok := k.(crypto.Signer)
	if !ok {
		return nil, errors.New("not a signing key")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := cert.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(key.Public()) || !cert.IsCA {
		return nil, errors.New("the key and the certificate do not belong together")
	}
	return &CA{dir: dir, cert: cert, pem: certPEM, key: key}, nil
}

func makeCA(dir string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	name := "cordon sandbox CA"
	if u, err := user.Current(); err == nil {
		host, _ := os.Hostname()
		name += " (" + u.Username + "@" + host + ")"
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"cordon"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caLife),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	// The key first: a certificate on disk always has its key.
	if err := writeFile(filepath.Join(dir, keyFile), keyPEM, 0o600); err != nil {
		return nil, fmt.Errorf("cannot keep the credential broker's key: %w", err)
	}
	if err := writeFile(filepath.Join(dir, certFile), certPEM, 0o644); err != nil {
		return nil, fmt.Errorf("cannot keep the credential broker's certificate: %w", err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &CA{dir: dir, cert: cert, pem: certPEM, key: key}, nil
}

// writeFile replaces name with data, whole or not at all.
func writeFile(name string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n.Add(n, big.NewInt(1))
}

// CertFile is the path of the authority's certificate (PEM).
func (ca *CA) CertFile() string { return filepath.Join(ca.dir, certFile) }

// Bundle returns the path of a bundle in the authority's directory that
// holds the certificates of the PEM file system (the host's bundle, as
// the sandbox would have seen it; none when "") followed by the
// authority's own, written again when either changed. Bundles of
// different system files are kept apart.
//
// Reading a system bundle means parsing each of its certificates (some
// 150, ~5 ms, twice at every sandbox's start: BenchmarkBundle): a bundle's
// first line records the stamp of the system file it was made from
// ([filestamp]) and the authority's digest, and while both are the same
// the bundle is not made again. (A comment line: PEM readers skip text
// outside the blocks. It is in the authority's own directory, which
// only its person can write.)
func (ca *CA) Bundle(system string) (string, error) {
	sum := sha256.Sum256([]byte(system))
	name := filepath.Join(ca.dir, "bundle-"+hex.EncodeToString(sum[:6])+".pem")
	var want []byte
	if system != "" {
		f, err := openRegular(system)
		if err != nil {
			return "", fmt.Errorf("cannot read the certificate bundle %s: %w", system, err)
		}
		defer f.Close()
		if stamp := filestamp.OfFile(f, clock()); stamp != "" {
			caSum := sha256.Sum256(ca.pem)
			want = fmt.Appendf(nil, "# made by cordon from the bundle stamped %s and its authority %x\n", stamp, caSum[:8])
			if firstLine(name) == string(want) {
				return name, nil
			}
		}
		certs, err := certificates(f)
		if err != nil {
			return "", fmt.Errorf("cannot read the certificate bundle %s: %w", system, err)
		}
		want = append(want, certs...)
	}
	want = append(want, "# cordon's authority for sandboxes (docs/network.md)\n"...)
	want = append(want, ca.pem...)
	if have, err := os.ReadFile(name); err == nil && bytes.Equal(have, want) {
		return name, nil
	}
	if err := writeFile(name, want, 0o644); err != nil {
		return "", fmt.Errorf("cannot write the sandbox's certificate bundle: %w", err)
	}
	return name, nil
}

// firstLine is the first line of the file name, with its newline; ""
// when it cannot be read or has none in its first 512 bytes.
func firstLine(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf)
	line, _, ok := bytes.Cut(buf[:n], []byte("\n"))
	if !ok {
		return ""
	}
	return string(line) + "\n"
}

// clock is the time a system bundle's stamp is taken at (tests move it).
var clock = time.Now

// parsed counts the system bundles read and parsed (for the tests).
var parsed atomic.Int64

// maxBundle bounds the system bundle read (Debian's is about 200 KB).
const maxBundle = 16 << 20

// openRegular opens the file name for reading if it is a regular file
// of at most maxBundle bytes.
func openRegular(name string) (*os.File, error) {
	// Not blocking: a FIFO put there since the caller looked would hold
	// the process that serves the proxy.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || fi.Size() > maxBundle) {
		err = fmt.Errorf("not a regular file of at most %d bytes", maxBundle)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// certificates returns the certificates of the open PEM file f, and
// nothing else of it: the file is named by the command's environment
// (SSL_CERT_FILE), and the bundle made from it is seen inside the
// sandbox, so no other line of a file the sandbox hides (a key, a
// token) may come through.
func certificates(f *os.File) ([]byte, error) {
	parsed.Add(1)
	data, err := io.ReadAll(io.LimitReader(f, maxBundle))
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return out, nil
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			continue
		}
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: b.Bytes})...)
	}
}

// leaf returns a certificate for host (a name, or an address) signed by
// the authority, made once per CA value and kept.
func (ca *CA) leaf(host string) (*tls.Certificate, error) {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if c := ca.leaves[host]; c != nil && time.Until(c.Leaf.NotAfter) > time.Hour {
		return c, nil
	}
	if ca.leafKey == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		ca.leafKey = k
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafLife),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if tmpl.NotAfter.After(ca.cert.NotAfter) {
		tmpl.NotAfter = ca.cert.NotAfter
	}
	if a, err := netip.ParseAddr(host); err == nil {
		tmpl.IPAddresses = append(tmpl.IPAddresses, a.AsSlice())
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, ca.leafKey.Public(), ca.key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: ca.leafKey, Leaf: leaf}
	if ca.leaves == nil {
		ca.leaves = map[string]*tls.Certificate{}
	}
	ca.leaves[host] = c
	return c, nil
}

// Placeholder returns the placeholder of the credential named name with
// value value under key (a secret of the session, or of the command):
// "cordon_" and 40 hex digits, the same for the same three, worthless
// without the broker that holds the value.
func Placeholder(key []byte, name, value string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write([]byte(value))
	return placeholderPrefix + hex.EncodeToString(m.Sum(nil))[:40]
}

const placeholderPrefix = "cordon_"

package rules

import (
	"net/netip"
	"testing"

	"github.com/cordonsh/cordon/netproxy"
)

// TestBuiltinDestinations: the built-in network lists keep the host's
// loopback open for its servers but not for its DNS resolver (a lookup
// of any name through 127.0.0.53:53 carries data out), by any name, and
// leave metadata addresses closed.
func TestBuiltinDestinations(t *testing.T) {
	n := Builtin().Network()
	r, err := netproxy.Compile(n.Allow, n.Deny)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host, addr string
		port       int
		ok         bool
	}{
		{"127.0.0.1", "127.0.0.1", 3000, true},
		{"localhost", "127.0.0.1", 80, true}, // (a host server below 1024: through the proxy, docs/network.md)
		{"localhost", "::1", 8080, true},
		{"registry.npmjs.org", "104.16.0.1", 443, true},
		{"127.0.0.53", "127.0.0.53", 53, false},
		{"127.0.0.1", "127.0.0.1", 53, false},
		{"localhost", "127.0.0.1", 53, false},
		{"::1", "::1", 53, false},
		{"registry.npmjs.org", "127.0.0.53", 53, false},
		{"registry.npmjs.org", "169.254.169.254", 80, false},
		{"evil.example", "93.184.0.1", 443, false},
	} {
		byName, ref := r.CheckName(c.host, c.port)
		if ref == nil {
			ref = r.CheckAddr(c.host, c.port, netip.MustParseAddr(c.addr), byName)
		}
		if (ref == nil) != c.ok {
			t.Errorf("%s:%d (%s): allowed %v, want %v (%v)", c.host, c.port, c.addr, ref == nil, c.ok, ref)
		}
	}
}

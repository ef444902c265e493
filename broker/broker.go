package broker

import (
	"context"
	"net"
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
	// ":PORT" (443 when none).
	Hosts []string
	// Lookup, when set, gives the user and password for a request to
	// host that carries the placeholder as basic authentication's
	// password (git over HTTPS: the person's own credential helper, run
	// on the host when a request needs it).
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
}

// New returns a Broker that ends TLS with certificates of ca.
func New(ca *CA) *Broker { return &Broker{ca: ca} }

// Add adds credentials, or replaces those with the same placeholder.
func (b *Broker) Add(cs ...Credential) {}

// Intercepts reports whether a connection to host:port goes through the
// broker: a credential held takes that host.
func (b *Broker) Intercepts(host string, port int) bool { return false }

// Serve serves the client connection c, whose tunnel to host:port the
// proxy has already opened (the client was told "200" or SOCKS's
// success): TLS with a certificate for host, then each HTTP request
// with its placeholders swapped, sent on over a connection dial makes
// (the proxy's, to an address its rules checked), its TLS verified
// against the host's trust. It returns when the client is done.
func (b *Broker) Serve(c net.Conn, host string, port int, dial func(ctx context.Context) (net.Conn, error)) {
}

// Carried names the credential whose placeholder text carries (a plain
// HTTP request's head, a CONNECT target) when that credential may not go
// to host:port; "" when none does.
func (b *Broker) Carried(host string, port int, text string) string { return "" }

// Package netproxy is cordon's network proxy: it lets a sandboxed
// command reach only the destinations the rules allow (docs/network.md).
//
// The proxy runs on the host, outside the sandbox, and serves HTTP
// CONNECT, plain HTTP (absolute-URI requests) and SOCKS5 (CONNECT) on
// one listener, telling them apart by the first byte. It decides by the
// destination's name, then resolves the name itself and checks every
// address (link-local and cloud metadata addresses never pass, loopback
// only where the rules allow it) and dials the checked address, so that
// a name cannot be made to point elsewhere between the check and the
// connection. It never looks inside TLS.
//
// Inside the sandbox, which has a network namespace of its own with
// only a loopback interface, [Forward] listens on 127.0.0.1 and pipes
// each connection to the proxy's Unix socket.
package netproxy

import (
	"github.com/cordonsh/cordon/internal/starglob"

	"fmt"
	"net/netip"
	"path"
	"strconv"
	"strings"
)

// A Rules is the compiled allow and deny lists of destinations.
//
// An entry is HOST or HOST:PORTS. HOST is a name or a glob of names
// ("registry.npmjs.org", "*.githubusercontent.com": "*" matches any run
// of characters, dots included; case is ignored), "*" for any
// destination, or an address or a range of them ("127.0.0.1",
// "10.0.0.0/8", "[::1]", "[fd00::/8]"). PORTS is a port, a range
// ("8000-8999") or "*" (the default: any port).
type Rules struct {
	allow, deny []entry
}

// An entry is one compiled allow or deny entry.
type entry struct {
	name   string       // a glob of names, lowercase; "" for an address entry
	prefix netip.Prefix // the addresses, when name is ""
	lo, hi int          // the ports
}

// Compile compiles the allow and deny lists. The error names the first
// entry that is not one.
func Compile(allow, deny []string) (*Rules, error) {
	r := &Rules{}
	for _, l := range []struct {
		in  []string
		out *[]entry
	}{{allow, &r.allow}, {deny, &r.deny}} {
		for _, s := range l.in {
			e, err := parseEntry(s)
			if err != nil {
				return nil, err
			}
			*l.out = append(*l.out, e)
		}
	}
	for _, e := range r.deny {
		if e.closesLoopback() {
			for _, lo := range loopback {
				r.deny = append(r.deny, entry{prefix: lo, lo: e.lo, hi: e.hi})
			}
		}
	}
	return r, nil
}

// loopback is the host's loopback: every address of it reaches a server
// that listens on all addresses (0.0.0.0 or [::], as Docker publishes a
// container's port), whichever of them the server was reached at before.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// closesLoopback reports whether e, a deny entry, names the host's
// loopback (an address of it, or localhost): it then closes its ports at
// every address of the loopback, not at the one it names only
// ("127.0.0.1:5432" would leave 127.0.0.2:5432 and [::1]:5432 open to a
// database listening on all addresses).
func (e entry) closesLoopback() bool {
	if e.name != "" {
		return starglob.Match(e.name, "localhost")
	}
	for _, lo := range loopback {
		if e.prefix.Overlaps(lo) {
			return true
		}
	}
	return false
}

// CheckEntry reports whether s is a valid entry, and why not.
func CheckEntry(s string) error {
	_, err := parseEntry(s)
	return err
}

func parseEntry(s string) (entry, error) {
	bad := func(why string) (entry, error) {
		return entry{}, fmt.Errorf("network entry %q: %s (want HOST or HOST:PORTS: a name, a glob of names, an address or a CIDR range, [..] around IPv6; PORTS a port, LOW-HIGH or *)", s, why)
	}
	host, ports := s, "*"
	if strings.HasPrefix(s, "[") {
		i := strings.IndexByte(s, ']')
		if i < 0 {
			return bad("no closing ]")
		}
		host = s[1:i]
		if rest := s[i+1:]; rest != "" {
			p, ok := strings.CutPrefix(rest, ":")
			if !ok {
				return bad("text after ]")
			}
			ports = p
		}
	} else if h, p, ok := strings.Cut(s, ":"); ok {
		host, ports = h, p
	}
	e := entry{lo: 0, hi: 65535}
	if ports != "*" {
		lo, hi, isRange := strings.Cut(ports, "-")
		if !isRange {
			hi = lo
		}
		var err1, err2 error
		e.lo, err1 = strconv.Atoi(lo)
		e.hi, err2 = strconv.Atoi(hi)
		if err1 != nil || err2 != nil || e.lo < 1 || e.hi > 65535 || e.lo > e.hi {
			return bad("bad port " + ports)
		}
	}
	switch {
	case host == "":
		return bad("no host")
	case strings.Contains(host, "/"):
		p, err := netip.ParsePrefix(host)
		if err != nil {
			return bad(err.Error())
		}
		e.prefix = p.Masked()
	default:
		if a, err := netip.ParseAddr(host); err == nil {
			e.prefix = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
			break
		}
		if strings.HasPrefix(s, "[") {
			return bad("not an IPv6 address or range")
		}
		e.name = strings.ToLower(strings.TrimSuffix(host, "."))
		if _, err := path.Match(strings.ReplaceAll(e.name, "*", "x"), ""); err != nil || strings.ContainsAny(e.name, " \t/\\@") {
			return bad("not a host name or glob")
		}
	}
	return e, nil
}

func (e entry) port(p int) bool { return e.lo <= p && p <= e.hi }

// matchName reports whether e, a name entry, matches name at port.
func (e entry) matchName(name string, port int) bool {
	if e.name == "" || !e.port(port) {
		return false
	}
	if e.name == "*" {
		return true
	}
	return starglob.Match(e.name, name)
}

// matchAddr reports whether e, an address entry, holds a at port.
func (e entry) matchAddr(a netip.Addr, port int) bool {
	return e.name == "" && e.port(port) && e.prefix.Contains(a)
}

// never are the addresses no rule opens: link-local (where cloud
// metadata services answer, 169.254.169.254) and AWS's IPv6 metadata
// address, unspecified, multicast and broadcast addresses. They are the
// invariant of the proxy, not a policy.
var never = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("224.0.0.0/3"),
	netip.MustParsePrefix("ff00::/8"),
}

// A Refusal says why a destination was refused.
type Refusal struct {
	Host   string // as the command named it
	Port   int
	Reason string
	// Never is true for an address no rule can open (metadata,
	// link-local): the message then offers no way to allow it.
	Never bool
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s: %s", r.Destination(), r.Reason)
}

// Destination is host:port ([host]:port for IPv6).
func (r *Refusal) Destination() string { return joinHostPort(r.Host, r.Port) }

// Message is what the command is told: cordon, the destination, why,
// and how a person can allow it.
func (r *Refusal) Message() string {
	msg := fmt.Sprintf("cordon refused the connection to %s: %s.\n", joinHostPort(r.Host, r.Port), r.Reason)
	if r.Never {
		return msg + "No rule can open it: cloud metadata and link-local addresses hand out the machine's credentials.\n"
	}
	return msg + fmt.Sprintf("Sandboxed commands reach only the destinations the rules allow (docs/network.md). If this one is intended, a person can allow it for this workspace with `cordon approve --host %s` (in a terminal, outside the agent), or for good with a rule in ~/.config/cordon/rules/: `network: {allow: [\"%s\"]}`.\n", r.Host, allowEntry(r.Host, r.Port))
}

// allowEntry is the entry that would allow host at port.
func allowEntry(host string, port int) string {
	if a, err := netip.ParseAddr(host); err == nil && a.Is6() {
		return fmt.Sprintf("[%s]:%d", host, port)
	}
	return fmt.Sprintf("%s:%d", host, port)
}

func joinHostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		return fmt.Sprintf("[%s]:%d", host, port)
	}
	return fmt.Sprintf("%s:%d", host, port)
}

// CheckName decides on a destination by what the command named, before
// any resolution: a deny entry that matches refuses it. The name is
// lowercase, without brackets. It returns whether an allow entry
// matches the name itself; an address is decided by [Rules.CheckAddr].
func (r *Rules) CheckName(host string, port int) (allowed bool, refusal *Refusal) {
	if _, err := netip.ParseAddr(host); err == nil {
		return false, nil
	}
	for _, e := range r.deny {
		if e.matchName(host, port) {
			return false, &Refusal{Host: host, Port: port, Reason: "a network deny rule names it"}
		}
	}
	for _, e := range r.allow {
		if e.matchName(host, port) {
			return true, nil
		}
	}
	return false, nil
}

// CheckAddr decides on one address the destination host resolved to
// (or is): never one of the invariant's; never one a deny entry holds;
// loopback only when an allow entry holds it, whatever the name; any
// other address when the name was allowed (byName) or an allow entry
// holds it.
func (r *Rules) CheckAddr(host string, port int, a netip.Addr, byName bool) *Refusal {
	a = a.Unmap()
	for _, p := range never {
		if p.Contains(a) {
			return &Refusal{Host: host, Port: port, Reason: fmt.Sprintf("it is (or resolves to) %s, a link-local or cloud metadata address", a), Never: true}
		}
	}
	if a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return &Refusal{Host: host, Port: port, Reason: "a broadcast address", Never: true}
	}
	for _, e := range r.deny {
		if e.matchAddr(a, port) {
			return &Refusal{Host: host, Port: port, Reason: fmt.Sprintf("it is (or resolves to) %s, which a network deny rule closes", a)}
		}
	}
	allowedAddr := false
	for _, e := range r.allow {
		if e.matchAddr(a, port) {
			allowedAddr = true
			break
		}
	}
	switch {
	case allowedAddr:
		return nil
	case a.IsLoopback():
		return &Refusal{Host: host, Port: port, Reason: fmt.Sprintf("it is (or resolves to) %s, the host's loopback, which the rules do not open at port %d", a, port)}
	case byName:
		return nil
	}
	return &Refusal{Host: host, Port: port, Reason: "it is not in the network allow list"}
}

// Package nethost finds the host a network address names, the way the
// programs that take it would: curl, wget, Go's net/url, Python's urllib
// and requests (RFC 3986 readers) and Node, Deno and browsers (WHATWG
// URL readers). Where they disagree, every reading is kept, so a caller
// can call an address local only when all of them agree.
package nethost

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Hosts returns the hosts s may name, lowercased, one per distinct
// reading: a URL (scheme://[user[:pass]@]host[:port][/path]), a URL
// without a scheme (host:port/path, //host, user@host:path as scp and
// rsync take it), with the authority ending at "/", "?" or "#" (and "\"
// for WHATWG readers), userinfo before the last "@" of the authority (or
// the first, as some readers take it), and a percent-encoded host also
// decoded. It returns nil when no reading finds a host.
func Hosts(s string) []string {
	if a, err := netip.ParseAddr(s); err == nil && a.Is6() {
		return []string{"[" + strings.ToLower(s) + "]"} // a bare IPv6 address (nc ::1 80)
	}
	var out []string
	var add func(string)
	add = func(h string) {
		if h = strings.ToLower(h); h == "" {
			return
		}
		for _, o := range out {
			if o == h {
				return
			}
		}
		out = append(out, h)
		if strings.Contains(h, "%") && !strings.HasPrefix(h, "[") {
			if d, err := url.PathUnescape(h); err == nil {
				add(d)
			}
		}
	}
	// hostPort adds the host of host[:port] or [v6][:port], brackets kept;
	// Go's net/url ends the host at the last ":", curl at the first.
	hostPort := func(a string) {
		if strings.HasPrefix(a, "[") {
			if i := strings.IndexByte(a, ']'); i >= 0 {
				a = a[:i+1]
			}
			add(a)
			return
		}
		add(cut(a, ":"))
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			add(a[:i])
		}
	}
	authorities := func(a string) {
		if i := strings.LastIndexByte(a, '@'); i >= 0 {
			hostPort(a[i+1:])
			hostPort(a[strings.IndexByte(a, '@')+1:])
			return
		}
		hostPort(a)
	}
	// RFC 3986 readers.
	rest := s
	if scheme, r, ok := strings.Cut(s, "://"); ok && isScheme(scheme) {
		rest = r
	} else if scheme, r, ok := strings.Cut(s, ":"); ok && special[strings.ToLower(scheme)] && strings.HasPrefix(r, "/") {
		rest = strings.TrimLeft(r, "/") // curl takes http:/host and http:///host
	} else {
		rest = strings.TrimPrefix(s, "//")
	}
	authorities(cut(rest, "/?#"))
	// WHATWG readers drop tabs and newlines, and for the special schemes
	// take "\" as "/" and skip any number of slashes.
	w := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }))
	if scheme, r, ok := strings.Cut(w, ":"); ok && special[strings.ToLower(scheme)] {
		authorities(cut(strings.TrimLeft(r, `/\`), `/\?#`))
	} else if ok && isScheme(scheme) && strings.HasPrefix(r, "//") {
		authorities(cut(r[2:], "/?#"))
	}
	return out
}

// special are the schemes WHATWG URL readers treat specially.
var special = map[string]bool{"http": true, "https": true, "ws": true, "wss": true, "ftp": true, "file": true}

func isScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// cut returns s up to the first byte of any.
func cut(s, any string) string {
	if i := strings.IndexAny(s, any); i >= 0 {
		return s[:i]
	}
	return s
}

// Local reports whether s names this machine in every reading: a
// loopback address, the unspecified address (0.0.0.0, [::]), localhost
// or a name under .localhost.
func Local(s string) bool {
	hosts := Hosts(s)
	for _, h := range hosts {
		if !Loopback(h) {
			return false
		}
	}
	return len(hosts) > 0
}

// Loopback reports whether host, as [Hosts] returns it, is this machine.
// A name with a trailing dot, percent signs or other than ASCII letters,
// digits, "-" and "." is not, whatever it may resolve to.
func Loopback(host string) bool {
	if a, ok := Addr(host); ok {
		return a.IsLoopback() || a.IsUnspecified()
	}
	if !hostname(host) {
		return false
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

func hostname(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && !('0' <= c && c <= '9') && c != '-' && c != '.' && c != '_' {
			return false
		}
	}
	return s != "" && !strings.HasPrefix(s, ".") && !strings.HasSuffix(s, ".")
}

// Addr parses host as an IP address: IPv6 in brackets (zone allowed,
// IPv4-mapped addresses unmapped) or IPv4 in the forms inet_aton, curl
// and WHATWG readers accept (127.1, 0x7f.0.0.1, 0177.0.0.1, 2130706433).
func Addr(host string) (netip.Addr, bool) {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		in := strings.Replace(host[1:len(host)-1], "%25", "%", 1)
		a, err := netip.ParseAddr(in)
		if err != nil || !a.Is6() {
			return netip.Addr{}, false
		}
		return a.WithZone("").Unmap(), true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v = v<<8 | n
			continue
		}
		bits := uint(8 * (4 - i))
		if n >= 1<<bits {
			return netip.Addr{}, false
		}
		v = v<<bits | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// number parses one part of an IPv4 address: decimal, 0x hexadecimal or
// 0 octal.
func number(p string) (uint64, bool) {
	base := 10
	switch {
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	if p == "" || p[0] == '+' || p[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}

// Same reports whether hosts a and b name the same place: addresses
// compared by value (0xa9fea9fe is 169.254.169.254, [::ffff:a9fe:a9fe]
// too), names ignoring case and a trailing dot.
func Same(a, b string) bool {
	x, okA := Addr(a)
	y, okB := Addr(b)
	if okA || okB {
		return okA && okB && x == y
	}
	return strings.EqualFold(strings.TrimSuffix(a, "."), strings.TrimSuffix(b, "."))
}

// Password reports whether s is a URL that carries a password in its
// userinfo (postgres://user:secret@host/db) in some reading.
func Password(s string) bool {
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		return false
	}
	for _, ends := range []string{"/?#", `/\?#`} {
		a := cut(rest, ends)
		if at := strings.LastIndexByte(a, '@'); at > 0 {
			if _, pass, ok := strings.Cut(a[:at], ":"); ok && pass != "" {
				return true
			}
		}
	}
	return false
}

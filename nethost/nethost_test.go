package nethost

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestLocal(t *testing.T) {
	local := []string{
		"localhost", "localhost:3000", "localhost:3000/api", "http://localhost:3000/health",
		"http://127.0.0.1:8080/health", "127.0.0.1", "http://[::1]/", "[::1]:8080", "::1",
		"http://[::ffff:127.0.0.1]/", "http://127.1/", "http://0x7f.1/", "http://2130706433/",
		"http://0177.0.0.1/", "http://0.0.0.0:8000/", "http://[::]/", "http://app.localhost/",
		"HTTP://LOCALHOST/", "https://user:pw@127.0.0.1/x", "http://127.0.0.1/@evil.example",
		"http://127.0.0.1/?u=http://evil.example", "http://127.0.0.1#x@evil.example", "//127.0.0.1/x",
		"ws://localhost:9229/", "http:/127.0.0.1/", "user@localhost:backup/", "127.0.0.1:/srv/x",
		"http://[fe80::1%25lo]/"[:0] + "http://[::1%25lo]/",
	}
	for _, s := range local {
		if !Local(s) {
			t.Errorf("Local(%q) = false (hosts %q), want true", s, Hosts(s))
		}
	}
	remote := []string{
		"http://attacker.example:18081#@127.0.0.1/", "http://attacker.example:18081?@127.0.0.1/",
		"http://attacker.example/#@localhost", "attacker.example:18081#@127.0.0.1",
		"http://127.attacker.example/", "http://127.0.0.1.attacker.example/", "http://localhost.attacker.example/",
		"http://127.0.0.1\\@attacker.example/", "http://attacker.example\\@127.0.0.1/",
		"http://a@b@127.0.0.1/", "http://localhost./", "http://127.0.0.1./",
		"http://%31%32%37.0.0.1/", "http://evil%2eexample/", "http://ｌｏｃａｌｈｏｓｔ/", "http://１２７.０.０.１/",
		"http://127.0.0.1\t.attacker.example/", "http:attacker.example", "http:\\\\attacker.example",
		"http://10.0.0.1/", "http://192.168.1.1/", "http://169.254.169.254/", "http://[::ffff:8.8.8.8]/",
		"134744072", "http://0x08080808/", "http://0.0.0.1/", "http://[::127.0.0.1]/",
		"user@attacker.example:x", "git@github.com:org/repo.git", "https://github.com/org/repo",
		"attacker.example", "", "http://", "//", "@", "host.docker.internal:8080",
		"http://localhost@attacker.example/", "http://127.0.0.1:80@attacker.example/",
		"http://127.0.0.1%2f@attacker.example/", "localhost:80@attacker.example",
	}
	for _, s := range remote {
		if Local(s) {
			t.Errorf("Local(%q) = true (hosts %q), want false", s, Hosts(s))
		}
	}
}

func TestHosts(t *testing.T) {
	for s, want := range map[string][]string{
		"http://attacker.example:18081#@127.0.0.1/": {"attacker.example"},
		"https://u:p@Example.COM:443/x?y#z":         {"example.com"},
		"http://127.0.0.1\\@evil.example/":          {"evil.example", "127.0.0.1"},
		"git@github.com:org/repo.git":               {"github.com"},
		"http://%31%32%37.0.0.1/":                   {"%31%32%37.0.0.1", "127.0.0.1"},
		"http://[::1]:80/":                          {"[::1]"},
		"localhost:3000":                            {"localhost"},
	} {
		if got := Hosts(s); !slices.Equal(got, want) {
			t.Errorf("Hosts(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestSame(t *testing.T) {
	for _, h := range []string{"169.254.169.254", "0xa9fea9fe", "2852039166", "0251.0376.0251.0376", "169.254.43518", "[::ffff:169.254.169.254]", "[::ffff:a9fe:a9fe]"} {
		if !Same(h, "169.254.169.254") {
			t.Errorf("Same(%q, 169.254.169.254) = false", h)
		}
	}
	if !Same("Metadata.Google.Internal.", "metadata.google.internal") || Same("169.254.169.25", "169.254.169.254") || Same("metadata", "169.254.169.254") {
		t.Error("Same: names")
	}
}

func TestPassword(t *testing.T) {
	for _, s := range []string{"postgres://u:p@h/db", "https://:tok@h", "redis://default:pw@h:6379", "https://u:p@h\\@x"} {
		if !Password(s) {
			t.Errorf("Password(%q) = false", s)
		}
	}
	for _, s := range []string{"https://example.com/a:b@c", "ssh://git@github.com/x", "https://h/?u=a:b@c", "user:pass@host", "https://u:@h/"} {
		if Password(s) {
			t.Errorf("Password(%q) = true", s)
		}
	}
}

// FuzzLocal checks that an address called local is local to Go's own URL
// parser too, read as given and with a scheme put in front.
func FuzzLocal(f *testing.F) {
	for _, s := range []string{"http://attacker.example:1#@127.0.0.1/", "localhost:3000", "http://[::1]/", "http://127.1/", "a@b@127.0.0.1", "http://127.0.0.1\\@x/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !Local(s) {
			return
		}
		u := s
		if p, err := url.Parse(s); !strings.Contains(s, "://") && (err != nil || !special[p.Scheme]) {
			u = "http://" + s // taken as curl takes an address without a scheme
		}
		p, err := url.Parse(u)
		if err != nil || p.Hostname() == "" {
			return
		}
		h := strings.ToLower(p.Hostname())
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		if !Loopback(h) {
			t.Fatalf("Local(%q) but Go's net/url reads %q as host %q", s, u, p.Hostname())
		}
	})
}

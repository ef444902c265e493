package platform

import (
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/broker"
	"github.com/cordonsh/cordon/internal/starglob"
)

// Tokens in the person's files, used, never held (docs/network.md): a
// filtered credential file a credential kind names (gh's hosts.yml, an
// .npmrc, .git-credentials) is shown with each token replaced by a
// placeholder, which the broker swaps on requests to the token's host.
// The file names the host: a token for one of its kind's hosts goes to
// all of the kind's hosts (github.com's also to api.github.com), one
// for another host to that host only. The file is read where the
// sandbox starts, outside it, and only at a path the sandbox cannot
// write: its hosts are the person's, never the agent's.

// A CredentialFile says how a file holds tokens of a credential kind
// (see rules.CredentialFile): Secret matches a line with a token (group
// "value"), its host (group "host") and the path on that host it is for,
// if any (group "path"), or Section the line above that names the host.
type CredentialFile struct {
	Path       string `json:"path"`
	Section    string `json:"section,omitempty"`
	Secret     string `json:"secret"`
	URLEscaped bool   `json:"url_escaped,omitempty"`
}

// A TokenFile is a filtered file of the policy whose tokens are
// brokered: where it is, how its tokens are found, and the hosts of
// each kind that names it.
type TokenFile struct {
	CredentialFile
	Kinds [][]string `json:"kinds"`
}

// tokenFiles records, with the network allowlist, the files of kinds
// that are filtered and outside every writable place, by their real
// paths, as p.TokenFiles.
func (p *Policy) tokenFiles(r *resolver, kinds []CredentialKind) {
	if p.Network != NetworkAllowlist {
		return
	}
	for _, k := range kinds {
		for _, f := range k.Files {
			for _, path := range r.existing([]string{f.Path}, nil) {
				if !slices.Contains(p.FilteredPaths(), path) || p.writable(path) {
					continue
				}
				i := slices.IndexFunc(p.TokenFiles, func(t TokenFile) bool { return t.Path == path })
				if i < 0 {
					f.Path = path
					p.TokenFiles = append(p.TokenFiles, TokenFile{CredentialFile: f})
					i = len(p.TokenFiles) - 1
				}
				p.TokenFiles[i].Kinds = append(p.TokenFiles[i].Kinds, slices.Clone(k.Hosts))
			}
		}
	}
}

// writable reports whether the sandbox of p can write path, or the file
// it leads to.
func (p *Policy) writable(path string) bool {
	paths := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		paths = append(paths, real)
	} else {
		return true // cannot tell: as if it could
	}
	return slices.ContainsFunc(paths, func(f string) bool {
		return slices.ContainsFunc(p.WritableRoots(), func(w string) bool { return Within(f, w) })
	})
}

// shownFile is what the sandbox shows for the filtered entry f: the
// copy with placeholders a start made ([Policy.Shown]), or the file
// with its secret lines emptied (see filteredFile).
func (p *Policy) shownFile(f string) (string, []byte, bool) {
	path, _, _ := strings.Cut(f, " ")
	if s, ok := p.Shown[path]; ok {
		return path, []byte(s), true
	}
	return filteredFile(f, nil)
}

// addFiles gives b's broker the tokens of c's TokenFiles, and sets what
// c's sandbox shows for them (c.Shown) and the hosts it may reach for
// them (c.NetAllow).
func (b *Brokerage) addFiles(c *Policy) {
	if len(c.TokenFiles) == 0 {
		return
	}
	creds, shown := fileTokens(c, b.key)
	b.Broker.Add(creds...)
	allow := slices.Clone(c.NetAllow)
	for _, cr := range creds {
		for _, h := range cr.Hosts {
			if h = withPort(h); !slices.Contains(allow, h) {
				allow = append(allow, h)
			}
		}
	}
	c.Shown, c.NetAllow = shown, allow
}

// fileTokens reads p's TokenFiles and returns the broker's credentials
// for their tokens, placeholders made under key, and what the sandbox
// shows for each file, by path. A file that cannot be read is left
// filtered (or hidden).
func fileTokens(p *Policy, key []byte) ([]broker.Credential, map[string]string) {
	var all []broker.Credential
	shown := map[string]string{}
	for _, f := range p.Filtered {
		path, _, _ := strings.Cut(f, " ")
		i := slices.IndexFunc(p.TokenFiles, func(t TokenFile) bool { return t.Path == path })
		if i < 0 || p.writable(path) { // (again: the policy may be a cached one)
			continue
		}
		var creds []broker.Credential
		_, data, ok := filteredFile(f, func(lines []string) map[int]string {
			var kept map[int]string
			kept, creds = p.TokenFiles[i].swap(key, lines)
			return kept
		})
		if ok {
			all = append(all, creds...)
			shown[path] = string(data)
		}
	}
	return all, shown
}

// swap finds the tokens in the lines of t's file and returns those
// lines with each token replaced by its placeholder (made under key),
// by index, and the broker's credentials for them. A token whose host
// cannot be told is not kept: its line is emptied.
func (t TokenFile) swap(key []byte, lines []string) (map[int]string, []broker.Credential) {
	secret, err := regexp.Compile(t.Secret)
	if err != nil {
		return nil, nil
	}
	var section *regexp.Regexp
	if t.Section != "" {
		if section, err = regexp.Compile(t.Section); err != nil {
			return nil, nil
		}
	}
	kept := map[int]string{}
	var creds []broker.Credential
	host := ""
	for i, line := range lines {
		if section != nil {
			if m := section.FindStringSubmatch(line); m != nil {
				host = m[section.SubexpIndex("host")]
				continue
			}
		}
		m := secret.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		h, value, path, ok := t.token(secret, line, m, host)
		if !ok {
			continue
		}
		var paths []string
		if path != "" {
			paths = []string{path}
		}
		ph := broker.Placeholder(key, t.Path+" "+h+path, value)
		g := secret.SubexpIndex("value")
		kept[i] = line[:m[2*g]] + ph + line[m[2*g+1]:]
		creds = append(creds, broker.Credential{Name: t.Path + " (" + h + path + ")", Placeholder: ph, Value: value, Hosts: t.hosts(h), Paths: paths})
	}
	return kept, creds
}

// token reads the host, value and path of the token in line, which
// secret matched at m (host is the section's, when secret names none):
// %-decoded when t's are, the host in lower case, the path without a "/"
// at its end. ok is false when one cannot be read, the host is not a
// plain one, the path not absolute, or the value empty or a placeholder.
func (t TokenFile) token(secret *regexp.Regexp, line string, m []int, host string) (h, value, path string, ok bool) {
	group := func(name string) (string, bool) {
		g := secret.SubexpIndex(name)
		if g < 0 || m[2*g] < 0 {
			return "", true
		}
		v := line[m[2*g]:m[2*g+1]]
		if !t.URLEscaped {
			return v, true
		}
		v, err := url.PathUnescape(v) // git's store helper writes a port "%3a8443"
		return v, err == nil
	}
	h, okHost := group("host")
	value, okValue := group("value")
	path, okPath := group("path")
	if secret.SubexpIndex("host") < 0 {
		h = host
	}
	h, path = strings.ToLower(h), strings.TrimRight(path, "/")
	ok = okHost && okValue && okPath && plainHost(h) && value != "" && !placeholder(value) &&
		(path == "" || strings.HasPrefix(path, "/"))
	return h, value, path, ok
}

// hosts are where a token of t's file for host h may go: the hosts of
// each of t's kinds that lists h, or h alone.
func (t TokenFile) hosts(h string) []string {
	var out []string
	for _, k := range t.Kinds {
		if slices.ContainsFunc(k, func(kh string) bool { return starglob.Match(withPort(kh), withPort(h)) }) {
			for _, kh := range k {
				if !slices.Contains(out, kh) {
					out = append(out, kh)
				}
			}
		}
	}
	if out == nil {
		out = []string{h}
	}
	return out
}

// plainHost matches a host name or IPv4 address, with an optional port:
// nothing a glob or a URL could make wider.
// Compiled on first use: most starts of cordon never read a token file.
var plainHostRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$`)
})

func plainHost(h string) bool { return plainHostRE().MatchString(h) }

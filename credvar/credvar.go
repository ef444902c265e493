// Package credvar tells whether an environment variable holds
// credentials: by globs of names (*_TOKEN), by the word parts of its name
// (DB_PASS, npm_config_//registry.npmjs.org/:_authToken) or by its value
// (a URL with a password in it, or the shape of a known kind of token:
// ghp_..., sk_live_...). The globs, words and shapes are data, from the
// rules.
package credvar

import (
	"github.com/cordonsh/cordon/internal/starglob"

	"path"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/nethost"
)

// A Matcher holds what marks a variable as a credential.
type Matcher struct {
	globs  []glob          // patterns of whole names, uppercase
	not    []glob          // names that hold none, whatever their words
	words  map[string]bool // lowercase word parts
	shapes []*shape        // values that hold credentials
}

// A shape is one pattern of credential values, compiled when a value
// first holds the literal every match of it holds: most values hold
// none, and most patterns are then never compiled.
type shape struct {
	lit  string // a literal every match holds; lowercase when fold
	fold bool   // lit is matched ignoring case
	re   func() *regexp.Regexp
}

// New returns a Matcher for globs of whole names (matched ignoring case)
// and words: a name holds credentials when one of its word parts (see
// [Parts]) is one of them, ignoring case. A glob that starts with "!"
// names variables whose name says they hold none, whatever its words
// (GIT_CONFIG_KEY_0 holds the name of a git setting): only their value
// can then mark them. values are regular expressions (RE2) of values that
// hold credentials whatever the name (a GitHub token, ghp_ and 36
// letters and digits): one matching anywhere in a value marks its
// variable. The rules check them when they load ([CompileValues]); here
// patterns that do not compile are left out.
func New(globs, words, values []string) *Matcher {
	m := &Matcher{words: make(map[string]bool, len(words))}
	for _, v := range values {
		if sh := newShape(v); sh != nil {
			m.shapes = append(m.shapes, sh)
		}
	}
	for _, g := range globs {
		if not, ok := strings.CutPrefix(g, "!"); ok {
			m.not = append(m.not, compile(strings.ToUpper(not)))
			continue
		}
		m.globs = append(m.globs, compile(strings.ToUpper(g)))
	}
	for _, w := range words {
		m.words[strings.ToLower(w)] = true
	}
	return m
}

// Name reports whether a variable named name holds credentials.
func (m *Matcher) Name(name string) bool {
	up := strings.ToUpper(name)
	for _, g := range m.not {
		if g.match(up) {
			return false
		}
	}
	for _, g := range m.globs {
		if g.match(up) {
			return true
		}
	}
	return m.HasWord(name)
}

// Var reports whether the variable name=value holds credentials: by its
// name, or by its value: a URL with a password
// (postgres://app:secret@db/app), an HTTP authorization (a header
// line "Authorization: ...", or "Bearer ..." and "Basic ..." alone) or
// the shape of a credential (see [Matcher.Value]).
func (m *Matcher) Var(name, value string) bool {
	return m.Name(name) || nethost.Password(value) || authValue(value) || m.Value(value)
}

// Value reports whether value has the shape of a credential: one of the
// matcher's value patterns matches somewhere in it.
func (m *Matcher) Value(value string) bool {
	if value == "" {
		return false
	}
	lower := ""
	for _, sh := range m.shapes {
		v := value
		if sh.fold {
			if lower == "" {
				lower = strings.ToLower(value)
			}
			v = lower
		}
		if !strings.Contains(v, sh.lit) {
			continue
		}
		if re := sh.re(); re != nil && re.MatchString(value) {
			return true
		}
	}
	return false
}

// CheckValues reports the first of patterns of credential values (see
// [New]) that is not a regular expression, as an error.
func CheckValues(patterns []string) error {
	for _, p := range patterns {
		if _, err := regexp.Compile(p); err != nil {
			return err
		}
	}
	return nil
}

// shapes are the shapes made, by pattern: a process's matchers (the
// rules', the sandbox's) share them, and what they compiled.
var shapes sync.Map

// newShape returns the shape of pattern, or nil when it does not parse.
func newShape(pattern string) *shape {
	if sh, ok := shapes.Load(pattern); ok {
		return sh.(*shape)
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	lit, fold := required(re)
	if fold {
		lit = strings.ToLower(lit)
	}
	sh, _ := shapes.LoadOrStore(pattern, &shape{lit: lit, fold: fold, re: sync.OnceValue(func() *regexp.Regexp {
		re, _ := regexp.Compile(pattern)
		return re
	})})
	return sh.(*shape)
}

// required returns a literal that every match of re holds (the longest
// one found, "" when none is), and whether it matches ignoring case.
func required(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		lit, fold := "", false
		for _, sub := range re.Sub {
			if l, f := required(sub); len(l) > len(lit) {
				lit, fold = l, f
			}
		}
		return lit, fold
	}
	return "", false
}

// authValue reports whether value is an HTTP authorization: what git's
// http.extraHeader or a tool's header setting carries.
func authValue(value string) bool {
	v := strings.TrimSpace(value)
	if h, _, ok := strings.Cut(v, ":"); ok && AuthHeader(strings.TrimSpace(h)) {
		return true
	}
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok || len(strings.TrimSpace(cred)) < 8 {
		return false
	}
	switch strings.ToLower(scheme) {
	case "bearer", "basic", "token":
		return true
	}
	return false
}

// AuthHeader reports whether an HTTP header named name carries a
// credential: Authorization, or one of the API-key headers services
// take instead (GitLab's Private-Token, X-Api-Key, Google's
// X-Goog-Api-Key), its name read as [HeaderName] reads it.
func AuthHeader(name string) bool {
	switch HeaderName(name) {
	case "authorization", "proxy-authorization", "private-token", "job-token", "deploy-token",
		"x-api-key", "api-key", "x-auth-token", "x-goog-api-key":
		return true
	}
	return false
}

// HeaderName is a request header's name as the most lenient server
// reads it: in lower case, without surrounding space, and with any
// character but a letter or a digit read as "-". Servers behind
// CGI-style gateways (Rack, Puma, PHP) read Private_Token as
// Private-Token, lighttpd's CGI and FastCGI (and PHP) Private.Token too.
func HeaderName(name string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(strings.TrimSpace(name)))
}

// QueryCredential reports whether a URL query parameter named name
// carries a credential (access_token, private_token, api_key, key,
// X-Amz-Signature): by its word parts.
func QueryCredential(name string) bool {
	for _, w := range Parts(name) {
		switch strings.ToLower(w) {
		case "token", "key", "apikey", "secret", "password", "passwd", "auth", "signature", "sig", "credential", "jwt":
			return true
		}
	}
	return false
}

// BodyCredential reports whether a parameter of a request's body (a
// form field, a JSON key, a multipart part) named name carries a
// credential that a server reads as one (private_token, access_token,
// api_key, password): narrower than [QueryCredential], since bodies
// name their own data key, key_id, signature or prompt_cache_key.
func BodyCredential(name string) bool {
	api, access := false, false
	for _, w := range Parts(name) {
		switch strings.ToLower(w) {
		case "token", "apikey", "secret", "password", "passwd", "jwt":
			return true
		case "api":
			api = true
		case "access":
			access = true
		case "key":
			if api || access {
				return true
			}
		}
	}
	return false
}

// Filter returns env (NAME=value entries) without the variables keep
// says to drop, and keeps indexed families whole: where a tool reads
// PREFIX_COUNT entries of PREFIX_WORD_<n> (git's GIT_CONFIG_COUNT with
// GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n>), dropping one member of
// entry n drops every member of it, and the entries left are numbered
// again from 0 with the count set to match. A tool then reads fewer
// entries, never a key without its value.
func Filter(env []string, keep func(name, value string) bool) []string {
	out := make([]string, 0, len(env))
	var dropped []string
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if keep(name, value) {
			out = append(out, kv)
		} else {
			dropped = append(dropped, name)
		}
	}
	done := map[string]bool{}
	for _, name := range dropped {
		if prefix, _, ok := member(name); ok && !done[prefix] && lookup(out, prefix+"COUNT") != "" {
			done[prefix] = true
			out = renumber(out, prefix, dropped)
		}
	}
	return out
}

// member splits PREFIX_WORD_<n> into "PREFIX_" and n.
func member(name string) (prefix string, n int, ok bool) {
	i := strings.LastIndexByte(name, '_')
	if i < 0 || i == len(name)-1 {
		return "", 0, false
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil {
		return "", 0, false
	}
	j := strings.LastIndexByte(name[:i], '_')
	if j < 0 {
		return "", 0, false
	}
	return name[:j+1], n, true
}

// renumber drops from env every entry of the family prefix one of whose
// members was dropped, and numbers the others again from 0.
func renumber(env []string, prefix string, dropped []string) []string {
	count, err := strconv.Atoi(lookup(env, prefix+"COUNT"))
	if err != nil || count < 0 {
		return env
	}
	gone := map[int]bool{}
	for _, name := range dropped {
		if p, n, ok := member(name); ok && p == prefix {
			gone[n] = true
		}
	}
	next := map[int]int{} // old index -> new
	for i := 0; i < count; i++ {
		if !gone[i] {
			next[i] = len(next)
		}
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch p, n, ok := member(name); {
		case name == prefix+"COUNT":
			out = append(out, name+"="+strconv.Itoa(len(next)))
		case ok && p == prefix:
			if to, kept := next[n]; kept {
				out = append(out, name[:strings.LastIndexByte(name, '_')+1]+strconv.Itoa(to)+"="+value)
			}
		default:
			out = append(out, kv)
		}
	}
	return out
}

// lookup is the value of name in env, or "".
func lookup(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// HasWord reports whether one of the word parts of s is one of m's words.
func (m *Matcher) HasWord(s string) bool {
	found := false
	var buf [32]byte
	eachPart(s, func(p string) bool {
		if len(p) > len(buf) {
			return true
		}
		for i := 0; i < len(p); i++ {
			buf[i] = p[i] | 0x20 // parts are ASCII letters or digits
		}
		found = m.words[string(buf[:len(p)])]
		return !found
	})
	return found
}

// Parts splits a name into its word parts, runs of ASCII letters and
// digits: at every other character, where a lowercase letter is followed
// by an uppercase one (authToken), before the last of a run of capitals
// followed by a lowercase letter (HTTPToken) and between letters and
// digits (OAUTH2).
func Parts(s string) []string {
	var out []string
	eachPart(s, func(p string) bool { out = append(out, p); return true })
	return out
}

// eachPart calls f with each word part of s until f returns false.
func eachPart(s string, f func(string) bool) {
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := kind(c) != 0
		if start >= 0 && (!alnum || boundary(s, i)) {
			if !f(s[start:i]) {
				return
			}
			start = -1
		}
		if alnum && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		f(s[start:])
	}
}

// Kinds of bytes.
const (
	other = iota
	lower
	upper
	digit
)

func kind(c byte) int {
	switch {
	case 'a' <= c && c <= 'z':
		return lower
	case 'A' <= c && c <= 'Z':
		return upper
	case '0' <= c && c <= '9':
		return digit
	}
	return other
}

// boundary reports whether a word part ends before s[i], a letter or a
// digit that follows another.
func boundary(s string, i int) bool {
	prev, cur := kind(s[i-1]), kind(s[i])
	switch {
	case (prev == digit) != (cur == digit):
		return true
	case prev == lower && cur == upper:
		return true
	case prev == upper && cur == upper:
		return i+1 < len(s) && kind(s[i+1]) == lower
	}
	return false
}

// A glob is a compiled pattern: split at each "*" when that is its only
// wildcard (nearly all are), else matched with path.Match.
type glob struct {
	parts   []string
	pattern string
}

func compile(pat string) glob {
	if strings.ContainsAny(pat, `?[\`) {
		return glob{pattern: pat}
	}
	return glob{parts: strings.Split(pat, "*")}
}

// match reports whether name matches g.
func (g glob) match(name string) bool {
	if g.parts == nil {
		ok, _ := path.Match(g.pattern, name)
		return ok
	}
	return starglob.MatchParts(g.parts, name)
}

// match matches name against the glob pat.
func match(pat, name string) bool { return compile(pat).match(name) }

// Masked is what [Matcher.Mask] puts in place of a credential value.
const Masked = "***"

var (
	assignRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[\s;&|('"])((?:--?)?[A-Za-z_][A-Za-z0-9_-]*)=("[^"]*"|'[^']*'|[^\s;&|)'"]*)`)
	})
	urlRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*):([^\s/?#@]+)@`)
	})
)

// Mask returns text (a command line, for a log) with credential values
// replaced by [Masked]: the value of an assignment or a --flag=value whose
// name holds credentials (TOKEN=..., --api-token=...), a URL's password,
// and any literal occurrence of the value of a credential variable of
// env (NAME=value entries) of 6 bytes or more.
// Masker returns [Matcher.Mask] for env, with env's credential values
// found once: for masking many strings.
func (m *Matcher) Masker(env []string) func(string) string {
	var vals []string
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if ok && len(val) >= 6 && m.Var(name, val) {
			vals = append(vals, val)
		}
	}
	return func(text string) string {
		for _, v := range vals {
			if strings.Contains(text, v) {
				text = strings.ReplaceAll(text, v, Masked)
			}
		}
		return text
	}
}

func (m *Matcher) Mask(text string, env []string) string {
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if ok && len(val) >= 6 && strings.Contains(text, val) && m.Var(name, val) {
			text = strings.ReplaceAll(text, val, Masked)
		}
	}
	text = assignRE().ReplaceAllStringFunc(text, func(s string) string {
		sub := assignRE().FindStringSubmatch(s)
		name := strings.TrimLeft(sub[2], "-")
		if !m.Name(name) || sub[3] == "" || sub[3] == Masked {
			return s
		}
		return sub[1] + sub[2] + "=" + Masked
	})
	return urlRE().ReplaceAllString(text, "${1}:"+Masked+"@")
}

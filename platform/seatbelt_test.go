package platform

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/seatbelt")

// hostile is a workspace name that would end the string and open a rule
// if it were spliced into the profile.
const hostile = `a") (allow default) ("`

// seatbeltPolicies are the policies the golden files are made from:
// made by hand, as a Mac would resolve them, so that they are the same
// on every machine.
func seatbeltPolicies() map[string]*Policy {
	home := "/Users/dev"
	ws := home + "/src/my app/" + hostile
	base := func() *Policy {
		return &Policy{
			Workspace: ws,
			Home:      home,
			Scratch:   []string{"/private/tmp", "/private/var/folders/x1/abc_123/T", "/private/var/tmp"},
			Writable:  []string{home + "/.cache", home + "/Library/Caches", ws},
			ReadOnly:  []string{ws + "/.cordon", ws + "/.git/hooks"},
			Guarded:   []string{ws + "/.envrc", ws + "/.git/hooks", ws + "/.git/modules/*/**/hooks", ws + "/.vscode/tasks.json"},
			GitConfig: []string{ws + "/.git/config", ws + "/.git/config.worktree", ws + "/.git/modules/*/**/config", ws + "/.git/worktrees/*/config.worktree"},
			Hidden: []string{home + "/.aws", home + "/.netrc", home + "/.ssh", home + "/Library/Keychains",
				"/private/tmp/com.apple.launchd.Xy12/Listeners"},
			Missing: []string{home + "/.config/gh"},
			Visible: []string{home + "/.ssh/known_hosts"},
			Network: NetworkOn,
		}
	}
	quotes := base()
	off := base()
	off.Network = NetworkOff
	off.Sockets = []string{home + "/Library/Application Support/Code/ipc.sock"}
	off.Visible = append(off.Visible, off.Sockets...)
	off.Limits = Limits{CPU: 60, Memory: 1 << 30}
	inside := base()
	inside.Hidden = append(inside.Hidden, home+"/.cache/huggingface/token", "/private/tmp/ssh-abc")
	inside.Missing = append(inside.Missing, home+"/.cache/gh/token")
	inside.HostSockets = []string{"/private/var/folders/x1/abc_123/T/emacs501/server"}
	// A policy as made on Linux, or by hand: /tmp, /var and /etc as
	// written, which Seatbelt only sees under /private.
	tmp := &Policy{
		Workspace: "/tmp/ws",
		Home:      home,
		Scratch:   []string{"/tmp", "/var/folders/x1/abc_123/T", "/private/tmp"},
		Writable:  []string{"/tmp/ws", "/var/db/cache"},
		ReadOnly:  []string{"/tmp/ws/.git/hooks"},
		Hidden:    []string{home + "/.ssh", "/etc/ssl/private", "/tmp/tmux-501"},
		Network:   NetworkOn,
	}
	return map[string]*Policy{"quotes": quotes, "network-off": off, "hidden-inside-writable": inside, "tmp-workspace": tmp}
}

// goldenFiles are read when the test binary starts: other tests of this
// package confine the process (Landlock) and could leave testdata out of
// its reach.
var goldenFiles, goldenErr = func() (map[string][]byte, error) {
	names, err := filepath.Glob(filepath.Join("testdata", "seatbelt", "*.sb"))
	files := map[string][]byte{}
	for _, n := range names {
		data, rerr := os.ReadFile(n)
		if rerr != nil {
			return nil, rerr
		}
		files[n] = data
	}
	return files, err
}()

func TestSeatbeltGolden(t *testing.T) {
	for name, p := range seatbeltPolicies() {
		t.Run(name, func(t *testing.T) {
			sp := NewSeatbeltProfile(p, "")
			checkProfile(t, sp, p)
			file := filepath.Join("testdata", "seatbelt", name+".sb")
			got := sp.Listing()
			if *updateGolden {
				os.MkdirAll(filepath.Dir(file), 0o755)
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := goldenFiles[file], goldenErr
			if *updateGolden {
				want, err = []byte(got), nil
			}
			if err != nil || want == nil {
				t.Fatalf("no golden file %s (%v): go test ./platform -run TestSeatbeltGolden -update writes it", file, err)
			}
			if got != string(want) {
				t.Errorf("the profile differs from %s (-update rewrites it after a review):\n%s", file, got)
			}
		})
	}
}

// TestSeatbeltNoSplicing checks that the profile's text depends on how
// many paths each list holds, never on what they say.
func TestSeatbeltNoSplicing(t *testing.T) {
	plain := seatbeltPolicies()["quotes"]
	ws := "/Users/dev/src/plain"
	p := *plain
	p.Workspace = ws
	p.Writable = []string{"/Users/dev/.cache", "/Users/dev/Library/Caches", ws}
	moved := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, path := range paths {
			out[i] = strings.Replace(path, plain.Workspace, ws, 1)
		}
		return out
	}
	p.ReadOnly, p.Guarded, p.GitConfig = moved(plain.ReadOnly), moved(plain.Guarded), moved(plain.GitConfig)
	a, b := NewSeatbeltProfile(plain, ""), NewSeatbeltProfile(&p, "")
	if a.Text != b.Text {
		t.Errorf("the workspace's name changed the profile's text")
	}
	if strings.Contains(a.Text, hostile) || strings.Contains(a.Text, "my app") {
		t.Errorf("the workspace's name is in the profile's text")
	}
	var found bool
	for _, prm := range a.Params {
		found = found || prm.Value == plain.Workspace
	}
	if !found {
		t.Errorf("the workspace is not a parameter: %v", a.Params)
	}
	args := a.Args([]string{"/bin/zsh", "-c", "true"})
	if args[0] != "/usr/bin/sandbox-exec" || args[1] != "-p" || args[2] != a.Text || !slices.Contains(args, "WRITABLE_2="+plain.Workspace) ||
		!slices.Equal(args[len(args)-4:], []string{"--", "/bin/zsh", "-c", "true"}) {
		t.Errorf("sandbox-exec's command line: %q", args)
	}
}

func TestSeatbeltDenialTag(t *testing.T) {
	p := seatbeltPolicies()["quotes"]
	if sp := NewSeatbeltProfile(p, "cordon-1a2b"); !strings.Contains(sp.Text, `(deny default (with message "cordon-1a2b"))`) {
		t.Errorf("the tag is missing")
	}
	for _, bad := range []string{`x") (allow default) ("`, "a b", strings.Repeat("x", 65)} {
		if sp := NewSeatbeltProfile(p, bad); !strings.Contains(sp.Text, "\n(deny default)\n") || strings.Contains(sp.Text, bad) {
			t.Errorf("tag %q made it into the profile", bad)
		}
	}
	if _, ok := TagDenials(Direct, "cordon-1"); ok {
		t.Errorf("TagDenials accepted a backend without a denial log")
	}
}

func TestDarwinPath(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp": "/private/tmp", "/tmp/ws": "/private/tmp/ws", "/var/folders/x/T": "/private/var/folders/x/T",
		"/etc/cordon": "/private/etc/cordon", "/private/tmp/x": "/private/tmp/x", "/tmpfoo": "/tmpfoo", "/Users/dev": "/Users/dev",
	} {
		if got := DarwinPath(in); got != want {
			t.Errorf("DarwinPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSeatbeltCheckerCatches checks that the structural checker fails on
// the mistakes it is there to catch.
func TestSeatbeltCheckerCatches(t *testing.T) {
	p := seatbeltPolicies()["quotes"]
	good := NewSeatbeltProfile(p, "")
	for name, edit := range map[string]func(string) string{
		"unbalanced":        func(s string) string { return s + "(allow file-read*\n" },
		"unknown operation": func(s string) string { return s + "(allow file-teleport)\n" },
		"unknown filter":    func(s string) string { return s + "(allow file-read* (nearby \"/x\"))\n" },
		"spliced path":      func(s string) string { return s + "(allow file-write* (subpath \"/Users/dev/src\"))\n" },
		"allow after hidden": func(s string) string {
			return s + "(allow file-read* (subpath (param \"WRITABLE_3\")))\n"
		},
		"write after read-only": func(s string) string {
			return s + "(allow file-write* (subpath (param \"WRITABLE_2\")))\n"
		},
		"keychain allowed": func(s string) string {
			return strings.Replace(s, "; Devices", "(allow mach-lookup (global-name \"com.apple.SecurityServer\"))\n; Devices", 1) + "(allow mach-lookup (global-name \"com.apple.SecurityServer\"))\n"
		},
		"hard links": func(s string) string {
			return strings.Replace(s, "; Devices", "(allow file-link (subpath (param \"WRITABLE_2\")))\n; Devices", 1)
		},
		"bad escape": func(s string) string { return s + "(allow file-read* (literal \"/dev/x\\q\"))\n" },
	} {
		bad := &SeatbeltProfile{Text: edit(good.Text), Params: good.Params}
		if problems := profileProblems(bad, p); len(problems) == 0 {
			t.Errorf("%s: the checker found nothing wrong", name)
		}
	}
}

// checkProfile fails the test for every problem [profileProblems] finds.
func checkProfile(t *testing.T, sp *SeatbeltProfile, p *Policy) {
	t.Helper()
	for _, problem := range profileProblems(sp, p) {
		t.Error(problem)
	}
}

// An sexp is a parsed SBPL form: an atom, a string or a list.
type sexp struct {
	atom string // a symbol or number
	str  *string
	re   bool // a regex literal, #"..."
	list []sexp
	line int
}

func (s sexp) isList() bool { return s.str == nil && s.atom == "" }
func (s sexp) head() string {
	if s.isList() && len(s.list) > 0 {
		return s.list[0].atom
	}
	return ""
}

// parseSBPL parses profile text into its top-level forms.
func parseSBPL(text string) ([]sexp, error) {
	line := 1
	i := 0
	var parse func() (sexp, error)
	skip := func() {
		for i < len(text) {
			switch c := text[i]; {
			case c == '\n':
				line++
				i++
			case c == ' ' || c == '\t':
				i++
			case c == ';':
				for i < len(text) && text[i] != '\n' {
					i++
				}
			default:
				return
			}
		}
	}
	parse = func() (sexp, error) {
		skip()
		if i >= len(text) {
			return sexp{}, fmt.Errorf("line %d: unexpected end of profile (unbalanced parentheses)", line)
		}
		switch c := text[i]; {
		case c == '(':
			i++
			l := sexp{line: line, list: []sexp{}}
			for {
				skip()
				if i >= len(text) {
					return sexp{}, fmt.Errorf("line %d: a list is never closed", l.line)
				}
				if text[i] == ')' {
					i++
					return l, nil
				}
				e, err := parse()
				if err != nil {
					return sexp{}, err
				}
				l.list = append(l.list, e)
			}
		case c == ')':
			return sexp{}, fmt.Errorf("line %d: unbalanced )", line)
		case c == '"' || c == '#' && i+1 < len(text) && text[i+1] == '"':
			re := c == '#'
			if re {
				i++
			}
			i++
			var b strings.Builder
			for {
				if i >= len(text) || text[i] == '\n' {
					return sexp{}, fmt.Errorf("line %d: a string is never closed", line)
				}
				if text[i] == '"' {
					i++
					break
				}
				if text[i] == '\\' {
					if i+1 >= len(text) || text[i+1] != '"' && text[i+1] != '\\' {
						return sexp{}, fmt.Errorf("line %d: a string holds an escape other than \\\" or \\\\", line)
					}
					i++
				}
				b.WriteByte(text[i])
				i++
			}
			s := b.String()
			return sexp{str: &s, re: re, line: line}, nil
		default:
			j := i
			for i < len(text) && !strings.ContainsRune(" \t\n();\"", rune(text[i])) {
				i++
			}
			return sexp{atom: text[j:i], line: line}, nil
		}
	}
	var forms []sexp
	for {
		skip()
		if i >= len(text) {
			return forms, nil
		}
		f, err := parse()
		if err != nil {
			return nil, err
		}
		forms = append(forms, f)
	}
}

// The operations and filters a profile may use: Seatbelt refuses a
// profile with a name it does not know, and a typo must not reach a Mac.
var (
	knownOps = []string{"default", "process-exec", "process-fork", "signal", "process-info*", "sysctl-read", "sysctl-write",
		"mach-lookup", "mach-host*", "user-preference-read", "ipc-posix-shm-read*", "ipc-posix-shm", "ipc-posix-sem", "iokit-open",
		"system-socket", "file-read*", "file-read-metadata", "file-write*", "file-write-data", "file-write-unlink",
		"file-ioctl", "file-link", "file-clone", "pseudo-tty", "network-outbound", "network-inbound", "network-bind"}
	knownFilters = []string{"literal", "subpath", "regex", "path-literal", "require-all", "require-any", "require-not",
		"vnode-type", "extension", "global-name", "local-name", "sysctl-name", "sysctl-name-prefix",
		"ipc-posix-name-prefix", "iokit-registry-entry-class", "socket-domain", "target", "remote", "local", "with"}
	// fixedPaths are the only paths a profile may hold as text: devices
	// and system sockets, the same on every Mac.
	fixedPaths = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper", "/dev/stdin",
		"/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/ptmx", "/private/var/run/mDNSResponder"}
	// keychainServices must never be looked up from inside.
	keychainServices = []string{"com.apple.SecurityServer", "com.apple.securityd", "com.apple.securityd.xpc",
		"com.apple.security.keychaind", "com.apple.secd", "com.apple.security.agent"}
	contentOps = []string{"file-read*", "file-write*", "file-write-data", "file-link", "file-clone"}
)

// A pathRule is a rule about paths, as the checker sees it.
type pathRule struct {
	index  int
	allow  bool
	ops    []string
	unix   bool     // about Unix sockets (network-*)
	paths  []string // subpath values, "=" prefixed for literal ones
	all    bool     // no path filter: every path
	params []string // the parameters named
	line   int
}

// profileProblems checks sp, made for p, and returns what is wrong:
// parentheses and strings, operations and filters from the known lists,
// paths only as parameters (or fixed device paths), every hidden path
// denied after every rule that could allow it (Seatbelt takes the last
// match), every read-only path refused writes after every rule that
// allows them, no hard links, the keychain services never allowed.
func profileProblems(sp *SeatbeltProfile, p *Policy) []string {
	var out []string
	bad := func(f string, a ...any) { out = append(out, fmt.Sprintf(f, a...)) }
	forms, err := parseSBPL(sp.Text)
	if err != nil {
		return []string{err.Error()}
	}
	values := map[string]string{}
	for _, prm := range sp.Params {
		if !regexp.MustCompile(`^[A-Z]+_[0-9]+$`).MatchString(prm.Name) {
			bad("parameter name %q", prm.Name)
		}
		values[prm.Name] = prm.Value
	}
	noComments := regexp.MustCompile(`(?m);.*$`).ReplaceAllString(sp.Text, "")
	for _, prm := range sp.Params {
		if strings.Contains(noComments, prm.Value) {
			bad("the path %q is written into the profile", prm.Value)
		}
	}
	if len(forms) < 2 || forms[0].head() != "version" || forms[1].head() != "deny" || forms[1].list[1].atom != "default" {
		bad("the profile must start with (version 1) (deny default)")
	}
	var rules []pathRule
	lastKeychainAllow, firstKeychainDeny := -1, -1
	for idx, f := range forms[1:] {
		action := f.head()
		if action != "allow" && action != "deny" {
			bad("line %d: a top-level form that is not allow or deny: %q", f.line, action)
			continue
		}
		r := pathRule{index: idx, allow: action == "allow", line: f.line}
		for _, e := range f.list[1:] {
			if !e.isList() {
				if !slices.Contains(knownOps, e.atom) {
					bad("line %d: unknown operation %q", f.line, e.atom)
				}
				r.ops = append(r.ops, e.atom)
				if strings.HasPrefix(e.atom, "network-") {
					r.unix = true
				}
				continue
			}
			checkFilter(e, values, &r, bad)
		}
		if len(r.paths) == 0 && !hasFilter(f) {
			r.all = true
		}
		for _, e := range f.list[1:] {
			for _, name := range globalNames(e) {
				if slices.Contains(keychainServices, name) {
					if r.allow {
						lastKeychainAllow = idx
					} else if firstKeychainDeny < 0 {
						firstKeychainDeny = idx
					}
				}
			}
		}
		rules = append(rules, r)
	}
	for _, r := range rules {
		if r.allow && slices.Contains(r.ops, "file-link") {
			bad("line %d: hard links allowed (a write through one is judged by its new name)", r.line)
		}
	}
	if lastKeychainAllow >= 0 || firstKeychainDeny < 0 {
		bad("a keychain service is allowed, or not denied")
	}
	visible := darwinPaths(p.Visible)
	// Every hidden path: denied content and connections, after every
	// allow that reaches it.
	for _, h := range darwinPaths(slices.Concat(p.Hidden, p.Missing, p.HostSockets)) {
		for _, kind := range []struct {
			unix bool
			ops  []string
		}{{false, []string{"file-read*", "file-write*"}}, {true, []string{"network-outbound"}}} {
			last := lastDeny(rules, h, kind.unix, kind.ops)
			if last < 0 {
				bad("the hidden path %s is not denied (%v)", h, kind.ops)
				continue
			}
			for _, r := range rules {
				if r.allow && r.unix == kind.unix && r.index > last && reaches(r, h, visible) {
					bad("line %d: an allowance after the last denial of the hidden path %s", r.line, h)
				}
			}
		}
	}
	// Read-only: every path of the policy's read-only lists, git's
	// configuration files included, and paths their globs match.
	var readOnly []string
	for _, pat := range slices.Concat(p.ReadOnly, p.Guarded, p.GitConfig) {
		if hasGlob(pat) {
			readOnly = append(readOnly, globSamples(pat)...)
		} else {
			readOnly = append(readOnly, pat)
		}
	}
	for _, ro := range darwinPaths(readOnly) {
		last := lastDeny(rules, ro, false, []string{"file-write*"})
		if last < 0 {
			bad("the read-only path %s is not denied writes", ro)
		}
		for _, r := range rules {
			if r.allow && !r.unix && r.index > last && slices.ContainsFunc(r.ops, func(op string) bool { return strings.HasPrefix(op, "file-write") || op == "file-link" }) && reaches(r, ro, nil) {
				bad("line %d: writes allowed after the last denial of the read-only path %s", r.line, ro)
			}
		}
	}
	return out
}

// checkFilter checks a filter form and records the paths it names.
func checkFilter(e sexp, values map[string]string, r *pathRule, bad func(string, ...any)) {
	h := e.head()
	if !slices.Contains(knownFilters, h) {
		bad("line %d: unknown filter %q", e.line, h)
		return
	}
	switch h {
	case "literal", "subpath", "path-literal", "regex":
		if len(e.list) != 2 {
			bad("line %d: %s takes one argument", e.line, h)
			return
		}
		arg := e.list[1]
		switch {
		case arg.head() == "param" && len(arg.list) == 2 && arg.list[1].str != nil:
			name := *arg.list[1].str
			v, ok := values[name]
			if !ok {
				bad("line %d: the parameter %q is not passed", e.line, name)
			}
			if h == "regex" {
				bad("line %d: a parameter used as a regex", e.line)
			}
			prefix := ""
			if h != "subpath" {
				prefix = "="
			}
			r.paths = append(r.paths, prefix+v)
			r.params = append(r.params, name)
		case arg.str != nil && arg.re && h == "regex":
			if !strings.HasPrefix(*arg.str, "^/dev/") {
				bad("line %d: a regex outside /dev: %q", e.line, *arg.str)
			}
			r.paths = append(r.paths, "~"+*arg.str)
		case arg.str != nil && !arg.re:
			if !slices.Contains(fixedPaths, *arg.str) {
				bad("line %d: the path %q is written into the profile", e.line, *arg.str)
			}
			r.paths = append(r.paths, "="+*arg.str)
		default:
			bad("line %d: %s of something that is neither a parameter nor a fixed path", e.line, h)
		}
	case "remote", "local":
		for _, a := range e.list[1:] {
			if a.isList() {
				checkFilter(a, values, r, bad)
			} else if a.atom != "unix-socket" && a.atom != "ip" {
				bad("line %d: %s %q", e.line, h, a.atom)
			}
		}
	case "require-all", "require-any", "require-not":
		// A read-only pattern at any depth: below a parameter's
		// directory, the paths a regex of their end matches.
		if dir, re, ok := deepFilter(e, values); ok {
			r.paths = append(r.paths, "&"+dir+"\x00"+re)
			return
		}
		for _, a := range e.list[1:] {
			checkFilter(a, values, r, bad)
		}
	}
}

// deepFilter reports whether e is (require-all (subpath (param N))
// (regex #"...")), the regex matching the end of a path below the
// directory N holds, and returns both.
func deepFilter(e sexp, values map[string]string) (dir, re string, ok bool) {
	if e.head() != "require-all" || len(e.list) != 3 {
		return "", "", false
	}
	sub, rx := e.list[1], e.list[2]
	if sub.head() != "subpath" || len(sub.list) != 2 || sub.list[1].head() != "param" || len(sub.list[1].list) != 2 || sub.list[1].list[1].str == nil ||
		rx.head() != "regex" || len(rx.list) != 2 || rx.list[1].str == nil || !rx.list[1].re {
		return "", "", false
	}
	dir, ok = values[*sub.list[1].list[1].str]
	re = *rx.list[1].str
	if !ok || !strings.HasPrefix(re, "/") || !strings.HasSuffix(re, "$") {
		return "", "", false
	}
	if _, err := regexp.Compile(re); err != nil {
		return "", "", false
	}
	return dir, re, true
}

// deepMatch reports whether path is below dir and re matches it.
func deepMatch(m, path string) bool {
	dir, re, _ := strings.Cut(m[1:], "\x00")
	return Within(path, dir) && path != dir && regexp.MustCompile(re).MatchString(path)
}

// globSamples returns paths a glob pattern ("*" within a name, "**" any
// run of directories) matches: "**" as no directory and as two, "*" as
// a name, and a file below the match.
func globSamples(pat string) []string {
	var out []string
	for _, deep := range []string{"", "d1/d2/"} {
		s := strings.ReplaceAll(pat, "**/", deep)
		s = strings.ReplaceAll(s, "*", "n1")
		out = append(out, s, s+"/f")
	}
	return out
}

func hasFilter(f sexp) bool {
	return slices.ContainsFunc(f.list[1:], func(e sexp) bool { return e.isList() })
}

func globalNames(e sexp) []string {
	if e.head() == "global-name" && len(e.list) == 2 && e.list[1].str != nil {
		return []string{*e.list[1].str}
	}
	var out []string
	for _, a := range e.list {
		if a.isList() {
			out = append(out, globalNames(a)...)
		}
	}
	return out
}

// lastDeny is the index of the last deny rule of the given kind whose
// path filters cover path with all of ops, or -1.
func lastDeny(rules []pathRule, path string, unix bool, ops []string) int {
	last := -1
	for _, r := range rules {
		if r.allow || r.unix != unix || !slices.ContainsFunc(r.paths, func(m string) bool {
			if strings.HasPrefix(m, "&") {
				return deepMatch(m, path)
			}
			return !strings.HasPrefix(m, "=") && Within(path, m)
		}) {
			continue
		}
		if !slices.ContainsFunc(ops, func(op string) bool { return !slices.Contains(r.ops, op) }) {
			last = r.index
		}
	}
	return last
}

// reaches reports whether allow rule r could let a command at the
// content of path or anything inside it, other than the visible paths
// inside it (and the lookup of path itself, file-read-metadata).
func reaches(r pathRule, path string, visible []string) bool {
	if !slices.ContainsFunc(r.ops, func(op string) bool { return slices.Contains(contentOps, op) || strings.HasPrefix(op, "network-") }) {
		return false
	}
	if r.all {
		return true
	}
	for _, m := range r.paths {
		switch {
		case strings.HasPrefix(m, "~"):
			if regexp.MustCompile(m[1:]).MatchString(path) {
				return true
			}
		case strings.HasPrefix(m, "="):
			if v := m[1:]; Within(v, path) && !slices.Contains(visible, v) {
				return true
			}
		default:
			if Within(path, m) || Within(m, path) && !slices.ContainsFunc(visible, func(v string) bool { return Within(m, v) }) {
				return true
			}
		}
	}
	return false
}

// BenchmarkSeatbeltProfile makes the profile and sandbox-exec's command
// line for a policy of the size the built-in rules give (90 hidden
// paths), as the shim does before every command on macOS.
func BenchmarkSeatbeltProfile(b *testing.B) {
	p := seatbeltPolicies()["hidden-inside-writable"]
	for i := range 80 {
		p.Hidden = append(p.Hidden, fmt.Sprintf("/Users/dev/.cred%02d", i))
	}
	b.ReportAllocs()
	for b.Loop() {
		sp := NewSeatbeltProfile(p, "")
		_ = sp.Args([]string{"/bin/zsh", "zsh", "-c", "true"})
	}
}

// TestSeatbeltProfileOfThisMachine checks the profile of a policy
// resolved here, as cordon sandbox --platform darwin makes it: a
// workspace under the temporary directory, credentials inside a writable
// cache, a socket of another program in scratch.
func TestSeatbeltProfileOfThisMachine(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	ws := filepath.Join(base, "work space", hostile)
	for _, f := range []string{".ssh/id_ed25519", ".ssh/known_hosts", ".cache/huggingface/token", ".aws/credentials"} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o755)
		os.WriteFile(filepath.Join(home, f), []byte("x"), 0o600)
	}
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644)
	s := &Spec{
		Workspace: ws,
		Scratch:   []string{base},
		Writable:  []string{"~/.cache"},
		ReadOnly:  []string{".git/hooks", ".git/config"},
		Hidden:    []string{"~/.ssh", "~/.aws", "~/.cache/huggingface/token", "~/.config/gh", "~/Library/Keychains"},
		Visible:   []string{"~/.ssh/known_hosts"},
	}
	for _, network := range []Network{NetworkOn, NetworkOff} {
		s.Network = network
		p, err := NewPolicy(s, []string{"HOME=" + home})
		if err != nil {
			t.Fatal(err)
		}
		sp := NewSeatbeltProfile(p, "")
		checkProfile(t, sp, p)
		if strings.Contains(sp.Text, base) {
			t.Errorf("a path is in the profile")
		}
	}
}

// TestSeatbeltTaggedDenies checks that with a tag every deny rule names
// it, so that the log's reports of hidden paths can be told apart, and
// that the tagged profile still passes the checks.
func TestSeatbeltTaggedDenies(t *testing.T) {
	p := seatbeltPolicies()["hidden-inside-writable"]
	sp := NewSeatbeltProfile(p, "cordon-77")
	checkProfile(t, sp, p)
	forms, err := parseSBPL(sp.Text)
	if err != nil {
		t.Fatal(err)
	}
	denies := 0
	for _, f := range forms {
		if f.head() != "deny" {
			continue
		}
		denies++
		last := f.list[len(f.list)-1]
		if last.head() != "with" || len(last.list) != 3 || last.list[1].atom != "message" || last.list[2].str == nil || *last.list[2].str != "cordon-77" {
			t.Errorf("line %d: a deny rule without the tag", f.line)
		}
	}
	if denies < 8 {
		t.Errorf("only %d deny rules", denies)
	}
	untagged := NewSeatbeltProfile(p, "")
	if strings.Contains(untagged.Text, "with message") {
		t.Errorf("an ordinary profile carries a tag")
	}
}

// TestSeatbeltGlobs checks the regexes made of read-only patterns with
// globs: what they match below their directory, and that a name no
// regex here may hold keeps the whole directory read-only.
func TestSeatbeltGlobs(t *testing.T) {
	ws := "/Users/dev/w"
	for _, c := range []struct {
		pat      string
		yes, no  []string
		wholeDir bool
	}{
		{pat: ws + "/.git/modules/*/**/config",
			yes: []string{"/lib/config", "/lib/dep/config", "/a/b/c/config", "/lib/config/x"},
			no:  []string{"/lib/configx", "/lib/dep/config.lock", "/lib/dep/HEAD"}},
		{pat: ws + "/.git/worktrees/*/config.worktree",
			yes: []string{"/w1/config.worktree"},
			no:  []string{"/w1/configXworktree", "/w1/config.worktree.lock"}},
		{pat: ws + "/.git/modules/*/**/hooks",
			yes: []string{"/lib/hooks", "/lib/hooks/pre-commit", "/lib/dep/hooks/post-checkout"},
			no:  []string{"/lib/hooksx", "/lib/dep/objects/ab"}},
		{pat: ws + "/.idea/run*.xml", yes: []string{"/run.xml", "/runAll.xml"}, no: []string{"/run.xmlx", "/rxnxxml"}},
		{pat: ws + "/a/b?c/d", wholeDir: true},
		{pat: ws + "/a/\"x*/d", wholeDir: true},
	} {
		g := seatbeltGlobs([]string{c.pat})
		if len(g) != 1 {
			t.Fatalf("%s: %v", c.pat, g)
		}
		if strings.ContainsAny(g[0].tail, "\\\"") {
			t.Errorf("%s: the regex %q holds a quote or a backslash", c.pat, g[0].tail)
		}
		if c.wholeDir != (g[0].tail == "/") {
			t.Errorf("%s: regex %q", c.pat, g[0].tail)
		}
		re := regexp.MustCompile(g[0].tail)
		for _, rel := range c.yes {
			if !re.MatchString(g[0].dir + rel) {
				t.Errorf("%s: %q does not match %s%s", c.pat, g[0].tail, g[0].dir, rel)
			}
		}
		for _, rel := range c.no {
			if re.MatchString(g[0].dir + rel) {
				t.Errorf("%s: %q matches %s%s", c.pat, g[0].tail, g[0].dir, rel)
			}
		}
	}
}

// TestSeatbeltOrdinaryTools checks the allowances ordinary tools need
// on a Mac (each named in docs/macos.md), and that nothing runs outside
// the sandbox (Codex lets /bin/ps do so).
func TestSeatbeltOrdinaryTools(t *testing.T) {
	text := NewSeatbeltProfile(seatbeltPolicies()["network-off"], "").Text
	for _, want := range []string{
		"(allow mach-host*)", // Node's os.cpus()
		`(allow mach-lookup (global-name "com.apple.FSEvents"))`, // file watchers
		`(sysctl-name "kern.bootargs")`,
		`(sysctl-name "security.mac.lockdown_mode_state")`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the profile lacks %s", want)
		}
	}
	if strings.Contains(text, "no-sandbox") {
		t.Errorf("the profile runs something outside the sandbox")
	}
}

// TestDarwinUserDirs checks that of /private/var/folders only the
// user's own T and C directories are named, found next to a TMPDIR of
// the shape macOS gives, and that the environment cannot name them.
func TestDarwinUserDirs(t *testing.T) {
	for _, c := range []struct{ tmpdir, temp, cache string }{
		{"/var/folders/x1/abc_123/T/", "/private/var/folders/x1/abc_123/T", "/private/var/folders/x1/abc_123/C"},
		{"/private/var/folders/x1/abc_123/T", "/private/var/folders/x1/abc_123/T", "/private/var/folders/x1/abc_123/C"},
		{"/var/folders/x1/abc_123/T/../0", "", ""},
		{"/var/folders/x1/T", "", ""},
		{"/var/folders/x1/abc_123/T/sub", "", ""},
		{"/tmp", "", ""},
		{"/home/u/tmp", "", ""},
		{"", "", ""},
	} {
		env := []string{"TMPDIR=" + c.tmpdir, "DARWIN_USER_CACHE_DIR=/", "DARWIN_USER_TEMP_DIR=/Users/dev"}
		r := resolver{getenv: envLookup(env)}
		for _, v := range []struct{ name, want string }{{"$DARWIN_USER_TEMP_DIR", c.temp}, {"$DARWIN_USER_CACHE_DIR", c.cache}} {
			got, ok := r.expand(v.name)
			if !ok {
				got = ""
			}
			if got != v.want {
				t.Errorf("TMPDIR=%q: %s is %q, want %q", c.tmpdir, v.name, got, v.want)
			}
		}
	}
}

// TestSeatbeltEnv: under Seatbelt a checkout that makes a branch from a
// remote one does not set it to track (that would write the read-only
// .git/config), after what the agent set itself.
func TestSeatbeltEnv(t *testing.T) {
	env := SeatbeltEnv([]string{"HOME=/Users/dev", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=cat"})
	for _, want := range []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_KEY_1=branch.autoSetupMerge", "GIT_CONFIG_VALUE_1=false", "HOME=/Users/dev"} {
		if !slices.Contains(env, want) {
			t.Errorf("no %s in %q", want, env)
		}
	}
}

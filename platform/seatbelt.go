package platform

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The macOS backend confines a program with Seatbelt, the kernel's
// sandbox, through /usr/bin/sandbox-exec: a profile in SBPL (a Scheme
// dialect) and its parameters. This file makes both from a [Policy]; it
// builds on every system, so that the profile can be reviewed and tested
// anywhere (cordon sandbox --platform darwin).
//
// Every path reaches the profile as a parameter (-D NAME=VALUE, read with
// (param "NAME")), never as text: a workspace named `a") (allow default)
// ("` is one string to Seatbelt, not SBPL. Seatbelt applies the last rule
// that matches an operation, so the profile lists what is allowed first,
// then what is kept read-only, then what is hidden.

// SeatbeltExec is sandbox-exec, always run by this absolute path: one
// found on PATH could be anything a command put there.
const SeatbeltExec = "/usr/bin/sandbox-exec"

// A SeatbeltParam is one -D parameter of the profile.
type SeatbeltParam struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// A SeatbeltProfile is the profile that confines a program by a policy,
// and the parameters it reads.
type SeatbeltProfile struct {
	Text   string          `json:"profile"`
	Params []SeatbeltParam `json:"params"`
}

// denialTag is what a denial tag may hold (see [NewSeatbeltProfile]),
// compiled on first use (only macOS's sandbox uses it).
var denialTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// NewSeatbeltProfile returns the Seatbelt profile for p. tag, when not
// empty, is put on every deny rule (with message), so that the system
// log's reports about this sandbox can be told from others' (cordon run
// --explain-denials); it is made by cordon and must match
// denialTag, else it is left out.
func NewSeatbeltProfile(p *Policy, tag string) *SeatbeltProfile {
	g := &sbGen{}
	g.b.Grow(8<<10 + 200*(len(p.Hidden)+len(p.Writable)+len(p.ReadOnly)))
	g.line("(version 1)")
	g.line("; cordon's Seatbelt profile, made from the sandbox policy (see `cordon sandbox --platform darwin`).")
	g.line("; Every path is a -D parameter: no path is written into this text.")
	g.line("; Seatbelt takes the last rule that matches: allowances first, then read-only, then hidden.")
	if denialTag().MatchString(tag) {
		g.line(`(deny default (with message "` + tag + `"))`)
	} else {
		g.line("(deny default)")
	}
	g.text(sbBase)
	if p.Network != NetworkOff {
		g.text(sbNetworkOn)
	}

	writable := darwinPaths(p.WritableRoots())
	// The files tools run on their own are kept from being made where
	// there is none yet (.envrc): a path rule needs nothing there.
	// git's configuration files too: the guard that undoes a command's
	// changes to their code-running keys runs on Linux only, so here
	// they are read-only, as on Windows.
	readOnly := darwinPaths(slices.Concat(p.ReadOnly, noGlobs(p.Guarded), noGlobs(p.GitConfig)))
	deep := seatbeltGlobs(slices.Concat(p.Guarded, p.GitConfig))
	hidden := darwinPaths(slices.Concat(p.Hidden, p.FilteredPaths(), p.Missing, p.HostSockets)) // (no file laid over another here)
	visible := darwinPaths(p.Visible)
	sockets := darwinPaths(p.Sockets)
	var deepDirs []string
	for _, d := range deep {
		deepDirs = append(deepDirs, d.dir+"/x") // the directory itself is pinned
	}
	pins := darwinPaths(pinsOf(slices.Concat(p.ReadOnly, p.Hidden, p.Missing, p.HostSockets, deepDirs), p.WritableRoots()))

	w := g.params("WRITABLE", writable)
	g.comment("Files")
	g.comment("reading: everything but the hidden paths below (tools, SDKs, the developer directory, caches)")
	g.comment("no hard links anywhere: Seatbelt judges a link by its new name, and writes through it by that name (ln ~/.zshrc x; echo >> x); pnpm and git copy instead")
	g.line("(allow file-read*)")
	if len(w) > 0 {
		g.comment("writing: the workspace, scratch ($TMPDIR, /private/tmp), tool caches, agents' files")
		g.rule("allow", "file-write*", "subpath", w)
		g.comment("Unix sockets made and used within them (test servers, language servers, git's fsmonitor)")
		g.rule("allow", "network-bind", "local unix-socket subpath", w)
		g.rule("allow", "network-inbound", "local unix-socket subpath", w)
		g.rule("allow", "network-outbound", "remote unix-socket subpath", w)
	}
	if p.Network != NetworkOff {
		g.comment("name resolution goes through mDNSResponder's socket")
		g.line(`(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))`)
	}
	if ro := g.params("READONLY", readOnly); len(ro) > 0 {
		g.comment("Read-only inside the writable directories, and not to be made there: .git/hooks, .git/config, files tools run on their own (.envrc, .vscode/tasks.json), cordon's rules")
		g.rule("deny", "file-write* file-link", "subpath", ro)
	}
	if len(deep) > 0 {
		g.comment("the same at any depth (a submodule's .git/modules/NAME/config and hooks): a directory and, below it, the paths that end so")
		dirs := make([]string, len(deep))
		for i, d := range deep {
			dirs[i] = DarwinPath(d.dir)
		}
		for i, name := range g.params("RODEEP", dirs) {
			g.line(`(deny file-write* file-link (require-all (subpath (param "` + name + `")) (regex #"` + deep[i].tail + `")))`)
		}
	}
	if pn := g.params("PIN", pins); len(pn) > 0 {
		g.comment("the directories that hold read-only or hidden paths cannot be renamed or removed (mv .git .git.old would carry them off)")
		g.rule("deny", "file-write-unlink", "literal", pn)
	}
	if h := g.params("HIDDEN", hidden); len(h) > 0 {
		g.comment("Hidden: credentials and other programs' sockets, neither read nor written nor linked nor connected to")
		g.rule("deny", "file-read* file-write* file-link file-clone", "subpath", h)
		g.rule("deny", "network-outbound", "remote unix-socket subpath", h)
		var meta []string
		for i, dir := range hidden {
			if slices.ContainsFunc(visible, func(v string) bool { return Within(v, dir) && v != dir }) {
				meta = append(meta, h[i])
			}
		}
		if len(meta) > 0 {
			g.comment("a hidden directory that holds readable files can be looked up (stat), not listed or read")
			g.rule("allow", "file-read-metadata", "literal", meta)
		}
	}
	if v := g.params("VISIBLE", visible); len(v) > 0 {
		g.comment("readable inside hidden directories (~/.ssh/known_hosts, ~/.ssh/config)")
		g.rule("allow", "file-read*", "subpath", v)
	}
	if s := g.params("SOCKET", sockets); len(s) > 0 {
		g.comment("the host's sockets the policy names (an IDE's bridge), even inside a hidden directory")
		g.rule("allow", "network-outbound", "remote unix-socket subpath", s)
	}
	g.text(sbFinal)
	text := g.b.String()
	if denialTag().MatchString(tag) {
		text = tagDenies(text, tag)
	}
	return &SeatbeltProfile{Text: text, Params: g.out}
}

// tagDenies puts (with message "tag") on every deny rule of text but the
// default one (which has it already), so that the log's reports of the
// hidden and read-only paths name this sandbox too. text is a profile
// made here: top-level forms, strings without parentheses' meaning.
func tagDenies(text, tag string) string {
	var b strings.Builder
	depth, start := 0, -1
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ';' && depth == 0:
			for i < len(text) && text[i] != '\n' {
				b.WriteByte(text[i])
				i++
			}
			if i < len(text) {
				b.WriteByte('\n')
			}
			continue
		case c == '"':
			j := i + 1
			for j < len(text) && text[j] != '"' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(text[i:min(j+1, len(text))])
			i = j
			continue
		case c == '(':
			if depth == 0 {
				start = i
			}
			depth++
		case c == ')':
			depth--
			if depth == 0 && strings.HasPrefix(text[start:], "(deny ") && !strings.HasPrefix(text[start:], "(deny default") {
				b.WriteString(` (with message "` + tag + `")`)
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Args is the sandbox-exec command line that runs argv confined by the
// profile: [SeatbeltExec, -p, profile, -D, NAME=VALUE..., --, argv...].
func (sp *SeatbeltProfile) Args(argv []string) []string {
	args := []string{SeatbeltExec, "-p", sp.Text}
	for _, prm := range sp.Params {
		args = append(args, "-D", prm.Name+"="+prm.Value)
	}
	return append(append(args, "--"), argv...)
}

// Listing is the profile followed by its parameters, as comments, each
// value quoted: what cordon sandbox --platform darwin prints.
func (sp *SeatbeltProfile) Listing() string {
	var b strings.Builder
	b.WriteString(sp.Text)
	b.WriteString(";; parameters (-D NAME=VALUE, shown quoted):\n")
	for _, p := range sp.Params {
		fmt.Fprintf(&b, ";;   %s=%q\n", p.Name, p.Value)
	}
	return b.String()
}

// sbGen writes a profile.
type sbGen struct {
	b   strings.Builder
	out []SeatbeltParam
}

func (g *sbGen) line(s string)    { g.b.WriteString(s + "\n") }
func (g *sbGen) comment(s string) { g.line("; " + s) }
func (g *sbGen) text(s string)    { g.b.WriteString(strings.TrimLeft(s, "\n")) }

// params adds a parameter for each path, named PREFIX_0, PREFIX_1, ...,
// and returns their names.
func (g *sbGen) params(prefix string, paths []string) []string {
	names := make([]string, len(paths))
	for i, v := range paths {
		names[i] = prefix + "_" + strconv.Itoa(i)
		g.out = append(g.out, SeatbeltParam{names[i], v})
	}
	return names
}

// rule writes (action ops FILTER...) with one filter per parameter:
// filter is a path filter ("subpath", "literal") after optional words
// that wrap it ("remote unix-socket subpath" gives (remote unix-socket
// (subpath (param "N")))).
func (g *sbGen) rule(action, ops, filter string, names []string) {
	open, close := "(", ")"
	if i := strings.LastIndexByte(filter, ' '); i >= 0 {
		open, close, filter = "("+filter[:i]+" (", "))", filter[i+1:]
	}
	g.b.WriteString("(" + action + " " + ops)
	for _, n := range names {
		// Names are PREFIX_N: nothing in them to escape.
		g.b.WriteString("\n  " + open + filter + ` (param "` + n + `")` + close)
	}
	g.b.WriteString(")\n")
}

// darwinPaths returns the paths in the form Seatbelt matches: the real
// path, under /private for /tmp, /var and /etc (links to it on macOS;
// a policy made on a Mac has them resolved already), sorted, each once.
func darwinPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, DarwinPath(p))
	}
	return sortedUnique(out)
}

// DarwinPath returns p with /tmp, /var and /etc, macOS's links into
// /private, replaced by their targets.
func DarwinPath(p string) string {
	for _, l := range []string{"/tmp", "/var", "/etc"} {
		if Within(p, l) {
			return "/private" + p
		}
	}
	return p
}

// noGlobs returns the paths of patterns that hold no glob.
func noGlobs(patterns []string) []string {
	return slices.DeleteFunc(slices.Clone(patterns), hasGlob)
}

// A seatbeltGlob is a read-only pattern with globs as Seatbelt matches
// it: paths below dir (a parameter) that tail, a regex, matches.
type seatbeltGlob struct{ dir, tail string }

// seatbeltGlobs turns the patterns that hold globs ("*" within a name,
// "**" any run of directories) into a directory without globs and a
// regex of what follows it, anchored at the end only (dir says where it
// starts): a path of the pattern, or below one. A regex matches a
// little more than its pattern where a "*" starts the tail (the
// directory's own depth is not counted): more is kept read-only, never
// less. A pattern with a character a regex literal cannot hold keeps
// its whole directory read-only.
func seatbeltGlobs(patterns []string) []seatbeltGlob {
	var out []seatbeltGlob
	for _, pat := range patterns {
		if !hasGlob(pat) {
			continue
		}
		parts := strings.Split(pat, "/")
		i := slices.IndexFunc(parts, hasGlob)
		dir := strings.Join(parts[:i], "/")
		if dir == "" || dir == "/" {
			continue // not a place inside a workspace
		}
		out = append(out, seatbeltGlob{dir, globTail(parts[i:])})
	}
	slices.SortFunc(out, func(a, b seatbeltGlob) int { return strings.Compare(a.dir+"\x00"+a.tail, b.dir+"\x00"+b.tail) })
	return slices.Compact(out)
}

// globTail is the regex of the path components parts, each after a
// "/", and of anything below them; "/" (all below) when a part holds
// what is not written here (a quote, a backslash, "?", brackets, "^",
// a control character).
func globTail(parts []string) string {
	var b strings.Builder
	for _, part := range parts {
		if strings.ContainsAny(part, "\"?[]^\\") || strings.ContainsFunc(part, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return "/"
		}
		switch {
		case part == "**":
			b.WriteString("(/.+)?")
		case part == "*":
			b.WriteString("/[^/]+")
		default:
			b.WriteString("/")
			for j, lit := range strings.Split(part, "*") {
				if j > 0 {
					b.WriteString("[^/]*")
				}
				b.WriteString(regexLiteral(lit))
			}
		}
	}
	b.WriteString("(/.*)?$")
	return b.String()
}

// regexLiteral is s as a regex, its special characters in brackets
// ("[.]"): no backslash, which SBPL's string literals would read.
func regexLiteral(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(".+*()|{}$", r) {
			b.WriteString("[" + string(r) + "]")
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pinsOf returns the directories between a root and a path inside it
// (the deepest root holding it), the path itself left out: what must
// not be renamed away for the path to stay where a path rule sees it.
func pinsOf(paths, roots []string) []string {
	var pins []string
	for _, ro := range paths {
		root := ""
		for _, w := range roots {
			if Within(ro, w) && ro != w && len(w) > len(root) {
				root = w
			}
		}
		if root == "" {
			continue
		}
		for d := filepath.Dir(ro); d != root && Within(d, root); d = filepath.Dir(d) {
			pins = append(pins, d)
		}
	}
	return sortedUnique(pins)
}

// sbBase is what ordinary developer tools need under (deny default), the
// same for every policy. Each allowance says who needs it.
const sbBase = `
; Processes
; the shell runs programs (git, make, compilers), which run others
(allow process-exec)
(allow process-fork)
; kill, wait and job control among the command's own processes, none outside
(allow signal (target same-sandbox))
; pgrep and libproc about the command's own processes (/bin/ps is setuid root: Seatbelt refuses to start it, and cordon runs nothing outside the sandbox)
(allow process-info* (target same-sandbox))
; the processor list of the host (host_processor_info): Node's os.cpus(), and the worker counts npm, yarn and node-gyp take from it
(allow mach-host*)

; System facts
; CPU count, memory, page size, OS version: Go, Node, Python, Rust, Java, make -j, uname, sw_vers
(allow sysctl-read
  (sysctl-name "hw.activecpu")
  (sysctl-name "hw.byteorder")
  (sysctl-name "hw.cachelinesize")
  (sysctl-name "hw.cachelinesize_compat")
  (sysctl-name "hw.cacheconfig")
  (sysctl-name "hw.cpufamily")
  (sysctl-name "hw.cpufrequency")
  (sysctl-name "hw.cpufrequency_compat")
  (sysctl-name "hw.busfrequency_compat")
  (sysctl-name "hw.cputype")
  (sysctl-name "hw.cpusubtype")
  (sysctl-name "hw.l1dcachesize_compat")
  (sysctl-name "hw.l1icachesize_compat")
  (sysctl-name "hw.l2cachesize_compat")
  (sysctl-name "hw.l3cachesize_compat")
  (sysctl-name "hw.logicalcpu")
  (sysctl-name "hw.logicalcpu_max")
  (sysctl-name "hw.machine")
  (sysctl-name "hw.memsize")
  (sysctl-name "hw.model")
  (sysctl-name "hw.ncpu")
  (sysctl-name "hw.nperflevels")
  (sysctl-name "hw.packages")
  (sysctl-name "hw.pagesize")
  (sysctl-name "hw.pagesize_compat")
  (sysctl-name "hw.physicalcpu")
  (sysctl-name "hw.physicalcpu_max")
  (sysctl-name "hw.tbfrequency_compat")
  (sysctl-name "hw.vectorunit")
  (sysctl-name-prefix "hw.optional.")
  (sysctl-name-prefix "hw.perflevel")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfiles")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.ngroups")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.tcsm_available")
  (sysctl-name "kern.tcsm_enable")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name "machdep.cpu.brand_string")
  (sysctl-name-prefix "machdep.cpu.")
  (sysctl-name "machdep.ptrauth_enabled")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg")
  ; read at every Node start and by env: denied, they only flood --explain-denials
  (sysctl-name "kern.bootargs")
  (sysctl-name "security.mac.lockdown_mode_state")
  ; pgrep and Python's psutil list processes (names and ids, not arguments)
  (sysctl-name-prefix "kern.proc.all")
  (sysctl-name-prefix "kern.proc.pgrp.")
  (sysctl-name-prefix "kern.proc.pid.")
  ; Go's and Node's network interface listing
  (sysctl-name-prefix "net.routetable."))
; Java asks for its CPU type with a sysctl that counts as a write
(allow sysctl-write (sysctl-name "kern.grade_cputype"))
; V8 (Node) turns on a per-thread CPU mitigation for itself
(allow sysctl-write (sysctl-name "kern.tcsm_enable"))

; System services
; user and group names: whoami, id, ls -l, git, ssh
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership"))
; the per-user temporary and cache directories (confstr): the xcrun shims /usr/bin/git, python3, make, clang
(allow mach-lookup (global-name "com.apple.bsd.dirhelper"))
; preferences, read only: xcrun, xcode-select, defaults read
(allow user-preference-read)
(allow mach-lookup
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (local-name "com.apple.cfprefsd.agent"))
(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.cfprefs."))
; file watchers (FSEvents): chokidar and fsevents (vite, webpack, jest --watch), Rust's notify, watchdog, watchman; and Xcode's xcrun shims
(allow mach-lookup (global-name "com.apple.FSEvents"))
; os_log from system tools and libraries
(allow mach-lookup
  (global-name "com.apple.logd")
  (global-name "com.apple.system.logger"))
; notify(3): libc's caches (time zone, DNS settings) follow changes
(allow mach-lookup (global-name "com.apple.system.notification_center"))
; power assertions: caffeinate, xcodebuild and test runners keep the Mac awake
(allow mach-lookup (global-name "com.apple.PowerManagement.control"))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
; POSIX semaphores and shared memory: Python multiprocessing, PyTorch and OpenMP
(allow ipc-posix-sem)
(allow ipc-posix-shm)
; Unix sockets (which ones may be reached is said below, by path)
(allow system-socket (socket-domain AF_UNIX))

; Devices
; /dev/null and /dev/zero, only as the character devices they are: every 2>/dev/null
(allow file-write-data file-ioctl
  (require-all
    (require-any (literal "/dev/null") (literal "/dev/zero"))
    (vnode-type CHARACTER-DEVICE)))
(allow file-ioctl (literal "/dev/random") (literal "/dev/urandom"))
; dyld registers the DTrace probes of node, python and ruby
(allow file-write-data file-ioctl (literal "/dev/dtracehelper"))
; the standard streams and descriptors by name: echo >/dev/stderr, diff <(...) /dev/fd/3
(allow file-read* file-write*
  (literal "/dev/stdin")
  (literal "/dev/stdout")
  (literal "/dev/stderr")
  (regex #"^/dev/fd/[0-9]+$"))
; the controlling terminal: password prompts, read </dev/tty, stty
(allow file-read* file-write* file-ioctl (literal "/dev/tty"))
; terminal settings of the terminal the shell was given (isatty, line editing, window size)
(allow file-ioctl (regex #"^/dev/ttys[0-9]+$"))
; pseudo-terminals the command opens itself: script, expect, tmux, Python's pty
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write*
  (require-all
    (regex #"^/dev/ttys[0-9]+$")
    (extension "com.apple.sandbox.pty")))

`

// sbNetworkOn is added when the policy lets commands use the network.
const sbNetworkOn = `
; Network (on): any IP address; Unix sockets only by the path rules below
(allow network-outbound)
(allow network-inbound)
(allow network-bind)
(deny network-outbound (remote unix-socket))
(deny network-bind (local unix-socket))
; routes and interfaces (AF_SYSTEM control sockets): Go's net, curl, ifconfig
(allow system-socket)
; DNS settings, proxies and reachability: every resolver
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.networkd"))
; certificate trust and revocation for TLS through Apple's Security framework (swift, git, curl)
(allow mach-lookup
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.ocspd"))

`

// sbFinal comes last: services that would undo the sandbox, denied
// whatever came before.
const sbFinal = `
; Out of reach whatever the rules above say
; the keychains: securityd hands out items (git's osxkeychain helper, security find-generic-password)
(deny mach-lookup
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.securityd")
  (global-name "com.apple.securityd.xpc")
  (global-name "com.apple.security.keychaind")
  (global-name "com.apple.secd")
  (global-name "com.apple.security.agent")
  (global-name "com.apple.security.authhost"))
; LaunchServices and Apple Events start programs outside the sandbox (open, osascript)
(deny mach-lookup
  (global-name "com.apple.coreservices.launchservicesd")
  (global-name "com.apple.coreservices.appleevents")
  (global-name "com.apple.lsd.mapdb")
  (global-name "com.apple.lsd.modifydb"))
`

// seatbeltGitConfig is git configuration every command under Seatbelt
// gets, where the workspace's git configuration files are read-only: a
// branch made from a remote one (git checkout BRANCH for origin/BRANCH,
// git checkout -b NAME origin/NAME) is not set to track it, which would
// write .git/config and fail the checkout.
var seatbeltGitConfig = [][2]string{{"branch.autoSetupMerge", "false"}}

// SeatbeltEnv returns env as a command under Seatbelt gets it: with
// [seatbeltGitConfig] after the configuration env already carries.
func SeatbeltEnv(env []string) []string { return WithGitConfig(env, seatbeltGitConfig) }

// SeatbeltRole is argv[1] of cordon when sandbox-exec starts it inside
// the sandbox, to set the limits and exec the program with its own
// argv[0] (see [SeatbeltMain]). main looks for it only when cordon does
// not run under a shell's name.
const SeatbeltRole = "cordon-seatbelt"

// ShellNames are the names of the POSIX shells cordon stands in for.
var ShellNames = []string{"bash", "sh", "dash", "zsh", "ksh"}

func isShellName(name string) bool { return slices.Contains(ShellNames, name) }

// TagDenials returns b set to mark its sandbox's denials with tag in the
// system log (see [NewSeatbeltProfile]), and true; false when b's
// denials are not logged (every backend but Seatbelt).
func TagDenials(b Backend, tag string) (Backend, bool) {
	t, ok := b.(interface{ withTag(string) Backend })
	if !ok || !denialTag().MatchString(tag) {
		return b, false
	}
	return t.withTag(tag), true
}

// SeatbeltDegradations says, in words a user understands, what the
// Seatbelt profile for p does not hold.
func SeatbeltDegradations(p *Policy) []string {
	out := []string{
		"Unix sockets the host makes in a writable directory (scratch) after a command starts can be connected to: only those found at its start are hidden",
		"a file that tools run on their own and that is not there yet (.vscode/tasks.json) cannot be written, but a new directory holding one can be renamed into place (mv x .vscode): the guard that puts such files aside after a command runs on Linux only",
		"git's configuration files in the workspace (.git/config, .git/config.worktree, a submodule's .git/modules/NAME/config) are read-only, as the guard that keeps their code-running keys as they were runs on Linux only: git config, git remote add, git push -u, git branch --set-upstream-to, checkout --track and git submodule add/init fail with \"could not write config file .git/config: Operation not permitted\"; run them outside the sandbox",
		"a command can still send ioctls to the terminal it was given (Seatbelt filters ioctls by device, not by request), so typing into it (TIOCSTI) is not stopped by the sandbox",
	}
	if p.Network != NetworkOff {
		out = append(out, "with the network on, the host's loopback services (127.0.0.1, ::1: databases, dev servers, debuggers) can be connected to; turn the network off to cut them")
	}
	if p.PrivateTmp {
		out = append(out, "private_tmp: Seatbelt cannot give a command a /tmp of its own; /tmp is shared")
	}
	if p.Limits.Memory != 0 {
		out = append(out, "limits.memory: macOS does not enforce an address-space limit")
	}
	return out
}

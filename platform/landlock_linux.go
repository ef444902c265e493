package platform

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// The Landlock backend confines a program from inside the shim's own
// process, just before it execs the program, on one goroutine locked to
// its OS thread:
//
//  1. when the network is not on, a network namespace with only a
//     loopback interface; then a mount namespace of the thread's own:
//     read-only paths bound read-only, hidden paths covered, optionally
//     a private /tmp. Both need root, or, for an ordinary user, a user
//     namespace, which only a child can get (see userns_linux.go);
//  2. a Landlock ruleset: reading everywhere but the hidden paths and
//     /dev, writing in the writable and scratch directories and a few
//     devices, no TCP when the network is off (the seccomp filter stops
//     the other families), no signals or abstract Unix sockets across the
//     sandbox's edge;
//  3. every capability dropped (bounding set and securebits included);
//  4. no_new_privs and the seccomp filter of [seccompFilter];
//  5. the working directory, the resource limits, and execve(2).
//
// Every step applies to the calling thread only, and execve(2) takes its
// credentials, namespaces, Landlock domain and seccomp filter from that
// thread alone. When a step fails, Exec returns the error and the
// goroutine ends still locked, so that the Go runtime discards the
// half-confined thread instead of running other goroutines on it (the
// main thread, which cannot end, is parked for good instead; /proc/self
// then shows its state). The other threads go on unconfined, so the
// caller may report the error; it should then exit. A failure after the
// change of directory also leaves the process in that directory (unless
// the thread had its own mount namespace) and its resource limits
// lowered.
//
// The ruleset is made with go-landlock in best-effort mode (it handles
// what the running kernel knows of [landlock.V11]), but its path rules
// are added here, on files opened with O_NOFOLLOW, so that a symbolic
// link swapped in after the directory was listed cannot extend a rule to
// its target, and so that a rule's rights match the file's type.

// landlockBackend confines programs with Landlock, seccomp, capability
// dropping and, as root or in a user namespace, a mount namespace.
type landlockBackend struct {
	p        *Policy
	abi      int               // the Landlock ABI, ≥ 1
	root     bool              // the effective user is root
	nsErr    error             // why no mount namespace can be made; nil when one can
	userns   bool              // programs start through the setup step in a user namespace (userns_linux.go)
	netns    bool              // the thread gets a network namespace
	setpcap  bool              // CAP_SETPCAP is effective: the bounding set can be cleared
	dropCaps bool              // capabilities are held (or will be, in the user namespace), or the user is root
	filter   []unix.SockFilter // nil when there is no filter for this architecture
	mounts   *mountPlan        // nil without a mount namespace
	isDir    func(string) bool // reports directories; nil is [isDir]
	stateDir string            // cordon's state directory: the allowlist's proxy socket and forwarder link
}

// newLandlock returns the Landlock backend for policy p, or an error that
// says why this kernel cannot run it.
func newLandlock(p *Policy) (*landlockBackend, error) { return newLandlockBackend(p, false, "") }

// newLandlockBackend is newLandlock; inUserns says that this process is
// the setup step in a user namespace of its own ([UsernsMain]); stateDir
// holds the mount namespace probe's cache ("" for none).
func newLandlockBackend(p *Policy, inUserns bool, stateDir string) (*landlockBackend, error) {
	abi, err := landlockABI()
	if err != nil || abi < 1 {
		how := "needs 5.13+ with lsm=landlock"
		if errors.Is(err, unix.EOPNOTSUPP) {
			how = "built in but not enabled: add landlock to the lsm= boot parameter"
		}
		//lint:ignore ST1005 Landlock is a name.
		return nil, fmt.Errorf("Landlock is not available (kernel %s, %s)", kernelRelease(), how)
	}
	l := &landlockBackend{p: p, abi: abi, root: os.Geteuid() == 0}
	if l.filter, err = seccompFilter(p.Network); err != nil {
		if p.Network == NetworkOff {
			return nil, fmt.Errorf("the network cannot be turned off with Landlock here: %v", err)
		}
		l.filter = nil
	}
	caps, err := threadCaps()
	if err != nil {
		return nil, err
	}
	l.setpcap = caps.effective(unix.CAP_SETPCAP)
	l.dropCaps = l.root || caps.any()
	switch {
	case inUserns:
	case l.root:
		l.nsErr = mountNamespaceWorks(stateDir)
	default:
		// The setup step holds CAP_SETPCAP in its namespace.
		l.nsErr = usernsUnavailable()
		l.userns = l.nsErr == nil
		l.setpcap, l.dropCaps = l.userns || l.setpcap, l.userns || l.dropCaps
	}
	if l.nsErr == nil {
		l.mounts = planMounts(p, isDir)
		l.netns = p.Network != NetworkOn
	}
	return l, nil
}

// searchSockets looks for the host's sockets to cover, where the
// sandbox starts.
func (l *landlockBackend) searchSockets() {
	pending := l.p.ScratchPending()
	l.p.SearchSockets()
	if pending && l.mounts != nil {
		// The repositories in scratch space found only now are laid
		// read-only too.
		l.mounts = planMounts(l.p, isDir)
	}
	if l.mounts != nil {
		l.mounts.maskSockets(l.p)
	}
}

// Name returns "landlock".
func (l *landlockBackend) Name() string { return BackendLandlock }

// Degraded lists, in words a user understands, what this backend cannot
// enforce on this machine for its policy. It is empty when everything
// holds. Worked out when asked: a command that only runs does not.
func (l *landlockBackend) Degraded() []string { return l.degradations() }

// Exec confines the OS thread of a new goroutine and replaces the process
// with the program at path from it (through a user namespace, the
// program is this process's child instead, and this process ends the way
// it ends). It returns only when something failed, saying what; the
// program never runs with less confinement than Degraded admits.
func (l *landlockBackend) Exec(path string, argv, env []string, dir string) error {
	ScreenInherited()
	l.searchSockets()
	if l.userns || l.servesProxy() {
		return l.execChild(path, argv, env, dir)
	}
	// The program replaces this process, which cannot hold the layers'
	// lock for it: a later start may share the set (an overlay used
	// twice at once, whose writes may be lost; the host's caches are
	// untouched either way).
	l, release, err := l.withLayers()
	if err != nil {
		return err
	}
	release()
	errc := make(chan error, 1)
	// Never unlocked: on failure the goroutine ends locked, and the
	// runtime ends the half-confined thread with it.
	goLocked(func() { errc <- l.confineAndExec(path, argv, env, dir) })
	return <-errc
}

// confineAndExec runs on a locked thread; see the comment at the top of
// the file.
func (l *landlockBackend) confineAndExec(path string, argv, env []string, dir string) error {
	if err := l.confineThread(); err != nil {
		return err
	}
	if dir != "" {
		if err := unix.Chdir(dir); err != nil {
			return fmt.Errorf("cannot change to the directory %s: %w", dir, err)
		}
	}
	// The limits come last, so that they cannot starve the steps above
	// (RLIMIT_AS and RLIMIT_NOFILE could break Go's own allocations and
	// the rules' open files), and execLimited allocates nothing after
	// them. setLimits (bwrap_linux.go) never raises a limit, so it needs
	// no capability.
	return execLimited(path, argv, env, l.programLimits(argv))
}

// programLimits are the limits to set when argv is exec'd: none when it
// is the network forwarder, which sets them on the program itself.
func (l *landlockBackend) programLimits(argv []string) Limits {
	if len(argv) > 0 && filepath.Base(argv[0]) == NetRole {
		return Limits{}
	}
	return l.p.Limits
}

// confineThread applies steps 1 to 4 (see the top of the file) to the
// calling thread, which must be locked to its goroutine for good.
func (l *landlockBackend) confineThread() error {
	if l.netns {
		if err := enterNetNamespace(); err != nil {
			return err
		}
	}
	if l.mounts != nil {
		if err := reentered(l.mounts.apply); err != nil {
			return err
		}
	}
	// The rules are made after the mounts: their paths resolve in the new
	// namespace (a private /tmp is a new directory).
	if err := l.restrict(l.grants(os.ReadDir)); err != nil {
		return err
	}
	if l.dropCaps {
		if err := dropCapabilities(l.setpcap); err != nil {
			return err
		}
	}
	if l.filter != nil {
		if err := loadSeccomp(l.filter); err != nil {
			return err
		}
	}
	return nil
}

// Landlock access rights, by use.
const (
	// fsRead is reading and running files and listing directories. Not
	// connecting to the host's Unix sockets (ABI 9 resolve_unix): that is
	// granted only on the sockets the policy names; the program's own
	// sockets need no right.
	fsRead = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	// fsDevice is reading, writing and controlling a device.
	fsDevice = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	// fsFileOnly are the rights a rule on a file that is not a directory
	// may hold; others make landlock_add_rule fail with EINVAL.
	fsFileOnly = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate |
		ll.AccessFSIoctlDev | ll.AccessFSResolveUnix
)

// fsAll are all the file system rights this backend handles; writable
// directories get them all but resolve_unix.
var fsAll = landlock.V11.HandledAccessFS

// fsWrite are the rights on writable directories.
var fsWrite = fsAll &^ ll.AccessFSResolveUnix

// fsRightsForABI are the file system rights Landlock ABI abi knows
// (go-landlock's downgrade does the same; its table is not exported).
func fsRightsForABI(abi int) landlock.AccessFSSet {
	switch {
	case abi >= 9:
		return 1<<17 - 1 // resolve_unix
	case abi >= 5:
		return 1<<16 - 1 // ioctl_dev
	case abi >= 3:
		return 1<<15 - 1 // truncate
	case abi == 2:
		return 1<<14 - 1 // refer
	case abi == 1:
		return 1<<13 - 1
	}
	return 0
}

// devFiles are the devices every program may read and write.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// A grant is a Landlock rule before it is added: a path and the rights
// wanted beneath it. Rights a file cannot hold are dropped when the rule
// is added (see [ruleAccess]).
type grant struct {
	path   string
	access landlock.AccessFSSet
}

// grants are the Landlock rules for the policy, given a way to list
// directories.
//
// Reading is granted on everything but the hidden paths and /dev, by
// granting it around them (see [grantAround]). /dev is left out because
// root without capabilities still owns the disks (brw------- root), and
// desktop users may read cameras and microphones. Hidden paths inside a
// writable directory are not holes: the writable grant would give them
// back anyway (see [landlockBackend.degradations]).
func (l *landlockBackend) grants(readDir func(string) ([]os.DirEntry, error)) []grant {
	p := l.p
	holes := []string{"/dev"}
	// A hidden path is a hole unless a mount covers it, or the file
	// permissions refuse it anyway (/etc/shadow to an ordinary user):
	// each hole costs a rule for every entry of the directories on the
	// way to it (/etc has hundreds). Missing hidden paths in the home
	// directory are holes too: made later (by the user's tools, while a
	// long command runs), they are not readable, since nothing grants
	// them.
	for _, h := range p.Hidden {
		if MayHole(p, h, false) && !l.masked(h) && l.readable(h) {
			holes = append(holes, h)
		}
	}
	if l.mounts == nil {
		// No copy can be laid over a filtered file: hidden whole.
		for _, f := range p.FilteredPaths() {
			if MayHole(p, f, false) && l.readable(f) {
				holes = append(holes, f)
			}
		}
	}
	for _, h := range p.Missing {
		if MayHole(p, h, true) {
			holes = append(holes, h)
		}
	}
	var gs []grant
	whole, split := grantAround("/", holes, readDir)
	for _, path := range whole {
		gs = append(gs, grant{path, fsRead})
	}
	// The directories on the way to a hole can be listed (ls ~, ls /, and
	// a nested sandbox lists them to make its own rules). Landlock lets
	// that right reach below them, so the names in a hidden directory can
	// be listed too; its files cannot be read.
	for _, path := range split {
		gs = append(gs, grant{path, ll.AccessFSReadDir})
	}
	for _, v := range p.Visible {
		gs = append(gs, grant{v, fsRead})
	}
	gs = append(gs, grant{"/dev", ll.AccessFSReadDir})
	for _, d := range devFiles {
		gs = append(gs, grant{d, fsDevice})
	}
	gs = append(gs, grant{"/dev/pts", fsDevice | ll.AccessFSReadDir}, grant{"/dev/shm", fsWrite})
	for _, w := range p.WritableRoots() {
		gs = append(gs, grant{w, fsWrite})
	}
	for _, s := range p.Sockets {
		gs = append(gs, grant{s, ll.AccessFSResolveUnix})
	}
	return gs
}

// grantAround returns the paths to grant so that everything beneath root
// is covered except the holes: a path that holds no hole is granted
// whole; one that does is replaced by its entries, recursively along the
// way to each hole. Symbolic links are skipped (what they point to is
// granted or not in its own place). A directory that cannot be listed is
// left out with all it holds. Paths are clean and absolute.
//
// Landlock rights only add up from a rule's directory down, so this is
// the only way to keep a hole unreadable below a readable root. Its cost:
// the directories on the way to a hole (/, the home directory), returned
// as split, get no reading rule of their own, so entries made in them
// later are not readable.
func grantAround(root string, holes []string, readDir func(string) ([]os.DirEntry, error)) (whole, split []string) {
	var walk func(dir string)
	walk = func(dir string) {
		if slices.Contains(holes, dir) {
			return
		}
		if !slices.ContainsFunc(holes, func(h string) bool { return Within(h, dir) }) {
			whole = append(whole, dir)
			return
		}
		split = append(split, dir)
		entries, err := readDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Type()&os.ModeSymlink == 0 {
				walk(filepath.Join(dir, e.Name()))
			}
		}
	}
	walk(root)
	return whole, split
}

// ruleAccess returns the rights a rule on a file of type mode (S_IFMT
// bits) gets when want is asked and the ruleset handles handled: rules
// on files that are not directories may only hold file rights, and
// symbolic links get none.
func ruleAccess(want landlock.AccessFSSet, mode uint32, handled landlock.AccessFSSet) landlock.AccessFSSet {
	switch mode {
	case unix.S_IFLNK:
		return 0
	case unix.S_IFDIR:
		return want & handled
	}
	return want & fsFileOnly & handled
}

// landlockConfig is the ruleset's configuration: every file system right
// and scope the kernel knows, and TCP (and, from ABI 10, UDP) when the
// network is off. Denials of the exec'd program go to the audit log.
func (l *landlockBackend) landlockConfig() landlock.Config {
	cfg := landlock.V11
	if l.p.Network != NetworkOff {
		cfg.HandledAccessNet = 0
	}
	return cfg.BestEffort().EnableLoggingForSubprocesses()
}

// restrict makes one ruleset, file system, network and scopes together
// (with one ruleset each, renames across directories fail with EXDEV:
// landrun #48), and enforces it on the calling thread.
func (l *landlockBackend) restrict(gs []grant) error {
	fd, flags, err := l.landlockConfig().NewRulesetFD()
	if err != nil {
		return fmt.Errorf("cannot make the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("cannot make the Landlock ruleset: the kernel has no Landlock")
	}
	defer unix.Close(fd)
	handled := fsAll & fsRightsForABI(l.abi)
	for _, g := range gs {
		if err := addRule(fd, g, handled); err != nil {
			return err
		}
	}
	// Landlock needs no_new_privs (or CAP_SYS_ADMIN); seccomp too.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("cannot set no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		if errors.Is(err, unix.E2BIG) {
			return errors.New("cannot enforce the Landlock ruleset: 16 sandboxes are already nested here")
		}
		return fmt.Errorf("cannot enforce the Landlock ruleset: %w", err)
	}
	return nil
}

// addRule adds g to the ruleset, on the file itself (never on what a
// symbolic link points to). A path that is gone or that this user cannot
// reach gets no rule: that only takes access away.
func addRule(rulesetFD int, g grant, handled landlock.AccessFSSet) error {
	fd, err := unix.Open(g.path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.EACCES):
		return nil
	case err != nil:
		return fmt.Errorf("cannot open %s for its Landlock rule: %w", g.path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("cannot stat %s for its Landlock rule: %w", g.path, err)
	}
	access := ruleAccess(g.access, st.Mode&unix.S_IFMT, handled)
	if access == 0 {
		return nil
	}
	attr := ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: uint64(access)}
	if err := ll.LandlockAddPathBeneathRule(rulesetFD, &attr, 0); err != nil {
		return fmt.Errorf("cannot add the Landlock rule for %s (%v): %w", g.path, access, err)
	}
	return nil
}

// landlockABI returns the Landlock ABI version the running kernel
// supports, as go-landlock counts it: from version 6 on, a kernel whose
// signal scoping is broken (errata 2 not fixed) counts as version 5.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, errno
	}
	if v >= 6 {
		errata, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
		if errno != 0 || errata&2 == 0 {
			v = 5
		}
	}
	return int(v), nil
}

// kernelRelease returns the running kernel's release, as uname -r.
func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown"
	}
	return unix.ByteSliceToString(u.Release[:])
}

// mountNamespaceWorks is [probeMountNamespace], remembered in stateDir
// once it passed: the probe (a thread, a namespace, every mount made
// private, the thread thrown away) cost about 0.2 ms of every command of
// root's Landlock sandbox, a later command of a session's too, which
// makes no sandbox. The answer is kept with what decides it
// ([mountProbeKey]): a change in any of them probes again. A failed probe
// is not kept: a stale "cannot" would lay no mounts where they could be
// laid (read-only places not kept so), while a stale "can" only makes
// the sandbox's start fail, saying why.
func mountNamespaceWorks(stateDir string) error {
	key := mountProbeKey()
	file := ""
	if stateDir != "" && key != "" {
		file = filepath.Join(stateDir, "mount-probe")
		if data, err := smallfile.ReadFile(file); err == nil && string(data) == key {
			return nil
		}
	}
	err := mountProbe()
	if err == nil && file != "" {
		writeFileAtomic(file, []byte(key))
	}
	return err
}

// mountProbe is [probeMountNamespace]; tests replace it.
var mountProbe = probeMountNamespace

// mountProbeKey is what decides whether this process may make a mount
// namespace: the kernel, the process's user, capabilities,
// no_new_privs and seccomp filters, the namespaces it runs in and its
// security label; "" when one cannot be read.
func mountProbeKey() string {
	status, err := selfStatus()
	if err != nil {
		return ""
	}
	b := []byte(kernelRelease())
	for _, name := range []string{"Uid", "Gid", "CapEff", "CapBnd", "NoNewPrivs", "Seccomp", "Seccomp_filters"} {
		b = append(b, "\n"+name+": "+StatusValue(status, name)...)
	}
	for _, ns := range []string{"mnt", "user"} {
		l, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			return ""
		}
		b = append(b, "\n"+l...)
	}
	if label, err := smallfile.ReadFile("/proc/self/attr/current"); err == nil {
		b = append(b, "\nlabel: "...)
		b = append(b, bytes.TrimRight(label, "\x00\n")...)
	}
	return string(b)
}

// probeMountNamespace reports whether a mount namespace can be made here,
// by making one on a thread that is then thrown away.
func probeMountNamespace() error {
	errc := make(chan error, 1)
	// Never unlocked: the thread ends with the goroutine.
	goLocked(func() {
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			errc <- fmt.Errorf("unshare(CLONE_NEWNS): %w (a container without CAP_SYS_ADMIN?)", err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			errc <- fmt.Errorf("making mounts private: %w", err)
			return
		}
		errc <- nil
	})
	return <-errc
}

// A mountPlan is what Exec lays out in the thread's mount namespace, in
// this order.
type mountPlan struct {
	// privateTmp is whether a new, empty tmpfs goes on /tmp.
	privateTmp bool
	// keep are the writable paths inside /tmp bound back onto the new
	// one.
	keep []string
	// binds are bind mounts of paths onto themselves, parents first.
	binds []bind
	// maskDirs get an empty read-only tmpfs, maskFiles /dev/null bound
	// read-only; one gone by the time the mounts are made (a socket its
	// program removed, a directory in /tmp) needs no cover, as one made
	// after the start gets none.
	maskDirs, maskFiles []string
	// socketsMasked is true once the host's sockets are in maskFiles.
	socketsMasked bool
	// proxy is the allowlist's proxy socket ([Policy.Proxy]), bound
	// back at its path into the masked directory that holds it.
	proxy string
	// layers is the policy whose caches get their private layers
	// (caches_linux.go), nil for none: laid before the binds and masks,
	// which then apply to what is below the caches too.
	layers *Policy
	// filtered are the credential files shown filtered ([Policy.Filtered]).
	filtered []string
	// shown are the filtered files shown with placeholders
	// ([Policy.Shown]).
	shown map[string]string
	// caBundle is bound read-only over each of caTargets, last
	// ([Policy.CABundle]).
	caBundle  string
	caTargets []string
}

// A bind is a path bound onto itself: read-only, or only pinned (a mount
// point cannot be renamed or removed, so the read-only paths inside
// cannot be swapped for writable copies with mv .git .git.old).
type bind struct {
	path     string
	readOnly bool
}

// planMounts returns the mounts for p; isDir reports whether a path is a
// directory.
func planMounts(p *Policy, isDir func(string) bool) *mountPlan {
	m := &mountPlan{proxy: p.Proxy, filtered: p.Filtered, shown: p.Shown, caBundle: p.CABundle, caTargets: p.CATargets}
	if len(p.Caches) > 0 && p.Layer != "" {
		m.layers = p
	}
	if p.PrivateTmp {
		m.privateTmp = true
		roots := slices.Sorted(slices.Values(p.WritableRoots())) // parents first
		for _, w := range roots {
			if w != "/tmp" && Within(w, "/tmp") && !slices.ContainsFunc(m.keep, func(k string) bool { return Within(w, k) }) {
				m.keep = append(m.keep, w)
			}
		}
	}
	binds := map[string]bool{}
	for _, ro := range p.ReadOnly {
		binds[ro] = true
	}
	for _, d := range p.Pins() {
		if _, ok := binds[d]; !ok {
			binds[d] = false // pinned, unless read-only itself
		}
	}
	for path, ro := range binds {
		m.binds = append(m.binds, bind{path, ro})
	}
	slices.SortFunc(m.binds, func(a, b bind) int { return strings.Compare(a.path, b.path) })
	for _, h := range p.Hidden {
		switch {
		case m.gone(h) || !maskable(p, h):
		case isDir(h):
			m.maskDirs = append(m.maskDirs, h)
		default:
			m.maskFiles = append(m.maskFiles, h)
		}
	}
	return m
}

// gone reports whether path is under the old /tmp, which the private one
// covers.
// maskSockets adds the host's sockets to what m covers, once; called
// where the sandbox starts (see [Policy.SearchSockets]).
func (m *mountPlan) maskSockets(p *Policy) {
	if m.socketsMasked {
		return
	}
	m.socketsMasked = true
	// The directories on the way to each pinned too (see
	// [Policy.Pins]), parents first, before the masks.
	have := map[string]bool{}
	for _, b := range m.binds {
		have[b.path] = true
	}
	for _, d := range p.socketPins() {
		if !have[d] && !m.gone(d) {
			m.binds = append(m.binds, bind{d, false})
		}
	}
	slices.SortFunc(m.binds, func(a, b bind) int { return strings.Compare(a.path, b.path) })
	for _, h := range p.HostSockets {
		switch {
		case m.gone(h):
		case isDir(h):
			// A directory this user cannot list ([Policy.SearchSockets]).
			m.maskDirs = append(m.maskDirs, h)
		default:
			m.maskFiles = append(m.maskFiles, h)
		}
	}
}

func (m *mountPlan) gone(path string) bool {
	return m.privateTmp && Within(path, "/tmp") && !slices.ContainsFunc(m.keep, func(k string) bool { return Within(path, k) })
}

// innermost returns the deepest of roots that holds path ("" for none).
func innermost(path string, roots []string) string {
	best := ""
	for _, r := range roots {
		if Within(path, r) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// apply makes the mount namespace and lays out m in it.
func (m *mountPlan) apply() error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("cannot make a mount namespace: %w", err)
	}
	// First of all: the new namespace's mounts are still peers of the
	// host's, and anything mounted before this would appear there too.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("cannot make the mounts private: %w", err)
	}
	proxy := -1
	if m.proxy != "" {
		// Opened before anything covers it.
		fd, err := unix.Open(m.proxy, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("cannot reach the network proxy's socket: %w", err)
		}
		defer unix.Close(fd)
		proxy = fd
	}
	bundle := -1
	if m.caBundle != "" && len(m.caTargets) > 0 {
		// Opened before the state directory that holds it is covered.
		fd, err := unix.Open(m.caBundle, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("cannot reach the credential broker's certificate bundle: %w", err)
		}
		defer unix.Close(fd)
		bundle = fd
	}
	// The real shells back over cordon (in cordon agent's namespace).
	if err := restoreAgentShells(); err != nil {
		return err
	}
	if m.privateTmp {
		if err := mountPrivateTmp(m.keep); err != nil {
			return err
		}
	}
	if err := mountLayers(m.layers); err != nil {
		return err
	}
	for _, b := range m.binds {
		// A path removed by another program since the policy was made (a
		// repository in /tmp) is nothing to bind, as with bwrap's -try
		// binds; the guard still reconciles its place.
		if err := bindSelf(b.path, b.readOnly); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	if err := filterFiles(m.filtered, m.shown); err != nil {
		return err
	}
	for _, d := range m.maskDirs {
		if proxy >= 0 && Within(m.proxy, d) {
			if err := maskDirWith(d, m.proxy, proxy); err != nil {
				return err
			}
			continue
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k"); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // removed since the policy was made: nothing to hide
			}
			return fmt.Errorf("cannot hide %s under an empty tmpfs: %w", d, err)
		}
	}
	if err := maskFiles(m.maskFiles, m.maskFiles); err != nil { // (any removed since the policy: nothing to hide)
		return err
	}
	if bundle >= 0 {
		for _, t := range m.caTargets {
			if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(bundle), t, "", unix.MS_BIND, ""); err != nil {
				return fmt.Errorf("cannot lay the credential broker's certificate bundle over %s: %w", t, err)
			}
			if err := remountReadOnly(t); err != nil {
				return err
			}
		}
	}
	return nil
}

// maskDirWith hides directory d under an empty tmpfs, as apply does,
// but for the socket at sock inside it (open at fd), bound back at its
// path; the directories on the way to it can be entered, not listed.
func maskDirWith(d, sock string, fd int) error {
	fail := func(err error) error {
		return fmt.Errorf("cannot hide %s but for the network proxy's socket: %w", d, err)
	}
	// Made writable by its owner (in a user namespace, the setup step
	// holds no capability over files), then closed.
	if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=700,size=4k"); err != nil {
		return fail(err)
	}
	rel, err := filepath.Rel(d, filepath.Dir(sock))
	if err != nil {
		return fail(err)
	}
	dirs := []string{d}
	for _, name := range strings.Split(rel, "/") {
		if name == "." {
			continue
		}
		dir := filepath.Join(dirs[len(dirs)-1], name)
		if err := unix.Mkdir(dir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return fail(err)
		}
		dirs = append(dirs, dir)
	}
	f, err := unix.Open(sock, unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	unix.Close(f)
	if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fd), sock, "", unix.MS_BIND, ""); err != nil {
		return fail(err)
	}
	for _, dir := range dirs {
		if err := unix.Chmod(dir, 0o111); err != nil {
			return fail(err)
		}
	}
	return remountReadOnly(d)
}

// maskFiles lays an empty file that no one may read (mode 0000, owned by
// root, whose capabilities are dropped before the program runs) over
// each of files, read-only. The empty file is made on a tmpfs mounted
// over /tmp for the moment, then detached: the binds keep it alive. The
// files are opened before, in case some are in /tmp. Those of vanish
// that are removed meanwhile (on the host, which also takes the cover
// off) are left out.
func maskFiles(files, vanish []string) error {
	gone := func(f string, err error) bool { return errors.Is(err, unix.ENOENT) && slices.Contains(vanish, f) }
	var fds []int
	var opened []string
	for _, f := range files {
		fd, err := unix.Open(f, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if gone(f, err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("cannot hide %s: %w", f, err)
		}
		defer unix.Close(fd)
		fds, opened = append(fds, fd), append(opened, f)
	}
	files = opened
	if len(files) == 0 {
		return nil
	}
	if err := unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=700,size=4k"); err != nil {
		return fmt.Errorf("cannot make the empty file that hides files: %w", err)
	}
	const empty = "/tmp/.cordon-hidden"
	fd, err := unix.Open(empty, unix.O_CREAT|unix.O_EXCL|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Unmount("/tmp", unix.MNT_DETACH)
		return fmt.Errorf("cannot make the empty file that hides files: %w", err)
	}
	var cover unix.Stat_t
	err = unix.Fstat(fd, &cover)
	unix.Close(fd)
	if err != nil {
		unix.Unmount("/tmp", unix.MNT_DETACH)
		return fmt.Errorf("cannot make the empty file that hides files: %w", err)
	}
	for i, f := range files {
		target := "/proc/self/fd/" + strconv.Itoa(fds[i])
		if err := unix.Mount(empty, target, "", unix.MS_BIND, ""); err != nil && !gone(f, err) {
			unix.Unmount("/tmp", unix.MNT_DETACH)
			return fmt.Errorf("cannot hide %s: %w", f, err)
		}
	}
	// The files in /tmp are reached again once the tmpfs is gone.
	if err := unix.Unmount("/tmp", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("cannot unmount the empty file's tmpfs: %w", err)
	}
	for _, f := range files {
		if err := remountReadOnly(f); err != nil && !gone(f, err) && !uncovered(f, vanish, &cover) {
			return err
		}
	}
	return nil
}

// uncovered reports whether f, one of vanish, no longer holds the cover
// laid over it because the host removed or replaced it since (a test's
// or a server's socket in /tmp): removing the file on the host takes off
// the mounts on it in every namespace, and what is there now, if
// anything, came after the policy, like any socket made since. A cover
// still in place that cannot be made read-only, or a path that cannot
// be looked at, is an error.
func uncovered(f string, vanish []string, cover *unix.Stat_t) bool {
	if !slices.Contains(vanish, f) {
		return false
	}
	var st unix.Stat_t
	if err := unix.Lstat(f, &st); err != nil {
		return errors.Is(err, unix.ENOENT)
	}
	return st.Dev != cover.Dev || st.Ino != cover.Ino
}

// filterFiles lays over each filtered credential file of entries
// ([Policy.Filtered]) a copy without its secret lines, read-only, and
// hides one that cannot be filtered as maskFiles does. The copies are
// made on a tmpfs mounted over /tmp for the moment, then detached: the
// binds keep them alive. The files are opened before, in case some are
// in /tmp.
func filterFiles(entries []string, shown map[string]string) error {
	type copied struct {
		path string
		fd   int
		data []byte
	}
	var todo []copied
	var hide []string
	for _, e := range entries {
		path, data, ok := (&Policy{Shown: shown}).shownFile(e)
		if !ok {
			if _, err := os.Lstat(path); err == nil {
				hide = append(hide, path)
			}
			continue
		}
		fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			continue // removed meanwhile: nothing to show
		}
		if err != nil {
			return fmt.Errorf("cannot filter %s: %w", path, err)
		}
		defer unix.Close(fd)
		todo = append(todo, copied{path, fd, data})
	}
	if len(todo) > 0 {
		if err := unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=700,size=1m"); err != nil {
			return fmt.Errorf("cannot make the filtered credential files: %w", err)
		}
		for i, c := range todo {
			name := "/tmp/.cordon-filtered-" + strconv.Itoa(i)
			if err := os.WriteFile(name, c.data, 0o600); err != nil {
				unix.Unmount("/tmp", unix.MNT_DETACH)
				return fmt.Errorf("cannot filter %s: %w", c.path, err)
			}
			if err := unix.Mount(name, "/proc/self/fd/"+strconv.Itoa(c.fd), "", unix.MS_BIND, ""); err != nil {
				unix.Unmount("/tmp", unix.MNT_DETACH)
				return fmt.Errorf("cannot filter %s: %w", c.path, err)
			}
		}
		if err := unix.Unmount("/tmp", unix.MNT_DETACH); err != nil {
			return fmt.Errorf("cannot unmount the filtered files' tmpfs: %w", err)
		}
		for _, c := range todo {
			if err := remountReadOnly(c.path); err != nil {
				return err
			}
		}
	}
	return maskFiles(hide, hide)
}

// mountPrivateTmp puts an empty tmpfs on /tmp, then binds the paths in
// keep back in their places, from files opened before /tmp was covered.
func mountPrivateTmp(keep []string) error {
	fds, err := openPaths(keep, "cannot keep %s in the private /tmp: %w")
	if err != nil {
		return err
	}
	defer closeAll(fds)
	if err := unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		return fmt.Errorf("cannot mount a private /tmp: %w", err)
	}
	for i, k := range keep {
		if err := mountPoint(k, isDir("/proc/self/fd/"+strconv.Itoa(fds[i]))); err != nil {
			return fmt.Errorf("cannot keep %s in the private /tmp: %w", k, err)
		}
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fds[i]), k, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("cannot keep %s in the private /tmp: %w", k, err)
		}
	}
	return nil
}

// mountPoint makes an empty directory or file at path, and its parents.
func mountPoint(path string, dir bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if dir {
		return os.Mkdir(path, 0o755)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// reentered runs mount, which makes mounts in this thread's mount
// namespace, then enters the current directory again by its path: the
// thread would stay on the mount below a directory bound over it (a
// pinned parent of a workspace in /tmp, a pinned .git), where the
// read-only places bound inside the new one are not, and a relative path
// (.git/hooks/x) would write past them. The path is the kernel's
// (getcwd), never $PWD, which os.Getwd takes when it names the same
// directory: PWD=/proc/self/cwd does, and entering it again would keep
// the thread where it was, below the pin.
func reentered(mount func() error) error {
	wd, err := unix.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the current directory: %w", err)
	}
	if err := mount(); err != nil {
		return err
	}
	if err := unix.Chdir(wd); err != nil {
		return fmt.Errorf("cannot enter the directory %s again in the sandbox, which does not show it (%w): run the command from the workspace", wd, err)
	}
	return nil
}

// bindSelf binds path onto itself, read-only when readOnly.
//
// The path is opened without following links ([openUnfollowed]), and
// bound and made read-only by its descriptor: a directory inside a
// writable one could be swapped for a link by a process of another
// sandbox meanwhile (.git -> ../../.ssh), and a mount by name follows
// it. ENOENT when the path is gone.
func bindSelf(path string, readOnly bool) error {
	fd, err := openUnfollowed(path)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return err
		}
		return fmt.Errorf("cannot bind %s onto itself: it changed while the sandbox was being made (%w)", path, err)
	}
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	err = unix.Mount(self, self, "", unix.MS_BIND|unix.MS_REC, "")
	unix.Close(fd)
	if err != nil {
		return fmt.Errorf("cannot bind %s onto itself: %w", path, err)
	}
	if !readOnly {
		return nil
	}
	// The bind just made, found again the same way.
	if fd, err = openUnfollowed(path); err != nil {
		return fmt.Errorf("cannot make %s read-only: it changed while the sandbox was being made (%w)", path, err)
	}
	defer unix.Close(fd)
	return remountReadOnly("/proc/self/fd/" + strconv.Itoa(fd))
}

// remountReadOnly makes the bind mount at path read-only. The remount
// must repeat the mount's nosuid, nodev and noexec flags: in a user
// namespace (a rootless container) they are locked, and leaving one out
// is refused with EPERM. The atime flags are kept by the kernel when none
// is given.
func remountReadOnly(path string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("cannot make %s read-only: %w", path, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID},
		{unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC},
		{stNoSymfollow, unix.MS_NOSYMFOLLOW},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("cannot make %s read-only: %w", path, err)
	}
	return nil
}

// stNoSymfollow is ST_NOSYMFOLLOW (linux/statfs.h), which x/sys does not
// name.
const stNoSymfollow = 0x2000

// capSets are the calling thread's capability sets.
type capSets [2]unix.CapUserData

// threadCaps returns the calling thread's capability sets.
func threadCaps() (capSets, error) {
	var c capSets
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	if err := unix.Capget(&hdr, &c[0]); err != nil {
		return c, fmt.Errorf("cannot read the capabilities: %w", err)
	}
	return c, nil
}

// effective reports whether capability is in the effective set.
func (c capSets) effective(capability int) bool {
	return c[capability/32].Effective&(1<<(capability%32)) != 0
}

// any reports whether any set holds any capability.
func (c capSets) any() bool {
	return c != capSets{}
}

// Securebits (linux/securebits.h): root is not special on exec or setuid,
// for good.
const (
	secbitNoroot                = 1 << 0
	secbitNorootLocked          = 1 << 1
	secbitNoSetuidFixup         = 1 << 2
	secbitNoSetuidFixupLocked   = 1 << 3
	secbitKeepCapsLocked        = 1 << 5
	secbitNoCapAmbientRaise     = 1 << 6
	secbitNoCapAmbientRaiseLock = 1 << 7

	lockedSecurebits = secbitNoroot | secbitNorootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLock
)

// dropCapabilities empties the calling thread's capability sets for good.
// With setpcap (CAP_SETPCAP is effective) it first locks the securebits
// and clears the bounding set, both of which need that capability;
// without it, no_new_privs (set before) is what keeps execve(2) from
// giving root its capabilities back: the new permitted set is then
// limited to the old one, which is empty.
func dropCapabilities(setpcap bool) error {
	if setpcap {
		bits, err := unix.PrctlRetInt(unix.PR_GET_SECUREBITS, 0, 0, 0, 0)
		if err != nil {
			return fmt.Errorf("cannot read the securebits: %w", err)
		}
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits|lockedSecurebits), 0, 0, 0); err != nil {
			return fmt.Errorf("cannot set the securebits: %w", err)
		}
		last := lastCap()
		for c := 0; c <= last; c++ {
			err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			if err != nil {
				return fmt.Errorf("cannot drop capability %d from the bounding set: %w", c, err)
			}
		}
	}
	// Kernels before 4.3 have no ambient set.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("cannot clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none capSets
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("cannot drop the capabilities: %w", err)
	}
	if c, err := threadCaps(); err != nil || c.any() {
		return fmt.Errorf("the capabilities were not dropped (%v)", err)
	}
	return nil
}

// lastCap returns the highest capability the kernel knows.
func lastCap() int {
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= 0 && n < 64 {
			return n
		}
	}
	return unix.CAP_LAST_CAP
}

// degradations lists what the backend cannot enforce, in words a user
// understands.
func (l *landlockBackend) degradations() []string {
	var out []string
	for _, d := range []struct {
		abi  int
		lost string
		when bool
	}{
		{2, "files cannot be moved or linked from one directory to another (EXDEV)", true},
		{3, "files outside the writable directories can still be truncated (emptied)", true},
		{4, "network off is enforced by seccomp only", l.p.Network == NetworkOff},
		{5, "ioctl on devices is not restricted", true},
		{6, "the program can signal, and connect to abstract Unix sockets of, programs outside the sandbox", true},
	} {
		if d.when && l.abi < d.abi {
			out = append(out, fmt.Sprintf("%s: needs Landlock ABI %d (kernel %s), this kernel (%s) has ABI %d",
				d.lost, d.abi, abiKernel[d.abi], kernelRelease(), l.abi))
		}
	}
	if l.filter == nil {
		out = append(out, fmt.Sprintf("terminal input injection (TIOCSTI) and io_uring are not blocked: no seccomp filter for %s", runtime.GOARCH))
	}
	out = append(out, l.mountDegradations()...)
	if l.dropCaps && !l.setpcap {
		out = append(out, "the capability bounding set cannot be cleared (CAP_SETPCAP is missing); no_new_privs still keeps programs from gaining capabilities")
	}
	out = append(out, l.p.SocketDegradations(l.abi >= 9, l.mounts != nil)...)
	if l.abi < 9 && l.mounts != nil {
		var exposed []string
		dir := l.isDir
		if dir == nil {
			dir = isDir
		}
		for _, h := range l.p.Hidden {
			// A hidden file holds no socket; a directory may.
			if dir(h) && !l.masked(h) && !inWritable(l.p, h) {
				exposed = append(exposed, h)
			}
		}
		if len(exposed) > 0 {
			out = append(out, fmt.Sprintf("Unix sockets inside hidden paths (%s) can still be connected to: needs Landlock ABI 9, this kernel has ABI %d",
				strings.Join(l.short(exposed), ", "), l.abi))
		}
	}
	return out
}

// abiKernel is the first kernel with each Landlock ABI.
var abiKernel = map[int]string{2: "5.19", 3: "6.2", 4: "6.7", 5: "6.10", 6: "6.12"}

// mountDegradations are what is lost without a mount namespace, or what
// cannot be covered with one.
//
// Landlock cannot keep a path read-only (or hidden) inside a writable
// directory: a rule's rights reach everything beneath it, and there is
// no rule that takes rights away. The only way around it, granting the
// directory's entries one by one except the read-only one, leaves the
// directory itself without write rights: git could no longer create
// .git/index.lock next to the read-only .git/config, nor anything be
// created at the workspace's top. So read-only paths, and hidden paths
// inside writable directories, need mounts, hence root.
func (l *landlockBackend) mountDegradations() []string {
	p := l.p
	var out []string
	if l.mounts == nil {
		why := "no mount namespace: " + l.nsErr.Error()
		if len(p.ReadOnly) > 0 {
			out = append(out, fmt.Sprintf("read-only paths inside writable directories (%s) are not enforced: %s",
				strings.Join(l.short(p.ReadOnly), ", "), why))
		}
		if p.PrivateTmp {
			out = append(out, "/tmp is shared, not private: other programs' files and sockets in it stay reachable; "+why)
		}
		if len(p.Caches) > 0 {
			out = append(out, fmt.Sprintf("the tools' caches (%s) are written directly, not through a private layer: what a command leaves there can run on the host later; %s",
				strings.Join(l.short(p.Caches), ", "), why))
		}
	}
	for _, h := range p.Hidden {
		if !inWritable(p, h) || l.masked(h) || l.mounts != nil && l.mounts.gone(h) {
			continue
		}
		why := "it holds paths that must stay reachable"
		if l.mounts == nil {
			why = "no mount namespace: " + l.nsErr.Error()
		}
		out = append(out, fmt.Sprintf("%s stays readable: it is inside the writable %s (%s)",
			l.short([]string{h})[0], innermost(h, p.WritableRoots()), why))
	}
	return out
}

// masked reports whether hidden path h is covered by a mount.
func (l *landlockBackend) masked(h string) bool {
	return l.mounts != nil && (slices.Contains(l.mounts.maskDirs, h) || slices.Contains(l.mounts.maskFiles, h) || l.mounts.gone(h))
}

// readable reports whether this process may read path by its file
// permissions alone (what Landlock must then refuse).
func (l *landlockBackend) readable(path string) bool {
	if l.root {
		return true // without its capabilities, root still owns what it owns
	}
	return unix.Access(path, unix.R_OK) == nil
}

// MayHole reports whether hidden path h (missing: it does not exist yet)
// may be a hole in the Landlock backend's reading grants, which then
// lists the directories on the way to it when the sandbox is made: a
// path outside every writable directory and, when missing, in the home
// directory. Hidden paths inside writable directories are covered by
// mounts or reported as not enforced, never holes.
func MayHole(p *Policy, h string, missing bool) bool {
	return !inWritable(p, h) && (!missing || Within(h, p.Home))
}

// inWritable reports whether path is inside a writable or scratch
// directory.
func inWritable(p *Policy, path string) bool {
	return innermost(path, p.WritableRoots()) != ""
}

// short returns paths inside the workspace relative to it, and those
// inside the home directory with "~".
func (l *landlockBackend) short(paths []string) []string {
	out := make([]string, len(paths))
	for i, path := range paths {
		switch {
		case l.p.Workspace != "" && Within(path, l.p.Workspace) && path != l.p.Workspace:
			out[i], _ = filepath.Rel(l.p.Workspace, path)
		case l.p.Home != "" && l.p.Home != "/" && Within(path, l.p.Home):
			out[i] = "~" + strings.TrimPrefix(path, l.p.Home)
		default:
			out[i] = path
		}
	}
	return out
}

// openPaths opens each of paths (O_PATH, no link followed) before a
// mount covers them, to bind them back after; failure is the error
// errf makes of the path and the cause.
func openPaths(paths []string, errf string) ([]int, error) {
	fds := make([]int, 0, len(paths))
	for _, p := range paths {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			closeAll(fds)
			return nil, fmt.Errorf(errf, p, err)
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

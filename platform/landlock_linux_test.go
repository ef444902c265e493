package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// mapReadDir lists the directories of fsys as if it were mounted on /.
func mapReadDir(fsys fstest.MapFS) func(string) ([]os.DirEntry, error) {
	return func(dir string) ([]os.DirEntry, error) {
		name := strings.TrimPrefix(dir, "/")
		if name == "" {
			name = "."
		}
		return fs.ReadDir(fsys, name)
	}
}

var fakeRoot = fstest.MapFS{
	"bin":                      {Mode: fs.ModeSymlink, Data: []byte("usr/bin")},
	"usr/bin/sh":               {},
	"etc/passwd":               {},
	"dev/null":                 {Mode: fs.ModeDevice | fs.ModeCharDevice},
	"dev/vda":                  {Mode: fs.ModeDevice},
	"home/u/.ssh/id_ed25519":   {},
	"home/u/.ssh/known_hosts":  {},
	"home/u/.netrc":            {},
	"home/u/.config/gh/hosts":  {},
	"home/u/.config/git/attrs": {},
	"home/u/link":              {Mode: fs.ModeSymlink, Data: []byte(".ssh")},
	"home/u/src/proj/main.go":  {},
	"home/v/notes":             {},
	"tmp/ssh-X/agent.1":        {Mode: fs.ModeSocket},
	"tmp/build/out":            {},
}

func TestLandlockGrantAround(t *testing.T) {
	readDir := mapReadDir(fakeRoot)
	for _, tc := range []struct {
		name  string
		holes []string
		want  []string
	}{
		{"no holes", nil, []string{"/"}},
		{"hole is the root", []string{"/"}, nil},
		{"hole elsewhere", []string{"/opt"}, []string{"/dev", "/etc", "/home", "/tmp", "/usr"}},
		{
			"credentials",
			[]string{"/dev", "/home/u/.ssh", "/home/u/.netrc", "/home/u/.config/gh"},
			[]string{"/etc", "/home/u/.config/git", "/home/u/src", "/home/v", "/tmp", "/usr"},
		},
		{"nested holes", []string{"/home/u", "/home/u/.ssh"}, []string{"/dev", "/etc", "/home/v", "/tmp", "/usr"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := grantAround("/", tc.holes, readDir)
			if !slices.Equal(got, tc.want) {
				t.Errorf("grantAround(/, %q)\n got %q\nwant %q", tc.holes, got, tc.want)
			}
		})
	}
	t.Run("unlistable", func(t *testing.T) {
		readDir := func(dir string) ([]os.DirEntry, error) {
			if dir == "/home/u" {
				return nil, fs.ErrPermission
			}
			return mapReadDir(fakeRoot)(dir)
		}
		got, split := grantAround("/", []string{"/home/u/.ssh"}, readDir)
		want := []string{"/dev", "/etc", "/home/v", "/tmp", "/usr"}
		if !slices.Equal(got, want) {
			t.Errorf("got %q, want %q (nothing of an unlistable directory)", got, want)
		}
		if want := []string{"/", "/home", "/home/u"}; !slices.Equal(split, want) {
			t.Errorf("split = %q, want %q", split, want)
		}
	})
}

func TestLandlockRuleAccess(t *testing.T) {
	all := fsRightsForABI(9)
	for _, tc := range []struct {
		want    landlock.AccessFSSet
		mode    uint32
		handled landlock.AccessFSSet
		res     landlock.AccessFSSet
	}{
		{fsRead, unix.S_IFDIR, all, fsRead},
		{fsRead, unix.S_IFREG, all, ll.AccessFSExecute | ll.AccessFSReadFile},
		{ll.AccessFSResolveUnix, unix.S_IFSOCK, all, ll.AccessFSResolveUnix},
		{fsAll, unix.S_IFREG, all, fsFileOnly},
		{fsAll, unix.S_IFSOCK, fsRightsForABI(7), fsFileOnly &^ ll.AccessFSResolveUnix},
		{fsDevice, unix.S_IFCHR, fsRightsForABI(3), ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate},
		{fsAll, unix.S_IFDIR, fsRightsForABI(1), fsRightsForABI(1)},
		{fsAll, unix.S_IFLNK, all, 0},
	} {
		if got := ruleAccess(tc.want, tc.mode, tc.handled); got != tc.res {
			t.Errorf("ruleAccess(%v, %#o, %v) = %v, want %v", tc.want, tc.mode, tc.handled, got, tc.res)
		}
	}
	if fsRightsForABI(11) != landlock.V11.HandledAccessFS {
		t.Errorf("fsRightsForABI(11) = %v, want go-landlock's V11 %v", fsRightsForABI(11), landlock.V11.HandledAccessFS)
	}
	for abi, v := range []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10} {
		if fsRightsForABI(abi) != v.HandledAccessFS {
			t.Errorf("fsRightsForABI(%d) = %v, want go-landlock's %v", abi, fsRightsForABI(abi), v.HandledAccessFS)
		}
	}
}

// fakePolicy is a policy over fakeRoot.
func fakePolicy() *Policy {
	return &Policy{
		Workspace: "/home/u/src/proj",
		Home:      "/home/u",
		Scratch:   []string{"/tmp"},
		Writable:  []string{"/home/u/.cache/go", "/home/u/src/proj"},
		ReadOnly:  []string{"/home/u/src/proj/.git/config", "/home/u/src/proj/.git/hooks"},
		Hidden:    []string{"/home/u/.netrc", "/home/u/.ssh", "/tmp/ssh-X"},
		Visible:   []string{"/home/u/.ssh/known_hosts"},
		Sockets:   []string{"/home/u/.local/ide.sock"},
		Network:   NetworkOff,
	}
}

func TestLandlockGrants(t *testing.T) {
	// As root without a mount namespace: every hidden path is a hole
	// (root reads what it owns; the fake paths do not exist here).
	l := &landlockBackend{p: fakePolicy(), abi: 7, root: true}
	got := l.grants(mapReadDir(fakeRoot))
	want := []grant{
		// Read around the holes /dev, ~/.netrc and ~/.ssh; not around
		// /tmp/ssh-X, inside the writable /tmp.
		{"/etc", fsRead},
		{"/home/u/.config", fsRead},
		{"/home/u/src", fsRead},
		{"/home/v", fsRead},
		{"/tmp", fsRead},
		{"/usr", fsRead},
		// The directories on the way can be listed.
		{"/", ll.AccessFSReadDir},
		{"/home", ll.AccessFSReadDir},
		{"/home/u", ll.AccessFSReadDir},
		{"/home/u/.ssh/known_hosts", fsRead},
		{"/dev", ll.AccessFSReadDir},
		{"/dev/null", fsDevice},
		{"/dev/zero", fsDevice},
		{"/dev/full", fsDevice},
		{"/dev/random", fsDevice},
		{"/dev/urandom", fsDevice},
		{"/dev/tty", fsDevice},
		{"/dev/ptmx", fsDevice},
		{"/dev/pts", fsDevice | ll.AccessFSReadDir},
		{"/dev/shm", fsWrite},
		{"/tmp", fsWrite},
		{"/home/u/.cache/go", fsWrite},
		{"/home/u/src/proj", fsWrite},
		{"/home/u/.local/ide.sock", ll.AccessFSResolveUnix},
	}
	// Nothing else may connect to the host's sockets (ABI 9).
	for _, g := range got {
		if g.access&ll.AccessFSResolveUnix != 0 && g.path != "/home/u/.local/ide.sock" {
			t.Errorf("%s may connect to the host's sockets", g.path)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("grants:\n got %v\nwant %v", got, want)
	}
}

func TestLandlockPlanMounts(t *testing.T) {
	p := fakePolicy()
	isDir := func(path string) bool { return path != "/home/u/.netrc" }
	m := planMounts(p, isDir)
	wantBinds := []bind{
		{"/home/u/src/proj/.git", false},
		{"/home/u/src/proj/.git/config", true},
		{"/home/u/src/proj/.git/hooks", true},
	}
	if !slices.Equal(m.binds, wantBinds) {
		t.Errorf("binds = %v, want %v", m.binds, wantBinds)
	}
	// ~/.ssh holds a visible path: not covered.
	if want := []string{"/tmp/ssh-X"}; !slices.Equal(m.maskDirs, want) {
		t.Errorf("maskDirs = %q, want %q", m.maskDirs, want)
	}
	if want := []string{"/home/u/.netrc"}; !slices.Equal(m.maskFiles, want) {
		t.Errorf("maskFiles = %q, want %q", m.maskFiles, want)
	}
	if m.privateTmp {
		t.Errorf("privateTmp without PrivateTmp")
	}

	p.PrivateTmp = true
	p.Workspace = "/tmp/ws"
	p.Writable = []string{"/tmp/ws", "/tmp/ws/sub", "/var/cache/x"}
	p.ReadOnly = []string{"/tmp/ws/.git/hooks"}
	m = planMounts(p, isDir)
	if !m.privateTmp || !slices.Equal(m.keep, []string{"/tmp/ws"}) {
		t.Errorf("privateTmp = %v, keep = %q; want true, [/tmp/ws]", m.privateTmp, m.keep)
	}
	if slices.Contains(m.maskDirs, "/tmp/ssh-X") {
		t.Errorf("/tmp/ssh-X is masked, but the private /tmp already covers it")
	}
}

func TestLandlockDegradations(t *testing.T) {
	has := func(list []string, sub string) bool {
		return slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, sub) })
	}
	filter, err := seccompFilter(NetworkOff)
	if err != nil {
		t.Skip(err)
	}

	fakeDir := func(path string) bool { return path != "/home/u/.netrc" }
	// Not root, ABI 3.
	l := &landlockBackend{p: fakePolicy(), abi: 3, nsErr: errors.New("making one needs root or a user namespace, and user namespaces are disabled"), filter: filter, isDir: fakeDir}
	d := l.degradations()
	for _, want := range []string{
		"read-only paths inside writable directories (.git/config, .git/hooks) are not enforced",
		"/tmp/ssh-X stays readable: it is inside the writable /tmp",
		"network off is enforced by seccomp only: needs Landlock ABI 4",
		"the host's Unix sockets (an editor's or a debugger's server, a screen session, a container engine) can be connected to",
	} {
		if !has(d, want) {
			t.Errorf("not root, ABI 3: no %q in\n%s", want, strings.Join(d, "\n"))
		}
	}
	if has(d, "truncated") {
		t.Errorf("ABI 3 truncation reported lost:\n%s", strings.Join(d, "\n"))
	}

	// Root with a mount namespace, ABI 7: only what mounts cannot cover.
	l = &landlockBackend{p: fakePolicy(), abi: 7, root: true, setpcap: true, dropCaps: true, filter: filter, isDir: fakeDir}
	l.mounts = planMounts(l.p, func(path string) bool { return path != "/home/u/.netrc" })
	d = l.degradations()
	if want := []string{
		"Unix sockets the host makes after a command starts, or that a program of another network namespace (a container's) made deeper than the sandbox looks at its start (scratch directories and the home directory 2 levels, /run 4), can be connected to: Landlock ABI 9 would stop them",
		"Unix sockets inside hidden paths (~/.ssh) can still be connected to: needs Landlock ABI 9, this kernel has ABI 7",
	}; !slices.Equal(d, want) {
		t.Errorf("root, ABI 7:\n got %q\nwant %q", d, want)
	}

	// Root in a container that refuses namespaces, without CAP_SETPCAP.
	l = &landlockBackend{p: fakePolicy(), abi: 9, root: true, dropCaps: true, filter: filter, nsErr: errors.New("unshare: EPERM"), isDir: fakeDir}
	l.p.PrivateTmp = true
	d = l.degradations()
	for _, want := range []string{"no mount namespace: unshare: EPERM", "/tmp is shared", "bounding set"} {
		if !has(d, want) {
			t.Errorf("container: no %q in\n%s", want, strings.Join(d, "\n"))
		}
	}
	if has(d, "Unix sockets") {
		t.Errorf("ABI 9 sockets reported exposed:\n%s", strings.Join(d, "\n"))
	}
}

// landlockEnv tells the helper process what to be.
const landlockEnv = "CORDON_TEST_LANDLOCK_CHILD"

// TestLandlockHelperProcess is not a test: it is the child that the tests
// below run. As "exec", it confines itself and execs a shell script; the
// script execs it again as "probe", confined, to try the network.
func TestLandlockHelperProcess(t *testing.T) {
	switch os.Getenv(landlockEnv) {
	case "exec":
		os.Exit(landlockHelperExec())
	case "probe":
		landlockHelperProbe()
		os.Exit(0)
	}
}

// landlockScript prints "name: ok" or "name: denied" for each attempt,
// then the process's confinement from /proc/self/status.
const landlockScript = `
try() { if (eval "$2") >/dev/null 2>&1; then echo "$1: ok"; else echo "$1: denied"; fi; }
try ws-write 'echo x > "$CORDON_TEST_WS/written"'
try outside-write 'echo x > "$HOME/outside"'
try hidden-read 'cat "$HOME/.creds/secret"'
try hidden-list 'ls "$HOME/.creds"'
try tmp-hidden-read 'cat "$CORDON_TEST_TMP_HIDDEN/secret"'
try tmp-shared 'test -e "$CORDON_TEST_TMP_HIDDEN"'
try hooks-write 'echo x > "$CORDON_TEST_WS/.git/hooks/pre-commit"'
try git-lock 'echo x > "$CORDON_TEST_WS/.git/index.lock"'
try git-rename 'mv "$CORDON_TEST_WS/.git" "$CORDON_TEST_WS/.git.old"'
try devnull 'echo x > /dev/null'
try tmp-write 'echo x > /tmp/cordon-landlock-$$ && rm /tmp/cordon-landlock-$$'
try blockdev-read 'head -c1 "$CORDON_TEST_BLOCKDEV"'
grep -E '^(CapPrm|CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status | tr -d '\t'
CORDON_TEST_LANDLOCK_CHILD=probe exec "$CORDON_TEST_BIN" -test.run='^TestLandlockHelperProcess$'
`

// landlockPolicy is the policy the tests use, from the environment env.
func landlockPolicy(env []string) (*Policy, error) {
	getenv := envLookup(env)
	return NewPolicy(&Spec{
		Workspace:  getenv("CORDON_TEST_WS"),
		Scratch:    []string{"/tmp"},
		ReadOnly:   []string{".git/hooks", ".git/config"},
		Hidden:     []string{"~/.creds", getenv("CORDON_TEST_TMP_HIDDEN")},
		Network:    Network(getenv("CORDON_TEST_NET")),
		PrivateTmp: getenv("CORDON_TEST_PRIVATE_TMP") != "",
	}, env)
}

func landlockHelperExec() int {
	if f := os.Getenv("CORDON_TEST_USERNS_OFF"); f != "" {
		simulateNoUserns(f)
	}
	p, err := landlockPolicy(os.Environ())
	if err != nil {
		fmt.Println("policy:", err)
		return 2
	}
	l, err := newLandlock(p)
	if err != nil {
		fmt.Println("newLandlock:", err)
		return 2
	}
	err = l.Exec("/bin/sh", []string{"sh", "-c", landlockScript}, p.Env, p.Workspace)
	fmt.Println("exec:", err)
	return 3
}

func landlockHelperProbe() {
	result := func(name string, err error) {
		if err != nil {
			fmt.Printf("%s: denied (%v)\n", name, err)
		} else {
			fmt.Printf("%s: ok\n", name)
		}
	}
	c, err := net.DialTimeout("tcp", os.Getenv("CORDON_TEST_TCP"), 2*time.Second)
	if err == nil {
		c.Close()
	}
	result("tcp", err)
	c, err = net.Dial("udp", os.Getenv("CORDON_TEST_UDP"))
	if err == nil {
		_, err = c.Write([]byte("x"))
		c.Close()
	}
	result("udp", err)
	if ns, _ := os.Readlink("/proc/self/ns/net"); ns == os.Getenv("CORDON_TEST_HOST_NETNS") {
		fmt.Println("netns: host")
	} else {
		fmt.Println("netns: own")
	}
	// Any socket answers for the interfaces of its namespace.
	if fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0); err == nil {
		ifr, _ := unix.NewIfreq("lo")
		if unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr) == nil && ifr.Uint16()&unix.IFF_UP != 0 {
			fmt.Println("loopback: up")
		}
	}
	landlockHelperEscape(result)
}

// landlockHelperEscape tries, from inside the sandbox, to undo its mounts
// or to get the capabilities to: each attempt must be refused, and
// .git/hooks must stay read-only whatever got through.
func landlockHelperEscape(result func(string, error)) {
	hooks := filepath.Join(os.Getenv("CORDON_TEST_WS"), ".git/hooks")
	runtime.LockOSThread() // unshare and setns act on this thread
	result("escape-remount", unix.Mount("", hooks, "", unix.MS_REMOUNT|unix.MS_BIND, ""))
	result("escape-umount", unix.Unmount(hooks, unix.MNT_DETACH))
	result("escape-bind", unix.Mount(os.Getenv("CORDON_TEST_WS"), hooks, "", unix.MS_BIND, ""))
	_, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	result("escape-fsopen", err)
	_, err = unix.OpenTree(unix.AT_FDCWD, hooks, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	result("escape-open-tree", err)
	result("escape-pivot-root", unix.PivotRoot("/tmp", "/tmp"))
	result("escape-unshare-ns", unix.Unshare(unix.CLONE_NEWNS))
	result("escape-unshare-user", unix.Unshare(unix.CLONE_NEWUSER))
	// A child in a new user namespace would hold every capability there.
	uid, gid := os.Getuid(), os.Getgid()
	pid, err := syscall.ForkExec("/bin/true", []string{"true"}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{
		Cloneflags:  unix.CLONE_NEWUSER | unix.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}},
	}})
	if err == nil {
		syscall.Wait4(pid, nil, 0, nil)
	}
	result("escape-clone-user", err)
	// The host's namespaces, through the test's own process.
	err = errors.New("no host process")
	if fd, oerr := unix.Open("/proc/"+os.Getenv("CORDON_TEST_HOST_PID")+"/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0); oerr != nil {
		err = oerr
	} else {
		err = unix.Setns(fd, unix.CLONE_NEWNS)
		unix.Close(fd)
	}
	result("escape-setns-host", err)
	result("escape-hooks-write", os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("x"), 0o755))
}

// simulateNoUserns points the user namespace setting at file, which
// holds 0: user namespaces are disabled.
func simulateNoUserns(file string) {
	s := userNSSettings[0]
	s.file = file
	userNSSettings = []userNSSetting{s}
}

// landlockFixture is the file tree of a confinement test.
type landlockFixture struct {
	home, ws, tmpHidden, blockDev string
	// bin is a copy of the test binary outside /tmp, which a private
	// /tmp would hide.
	bin string
}

func newLandlockFixture(t *testing.T) *landlockFixture {
	f := &landlockFixture{ws: t.TempDir()}
	// The home directory is outside /tmp, which is writable (scratch):
	// hidden paths there are only hidden with a mount namespace.
	home, err := os.MkdirTemp("/var/tmp", "cordon-landlock-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	f.home = home
	tmpHidden, err := os.MkdirTemp("/tmp", "cordon-landlock-ssh-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmpHidden) })
	f.tmpHidden = tmpHidden
	for _, dir := range []string{home + "/.creds", f.ws + "/.git/hooks"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{home + "/.creds/secret", tmpHidden + "/secret"} {
		if err := os.WriteFile(file, []byte("secret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	f.bin = filepath.Join(home, "probe.test")
	if err := os.WriteFile(f.bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir("/dev")
	for _, e := range entries {
		if e.Type()&fs.ModeDevice != 0 && e.Type()&fs.ModeCharDevice == 0 {
			f.blockDev = "/dev/" + e.Name()
			break
		}
	}
	if f.blockDev == "" {
		f.blockDev = "/dev/null-block-device-missing"
	}
	return f
}

// hostNetNS is this process's network namespace.
var hostNetNS, _ = os.Readlink("/proc/self/ns/net")

func (f *landlockFixture) env(network Network, privateTmp bool, tcp, udp string) []string {
	env := os.Environ()
	if privateTmp {
		env = append(env, "CORDON_TEST_PRIVATE_TMP=1")
	}
	return append(env,
		landlockEnv+"=exec",
		"HOME="+f.home,
		"CORDON_TEST_BIN="+f.bin,
		"CORDON_TEST_WS="+f.ws,
		"CORDON_TEST_TMP_HIDDEN="+f.tmpHidden,
		"CORDON_TEST_BLOCKDEV="+f.blockDev,
		"CORDON_TEST_NET="+string(network),
		"CORDON_TEST_TCP="+tcp,
		"CORDON_TEST_UDP="+udp,
		"CORDON_TEST_HOST_PID="+strconv.Itoa(os.Getpid()),
		"CORDON_TEST_HOST_NETNS="+hostNetNS,
	)
}

// landlockOrSkip returns the backend for the fixture's policy, made in
// this process the same way the child makes it, or skips the test when
// Landlock is missing.
func landlockOrSkip(t *testing.T, env []string) *landlockBackend {
	p, err := landlockPolicy(env)
	if err != nil {
		t.Fatal(err)
	}
	l, err := newLandlock(p)
	if err != nil {
		if abi, _ := landlockABI(); abi < 1 {
			t.Skipf("cannot test confinement: %v", err)
		}
		t.Fatal(err)
	}
	return l
}

func TestLandlockConfines(t *testing.T) {
	f := newLandlockFixture(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()

	for _, tc := range []struct {
		network    Network
		privateTmp bool
		noUserns   bool
	}{{NetworkOff, false, false}, {NetworkOn, false, false}, {NetworkOn, true, false}, {NetworkOff, false, true}} {
		network := tc.network
		name := "network " + string(network)
		if tc.privateTmp {
			name += ", private /tmp"
		}
		if tc.noUserns {
			// The degraded path of an ordinary user where the kernel
			// refuses user namespaces (root needs none).
			name += ", no user namespaces"
			if os.Geteuid() == 0 {
				continue
			}
		}
		t.Run(name, func(t *testing.T) {
			env := f.env(network, tc.privateTmp, tcp.Addr().String(), udp.LocalAddr().String())
			if tc.noUserns {
				setting := filepath.Join(t.TempDir(), "max_user_namespaces")
				if err := os.WriteFile(setting, []byte("0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				env = append(env, "CORDON_TEST_USERNS_OFF="+setting)
				saved := userNSSettings
				defer func() { userNSSettings = saved }()
				simulateNoUserns(setting)
			}
			l := landlockOrSkip(t, env)
			if tc.noUserns && (l.mounts != nil || !strings.Contains(strings.Join(l.Degraded(), "\n"), "user.max_user_namespaces=0")) {
				t.Fatalf("user namespaces refused: want no mount namespace, and the reason among the degradations:\n%s", strings.Join(l.Degraded(), "\n"))
			}
			for _, d := range l.Degraded() {
				t.Logf("degraded: %s", d)
			}
			os.Remove(filepath.Join(f.ws, "written"))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLandlockHelperProcess$")
			// (From the workspace: the package's directory may lie in a
			// /tmp the sandbox makes private, where it is entered again.)
			cmd.Env, cmd.Dir = env, f.ws
			out, err := cmd.CombinedOutput()
			t.Logf("child output:\n%s", out)
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			got := map[string]string{}
			for _, line := range strings.Split(string(out), "\n") {
				if k, v, ok := strings.Cut(line, ": "); ok {
					got[k] = v
				} else if k, v, ok := strings.Cut(line, ":"); ok {
					got[k] = v
				}
			}
			f.check(t, l, network, got)
			f.checkHost(t, udp, network)
		})
	}
}

// check compares the child's report with what the backend promises.
func (f *landlockFixture) check(t *testing.T, l *landlockBackend, network Network, got map[string]string) {
	mounts := l.mounts != nil
	pick := func(b bool) string {
		if b {
			return "denied"
		}
		return "ok"
	}
	want := map[string]string{
		"ws-write":      "ok",
		"outside-write": "denied",
		"hidden-read":   "denied",
		// Names in a hidden directory can be listed (the directories on
		// the way to it can be); a mount namespace covers it too.
		"hidden-list":     pick(mounts),
		"tmp-hidden-read": pick(mounts),
		"tmp-shared":      pick(mounts && l.p.PrivateTmp),
		"hooks-write":     pick(mounts),
		"git-lock":        "ok",
		"git-rename":      pick(mounts),
		"devnull":         "ok",
		"tmp-write":       "ok",
		"blockdev-read":   "denied",
		"NoNewPrivs":      "1",
		"Seccomp":         "2",
		"CapPrm":          "0000000000000000",
		"CapEff":          "0000000000000000",
		"tcp":             pick(network == NetworkOff),
		"udp":             pick(network == NetworkOff),
	}
	for _, escape := range []string{"remount", "umount", "bind", "fsopen", "open-tree", "pivot-root", "unshare-ns", "unshare-user", "clone-user", "setns-host"} {
		want["escape-"+escape] = "denied"
	}
	// With the network off, a network namespace of its own (abstract
	// Unix sockets are per namespace), whose loopback is up.
	want["netns"], want["loopback"] = "host", got["loopback"]
	if network == NetworkOff && mounts {
		want["netns"], want["loopback"] = "own", "up"
	}
	if mounts { // without, .git was renamed above
		want["escape-hooks-write"] = "denied"
	}
	if (l.root || l.userns) && l.setpcap {
		want["CapBnd"] = "0000000000000000"
	}
	for k, w := range want {
		g, _, _ := strings.Cut(got[k], " ")
		if g != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	degraded := strings.Join(l.Degraded(), "\n")
	if !mounts && (!strings.Contains(degraded, ".git/hooks") || !strings.Contains(degraded, f.tmpHidden+" stays readable")) {
		t.Errorf("without a mount namespace, Degraded() should admit .git/hooks and %s:\n%s", f.tmpHidden, degraded)
	}
}

// checkHost checks that nothing leaked to the host: no file written
// outside, no mount propagated, the datagram received only with the
// network on.
func (f *landlockFixture) checkHost(t *testing.T, udp net.PacketConn, network Network) {
	if _, err := os.Stat(filepath.Join(f.home, "outside")); err == nil {
		t.Errorf("%s/outside was written on the host", f.home)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "written")); err != nil {
		t.Errorf("the workspace was not written: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(f.tmpHidden, "secret")); err != nil || string(b) != "secret\n" {
		t.Errorf("%s/secret changed on the host: %q, %v", f.tmpHidden, b, err)
	}
	mountinfo, err := os.ReadFile("/proc/thread-self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{f.ws, f.tmpHidden, f.home} {
		if strings.Contains(string(mountinfo), path) {
			t.Errorf("a mount on %s propagated to the host:\n%s", path, mountinfo)
		}
	}
	if _, err := os.Stat(filepath.Join(f.ws, ".git")); err != nil {
		os.Rename(filepath.Join(f.ws, ".git.old"), filepath.Join(f.ws, ".git")) // renamed inside, as allowed without mounts
	}
	if err := os.WriteFile(filepath.Join(f.ws, ".git/hooks/host"), nil, 0o644); err != nil {
		t.Errorf("the host cannot write .git/hooks any more: %v", err)
	}
	wait := 50 * time.Millisecond
	if network == NetworkOn {
		wait = 2 * time.Second
	}
	udp.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 16)
	_, _, err = udp.ReadFrom(buf)
	switch {
	case network == NetworkOn && err != nil:
		t.Errorf("no UDP datagram with the network on: %v", err)
	case network == NetworkOff && err == nil:
		t.Errorf("a UDP datagram got out with the network off")
	}
}

// TestLandlockExecFails checks that a failed Exec says what failed and
// leaves this process unconfined: the half-confined thread is gone.
func TestLandlockExecFails(t *testing.T) {
	skipNested(t) // it checks that this process is left unconfined
	f := newLandlockFixture(t)
	env := f.env(NetworkOff, false, "", "")
	l := landlockOrSkip(t, env)
	for _, tc := range []struct {
		path, dir, want string
	}{
		{"/nonexistent/cordon-test", f.ws, "cannot run /nonexistent/cordon-test"},
		{"/bin/sh", "/nonexistent/cordon-test", "cannot change to the directory /nonexistent/cordon-test"},
	} {
		err := l.Exec(tc.path, []string{"sh", "-c", "exit 0"}, l.p.Env, tc.dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Exec(%s) in %s: got %v, want an error with %q", tc.path, tc.dir, err, tc.want)
		}
	}
	// Landlock, seccomp and the capabilities are per thread: look at this
	// one's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := os.WriteFile(filepath.Join(f.home, "after"), nil, 0o644); err != nil {
		t.Errorf("this process was left confined: %v", err)
	}
	if l.root {
		caps, err := threadCaps()
		if err != nil || !caps.any() {
			t.Errorf("this process lost its capabilities: %v, %v", caps, err)
		}
	}
	if nnp, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); nnp != 0 {
		t.Errorf("this thread got no_new_privs")
	}
}

// TestUsernsUnavailable checks that each kernel setting that forbids
// user namespaces is named, with its value, as the reason an ordinary
// user's sandbox has no mount namespace.
func TestUsernsUnavailable(t *testing.T) {
	saved := userNSSettings
	defer func() { userNSSettings = saved }()
	for _, s := range saved {
		file := filepath.Join(t.TempDir(), filepath.Base(s.file))
		if err := os.WriteFile(file, []byte(s.off+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		userNSSettings = []userNSSetting{{file, s.off, s.why}}
		err := usernsUnavailable()
		if err == nil || !strings.Contains(err.Error(), filepath.Base(s.file)+"="+s.off) {
			t.Errorf("%s = %s: got %v, want the setting named", s.file, s.off, err)
		}
	}
}

// BenchmarkLandlockStart starts /bin/true confined and waits for it: for
// an ordinary user, through a user namespace and without (the degraded
// path); for root, with its mount namespace.
func BenchmarkLandlockStart(b *testing.B) {
	ws := b.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git/hooks"), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		network  Network
		noUserns bool
	}{{"network on", NetworkOn, false}, {"network off", NetworkOff, false}, {"no user namespace", NetworkOn, true}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.noUserns {
				if os.Geteuid() == 0 {
					b.Skip("root needs no user namespace")
				}
				saved := userNSSettings
				defer func() { userNSSettings = saved }()
				setting := filepath.Join(b.TempDir(), "max_user_namespaces")
				os.WriteFile(setting, []byte("0\n"), 0o644)
				simulateNoUserns(setting)
			}
			p, err := NewPolicy(&Spec{Workspace: ws, Scratch: []string{"/tmp"}, ReadOnly: []string{".git/hooks"}, Network: tc.network}, os.Environ())
			if err != nil {
				b.Fatal(err)
			}
			l, err := newLandlock(p)
			if err != nil {
				b.Skip(err)
			}
			for b.Loop() {
				c, err := l.Start("/bin/true", []string{"true"}, p.Env, os.Stdin)
				if err != nil {
					b.Fatal(err)
				}
				if code, err := c.Wait(); code != 0 || err != nil {
					b.Fatal(code, err)
				}
			}
		})
	}
}

// TestLandlockSocketVanished removes a host socket that the policy
// covers before the sandbox starts (its program ended meanwhile): the
// command must still start, with nothing to cover.
func TestLandlockSocketVanished(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "cordon-vanish-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	// (The network off: the allowlist's proxy needs a state directory.)
	p, err := NewPolicy(&Spec{Workspace: ws, Scratch: []string{"/tmp"}, Network: NetworkOff}, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	p.SearchSockets() // as a start does
	ln.Close()        // removes the socket
	if !slices.Contains(p.HostSockets, sock) {
		t.Fatalf("the policy does not cover %s: %q", sock, p.HostSockets)
	}
	l, err := newLandlock(p)
	if err != nil {
		t.Skip(err)
	}
	if l.mounts == nil {
		t.Skipf("no mount namespace here: %v", l.nsErr)
	}
	c, err := l.Start("/bin/true", []string{"true"}, p.Env, os.Stdin)
	if err != nil {
		t.Fatalf("a vanished socket kept the command from starting: %v", err)
	}
	if code, err := c.Wait(); code != 0 || err != nil {
		t.Errorf("exit %d, %v", code, err)
	}
}

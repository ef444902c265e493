package platform

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/wire"
)

// An ordinary user's Landlock sandbox gets its mount namespace (and, when
// the network is not on, its network namespace) inside a user namespace
// of its own, where the kernel allows those.
//
// A multithreaded process, which every Go program is, cannot enter a new
// user namespace (unshare(2) and setns(2) refuse with EINVAL). So the
// program is started through this binary re-executed as [UsernsRole]:
// the fork that starts it makes the user namespace (clone(2) with
// CLONE_NEWUSER; the user's uid and gid mapped to themselves, so that
// the program sees its own ids and files keep their owners; setgroups
// denied), and the capabilities the steps need are carried over the exec
// as ambient capabilities, valid in that namespace only. The re-executed
// cordon ([UsernsMain]) reads the policy from a socket, applies the same
// steps as root does (see the top of landlock_linux.go), and execs the
// program, which so keeps the process id its parent sees.
//
// The program then holds no capability (bounding set empty, securebits
// locked, ambient set cleared), runs under no_new_privs and under the
// seccomp filter, which refuses new user namespaces: it can neither
// undo the mounts nor make a namespace where it would hold capabilities
// again. Setup errors come back on the socket, which the exec closes.

// UsernsRole is the argv[0] of this binary re-executed in a new user
// namespace to set up the sandbox there (see above). Every binary that
// links this package takes that role at start-up (see init below), so
// that test binaries can start sandboxes too.
const UsernsRole = "cordon-sandbox"

func init() {
	if len(os.Args) == 2 && os.Args[0] == UsernsRole {
		os.Exit(UsernsMain(os.Args))
	}
}

// usernsCaps are the capabilities the setup needs in its user namespace:
// mounts and the caches' overlays (layerCaps), the bounding set and
// securebits, the loopback interface.
var usernsCaps = append([]uintptr{unix.CAP_NET_ADMIN}, layerCaps...)

// usernsSpec is what the setup step is sent.
type usernsSpec struct {
	Policy *Policy  `json:"policy"`
	Path   string   `json:"path"`
	Argv   []string `json:"argv"`
	Env    []string `json:"env"`
	Dir    string   `json:"dir,omitempty"`
}

// A userNSSetting is a kernel setting that can forbid unprivileged user
// namespaces: when file holds off, why says so and what to do.
type userNSSetting struct {
	file, off, why string
}

// userNSSettings are the kernel settings that allow or forbid user
// namespaces (the bwrap probe's cache is keyed on them too).
var userNSSettings = []userNSSetting{
	{"/proc/sys/user/max_user_namespaces", "0", "user namespaces are disabled (sysctl user.max_user_namespaces=0; a value above 0 allows them)"},
	{"/proc/sys/kernel/unprivileged_userns_clone", "0", "unprivileged user namespaces are disabled (sysctl kernel.unprivileged_userns_clone=0; 1 allows them)"},
	{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1", "AppArmor restricts unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=1; 0 lifts it)"},
}

// usernsUnavailable says why this process cannot give a sandbox a user
// namespace of its own, or returns nil when it can. The kernel settings
// are read first; under a seccomp filter (a container's, a sandbox's
// around this one), which may refuse them, one is made for real (about
// 0.4 ms).
func usernsUnavailable() error {
	for _, s := range userNSSettings {
		if b, err := os.ReadFile(s.file); err == nil && strings.TrimSpace(string(b)) == s.off {
			return fmt.Errorf("making one needs root or a user namespace, and %s", s.why)
		}
	}
	if status, err := selfStatus(); err == nil && statusField(status, "Seccomp", "0") {
		return nil
	}
	// A child that fails to exec a file that does not exist: ENOENT means
	// that the namespace and the capabilities were granted.
	_, err := syscall.ForkExec("/nonexistent/cordon-userns-probe", []string{UsernsRole}, &syscall.ProcAttr{
		Sys: usernsAttr(&syscall.SysProcAttr{}),
	})
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	return fmt.Errorf("making one needs root or a user namespace, and this process may not make one (%v: a container's or a sandbox's seccomp filter?)", err)
}

// usernsAttr adds to sys what makes a child's user namespace: the
// caller's uid and gid mapped to themselves, setgroups denied, and the
// setup's capabilities kept over the exec.
func usernsAttr(sys *syscall.SysProcAttr) *syscall.SysProcAttr {
	uid, gid := os.Geteuid(), os.Getegid()
	sys.Cloneflags |= unix.CLONE_NEWUSER
	sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	sys.GidMappingsEnableSetgroups = false
	sys.AmbientCaps = usernsCaps
	return sys
}

// usernsSpawn is the spawn that starts the program at path through the
// setup step in a new user namespace, in directory dir ("" for this
// one), in process group pgid when it is above 0.
func (l *landlockBackend) usernsSpawn(path string, argv, env []string, dir string, stdin *os.File, pgid int) (*spawn, error) {
	data, err := wire.Encode(&usernsSpec{Policy: l.p, Path: path, Argv: argv, Env: env, Dir: dir})
	if err != nil {
		return nil, err
	}
	s := &spawn{
		path: "/proc/self/exe", stdin: stdin,
		sys: usernsAttr(groupAttr(&syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}, pgid)),
	}
	setupSocket(s, UsernsRole, data)
	return s, nil
}

// execChild is Exec with the program as this process's child (through
// the setup step in a user namespace, or behind the network allowlist's
// proxy, which this process serves): it passes signals on, and ends the
// way the program ends.
func (l *landlockBackend) execChild(path string, argv, env []string, dir string) error {
	sigs := make(chan os.Signal, 16)
	NotifyCaught(sigs, forwarded...)
	c, err := l.startIn(path, argv, env, dir, os.Stdin, 0)
	if err != nil {
		signal.Stop(sigs)
		return err
	}
	go func() {
		for sig := range sigs {
			c.Forward(sig)
		}
	}()
	ws := c.WaitStatus()
	if _, err := c.Wait(); err != nil {
		return err
	}
	exitLike(syscall.WaitStatus(ws))
	return nil
}

// UsernsMain is the setup step in a new user namespace; args are
// [UsernsRole, the descriptor of its socket]. It returns only on failure.
func UsernsMain(args []string) int {
	conn := setupConn(args[1], "the sandbox's setup is started by cordon itself")
	if conn == nil {
		return 126
	}
	fail := func(err error) int {
		conn.Write([]byte(err.Error()))
		return 126
	}
	var s usernsSpec
	if err := decodeLine(conn, &s); err != nil || s.Policy == nil {
		return fail(fmt.Errorf("the sandbox's setup got a bad request (%v)", err))
	}
	l, err := newLandlockBackend(s.Policy, true, "")
	if err != nil {
		return fail(err)
	}
	return fail(l.Exec(s.Path, s.Argv, s.Env, s.Dir))
}

// enterNetNamespace gives the calling thread a new network namespace
// with its loopback interface up: with the network not on, the program
// reaches no host but through a Unix socket (a forwarder inside to a
// proxy on the host listens on the loopback; see docs/security.md).
func enterNetNamespace() error {
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		return fmt.Errorf("cannot make a network namespace: %w", err)
	}
	return loopbackUp()
}

// loopbackUp brings the loopback interface of this thread's network
// namespace up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("cannot bring the sandbox's loopback up: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err == nil {
		err = unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr)
	}
	if err == nil {
		ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
		err = unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
	}
	if err != nil {
		return fmt.Errorf("cannot bring the sandbox's loopback up: %w", err)
	}
	return nil
}

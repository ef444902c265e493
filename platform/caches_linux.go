package platform

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/wire"
)

// On Linux each cache's private layer is an overlay mounted at the
// cache's own path in the sandbox's mount namespace: the host's cache
// read-only below, the layer's upper directory above it. Where the
// kernel or the file systems refuse an overlay, the upper directory
// alone is bound there: a private cache that starts cold. Both keep
// every write off the host's cache.
//
// The Landlock backend mounts the layers in its own mount namespace
// (planMounts). bwrap before 0.9 cannot mount an overlay, so cordon
// runs first inside bwrap's sandbox as [LayerRole], holding the few
// capabilities the mounts need in the sandbox's user namespace: it makes
// a mount namespace of its own (bwrap's belongs to an outer user
// namespace, where it holds none), lays the layers and what the policy
// puts below the caches (read-only paths, hidden ones), drops every
// capability and execs the program; or, when the program is the
// session's keeper, goes on as it in this process (see layerMain).

// LayerRole is the base name of argv[0] of cordon re-executed first in
// a bwrap sandbox to lay the private layers over the caches:
// [LayerRole, descriptor, path, argv...], the descriptor holding the
// layers' policy ([layerPolicy]). bwrap runs it through a link of that
// name ([RoleLink]); every binary that links this package takes the
// role at start-up (see init), so that test binaries can too.
const LayerRole = "cordon-layers"

func init() {
	if len(os.Args) >= 4 && filepath.Base(os.Args[0]) == LayerRole {
		if code, goOn := layerMain(os.Args); !goOn {
			os.Exit(code)
		}
		// This process is now the session's keeper (continueAs): the
		// binary's main runs its role from os.Args.
	}
}

// layerCaps are the capabilities the overlays need: mounting, and the
// overlay's own work in its upper directory, which it does with its
// mounter's credentials (whiteouts, the work directory, copy-up of
// files the program may write but not read); the bounding set to drop
// them all after.
var layerCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_DAC_OVERRIDE, unix.CAP_DAC_READ_SEARCH,
	unix.CAP_FOWNER, unix.CAP_CHOWN, unix.CAP_FSETID, unix.CAP_MKNOD, unix.CAP_SETPCAP}

// layerPolicy is the part of p that lies in its caches, with its layers:
// what a mount namespace made after the caches are covered must lay
// again.
func (p *Policy) layerPolicy() *Policy {
	in := func(paths []string) []string {
		return slices.DeleteFunc(slices.Clone(paths), func(x string) bool {
			return !slices.ContainsFunc(p.Caches, func(c string) bool { return Within(x, c) })
		})
	}
	return &Policy{
		Caches: p.Caches, Layer: p.Layer, Limits: p.Limits,
		Writable: in(slices.Concat(p.Scratch, p.Writable)),
		ReadOnly: in(p.ReadOnly), Hidden: in(p.Hidden), Visible: in(p.Visible), HostSockets: in(p.HostSockets),
		Filtered: slices.DeleteFunc(slices.Clone(p.Filtered), func(f string) bool {
			path, _, _ := strings.Cut(f, " ")
			return !slices.ContainsFunc(p.Caches, func(c string) bool { return Within(path, c) })
		}),
	}
}

// mountLayers lays the private layers of p's caches, each at its
// cache's path, then binds the writable paths inside the caches (opened
// before) back over them, and covers the layers' directory.
func mountLayers(p *Policy) error {
	if p == nil || p.Layer == "" || len(p.Caches) == 0 {
		return nil
	}
	keep := slices.DeleteFunc(slices.Concat(p.Scratch, p.Writable), func(x string) bool {
		return !slices.ContainsFunc(p.Caches, func(c string) bool { return Within(x, c) && x != c })
	})
	fds, err := openPaths(keep, "cannot keep %s writable in its cache: %w")
	if err != nil {
		return err
	}
	defer closeAll(fds)
	for _, c := range p.Caches {
		upper, work := layerOf(p.Layer, c)
		lower := c
		if l := lowerOf(p.Layer, c); isDir(l) {
			lower = l // bwrap's: see [Policy.mounts]
		}
		if err := mountLayer(c, lower, upper, work); err != nil {
			return err
		}
	}
	for i, k := range keep {
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(fds[i]), k, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("cannot keep %s writable in its cache: %w", k, err)
		}
	}
	if err := unix.Mount("tmpfs", p.Layer, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k"); err != nil {
		return fmt.Errorf("cannot cover the caches' private layers: %w", err)
	}
	return nil
}

// mountLayer mounts at path, the cache, an overlay of upper over lower
// (the cache as the host has it), or, where no overlay can be had, binds
// upper there alone. The paths go to the kernel as descriptors, so that
// no comma or colon in them can be read as an option.
func mountLayer(path, lower, upper, work string) error {
	fail := func(err error) error {
		return fmt.Errorf("cannot give the sandbox a private layer over %s: %w", path, err)
	}
	var fds [3]int
	for i, d := range []string{lower, upper, work} {
		fd, err := unix.Open(d, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail(err)
		}
		defer unix.Close(fd)
		fds[i] = fd
	}
	fdPath := func(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
	opts := "lowerdir=" + fdPath(fds[0]) + ",upperdir=" + fdPath(fds[1]) + ",workdir=" + fdPath(fds[2])
	var err error
	// userxattr: in a user namespace the overlay keeps its marks in
	// user.* attributes (trusted.* needs the host's root). Kernels
	// before 5.11 know neither the option nor overlays in a user
	// namespace.
	for _, o := range []string{opts + ",userxattr", opts} {
		if err = unix.Mount("overlay", path, "overlay", unix.MS_NOSUID|unix.MS_NODEV, o); err == nil {
			return nil
		}
	}
	if berr := unix.Mount(fdPath(fds[1]), path, "", unix.MS_BIND, ""); berr != nil {
		return fail(fmt.Errorf("no overlay (%v), and no bind either: %w", err, berr))
	}
	return nil
}

// LayerMain is cordon inside bwrap's sandbox as LayerRole (see there):
// args are [link, descriptor, path, argv...]. It returns only on
// failure.
func LayerMain(args []string) int {
	code, _ := layerMain(args)
	return code
}

// layerMain is LayerMain; goOn says that it did not fail and did not
// exec either: this process goes on as the session's keeper, which is
// the program (straight, or behind the network forwarder's role), in
// the binary's main ([continueAs]). A keeper started this way is one Go
// start fewer on a session's first command.
func layerMain(args []string) (code int, goOn bool) {
	fail := func(format string, a ...any) (int, bool) {
		fmt.Fprintf(os.Stderr, "cordon: the caches' private layers: "+format+"; nothing was run\n", a...)
		return 126, false
	}
	if len(args) < 4 {
		return fail("started by cordon itself, not by hand")
	}
	fd, err := strconv.Atoi(args[1])
	if err != nil || fd < 3 {
		return fail("started by cordon itself, not by hand")
	}
	f := os.NewFile(uintptr(fd), "layers")
	data, err := io.ReadAll(io.LimitReader(f, 16<<20))
	f.Close()
	if err != nil {
		return fail("%v", err)
	}
	var p Policy
	if err := wire.Decode(data, &p); err != nil {
		return fail("%v", err)
	}
	runtime.LockOSThread()
	m := planMounts(&p, isDir)
	m.maskSockets(&p)
	// Outside bwrap's own mounts, no hidden path below a cache may be
	// left uncovered (one that holds a path to keep readable cannot be
	// covered whole here, as bwrap would).
	for _, h := range p.Hidden {
		if !slices.Contains(m.maskDirs, h) && !slices.Contains(m.maskFiles, h) {
			return fail("cannot hide %s below its cache: it holds paths to keep reachable", h)
		}
	}
	// (Entered again: a command started inside a cache would stay on
	// bwrap's read-only mount of it, below its layer.)
	if err := reentered(m.apply); err != nil {
		return fail("%v", err)
	}
	// The resource limits go on the program alone (bwrap does not get
	// them with layers): under a memory limit the Go runtime of this
	// process, and of the forwarder, could not start.
	path, argv := args[2], args[3:]
	// The session's keeper (straight, or behind the forwarder) goes on
	// in this process when every thread can drop the capabilities, and
	// no memory limit would fall on a runtime already running; anything
	// else is executed, this thread alone having dropped them.
	keeper := keeperHere(path) || filepath.Base(path) == NetRole && len(argv) >= 5 && keeperHere(argv[4])
	if keeper && p.Limits.Memory == 0 {
		err := dropCapabilitiesEverywhere()
		if err != nil && !errors.Is(err, errNoAllThreads) {
			return fail("%v", err)
		}
		inProcess = err == nil
	}
	if !inProcess {
		if err := dropCapabilities(true); err != nil {
			return fail("%v", err)
		}
	}
	if filepath.Base(path) == NetRole {
		return netMain(argv) // in this process: one start fewer; it sets the limits
	}
	if inProcess {
		if err := continueAs(argv, os.Environ(), p.Limits); err != nil {
			return fail("%v", err)
		}
		return 0, true
	}
	err = execLimited(path, argv, os.Environ(), p.Limits)
	if errors.Is(err, unix.ENOENT) {
		return fail("%s: not found", path)
	}
	return fail("%v", err)
}

// capNames are bwrap's names of layerCaps.
var capNames = map[uintptr]string{
	unix.CAP_SYS_ADMIN: "CAP_SYS_ADMIN", unix.CAP_DAC_OVERRIDE: "CAP_DAC_OVERRIDE",
	unix.CAP_DAC_READ_SEARCH: "CAP_DAC_READ_SEARCH", unix.CAP_FOWNER: "CAP_FOWNER",
	unix.CAP_CHOWN: "CAP_CHOWN", unix.CAP_FSETID: "CAP_FSETID", unix.CAP_MKNOD: "CAP_MKNOD",
	unix.CAP_SETPCAP: "CAP_SETPCAP",
}

// layerArgs are bwrap's options for the private layers of its policy's
// caches: the capabilities LayerRole needs (the layers' directory is
// among the mounts).
func (b *bwrapBackend) layerArgs() []string {
	if b.policy.Layer == "" {
		return nil
	}
	var a []string
	for _, c := range layerCaps {
		a = append(a, "--cap-add", capNames[c])
	}
	return a
}

// layerCommand is the end of bwrap's command line with the layers: the
// program at path with argv run by LayerRole, which reads the layers'
// policy from a descriptor newFD makes.
func (b *bwrapBackend) layerCommand(path string, argv []string, newFD func(data []byte) (int, error)) ([]string, error) {
	link, err := RoleLink(b.stateDir, LayerRole)
	if err != nil {
		return nil, err
	}
	data, err := wire.Encode(b.policy.layerPolicy())
	if err != nil {
		return nil, err
	}
	fd, err := newFD([]byte(data))
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		argv = []string{path}
	}
	return append([]string{"--", link, strconv.Itoa(fd), path}, argv...), nil
}

// withLayers returns b for one start: with caches, a copy whose policy
// names a set of private layers locked for it; release unlocks the set
// once the sandbox has ended.
func (b *bwrapBackend) withLayers() (*bwrapBackend, func(), error) {
	p, release, err := withLayers(b.stateDir, b.policy)
	if err != nil || p == b.policy {
		return b, release, err
	}
	c := *b
	c.policy = p
	return &c, release, nil
}

// withLayers returns l for one start: with caches, a copy whose policy
// names a set of private layers locked for it (laid by its mount plan
// or by its setup step in a user namespace); release unlocks the set
// once the program has ended. Without a mount namespace the caches stay
// the host's (a degradation: see mountDegradations).
func (l *landlockBackend) withLayers() (*landlockBackend, func(), error) {
	if l.nsErr != nil {
		return l, func() {}, nil
	}
	p, release, err := withLayers(l.stateDir, l.p)
	if err != nil || p == l.p {
		return l, release, err
	}
	c := *l
	c.p = p
	if l.mounts != nil {
		m := *l.mounts
		m.layers = p
		c.mounts = &m
	}
	return &c, release, nil
}

// limits are the resource limits bwrap itself gets, for everything in
// its sandbox: none when cordon runs first inside (LayerRole, NetRole),
// which sets the policy's on the program.
func (b *bwrapBackend) limits() Limits {
	if b.policy.Layer != "" || b.policy.Network == NetworkAllowlist {
		return Limits{}
	}
	return b.policy.Limits
}

// lowerOf is where bwrap binds cache as the host has it, for LayerRole:
// beside the set of layers dir, in their hidden directory.
func lowerOf(dir, cache string) string {
	sum := sha256.Sum256([]byte(cache))
	return filepath.Join(filepath.Dir(filepath.Dir(dir)), ".lower", hex.EncodeToString(sum[:8]))
}

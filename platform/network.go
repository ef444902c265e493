package platform

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/netproxy"
)

// NetRole is the base name of argv[0] of cordon re-executed inside the
// sandbox to start the forwarder and exec the program: [NetRole,
// socket, ports, limits, path, argv...] (ports: the host's loopback
// ports to forward, "3000,5432" or "-"; limits: the program's resource
// limits, see [Limits.arg]); [NetRole, "serve", socket, ports] is the
// forwarder,
// [NetRole, "connect", host, port] ssh's ProxyCommand. bwrap runs it
// through a link of that name ([RoleLink]): before 0.9 it cannot set
// argv[0], and cordon's binary may have any name (a shell's, installed
// as a hard link or a copy).
const NetRole = "cordon-netfwd"

// KeeperRole is the base name of a session keeper's link to cordon
// (package sessionbox's role). On Linux it is the one program the
// caches' layers' role (and the forwarder's, run by it) go on as in
// their own process instead of executing it, where that leaves what
// the exec would (see continueAs).
const KeeperRole = "cordon-keeper"

// RoleLink returns a symbolic link named role to this binary, in the
// state directory (read-only in every sandbox), made when missing: a
// sandbox runs cordon in that role through it.
func RoleLink(stateDir, role string) (string, error) {
	if !filepath.IsAbs(stateDir) {
		// No state directory (it is in a place commands can write):
		// a relative one would put the link where the caller runs.
		return "", fmt.Errorf("no state directory for the link %s", role)
	}
	self, err := selfPath()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(self))
	dir := filepath.Join(stateDir, "keeper", hex.EncodeToString(sum[:])[:16])
	link := filepath.Join(dir, role)
	if t, err := os.Readlink(link); err == nil && t == self {
		return link, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d", link, os.Getpid())
	os.Remove(tmp)
	if err := os.Symlink(self, tmp); err != nil {
		return "", err
	}
	return link, os.Rename(tmp, link)
}

// NetRefused, when set, is told every destination the proxy refuses
// for the policy p (the audit log: package guard and sessionbox set it).
var NetRefused func(p *Policy, r *netproxy.Refusal)

// SessionsDir is the directory of the sessions' sockets (package
// sessionbox) and of the network proxies' in cordon's state directory:
// every sandbox hides it, so that none reaches another's session or
// proxy.
func SessionsDir(stateDir string) string { return filepath.Join(stateDir, "sessions") }

// allowlistFallback is for a backend that cannot enforce the network
// allowlist here (Seatbelt, the Windows token; Landlock without a network namespace of its
// own), why says what it lacks: the default allowlist becomes the
// network on, which the backend's report says; an allowlist the
// settings ask for is an error.
func allowlistFallback(p *Policy, backend, why string) error {
	if p == nil || p.Network != NetworkAllowlist {
		return nil
	}
	if !p.NetworkDefault {
		return fmt.Errorf("%s: the network allowlist needs %s (see docs/network.md): set sandbox.network to on or off", backend, why)
	}
	p.Network, p.NetAllow, p.NetDeny = NetworkOn, nil, nil
	return nil
}

package platform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// bwrapDirs are where bwrap is looked for. PATH is not searched: the
// agent controls it, and a bwrap of its own could confine nothing.
var bwrapDirs = []string{"/usr/bin", "/bin", "/usr/local/bin"}

// bwrapOptions are the options whose support the probe records.
var bwrapOptions = []string{"--disable-userns", "--argv0", "--unshare-cgroup-try", "--remount-ro", "--perms", "--ro-bind-data", "--die-with-parent", "--new-session", "--cap-drop", "--bind-fd"}

// BwrapProbe is what cordon learned about a bwrap binary by running it
// once. It is cached by the binary's identity and the kernel.
type BwrapProbe struct {
	// Path is bwrap's path.
	Path string `json:"path"`
	// Key identifies the binary, the kernel and the user the probe ran
	// for; a probe with another key is stale.
	Key string `json:"key"`
	// Version is bwrap --version's output.
	Version string `json:"version"`
	// Options records which options bwrap --help lists.
	Options map[string]bool `json:"options"`
	// Loader is the ELF interpreter of the system's programs, and
	// LoaderArgv0 whether it takes --argv0 (glibc 2.33+, musl).
	Loader      string `json:"loader"`
	LoaderArgv0 bool   `json:"loader_argv0"`
	// Works says whether bwrap could make a sandbox with the namespaces
	// cordon uses.
	Works bool `json:"works"`
	// Problem explains why not, with what to do about it.
	Problem string `json:"problem,omitempty"`
}

// FindBwrap returns the path of a bwrap binary that only root can
// replace, or an error that says why there is none.
func FindBwrap() (string, error) {
	for _, dir := range bwrapDirs {
		p := filepath.Join(dir, "bwrap")
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		st := fi.Sys().(*syscall.Stat_t)
		if !rootOwned(st.Uid) || fi.Mode().Perm()&0o022 != 0 {
			return "", fmt.Errorf("%s is not owned by root or is writable by others: cordon will not trust it to confine anything", p)
		}
		return p, nil
	}
	return "", errors.New("bubblewrap is not installed (apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)")
}

// rootOwned reports whether a file owner uid is root's: inside a user
// namespace that does not map root (cordon agent's, for an ordinary
// user), root's files show as the overflow uid.
func rootOwned(uid uint32) bool {
	if uid == 0 {
		return true
	}
	root, ok := unmappedRoot()
	return ok && uid == root
}

// ProbeBwrap returns what bwrap at path can do, from the cache file in
// cacheDir when it matches the binary and the kernel, else by running it
// (about 10 ms, once) and caching the answer. cacheDir "" means no cache.
func ProbeBwrap(path, cacheDir string) (*BwrapProbe, error) {
	key, err := probeKey(path)
	if err != nil {
		return nil, err
	}
	cache := ""
	if cacheDir != "" {
		cache = filepath.Join(cacheDir, "bwrap-probe.json")
		if pr := readProbe(cache, path, key); pr != nil {
			return pr, nil
		}
	}
	pr := runProbe(path, key)
	if cache != "" {
		writeProbe(cache, pr)
	}
	return pr, nil
}

// probeKey identifies bwrap's binary (device, inode, size, time), the
// kernel release and the effective user.
func probeKey(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	var u unix.Utsname
	unix.Uname(&u)
	key := fmt.Sprintf("%d:%d:%d:%d.%d:%s:%d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec,
		unix.ByteSliceToString(u.Release[:]), os.Geteuid())
	// The settings that decide whether bwrap may make namespaces: when
	// one changes (Ubuntu's AppArmor restriction turned on), the probe
	// runs again instead of trusting a stale "works".
	for _, f := range userNSSettings {
		if b, err := smallfile.ReadFile(f.file); err == nil {
			key += ":" + strings.TrimSpace(string(b))
		}
	}
	// The options looked for: one added is looked for at once.
	key += ":" + strings.Join(bwrapOptions, ",")
	return key, nil
}

func readProbe(cache, path, key string) *BwrapProbe {
	data, err := smallfile.ReadFile(cache)
	if err != nil {
		return nil
	}
	var pr BwrapProbe
	if json.Unmarshal(data, &pr) != nil || pr.Path != path || pr.Key != key || pr.Options == nil {
		return nil
	}
	return &pr
}

// writeProbe saves pr atomically; a cache that cannot be written only
// costs the next invocation another probe.
func writeProbe(cache string, pr *BwrapProbe) {
	data, err := json.MarshalIndent(pr, "", "  ")
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(cache), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(cache), ".bwrap-probe-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), cache) != nil {
		os.Remove(tmp.Name())
	}
}

// runProbe runs bwrap three times: --version, --help, and a sandbox with
// the namespaces and mounts cordon uses around /bin/true.
func runProbe(path, key string) *BwrapProbe {
	pr := &BwrapProbe{Path: path, Key: key, Options: map[string]bool{}}
	out, _ := probeCmd(path, "--version").Output()
	pr.Version = strings.TrimSpace(string(out))
	help, _ := probeCmd(path, "--help").CombinedOutput()
	for _, opt := range bwrapOptions {
		pr.Options[opt] = bytes.Contains(help, []byte(opt+" "))
	}
	args := []string{"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
		"--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp"}
	if pr.Options["--disable-userns"] {
		args = append(args, "--disable-userns")
	}
	truePath := "/bin/true"
	if _, err := os.Stat(truePath); err != nil {
		truePath = "/usr/bin/true"
	}
	if pr.Loader = elfInterp(truePath); pr.Loader != "" {
		out, err := probeCmd(pr.Loader, "--argv0", "cordon-probe", "/bin/sh", "-c", `printf %s "$0"`).Output()
		pr.LoaderArgv0 = err == nil && string(out) == "cordon-probe"
	}
	var stderr bytes.Buffer
	cmd := probeCmd(path, append(args, "--", truePath)...)
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		pr.Works = true
		return pr
	}
	pr.Problem = explainBwrap(strings.TrimSpace(stderr.String()), err)
	return pr
}

func probeCmd(path string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Cancel = func() error { cancel(); return cmd.Process.Kill() }
	return cmd
}

// bwrapFailures map bwrap's error messages to their cause and the fix.
var bwrapFailures = []struct{ msg, why string }{
	{"setting up uid map: Permission denied", "the system forbids unprivileged user namespaces (Ubuntu 23.10+ and Debian 13 do this with AppArmor): allow bwrap once with an AppArmor profile (/etc/apparmor.d/bwrap with 'userns,') or set kernel.apparmor_restrict_unprivileged_userns=0"},
	{"Failed RTM_NEWADDR", "AppArmor keeps bwrap from setting up its network namespace: allow bwrap with an AppArmor profile (/etc/apparmor.d/bwrap with 'userns,') or set kernel.apparmor_restrict_unprivileged_userns=0"},
	{"No permissions to create new namespace", "user namespaces are disabled (sysctl kernel.unprivileged_userns_clone=0 or user.max_user_namespaces=0): enable them, or use the Landlock backend"},
	{"Creating new namespace failed", "this system (a container's seccomp profile, or a kernel setting) does not allow new namespaces: cordon can use Landlock instead (backend: landlock)"},
	{"Can't mount proc", "this looks like a container whose /proc is masked, where bwrap cannot mount a new /proc: use the Landlock backend (backend: landlock)"},
	{"Operation not permitted", "bwrap is not allowed to make its sandbox here (a container, or a security policy): use the Landlock backend (backend: landlock)"},
}

func explainBwrap(stderr string, err error) string {
	for _, f := range bwrapFailures {
		if strings.Contains(stderr, f.msg) {
			return fmt.Sprintf("bwrap cannot make a sandbox (%s): %s", stderr, f.why)
		}
	}
	if stderr == "" {
		stderr = err.Error()
	}
	return fmt.Sprintf("bwrap cannot make a sandbox: %s", stderr)
}

package platform

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cordonsh/cordon/credvar"
	"github.com/cordonsh/cordon/internal/smallfile"
)

// Network says whether and where a confined program may connect.
type Network string

// The network settings. With NetworkAllowlist the program has a network
// namespace of its own whose only way out is cordon's proxy, which lets
// it reach the destinations of NetAllow (docs/network.md).
const (
	NetworkOn        Network = "on"
	NetworkAllowlist Network = "allowlist"
	NetworkOff       Network = "off"
)

// A Spec is what a sandbox policy is made of, before anything is resolved.
// Path entries may start with "~" (the home directory) or "$NAME" (an
// environment variable) and may hold globs (*, ?, [...]) in any element.
// Read-only entries that are relative are relative to the workspace root.
type Spec struct {
	// Workspace is the directory commands work in: writable. Empty means
	// none: only scratch and the writable directories can be written.
	Workspace string
	// Scratch are shared temporary directories (/tmp, $TMPDIR): writable,
	// with the entries named by ScratchPrivate hidden.
	Scratch []string
	// ScratchPrivate are globs of entry names in a scratch directory that
	// belong to other programs (ssh-agent's ssh-*, .X11-unix, tmux-*):
	// hidden.
	ScratchPrivate []string
	// Writable are further writable directories: agents' protocol
	// files, what the person's settings add.
	Writable []string
	// Caches are the tools' caches (~/.npm, ~/go/pkg/mod, ~/.cache):
	// writable through a private layer of the sandbox's own (see
	// caches.go), so that nothing a command writes there is read back
	// by the host's tools.
	Caches []string
	// Filtered are hidden files shown with their secret lines left out
	// instead (see filtered.go): "FILE KEY...", KEY globs of the keys
	// whose lines are secrets.
	Filtered []string
	// ReadOnly are paths kept read-only inside writable ones: .git/hooks,
	// the project's cordon rules.
	ReadOnly []string
	// GitConfig are git's configuration files, relative to the workspace
	// root: writable, their code-running keys guarded (package guard).
	GitConfig []string
	// Includes are directives of auto-run files that make more read-only
	// places, "FILE DIRECTIVE ARG KIND" (see [includes]); Regenerable are
	// the names of directories they never make so (node_modules: what a
	// package manager writes there all day).
	Includes, Regenerable []string
	// GitConfigSafe are globs of the git configuration keys that never
	// run a program (package gitkey).
	GitConfigSafe []string
	// Hidden are unreadable paths: credentials.
	Hidden []string
	// Visible are paths inside hidden directories that stay readable
	// (~/.ssh/known_hosts).
	Visible []string
	// Sockets are the host's Unix sockets, or directories of them, that
	// commands may connect to (an IDE bridge); every other one is out of
	// reach (see sockets.go).
	Sockets []string
	// CredentialVars are globs of environment variable names removed from
	// the environment ("*_TOKEN"); matching ignores case.
	CredentialVars []string
	// CredentialWords are words that, as a word part of a variable's name
	// (DB_PASS, npm_config_//registry/:_authToken), have it removed too.
	CredentialWords []string
	// CredentialValues are regular expressions of values that have a
	// variable removed whatever its name (a GitHub token's ghp_...).
	CredentialValues []string
	// PassEnv names variables kept even though they match CredentialVars.
	PassEnv []string
	// Credentials are the credential variables a sandbox with the
	// network allowlist holds by placeholder, with their hosts (see
	// brokered.go).
	Credentials []CredentialKind
	// Network is NetworkAllowlist (the default when empty), NetworkOn
	// or NetworkOff.
	Network Network
	// NetAllow and NetDeny are the destinations of the allowlist (see
	// package netproxy).
	NetAllow, NetDeny []string
	// GitRemotes are the workspace's own HTTPS git remotes, as HOST/PATH
	// (HOST:PORT for another port than 443), for whose hosts git in the
	// sandbox gets a brokered credential that goes to those repositories'
	// paths only (see [GitCredentials]).
	GitRemotes []string
	// GitRefused are the repository's other HTTPS remotes (HOST/PATH):
	// added by sandboxed commands, or all of a repository a command made.
	// git in the sandbox gets a helper for their hosts (those with no
	// remote in GitRemotes) that says why it has no credential there:
	// GitRefusal.
	GitRefused []string
	GitRefusal string
	// PrivateTmp gives the program an empty /tmp of its own instead of the
	// shared one.
	PrivateTmp bool
	// Limits are resource limits; zero fields leave a limit as it is.
	Limits Limits
	// DeferScratchRepos puts the search for other repositories in
	// scratch space (see scratchRepositories) off until a sandbox is made
	// from the policy ([Policy.FindScratchRepositories]): a command run
	// in a session's sandbox made earlier never needs it (the session's
	// key leaves those repositories out), and the search is one lstat per
	// entry of /tmp.
	DeferScratchRepos bool
}

// Limits are resource limits set for a confined program; 0 leaves a limit
// unchanged.
type Limits struct {
	// CPU is the processor time in seconds (RLIMIT_CPU).
	CPU uint64 `yaml:"cpu_seconds" json:"cpu_seconds,omitempty"`
	// FileSize is the largest file the program may write, in bytes
	// (RLIMIT_FSIZE).
	FileSize uint64 `yaml:"file_size" json:"file_size,omitempty"`
	// Files is the number of open files (RLIMIT_NOFILE).
	Files uint64 `yaml:"open_files" json:"open_files,omitempty"`
	// Memory is the address space in bytes (RLIMIT_AS).
	Memory uint64 `yaml:"memory" json:"memory,omitempty"`
}

// arg is l as one argument of a command line: "cpu,fsize,files,memory".
func (l Limits) arg() string {
	return fmt.Sprintf("%d,%d,%d,%d", l.CPU, l.FileSize, l.Files, l.Memory)
}

// parseLimits reads [Limits.arg]'s form.
func parseLimits(s string) (Limits, error) {
	var v [4]uint64
	f := strings.Split(s, ",")
	if len(f) != len(v) {
		return Limits{}, fmt.Errorf("bad resource limits %q", s)
	}
	for i := range v {
		n, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return Limits{}, fmt.Errorf("bad resource limits %q", s)
		}
		v[i] = n
	}
	return Limits{CPU: v[0], FileSize: v[1], Files: v[2], Memory: v[3]}, nil
}

// A Policy is a Spec resolved on this machine: every path is absolute,
// real (symbolic links resolved) and, unless said otherwise, exists.
type Policy struct {
	// Workspace is the workspace's real path, or "" when there is none.
	Workspace string `json:"workspace,omitempty"`
	// Home is the home directory's real path ("" when there is none).
	Home string `json:"home,omitempty"`
	// Scratch are the scratch directories, outermost first.
	Scratch []string `json:"scratch,omitempty"`
	// Writable are the workspace and the other writable directories.
	Writable []string `json:"writable,omitempty"`
	// Caches are the tools' caches, outside every other writable path
	// and none inside another: commands write them through a private
	// layer ([Policy.Layer]), the host's cache its read-only base.
	Caches []string `json:"caches,omitempty"`
	// Layer is the directory of one start's private layers over Caches
	// (see caches.go); set on that start's copy of the policy.
	Layer string `json:"layer,omitempty"`
	// ReadOnly are existing paths inside writable ones kept read-only.
	ReadOnly []string `json:"read_only,omitempty"`
	// Guarded are the patterns of the read-only paths, absolute: files
	// the host's tools run or obey on their own. What a command makes or
	// changes there is undone when it ends (package guard).
	Guarded []string `json:"guarded,omitempty"`
	// GitConfig are the patterns of git's configuration files, absolute:
	// writable, but a command's change to a key outside GitConfigSafe is
	// undone when it ends (package guard).
	GitConfig     []string `json:"git_config,omitempty"`
	GitConfigSafe []string `json:"git_config_safe,omitempty"`
	// RootGuarded and RootGitConfig are Guarded's and GitConfig's
	// entries relative to a repository's root (.git/hooks/, .envrc,
	// .git/config): what the guard applies to a repository made inside
	// the workspace while a command runs ([NestedRepos]).
	RootGuarded   []string `json:"root_guarded,omitempty"`
	RootGitConfig []string `json:"root_git_config,omitempty"`
	// Regenerable are the names of the directories package managers
	// write all day (node_modules), which the guard's watch of the
	// places below the workspace's root leaves out.
	Regenerable []string `json:"regenerable,omitempty"`
	// Nested are the working and git directories of the repositories
	// nested in the workspace's own when the policy was made, whose
	// places Guarded and GitConfig hold ([NestedRepos]).
	Nested []string `json:"nested,omitempty"`
	// Hidden are existing paths that must be unreadable.
	Hidden []string `json:"hidden,omitempty"`
	// Missing are hidden paths that do not exist yet. A sandbox cannot
	// lay anything over them; they cannot be created from inside it
	// when their directory is read-only, and the rules judge reading
	// them.
	Missing []string `json:"missing,omitempty"`
	// Visible are existing paths inside hidden directories that stay
	// readable.
	Visible []string `json:"visible,omitempty"`
	// Filtered are hidden files shown with their secret lines left out
	// ("PATH KEY...": filtered.go); a backend that cannot lay a file
	// over another hides them.
	Filtered []string `json:"filtered,omitempty"`
	// Sockets are the host's sockets, or directories of them, that
	// commands may connect to.
	Sockets []string `json:"sockets,omitempty"`
	// HostSockets are the other sockets of the host found where sockets
	// are made, outside the hidden paths: covered like hidden files.
	HostSockets []string `json:"host_sockets,omitempty"`
	// socketsPartial is true when the search for HostSockets stopped
	// early.
	socketsPartial bool
	// socketsSearched is true once HostSockets were looked for.
	socketsSearched bool
	// listingsIn is the state directory that keeps the socket search's
	// listings ([Policy.SearchSockets]), "" for none: set by [Sandbox].
	listingsIn string
	// scratchPending is true while the repositories in scratch space
	// are still to be looked for (Spec.DeferScratchRepos), with the
	// spec's GitConfigSafe for them in scratchSafe.
	scratchPending bool
	scratchSafe    []string
	// scratchReadOnly are the places of ReadOnly that guard repositories
	// in scratch space (their hooks): see [Confined].
	scratchReadOnly []string
	// Env is the environment the program gets.
	Env []string `json:"env,omitempty"`
	// Credentials are the kinds of Spec.Credentials whose variable the
	// environment sets, with the network allowlist: names and hosts,
	// never values (see brokered.go). Their hosts are in NetAllow.
	Credentials []CredentialKind `json:"credentials,omitempty"`
	// secrets are their values, "NAME=value", for the process that
	// starts the sandbox and serves its broker ([Policy.Secrets]).
	// Unexported, so never encoded with the policy (not in the policy
	// cache, a session's key, nor the setup step's request inside): the
	// guard and the session's manager get them on a channel of their
	// own.
	secrets []string
	// brokerage, when set, is the broker a start serves the credentials
	// with (a session's, which its manager keeps adding to); nil: a
	// start makes one of its own.
	brokerage *Brokerage
	// TokenFiles are the person's filtered files that hold tokens the
	// sandbox sees as placeholders, with the network allowlist (see
	// tokenfiles.go): how to find them, never their values.
	TokenFiles []TokenFile `json:"token_files,omitempty"`
	// Shown are what a start that brokers TokenFiles shows for them,
	// by path: each token a placeholder (set on that start's copy).
	Shown map[string]string `json:"shown,omitempty"`
	// CABundle is the bundle (the host's certificates and the broker's
	// authority) bound read-only over each of CATargets, the host's
	// bundles, in a start that brokers credentials (set on that start's
	// copy of the policy).
	CABundle  string   `json:"ca_bundle,omitempty"`
	CATargets []string `json:"ca_targets,omitempty"`
	// Network is NetworkOn, NetworkAllowlist or NetworkOff.
	Network Network `json:"network,omitempty"`
	// NetworkDefault is true when the settings chose no network mode:
	// a backend that cannot enforce the allowlist then runs with the
	// network on (and says so), where an explicit allowlist fails.
	NetworkDefault bool `json:"network_default,omitempty"`
	// NetAllow and NetDeny are the allowlist's destinations.
	NetAllow []string `json:"net_allow,omitempty"`
	NetDeny  []string `json:"net_deny,omitempty"`
	// GitRemotes are the workspace's own HTTPS git remotes (HOST/PATH).
	GitRemotes []string `json:"git_remotes,omitempty"`
	// GitRefused and GitRefusal are the spec's.
	GitRefused []string `json:"git_refused,omitempty"`
	GitRefusal string   `json:"git_refusal,omitempty"`
	// Proxy is the socket of the allowlist's proxy serving one start
	// (set on that start's copy of the policy; the Landlock backend
	// passes it to its setup step): bound into the hidden directory
	// that holds it, and connectable.
	Proxy string `json:"proxy,omitempty"`
	// PrivateTmp gives the program an empty /tmp of its own.
	PrivateTmp bool `json:"private_tmp,omitempty"`
	// Limits are the resource limits.
	Limits Limits `json:"limits,omitempty"`
	// AgentSince is the bound of [AgentSince] for the shims inside the
	// sandbox, which cannot see the agent ([SinceNanos]: 0 for the zero
	// time): bwrap lays it at [SinceFile], a session's manager carries it
	// in its arguments. Part of a session's key: a session is never one
	// of another agent's.
	AgentSince int64 `json:"agent_since,omitempty"`
}

// SinceAgent is the bound of [AgentSince] p carries, else the one found
// now (a policy made without it): for what the process that starts the
// sandbox runs on the host ([FindProgram]).
func (p *Policy) SinceAgent() time.Time {
	if p.AgentSince != 0 {
		return time.Unix(0, p.AgentSince)
	}
	return AgentSince()
}

// A PolicyError says why no policy could be made.
type PolicyError struct {
	Msg string
}

func (e *PolicyError) Error() string { return e.Msg }

// NewPolicy resolves s for a program that gets the environment env. The
// workspace, when there is one, must exist and must not be the root, the
// home directory or an ancestor of the home directory: making one of those
// writable would leave nothing protected.
func NewPolicy(s *Spec, env []string) (*Policy, error) { return newPolicy(s, env, "", false) }

// NewPolicyCached is [NewPolicy] with what costs most (the hidden paths
// looked for under the home directory, the listings of the scratch
// directories and of where sockets are made) taken from a cache file in
// cacheDir when nothing it was made from has changed (see
// policycache.go). The cache is not used when cacheDir is "" or when the
// policy lets commands write there.
func NewPolicyCached(s *Spec, env []string, cacheDir string) (*Policy, error) {
	return newPolicy(s, env, cacheDir, false)
}

// WritableRoots returns the directories a sandbox made from s lets
// commands write ([Policy.WritableRoots]), without resolving the rest.
func WritableRoots(s *Spec, env []string) ([]string, error) {
	p, err := newPolicy(s, env, "", true)
	if err != nil {
		return nil, err
	}
	return p.WritableRoots(), nil
}

func newPolicy(s *Spec, env []string, cacheDir string, rootsOnly bool) (*Policy, error) {
	r := resolver{getenv: envLookup(env)}
	if home := r.getenv("HOME"); home != "" && filepath.IsAbs(home) {
		r.home = realPath(home)
	}
	ws := ""
	if s.Workspace != "" {
		var err error
		if ws, err = r.workspace(s.Workspace); err != nil {
			return nil, err
		}
	}
	p := &Policy{Workspace: ws, Home: r.home, Network: s.Network, PrivateTmp: s.PrivateTmp, Limits: s.Limits}
	switch p.Network {
	case "":
		p.Network, p.NetworkDefault = NetworkAllowlist, true
	case NetworkOn, NetworkOff, NetworkAllowlist:
	default:
		return nil, &PolicyError{fmt.Sprintf("network %q: want on, allowlist or off", s.Network)}
	}
	if p.Network == NetworkAllowlist {
		p.NetAllow, p.NetDeny = slices.Clone(s.NetAllow), slices.Clone(s.NetDeny)
	}
	p.GitRemotes = slices.Clone(s.GitRemotes)
	p.GitRefused, p.GitRefusal = slices.Clone(s.GitRefused), s.GitRefusal
	p.Scratch = r.existing(s.Scratch, nil)
	// Globs inside a shared scratch directory (/tmp/claude-*) name what
	// is writable already: not worth reading /tmp for.
	writable := slices.DeleteFunc(slices.Clone(s.Writable), func(e string) bool {
		pat, ok := r.expand(e)
		return ok && hasGlob(pat) && slices.ContainsFunc(p.Scratch, func(dir string) bool {
			return !(p.PrivateTmp && dir == "/tmp") && Within(pat, dir)
		})
	})
	p.Writable = r.existing(writable, nil)
	p.Caches = r.existing(s.Caches, nil)
	for _, c := range p.Caches {
		// Its files are the host's cache, which a command must never
		// write (what pre-commit clones into ~/.cache runs at every
		// commit): paths resolved, so that a cache reached through a
		// link (~/.cache on another disk) is still one.
		if ws != "" && Within(ws, c) {
			return nil, &PolicyError{fmt.Sprintf("the workspace %s is inside %s, a tool's cache, which commands write only through a private layer: run the command from a project directory or pass --workspace", ws, c)}
		}
	}
	if ws != "" && rootsOnly {
		// The writable roots alone: the workspace and its linked
		// worktree's git directories. What is laid read-only or
		// guarded inside them (hooks, configuration, the nested
		// repositories, a walk of the workspace) is no root.
		p.Writable = append(p.Writable, ws)
		p.Writable = append(p.Writable, gitDirs(ws, r.home)...)
		p.normalize()
		return p, nil
	}
	// keepIn is cacheDir when it may hold what this making keeps for the
	// next, else "" ([keepable]); asked once the writable roots are all
	// known, and found once.
	keepIn := sync.OnceValue(func() string {
		if keepable(cacheDir, p) {
			return cacheDir
		}
		return ""
	})
	if ws != "" {
		p.Writable = append(p.Writable, ws)
		_, err := os.Lstat(filepath.Join(ws, ".git"))
		isRepo := err == nil
		for _, root := range repositories(ws) {
			ro, patterns := r.readOnly(root, slices.Concat(s.ReadOnly, includes(root, s.Includes, s.Regenerable), submodulePointers(root)))
			p.ReadOnly = append(p.ReadOnly, ro...)
			p.Guarded = append(p.Guarded, patterns...)
			_, configs := r.readOnly(root, s.GitConfig) // (resolved as read-only entries are, but writable)
			p.GitConfig = append(p.GitConfig, configs...)
		}
		for _, dir := range gitDirs(ws, r.home) {
			p.Writable = append(p.Writable, dir)
			p.ReadOnly = append(p.ReadOnly, r.existing([]string{dir + "/hooks"}, nil)...)
			p.GitConfig = append(p.GitConfig, dir+"/config", dir+"/config.worktree")
		}
		p.protectLinked(&r, p.ReadOnly)
		// For repositories made inside the workspace while a command
		// runs (package guard), and those nested in its repository now:
		// guarded, not laid read-only (a command may remove a clone it
		// made whole, which mounts would refuse).
		p.RootGuarded = relative(s.ReadOnly)
		p.RootGitConfig = relative(s.GitConfig)
		p.Regenerable = RegenerableNames(s.Regenerable)
		if isRepo {
			// The index's answer kept with the policy cache (gitlinks.go),
			// where commands cannot write.
			nested, _ := NestedRepos(ws, keepIn())
			for _, n := range nested {
				p.Guarded = append(p.Guarded, n.Guarded(p.RootGuarded)...)
				p.GitConfig = append(p.GitConfig, n.Places(p.RootGitConfig)...)
				p.Nested = append(p.Nested, n.Root)
				if n.GitDir != "" && !Within(n.GitDir, n.Root) {
					p.Nested = append(p.Nested, n.GitDir)
				}
			}
		}
		// A repository made later (git init) is judged with the same
		// safe keys as one there now.
		if len(p.GitConfig)+len(p.RootGitConfig) > 0 {
			p.GitConfigSafe = s.GitConfigSafe
		}
	}
	if rootsOnly {
		p.normalize()
		return p, nil
	}
	// What is writable is resolved afresh every time, the rest may come
	// from the cache: only a place commands cannot write can hold it.
	c := openPolicyCache(keepIn(), p)
	var hp *hostPaths
	if c != nil {
		hp = c.hostPaths(s, env, p)
	}
	switch {
	case hp != nil:
	case c == nil:
		hp = r.hostPaths(s, p)
	default:
		// A resolver of its own, so that every answer is recorded.
		rec := c.recorder()
		hr := resolver{getenv: r.getenv, home: r.home, rec: rec}
		hp = hr.hostPaths(s, p)
		c.keep(hp, rec)
	}
	p.Hidden, p.Missing, p.Sockets, p.Visible = slices.Clone(hp.Hidden), slices.Clone(hp.Missing), slices.Clone(hp.Sockets), slices.Clone(hp.Visible)
	for _, h := range slices.Concat(p.Hidden, p.Missing) {
		if ws != "" && Within(ws, h) {
			return nil, &PolicyError{fmt.Sprintf("the workspace %s is inside %s, which the sandbox hides: run the command from a project directory or pass --workspace", ws, h)}
		}
	}
	listed := map[string][]dirEntry{}
	for _, dir := range p.Scratch {
		entries, err := c.readDir(dir)
		if err != nil && !othersDir(dir) {
			// This user (a sandboxed command too) may have made it, or a
			// directory on the way to it, unreadable: what it holds
			// cannot be hidden, and the sandbox could make it readable
			// again (chmod 0 $TMPDIR, then an ssh-agent's socket in it
			// reached from the next command's sandbox).
			return nil, &PolicyError{fmt.Sprintf("cannot list the scratch directory %s (%v): other programs' sockets in it could not be hidden; make it readable again (chmod u+rx %s)", dir, err, dir)}
		}
		// Another user's that this one cannot list: nor can the sandbox.
		listed[dir] = entries
		p.Hidden = append(p.Hidden, private(dir, ws, s.ScratchPrivate, entries)...)
	}
	// Other repositories in shared scratch space (a person's clone in
	// /tmp) get what the workspace's repository gets: hooks read-only,
	// configuration guarded by its keys.
	if s.DeferScratchRepos {
		p.scratchPending, p.scratchSafe = true, s.GitConfigSafe
	} else {
		repos, shut := scratchRepositories(p, ws, func(dir string) []dirEntry { return listed[dir] })
		p.guardScratchRepos(&r, repos, s.GitConfigSafe, true)
		p.Hidden = append(p.Hidden, shut...)
	}
	// Credential files that also hold settings are shown filtered.
	p.filterEntries(&r, s.Filtered)
	p.tokenFiles(&r, s.Credentials)
	// A socket the policy names stays reachable, even in a hidden
	// directory ($XDG_RUNTIME_DIR) or under a hidden name (*.sock).
	p.Hidden = slices.DeleteFunc(p.Hidden, func(h string) bool { return slices.Contains(p.Sockets, h) })
	p.Env = FilterEnv(env, credvar.New(s.CredentialVars, s.CredentialWords, s.CredentialValues), s.PassEnv)
	p.brokerEnv(s, env)
	p.normalize()
	c.save()
	return p, nil
}

// hostPaths are the parts of a policy resolved on the host's files
// outside what commands can write: the hidden paths (before the scratch
// directories' private entries are added), the missing ones, the
// sockets commands may reach and the visible paths.
type hostPaths struct {
	Hidden, Missing, Sockets, Visible []string
}

// hostPaths resolves the host paths of s for the policy p, whose
// writable part is resolved.
func (r *resolver) hostPaths(s *Spec, p *Policy) *hostPaths {
	// A link in a writable directory under a credential's name
	// (~/.cache/huggingface/token made a link to /) is the command's
	// own: hiding what it points to would let any command hide anything
	// from the next, even /.
	hidden := slices.DeleteFunc(slices.Clone(s.Hidden), func(e string) bool {
		pat, ok := r.expand(e)
		if !ok || hasGlob(pat) {
			return false
		}
		fi, err := r.lstatFile(pat)
		return err == nil && fi.Mode()&os.ModeSymlink != 0 &&
			slices.ContainsFunc(append(slices.Clone(p.Scratch), p.Writable...), func(w string) bool { return Within(pat, w) })
	})
	// HOME is the caller's to set: credentials are looked for under the
	// home directory of the account as well (an agent run with a
	// hermetic HOME must not make ~/.ssh readable).
	if r.rec != nil {
		r.rec.file("/etc/passwd")
	}
	if acct := accountHome(); acct != "" && acct != r.home {
		r.realPath(acct)
		for _, e := range hidden {
			if rest, ok := strings.CutPrefix(e, "~/"); ok {
				hidden = append(hidden, filepath.Join(acct, rest))
			}
		}
	}
	hidden = append(hidden, r.gitStoreFiles(p)...)
	hp := &hostPaths{}
	hp.Hidden = r.existing(hidden, &hp.Missing)
	hp.Sockets = r.existing(s.Sockets, nil)
	hp.Visible = append(r.existing(s.Visible, nil), hp.Sockets...)
	return hp
}

// normalize sorts and deduplicates the path lists, drops writable paths
// inside a shared scratch directory (already writable), hidden paths that
// are the workspace or inside it (the workspace's own files are the
// rules' business) and read-only paths that are not inside a writable one.
func (p *Policy) normalize() {
	p.Scratch = sortedUnique(p.Scratch)
	shared := slices.DeleteFunc(slices.Clone(p.Scratch), func(s string) bool { return p.PrivateTmp && s == "/tmp" })
	p.Writable = sortedUnique(slices.DeleteFunc(p.Writable, func(w string) bool {
		return w != p.Workspace && slices.ContainsFunc(shared, func(s string) bool { return Within(w, s) })
	}))
	// A cache inside shared scratch or a path the settings make writable
	// is written there already; one inside another cache is in its
	// layer. One inside the workspace (GOMODCACHE in a GOPATH workspace)
	// keeps its layer over the workspace's files.
	p.Caches = sortedUnique(p.Caches)
	p.Caches = slices.DeleteFunc(p.Caches, func(c string) bool {
		return slices.ContainsFunc(append(slices.Clone(shared), p.Writable...), func(w string) bool { return w != p.Workspace && Within(c, w) }) ||
			slices.ContainsFunc(p.Caches, func(o string) bool { return o != c && Within(c, o) })
	})
	p.Hidden = sortedUnique(slices.DeleteFunc(p.Hidden, func(h string) bool {
		return p.Workspace != "" && (Within(h, p.Workspace) || Within(p.Workspace, h))
	}))
	p.ReadOnly = sortedUnique(slices.DeleteFunc(p.ReadOnly, func(ro string) bool {
		return !slices.ContainsFunc(p.WritableRoots(), func(w string) bool { return Within(ro, w) })
	}))
	p.Visible = sortedUnique(slices.DeleteFunc(p.Visible, func(v string) bool {
		return !slices.ContainsFunc(p.Hidden, func(h string) bool { return Within(v, h) && v != h })
	}))
	p.Missing = sortedUnique(p.Missing)
	p.Sockets = sortedUnique(p.Sockets)
}

// Pins are the directories between a writable root and a read-only path
// inside it (the workspace's .git, for .git/hooks), another writable
// root inside it (a workspace in /tmp: /tmp/a for /tmp/a/app), or a
// host's socket the sandbox covers ([Policy.HostSockets]: an editor's
// /tmp/emacs1000 for its server). A sandbox makes each a mount point of
// its own (bound by a descriptor opened without following links: see
// [bwrapBackend.args]), so that it cannot be renamed away and replaced
// by a copy without the read-only parts (mv .git .git.old; cp -r ...),
// by a new directory at the workspace's path, whose guarded places the
// guard would take for a new workspace's (mv /tmp/a /tmp/b; mkdir -p
// /tmp/a/app), or moved deeper than the next sandbox looks for sockets
// (mv /tmp/emacs1000 /tmp/x/y/z/: /proc/net/unix keeps the path a
// socket was bound at).
func (p *Policy) Pins() []string {
	return sortedUnique(slices.Concat(p.pinsFor(slices.Concat(p.ReadOnly, p.WritableRoots())), p.socketPins()))
}

// maxSocketPins bounds the directories pinned for the host's sockets
// (each is one more bind, and bwrap reads the mount table again for
// each): past it, none is, and [Policy.SocketDegradations] says so.
const maxSocketPins = 128

// socketPins are the directories [Policy.Pins] makes mount points for
// the host's sockets: none for a socket that a cover of a directory
// above holds already (a hidden one, or one of this user's the search
// could not list: a pin there would lay the directory again inside the
// cover), nor for one below a read-only path (which no command can
// rename, and which a writable pin would open).
func (p *Policy) socketPins() []string {
	if pins, over := p.socketPinsWanted(); !over {
		return pins
	}
	return nil
}

// socketPinsWanted are the directories [Policy.socketPins] would pin
// with no bound, and whether they pass it.
func (p *Policy) socketPinsWanted() ([]string, bool) {
	var sockets []string
	for _, s := range p.HostSockets {
		inside := func(d string) bool { return d != s && Within(s, d) }
		if !slices.ContainsFunc(p.Hidden, inside) && !slices.ContainsFunc(p.HostSockets, inside) && !slices.ContainsFunc(p.ReadOnly, inside) {
			sockets = append(sockets, s)
		}
	}
	pins := p.pinsFor(sockets)
	return pins, len(pins) > maxSocketPins
}

// pinsFor returns the directories between each of paths and the
// innermost writable root that holds it, that root and the path left
// out.
func (p *Policy) pinsFor(paths []string) []string {
	var pins []string
	roots := p.WritableRoots()
	for _, x := range paths {
		root := ""
		for _, w := range roots {
			if Within(x, w) && x != w && len(w) > len(root) {
				root = w
			}
		}
		if root == "" {
			continue
		}
		for d := filepath.Dir(x); d != root && Within(d, root); d = filepath.Dir(d) {
			pins = append(pins, d)
		}
	}
	return sortedUnique(pins)
}

// WritableRoots are the scratch and writable paths and the caches.
func (p *Policy) WritableRoots() []string {
	return slices.Concat(p.Scratch, p.Writable, p.Caches)
}

// Within reports whether path is dir or inside it; both are clean and
// absolute. Nothing is within "".
func Within(path, dir string) bool {
	switch dir {
	case "":
		return false
	case "/":
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir) && path[len(dir)] == '/'
}

// maskable reports whether hidden path h can be covered: it must not hold
// a path the program needs.
func maskable(p *Policy, h string) bool {
	needed := slices.Concat(p.WritableRoots(), p.ReadOnly, p.Visible)
	return !slices.ContainsFunc(needed, func(x string) bool { return Within(x, h) })
}

func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// A resolver expands and resolves policy entries.
type resolver struct {
	getenv func(string) string
	home   string
	dirs   map[string]string // real paths of directories already resolved
	// Directories looked into often (~, ~/.config) are listed once.
	looks    map[string]int
	listings map[string]map[string]os.FileMode
	// rec, when not nil, is told every file and directory whose state
	// the answers depend on (see policycache.go).
	rec *recorder
}

// lstatFile is [os.Lstat], told to the recorder.
func (r *resolver) lstatFile(p string) (os.FileInfo, error) {
	fi, err := os.Lstat(p)
	if r.rec != nil {
		r.rec.lookup(p, fi, err)
	}
	return fi, err
}

// realPath is [realPath], told to the recorder: every name looked up on
// the way, links followed.
func (r *resolver) realPath(p string) string {
	if r.rec != nil {
		ResolveLinks(p, r.lstatFile)
	}
	return realPath(p)
}

// lstat reports whether p exists and its type (without following a last
// symbolic link). After a few lookups in the same directory, the
// directory is read once and the other lookups answered from it.
func (r *resolver) lstat(p string) (os.FileMode, bool) {
	dir, base := filepath.Split(p)
	if l, ok := r.listings[dir]; ok {
		mode, found := l[base]
		return mode, found
	}
	if r.looks == nil {
		r.looks, r.listings = map[string]int{}, map[string]map[string]os.FileMode{}
	}
	// With a recorder, each name is looked up: a listing would make
	// the answers depend on every name in the directory.
	if r.looks[dir]++; r.looks[dir] >= 3 && r.rec == nil {
		if entries, err := os.ReadDir(dir); err == nil {
			l := make(map[string]os.FileMode, len(entries))
			for _, e := range entries {
				l[e.Name()] = e.Type()
			}
			r.listings[dir] = l
			mode, found := l[base]
			return mode, found
		}
	}
	fi, err := r.lstatFile(p)
	if err != nil {
		return 0, false
	}
	return fi.Mode(), true
}

// real returns the real path of p, which exists: its directory is
// resolved once for all the entries in it (most share ~ or ~/.config),
// then its last element is looked at.
func (r *resolver) real(p string, mode os.FileMode) string {
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	rd, ok := r.dirs[dir]
	if !ok {
		rd = r.realPath(dir)
		if r.dirs == nil {
			r.dirs = map[string]string{}
		}
		r.dirs[dir] = rd
	}
	if mode&os.ModeSymlink != 0 {
		return r.realPath(p)
	}
	return filepath.Join(rd, base)
}

func (r *resolver) workspace(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", &PolicyError{fmt.Sprintf("the workspace %q is not an absolute path", dir)}
	}
	ws, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", &PolicyError{fmt.Sprintf("the workspace %s cannot be used: %v", dir, errors.Unwrap(err))}
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return "", &PolicyError{fmt.Sprintf("the workspace %s is not a directory", dir)}
	}
	switch {
	case ws == "/":
		return "", &PolicyError{"the workspace cannot be / (everything would be writable); run the command from a project directory or pass --workspace"}
	case r.home != "" && Within(r.home, ws):
		return "", &PolicyError{fmt.Sprintf("the workspace cannot be %s: it holds the home directory, so everything in it (credentials, shell startup files) would be writable; run the command from a project directory or pass --workspace", ws)}
	}
	return ws, nil
}

// expand turns an entry into absolute glob patterns: "~" and "$NAME" at
// its start are replaced; an entry whose variable is unset or whose home
// is unknown yields nothing.
func (r *resolver) expand(entry string) (string, bool) {
	switch {
	case entry == "~" || strings.HasPrefix(entry, "~/"):
		if r.home == "" {
			return "", false
		}
		entry = r.home + entry[1:]
	case strings.HasPrefix(entry, "$"):
		name, rest, _ := strings.Cut(entry[1:], "/")
		val := r.variable(name)
		if val == "" || !filepath.IsAbs(val) {
			return "", false
		}
		entry = filepath.Join(val, rest)
	}
	if !filepath.IsAbs(entry) {
		return "", false
	}
	return filepath.Clean(entry), true
}

func (r *resolver) variable(name string) string { return Variable(r.getenv, name) }

// Variable returns the value of the variable a path rule names ($NAME):
// getenv's, but for the macOS per-user directories (see
// [DarwinUserDir]), which are worked out, never read.
func Variable(getenv func(string) string, name string) string {
	switch name {
	case "DARWIN_USER_TEMP_DIR":
		return DarwinUserDir(getenv("TMPDIR"), "T")
	case "DARWIN_USER_CACHE_DIR":
		return DarwinUserDir(getenv("TMPDIR"), "C")
	}
	return getenv(name)
}

// darwinTempDir is the shape of the per-user temporary directory macOS
// gives every process in TMPDIR (confstr's _CS_DARWIN_USER_TEMP_DIR).
// Compiled on first use.
var darwinTempDir = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^/private/var/folders/[^/]+/[^/]+/T$`) })

// DarwinUserDir returns the user's own directory which ("T", temporary;
// "C", caches: clang's module cache, xcrun's database) below
// /private/var/folders, found next to tmpdir when it has the shape macOS
// gives TMPDIR (/var/folders/xx/yyyy/T/), else "". Go has no confstr
// without cgo, and getconf would cost a process per command.
func DarwinUserDir(tmpdir, which string) string {
	if tmpdir == "" {
		return ""
	}
	t := DarwinPath(filepath.Clean(tmpdir))
	if !darwinTempDir().MatchString(t) {
		return ""
	}
	return filepath.Join(filepath.Dir(t), which)
}

// existing returns the real paths of the entries that exist. Entries that
// do not (globs matching nothing excepted) are added to missing when it
// is not nil, resolved as far as they go.
func (r *resolver) existing(entries []string, missing *[]string) []string {
	var out []string
	for _, e := range entries {
		pat, ok := r.expand(e)
		if !ok {
			continue
		}
		if !hasGlob(pat) {
			mode, ok := r.lstat(pat)
			if !ok {
				if missing != nil {
					// Only reported: not resolved further.
					*missing = append(*missing, pat)
				}
				continue
			}
			out = append(out, r.real(pat, mode))
			continue
		}
		for _, m := range r.glob(pat) {
			if mode, ok := r.lstat(m); ok {
				out = append(out, r.real(m, mode))
			}
		}
	}
	return out
}

// readOnly resolves read-only entries, relative ones against the
// workspace root. The hooks directory of a repository is made when it is
// missing (git's own layout), so that hooks cannot be added from inside.
func (r *resolver) readOnly(ws string, entries []string) (existing, patterns []string) {
	abs := make([]string, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSuffix(e, "/")
		if e == "" {
			continue
		}
		if !filepath.IsAbs(e) && !strings.HasPrefix(e, "~") && !strings.HasPrefix(e, "$") {
			e = filepath.Join(ws, e)
		}
		abs = append(abs, e)
	}
	git := filepath.Join(ws, ".git")
	if fi, err := os.Lstat(git); err == nil && fi.IsDir() {
		os.Mkdir(filepath.Join(git, "hooks"), 0o755)
	} else {
		// No repository yet: one the command makes (git init) is its
		// own, configuration included.
		abs = slices.DeleteFunc(abs, func(e string) bool { return Within(e, git) })
	}
	return r.existing(abs, nil), abs
}

// relative returns the entries of a path list that are relative: those
// applied at a repository's root.
func relative(entries []string) []string {
	return slices.DeleteFunc(slices.Clone(entries), func(e string) bool {
		return filepath.IsAbs(e) || strings.HasPrefix(e, "~") || strings.HasPrefix(e, "$")
	})
}

// RegenerableNames are the entries of the rules' regenerable list that
// are names of directories (node_modules, *.egg-info), not paths.
func RegenerableNames(regenerable []string) []string {
	var names []string
	for _, r := range regenerable {
		if r != "" && !strings.Contains(r, "/") {
			names = append(names, r)
		}
	}
	return names
}

// gitDirs returns the repository directories outside the workspace that
// commits write to when the workspace's .git is a file pointing elsewhere:
// the git directory of a worktree and its common directory, or a
// submodule's git directory inside its superproject's .git/modules. The
// workspace is writable, so that file is not trusted by itself: a
// worktree's git directory must point back at this workspace (its
// gitdir file, which only git writes there, names ws/.git) and lie in its
// common directory's worktrees/; a submodule's must lie in the .git/modules
// of a directory that holds the workspace. Anything else, or a directory
// that holds the home directory, adds nothing.
func gitDirs(ws, home string) []string {
	dotgit := filepath.Join(ws, ".git")
	if fi, err := os.Lstat(dotgit); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	// (Read without blocking, bounded: a command can put a FIFO there.)
	data, err := smallfile.ReadRegular(dotgit, maxPointerFile)
	if err != nil {
		return nil
	}
	dir, ok := pointedGitDir(ws, data)
	if !ok {
		return nil
	}
	gitdir := realPath(dir)
	if !isGitDir(gitdir) {
		return nil
	}
	var dirs []string
	if back, err := smallfile.ReadRegular(filepath.Join(gitdir, "gitdir"), maxPointerFile); err == nil {
		// A worktree: gitdir is <common>/worktrees/<name>.
		if realPath(strings.TrimSpace(string(back))) != realPath(dotgit) {
			return nil
		}
		common := filepath.Dir(filepath.Dir(gitdir))
		if filepath.Base(filepath.Dir(gitdir)) != "worktrees" || !isGitDir(common) {
			return nil
		}
		dirs = []string{gitdir, common}
	} else {
		// A submodule: <super>/.git/modules/<name...>, super holding ws.
		i := strings.Index(gitdir, "/.git/modules/")
		if i < 0 || !Within(ws, gitdir[:i]) {
			return nil
		}
		dirs = []string{gitdir}
	}
	for _, d := range dirs {
		if d == "/" || home != "" && Within(home, d) {
			return nil
		}
	}
	return dirs
}

// isGitDir reports whether dir looks like a git directory: a HEAD file
// and an objects directory (a worktree's objects are in its common
// directory, so for one of those HEAD is enough).
func isGitDir(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, "HEAD"))
	return err == nil && fi.Mode().IsRegular()
}

// private returns the entries of the scratch directory dir named by the
// patterns: other programs' sockets and socket directories. Entries that
// hold the workspace are kept. Only directories and sockets are looked
// at (entries, dir's listing, has no others): anyone can make a link or
// a file in /tmp, and one that cannot be covered would stop every
// sandbox (bwrap will not mount over a link).
func private(dir, ws string, patterns []string, entries []dirEntry) []string {
	if len(entries) == 0 {
		return nil
	}
	globs := compileGlobs(patterns)
	var out []string
	for _, e := range entries {
		for _, g := range globs {
			if g.match(e.Name) {
				p := filepath.Join(dir, e.Name)
				if !Within(ws, p) {
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}

// guardScratchRepos gives each repository root in scratch space what
// the workspace's repository gets: hooks read-only, configuration
// guarded by the keys outside safe. With mountPoints, for a sandbox
// about to be made, a missing hooks directory is made (a bind needs a
// place); a guard's copy of a running sandbox's policy
// ([Policy.GuardedNow]) makes nothing: it would bring back, at every
// command, a directory a person just removed.
func (p *Policy) guardScratchRepos(r *resolver, roots, safe []string, mountPoints bool) {
	for _, root := range roots {
		git := filepath.Join(root, ".git")
		if mountPoints {
			os.Mkdir(filepath.Join(git, "hooks"), 0o755)
		}
		hooks := r.existing([]string{git + "/hooks"}, nil)
		p.ReadOnly = append(p.ReadOnly, hooks...)
		p.scratchReadOnly = append(p.scratchReadOnly, hooks...)
		p.scratchReadOnly = append(p.scratchReadOnly, p.protectLinked(r, hooks)...)
		p.Guarded = append(p.Guarded, git+"/hooks", git+"/commondir")
		p.GitConfig = append(p.GitConfig, git+"/config", git+"/config.worktree")
		p.GitConfigSafe = safe
	}
}

// FindScratchRepositories looks for the repositories in scratch space
// when the policy was made without them (Spec.DeferScratchRepos), and
// guards them as [NewPolicy] would have: once, where a sandbox is made
// or the policy leaves this process (a backend's start, with
// [Policy.SearchSockets]; the guard's and the session manager's start),
// and before the policy is compared with the sandbox this process runs
// in ([Confined]). A policy decoded in another process was found whole
// before it was encoded.
func (p *Policy) FindScratchRepositories() {
	if !p.scratchPending {
		return
	}
	p.scratchPending = false
	r := resolver{getenv: func(string) string { return "" }, home: p.Home}
	repos, shut := scratchRepositories(p, p.Workspace, readDirPlain)
	p.guardScratchRepos(&r, repos, p.scratchSafe, true)
	p.Hidden = append(p.Hidden, shut...)
	p.normalize()
}

// GuardedNow returns a copy of p for a guard that takes its trusted
// state later than p's sandbox was made (a session's, at each command):
// the repositories in scratch space now are guarded too, not only those
// found when the sandbox was made (a person's clone in /tmp made
// meanwhile): the guard keeps their configuration by its keys. Their
// hooks cannot be bound read-only in a sandbox already running, and the
// guard's walk covers the workspace alone (docs/security.md, "Open").
func (p *Policy) GuardedNow() *Policy {
	q := *p
	q.ReadOnly, q.Guarded, q.GitConfig = slices.Clone(p.ReadOnly), slices.Clone(p.Guarded), slices.Clone(p.GitConfig)
	r := resolver{getenv: func(string) string { return "" }, home: p.Home}
	// (What cannot be entered now, the sandbox already running cannot
	// cover.)
	repos, _ := scratchRepositories(&q, q.Workspace, readDirPlain)
	q.guardScratchRepos(&r, repos, p.GitConfigSafe, false)
	q.normalize()
	return &q
}

// ScratchPending reports whether the repositories in scratch space are
// still to be looked for ([Policy.FindScratchRepositories]).
func (p *Policy) ScratchPending() bool { return p.scratchPending }

// maxScratchRepos bounds the repositories in scratch space guarded.
const maxScratchRepos = 64

// scratchRepositories returns the git repositories directly in p's
// shared scratch directories (/tmp/NAME/.git; not a private /tmp), but
// not the workspace's, one inside it or one holding it; at most
// maxScratchRepos, the oldest by their .git's change time (which no
// process can set back: a command that makes many repositories cannot
// crowd out a person's older one).
//
// shut are this user's directories there (or their .git) that their
// owner cannot enter: a sandboxed command can chmod 0 a person's clone
// in /tmp, then, in the next command's sandbox, which found no
// repository there, make it enterable again and add a hook. A sandbox
// covers them whole.
func scratchRepositories(p *Policy, ws string, readDir func(string) []dirEntry) (repos, shut []string) {
	type repo struct {
		root  string
		ctime int64
	}
	var found []repo
	for _, dir := range p.Scratch {
		if p.PrivateTmp && dir == "/tmp" {
			continue
		}
		for _, e := range readDir(dir) {
			root := filepath.Join(dir, e.Name)
			if e.Socket || ws != "" && (Within(root, ws) || Within(ws, root)) {
				continue
			}
			// Another user's repository (the person's git refuses it,
			// see safe.directory), or one a command without capabilities
			// cannot enter, as inside the sandbox: nothing there to
			// guard, and nothing bwrap could lay over; unless its owner
			// shut it.
			git := filepath.Join(root, ".git")
			fi, err := os.Lstat(git)
			switch {
			case err == nil && fi.IsDir() && ownReachable(root) && ownReachable(git):
				st, _ := statStamp(git)
				found = append(found, repo{root, st.Ctime})
			case err != nil && !errors.Is(err, fs.ErrPermission), err == nil && !fi.IsDir():
			case ownShut(root):
				shut = append(shut, root)
			case err == nil && ownShut(git):
				shut = append(shut, git)
			}
		}
	}
	slices.SortStableFunc(found, func(a, b repo) int { return cmp.Compare(a.ctime, b.ctime) })
	for _, r := range found[:min(len(found), maxScratchRepos)] {
		repos = append(repos, r.root)
	}
	return repos, shut
}

// submodulePointers returns the .git files of root's submodules, as
// .gitmodules names their paths ("lib/dep/.git"): each says where the
// submodule's git directory is, and a command that pointed one at a
// directory of its own would have the person's git status at the root
// obey that directory's configuration. Only files that are there.
func submodulePointers(root string) []string {
	f, err := os.Open(filepath.Join(root, ".gitmodules"))
	if err != nil {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(f, maxInclude))
	f.Close()
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.TrimSpace(k) != "path" {
			continue
		}
		rel := filepath.Clean(strings.Trim(strings.TrimSpace(v), `"`))
		if filepath.IsAbs(rel) || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		pointer := filepath.Join(rel, ".git")
		if fi, err := os.Lstat(filepath.Join(root, pointer)); err == nil && fi.Mode().IsRegular() && len(out) < maxScratchRepos {
			out = append(out, pointer)
		}
	}
	return out
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// realPath resolves the symbolic links of p, or of as much of p as
// exists, and cleans it.
func realPath(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	dir, base := filepath.Split(p)
	if dir == "" || dir == p || base == "" {
		return p
	}
	return filepath.Join(realPath(filepath.Clean(dir)), base)
}

// FilterEnv returns env without the variables that creds says hold
// credentials, by name (ignoring case) or by a value that is a URL with a
// password in it (postgres://user:secret@host), except those named in
// pass. Entries without "=" are dropped.
func FilterEnv(env []string, creds *credvar.Matcher, pass []string) []string {
	return credvar.Filter(env, func(name, value string) bool {
		return slices.Contains(pass, name) || !creds.Var(name, value)
	})
}

// globMatch reports whether name matches the glob pattern.
func globMatch(pattern, name string) bool { return compileGlob(pattern).match(name) }

// A glob is a compiled glob pattern. Patterns whose only wildcard is *
// (nearly all of them) are matched without path.Match.
type glob struct {
	parts   []string // the pattern split at each *
	pattern string   // set when path.Match is needed
}

func compileGlob(pattern string) glob {
	if strings.ContainsAny(pattern, "?[\\") {
		return glob{pattern: pattern}
	}
	return glob{parts: strings.Split(pattern, "*")}
}

func compileGlobs(patterns []string) []glob {
	gs := make([]glob, len(patterns))
	for i, p := range patterns {
		gs[i] = compileGlob(p)
	}
	return gs
}

func (g glob) match(name string) bool {
	if g.parts == nil {
		ok, _ := path.Match(g.pattern, name)
		return ok
	}
	parts := g.parts
	if len(parts) == 1 {
		return parts[0] == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(name, p)
		if i < 0 {
			return false
		}
		name = name[i+len(p):]
	}
	return len(name) >= len(last) && strings.HasSuffix(name, last)
}

// Getenv returns the value of key in env, the last entry winning as in
// the shells; on Windows names ignore case.
func Getenv(env []string, key string) string {
	val := ""
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (k == key || runtime.GOOS == "windows" && strings.EqualFold(k, key)) {
			val = v
		}
	}
	return val
}

// envLookup returns a getenv over env (see [Getenv]).
func envLookup(env []string) func(string) string {
	return func(key string) string { return Getenv(env, key) }
}

// AccountHome is the home directory of the account cordon runs as, from
// the account database (HOME is the caller's to set), or "". Read once
// a process: the database is parsed whole, and a command asks for it
// several times (git's configuration files, the credential stores).
var AccountHome = sync.OnceValue(accountHome)

// accountHome returns the real path of the home directory of the
// effective user's account (from the password database), or "".
func accountHome() string {
	u, err := user.LookupId(strconv.Itoa(os.Geteuid()))
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return realPath(u.HomeDir)
}

// maxInclude bounds the bytes of an auto-run file read for its
// directives.
const maxInclude = 64 << 10

// includes returns the places, relative to root, that the directives of
// root's auto-run files name (see [Spec.Includes]): for ".envrc
// source_env_if_exists 1 file", the file .envrc sources; for ".envrc
// PATH_add 1 dir", the directory it puts on PATH, and what is in it. A
// place outside root, or below a regenerable directory, is left out. The
// file is read as lines of words: a directive is a line's first word
// (after export-free whitespace), a comment starts at "#".
func includes(root string, directives, regenerable []string) []string {
	type directive struct{ arg int }
	byFile := map[string]map[string]directive{}
	for _, d := range directives {
		f := strings.Fields(d)
		if len(f) != 4 {
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 1 {
			continue
		}
		if byFile[f[0]] == nil {
			byFile[f[0]] = map[string]directive{}
		}
		byFile[f[0]][f[1]] = directive{arg: n} // a file or a directory: both are kept whole
	}
	var out []string
	for file, ds := range byFile {
		path := filepath.Join(root, file)
		fi, err := os.Stat(path) // (a link is followed, as the tool does)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		data, _ := io.ReadAll(io.LimitReader(f, maxInclude))
		f.Close()
		for _, line := range strings.Split(string(data), "\n") {
			line, _, _ = strings.Cut(line, "#")
			words := strings.Fields(line)
			if len(words) < 2 {
				continue
			}
			d, ok := ds[words[0]]
			if !ok || d.arg >= len(words) {
				continue
			}
			arg := strings.Trim(words[d.arg], `"'`)
			if arg == "" || strings.ContainsAny(arg, "$`*?[") {
				continue
			}
			p := filepath.Clean(filepath.Join(filepath.Dir(path), arg))
			rel, err := filepath.Rel(root, p)
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") || regenerableIn(rel, regenerable) {
				continue
			}
			out = append(out, rel) // a directory with what is in it
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// regenerableIn reports whether a name of the relative path rel matches
// one of the regenerable entries.
func regenerableIn(rel string, regenerable []string) bool {
	for _, name := range strings.Split(rel, "/") {
		for _, r := range regenerable {
			if ok, _ := filepath.Match(strings.TrimSuffix(r, "/"), name); ok {
				return true
			}
		}
	}
	return false
}

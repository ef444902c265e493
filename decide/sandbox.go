package decide

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

// SandboxSpec returns the sandbox policy, before it is resolved, for a
// command in workspace ws ("" for none) with the settings cfg: the rules'
// path classes (scratch, caches, agents' files, auto-run files kept
// read-only, credentials hidden) plus what the settings add.
func SandboxSpec(set *rules.Set, cfg *config.Config, ws string) *platform.Spec {
	paths := set.Paths()
	sb := &cfg.Sandbox
	s := &platform.Spec{
		Workspace:        ws,
		Scratch:          absolute(paths.Scratch),
		ScratchPrivate:   paths.ScratchPrivate,
		Writable:         append(absolute(paths.Agent), sb.Writable...),
		Caches:           absolute(paths.SandboxWritable),
		ReadOnly:         append(slices.Clone(paths.AutoRun), sb.ReadOnly...),
		GitConfig:        paths.GitConfig,
		Includes:         paths.AutoRunIncludes,
		Regenerable:      paths.Regenerable,
		GitConfigSafe:    set.GitConfigSafe(),
		Hidden:           slices.Concat(absolute(paths.Credentials), absolute(paths.SandboxHidden), sb.Hidden),
		Visible:          absolute(paths.NotSecret),
		Filtered:         paths.FilteredCredentials,
		Sockets:          append(absolute(paths.SandboxSockets), sb.Sockets...),
		CredentialVars:   set.CredentialVars(),
		CredentialWords:  set.CredentialWords(),
		CredentialValues: set.CredentialValues(),
		PassEnv:          sb.PassEnv,
		Credentials:      credentialKinds(set),
		Network:          platform.Network(sb.Network),
		NetAllow:         set.Network().Allow,
		NetDeny:          set.Network().Deny,
		Limits:           sb.Limits,
	}
	if sb.PrivateTmp != nil {
		s.PrivateTmp = *sb.PrivateTmp
	}
	return s
}

// credentialKinds are the rules' credential kinds for the sandbox.
func credentialKinds(set *rules.Set) []platform.CredentialKind {
	var out []platform.CredentialKind
	for _, k := range set.CredentialKinds() {
		kind := platform.CredentialKind{Env: k.Env, Hosts: k.Hosts}
		for _, f := range k.Files {
			kind.Files = append(kind.Files, platform.CredentialFile(f))
		}
		out = append(out, kind)
	}
	return out
}

// absolute keeps the entries that name a place on this machine ("/x",
// "~/x", "$NAME/x"), not a name matched anywhere, and leaves /proc out:
// the sandbox has a /proc of its own.
func absolute(entries []string) []string {
	var out []string
	for _, e := range entries {
		if (strings.HasPrefix(e, "/") || strings.HasPrefix(e, "~/") || strings.HasPrefix(e, "$")) && !strings.HasPrefix(e, "/proc/") {
			out = append(out, e)
		}
	}
	return out
}

// Confinement is how a command is confined: the backend, the policy, and
// whether it runs unconfined on the user's request.
type Confinement struct {
	Backend platform.Backend
	Policy  *platform.Policy
	// Nested is true when this process already runs inside a sandbox
	// that holds the policy: the program runs in it, not wrapped again.
	Nested bool
	// Unconfined is true when the user's settings ask for no sandbox.
	Unconfined bool
	// Settings are the user's settings the policy was made with.
	Settings *config.Config
	// Workspace is the workspace the policy makes writable, and why.
	Workspace WorkspaceChoice
	// Weaknesses are cordon's own places the sandbox leaves writable;
	// only with ConfineOptions.Inspect, else they are an error.
	Weaknesses []Weakness
	// AgentStart is the bound of [platform.AgentSince] for the policy
	// (its AgentSince), found when first asked. A policy made for a
	// session's sandbox leaves AgentSince unset: a command handed to a
	// running session never needs it (the session's manager carries its
	// own), and finding it walks up the processes; whoever makes a
	// sandbox from it sets it first.
	AgentStart func() int64
}

// ForSandbox is c's policy for a sandbox made now: with its AgentSince
// set (a policy made for a session's sandbox leaves it unset).
func (c *Confinement) ForSandbox() *platform.Policy {
	if c.Policy != nil && c.Policy.AgentSince == 0 && c.AgentStart != nil {
		c.Policy.AgentSince = c.AgentStart()
	}
	return c.Policy
}

// ConfineOptions override the settings for one command.
type ConfineOptions struct {
	Backend   string // auto, bwrap, landlock, seatbelt, token or none
	Network   string // allowlist, on or off
	Workspace string // the workspace, instead of the one found from the directory
	Invoked   string // argv[0] of the shim: its directory and PATH order are checked
	Inspect   bool   // report weaknesses (cordon doctor) instead of refusing
}

// Confine returns how to run a command in dir with the environment env,
// the user's settings (overridden by opts, which may be nil) and the
// effective rules (see [Rules]). The workspace is [Workspace]'s choice
// for dir, unless opts names one. The error says why no sandbox can run
// or why the rules cannot be loaded,
// and what to do: the command must then not run.
func Confine(dir string, env []string, opts *ConfineOptions) (*Confinement, error) {
	ctx, err := NewContext(dir, env, opts)
	if err != nil {
		return nil, err
	}
	return ctx.Confine(opts)
}

// Confine is [Confine] with what ctx already read: the settings, the
// workspace and the rules are not read again. opts may be nil; only its
// Invoked and Inspect are looked at (the others were given to
// [NewContext]).
func (ctx *Context) Confine(opts *ConfineOptions) (*Confinement, error) {
	p, err := ctx.Policy()
	if err != nil {
		return nil, err
	}
	// The shims inside cannot see the agent: they get its start from
	// here (platform.AgentSince).
	if !ctx.ForSession {
		p.AgentSince = ctx.AgentStart()
	}
	cfg := ctx.Settings
	c, err := confine(p, cfg.Sandbox.Backend, ctx.Env)
	if err != nil {
		return nil, err
	}
	c.AgentStart = ctx.AgentStart
	c.Settings, c.Workspace = cfg, ctx.Workspace
	// What decides the sandbox, and cordon itself, must not be writable
	// from inside it.
	var argv0 string
	if opts != nil {
		argv0 = opts.Invoked
	}
	c.Weaknesses = selfCheck(c.Policy.WritableRoots(), ctx.Getenv, ctx.Dir, argv0, c.Nested, cfg, ctx.Rules)
	if len(c.Weaknesses) > 0 && (opts == nil || !opts.Inspect) {
		return nil, &SelfCheckError{c.Weaknesses}
	}
	return c, nil
}

// Within reports whether path is inside one of roots.
func Within(path string, roots []string) bool { return Containing(path, roots) != "" }

// Containing returns the one of roots that holds path, or "".
func Containing(path string, roots []string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	for _, r := range roots {
		if platform.Within(path, r) {
			return r
		}
	}
	return ""
}

func confine(p *platform.Policy, backend string, env []string) (*Confinement, error) {
	if backend != platform.BackendNone && platform.Confined(p) {
		return &Confinement{Backend: platform.Direct, Policy: p, Nested: true}, nil
	}
	state := StateDir(EnvLookup(env))
	p = foreignNetwork(p, state)
	if state != "" && Within(state, p.WritableRoots()) {
		// A probe cache a command could forge is no cache.
		state = ""
	}
	b, err := platform.Sandbox(backend, p, state)
	if err != nil {
		return nil, err
	}
	return &Confinement{Backend: b, Policy: p, Unconfined: backend == platform.BackendNone}, nil
}

// StateDir is [config.StateDir].
func StateDir(getenv func(string) string) string { return config.StateDir(getenv) }

// UnconfinedNotice says, once per agent session (the parent process),
// that commands run unconfined because the settings ask for it.
func UnconfinedNotice(stateDir string) string {
	const msg = "cordon: commands run unconfined (sandbox backend: none in your settings); they are judged, not contained\n"
	if stateDir == "" {
		return msg
	}
	key := fmt.Sprintf("%d %s", os.Getppid(), platform.ProcessStart(os.Getppid()))
	file := filepath.Join(stateDir, "unconfined-notice")
	if old, err := os.ReadFile(file); err == nil && string(old) == key {
		return ""
	}
	if os.MkdirAll(stateDir, 0o700) == nil {
		os.WriteFile(file, []byte(key), 0o600)
	}
	return msg
}

// NewContext reads what judging and confining a command in dir with env
// needs, once: the settings (overridden by opts, which may be nil), the
// workspace ([Workspace]'s choice, unless opts names one) and the
// effective rules. The error is a settings file or a rule file that
// cannot be read: the command must then not run.
func NewContext(dir string, env []string, opts *ConfineOptions) (*Context, error) {
	getenv := EnvLookup(env)
	ctx := &Context{Dir: dir, Env: env, Getenv: getenv}
	cfg, err := config.Load(getenv)
	if err != nil {
		return nil, err
	}
	if opts != nil {
		if opts.Backend != "" {
			cfg.Sandbox.Backend = opts.Backend
		}
		if opts.Network != "" {
			cfg.Sandbox.Network = opts.Network
		}
		if opts.Workspace != "" {
			ctx.Workspace = WorkspaceChoice{Dir: opts.Workspace, Why: "given with --workspace"}
		}
	}
	ctx.Settings = cfg
	if ctx.Workspace.Dir == "" {
		ctx.Workspace = chooseWorkspace(dir, getenv("HOME"), cfg.Workspaces, config.UserFile(getenv), StateDir(getenv))
	}
	if ctx.Rules, err = Rules(ctx.Workspace.Dir, getenv); err != nil {
		return nil, err
	}
	if notWS := ctx.Rules.Set.Paths().NotWorkspace; (opts == nil || opts.Workspace == "") && ctx.Workspace.Dir != "" && refusedBy(notWS, ctx.Workspace.Dir, getenv("HOME")) {
		// A not_workspace entry of the user's rules: choose again
		// without that directory, and load the rules for the new one.
		ctx.Workspace = chooseWorkspaceWith(notWS, dir, getenv("HOME"), cfg.Workspaces, config.UserFile(getenv), StateDir(getenv))
		if ctx.Rules, err = Rules(ctx.Workspace.Dir, getenv); err != nil {
			return nil, err
		}
	}
	return ctx, nil
}

// Spec is the sandbox policy for the context's command, before it is
// resolved; made once.
func (ctx *Context) Spec() (*platform.Spec, error) {
	spec := ctx.baseSpec()
	if ctx.specRemotes {
		// Made, or being made: the host's git that reads the
		// remotes is found outside the writable roots, which the
		// spec without them decides.
		return spec, nil
	}
	ctx.specRemotes = true
	getenv := ctx.Getenv
	ws, state := ctx.Workspace.Dir, StateDir(getenv)
	urls, hooks := repoSettings(ws, state, ctx.hostGit)
	// A hooks directory in the workspace (core.hooksPath = .githooks,
	// in any file of git's configuration) is kept read-only, and
	// guarded, as .git/hooks is: git runs from there.
	for _, h := range hooksDirs(ws, state, getenv, ctx.hostGit, hooks, ctx.gitPrograms()) {
		if !slices.Contains(spec.ReadOnly, h) {
			spec.ReadOnly = append(slices.Clip(spec.ReadOnly), h)
		}
	}
	agent, why := agentRemotes(state, ws, func() []string { return remoteNames(urls) })
	if spec.Network == "" || spec.Network == platform.NetworkAllowlist {
		spec.NetAllow = append(slices.Clip(spec.NetAllow), netAllow(ws, state, urls, agent)...)
	}
	spec.GitRemotes, spec.GitRefused, spec.GitRefusal = gitRemotes(urls, agent, why)
	return spec, nil
}

// baseSpec is [Context.Spec] without what the repository's remotes add
// (the hosts the network allowlist lets commands reach, the remotes git
// may push to): all the writable roots depend on, made once. The
// remotes are read (git's configuration, the remotes cache, the agent's
// remotes) only when the whole spec is asked for.
func (ctx *Context) baseSpec() *platform.Spec {
	if ctx.spec != nil {
		return ctx.spec
	}
	getenv := ctx.Getenv
	// What the policy must find on disk is made first, before any
	// policy is resolved from this spec (the judge resolves it when a
	// command writes): the snapshot store and the sessions' directory, to be hidden, and the caches
	// that do not exist yet, to be writable.
	if !ctx.Inspect {
		makeSnapshotDir(ctx)
		makeSessionDir(ctx)
		makeHiddenState(ctx)
		// Made before the policy, which hides it: a first command's
		// sandbox and the next one's are then made alike.
		if state := StateDir(getenv); state != "" {
			os.MkdirAll(platform.LayersDir(state), 0o700)
			// The broker's authority, hidden too (only an existing
			// directory can be).
			if len(ctx.Rules.Set.CredentialKinds()) > 0 {
				os.MkdirAll(platform.BrokerDir(state), 0o700)
			}
		}
		makeCaches(ctx.Rules.Set.Paths().MadeCaches, getenv("HOME"), getenv("PATH"), programsMemo(StateDir(getenv)))
	}
	spec := SandboxSpec(ctx.Rules.Set, ctx.Settings, ctx.Workspace.Dir)
	// Entries named by a variable ($TMPDIR, $CODEX_HOME/...) come from
	// the caller's environment: one that names a place that could never
	// be a workspace (TMPDIR=$HOME, or ~/.config) is left out.
	home := getenv("HOME")
	varOK := func(e string) bool {
		if !strings.HasPrefix(e, "$") {
			return true
		}
		name, rest, _ := strings.Cut(e[1:], "/")
		val := platform.Variable(getenv, name)
		if !filepath.IsAbs(val) {
			return true // expands to nothing
		}
		dir := filepath.Join(val, rest)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		return !refusedWorkspace(dir, home) || slices.Contains(spec.Scratch, dir)
	}
	spec.Scratch = slices.DeleteFunc(spec.Scratch, func(e string) bool { return !varOK(e) })
	spec.Writable = slices.DeleteFunc(spec.Writable, func(e string) bool { return !varOK(e) })
	spec.Caches = slices.DeleteFunc(spec.Caches, func(e string) bool { return !varOK(e) })
	// The spec is the context's from here: the repository's remotes are
	// read with the host's git, found outside the writable directories
	// that it decides (ctx.WritableRoots), which the remotes do not change.
	ctx.spec = spec
	return spec
}

// Policy is the sandbox policy resolved on this machine, made once: the
// judge (git's host), the approvals and the log (where the state
// directory is) and the sandbox share it.
func (ctx *Context) Policy() (*platform.Policy, error) {
	if ctx.policy != nil {
		return ctx.policy, nil
	}
	spec, err := ctx.Spec()
	if err != nil {
		return nil, err
	}
	s := *spec
	s.DeferScratchRepos = ctx.ForSession
	p, err := platform.NewPolicyCached(&s, ctx.Env, StateDir(ctx.Getenv))
	if err != nil {
		return nil, err
	}
	ctx.policy = p
	return p, nil
}

// WritableRoots are the directories the sandbox lets commands write:
// the policy's, when it was made, else resolved from the writable part
// of the policy alone ([platform.WritableRoots]), which costs a fraction
// of the whole, once.
func (ctx *Context) WritableRoots() ([]string, error) {
	if ctx.policy != nil {
		return ctx.policy.WritableRoots(), nil
	}
	if ctx.roots != nil {
		return ctx.roots, nil
	}
	roots, err := platform.WritableRoots(ctx.baseSpec(), ctx.Env)
	if err != nil {
		return nil, err
	}
	ctx.roots = roots
	return ctx.roots, nil
}

// installed reports whether the script file at path is installed
// software: code that no command the sandbox confines can have written
// or can change, nor the agent's own file tools since the agent started
// ([platform.Installed] with the policy's writable roots),
// run like a program rather than judged by its content. With the sandbox
// off in the settings every file the user can write could be the
// agent's: none is. The roots are [Context.runRoots].
func (ctx *Context) installed(path string) bool {
	if ctx.Settings == nil || ctx.Settings.Sandbox.Backend == platform.BackendNone {
		return false
	}
	return platform.Installed(path, ctx.agentSince, ctx.runRoots)
}

// runRoots are the writable roots as the judge asks for them (a script
// file's installed-software check, the outlines' store): the whole
// policy's when the command is to run (Prepare is set: the shim needs
// the policy next anyway, and resolving the writable part alone first
// would resolve it twice); for a judgement alone (cordon check,
// explain) the writable part only, which is the same roots for a
// fraction of the cost.
func (ctx *Context) runRoots() ([]string, error) {
	if ctx.Prepare == nil {
		return ctx.WritableRoots()
	}
	p, err := ctx.Policy()
	if err != nil {
		return nil, err
	}
	return p.WritableRoots(), nil
}

// AgentStart is the bound of [platform.AgentSince] the command's policy
// carries ([platform.Policy.AgentSince]), found once.
func (ctx *Context) AgentStart() int64 { return platform.SinceNanos(ctx.agentSince()) }

// agentSince is the time from which this user's files may be the
// agent's ([platform.AgentSince], or AgentSince when set), found once.
func (ctx *Context) agentSince() time.Time {
	if !ctx.sinceFound {
		ctx.sinceFound = true
		if ctx.AgentSince != nil {
			ctx.since = ctx.AgentSince()
		} else {
			ctx.since = platform.AgentSince()
		}
	}
	return ctx.since
}

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/sessionbox"
)

func sandboxCommand() *command {
	return &command{
		name:  "sandbox",
		args:  "[--json] [--backend NAME] [--network allowlist|on|off] [--workspace DIR] [--platform darwin] | --stop",
		short: "show how commands run in the current directory are confined",
		long: `Prints the sandbox backend that would confine a command started here (and
why another one was passed over), what it cannot enforce on this machine,
and the policy: the workspace, what is writable, read-only and hidden, the
credential variables removed, the network. For bwrap, also its command line
for 'bash -c true'. Exits 1 when no sandbox can run here, after saying why
and what to do, and when sandboxed commands could write cordon's own files
(listed as UNSAFE; see cordon doctor).

With --platform darwin it prints, on any system, the Seatbelt profile a
Mac would confine such a command with, and its parameters (every path is
one, never text of the profile), for this directory's policy. With
--platform windows it prints the restricted token, the ACEs, the job
object's limits and what is not enforced (docs/windows.md).

--stop ends every session sandbox of yours (the sandbox an agent session's
commands share, see docs/session.md) and everything still running in them:
the next command of a session makes a new one.`,
		run: runSandbox,
	}
}

// sandboxStatus is cordon sandbox's JSON output.
type sandboxStatus struct {
	*platform.Report
	Nested     bool             `json:"nested"`
	Unconfined bool             `json:"unconfined"`
	Policy     *platform.Policy `json:"policy"`
	Removed    []string         `json:"removed_env"`
	// Unmatched are entries of the settings that name nothing here.
	Unmatched []string `json:"unmatched_settings,omitempty"`
	// WorkspaceWhy says how the workspace was chosen, or why there is none.
	WorkspaceWhy string `json:"workspace_why"`
	// Unsafe are cordon's own places sandboxed commands could write
	// (see cordon doctor); commands are refused until they are fixed.
	Unsafe []decide.Weakness `json:"unsafe,omitempty"`
}

// unmatched returns the writable, read-only, hidden and socket entries of the
// settings that match no path on this machine: a typo there would
// otherwise go unnoticed (a path that is not there is neither writable nor
// protected).
func unmatched(cfg *config.Config, p *platform.Policy) []string {
	if cfg == nil {
		return nil
	}
	home, _ := os.UserHomeDir()
	var out []string
	for _, e := range slices.Concat(cfg.Sandbox.Writable, cfg.Sandbox.ReadOnly, cfg.Sandbox.Hidden, cfg.Sandbox.Sockets) {
		path := e
		switch {
		case strings.HasPrefix(e, "~/"):
			path = filepath.Join(home, e[2:])
		case strings.HasPrefix(e, "$"):
			name, rest, _ := strings.Cut(e[1:], "/")
			path = filepath.Join(os.Getenv(name), rest)
		case !filepath.IsAbs(e) && p.Workspace != "":
			path = filepath.Join(p.Workspace, e)
		}
		if m, _ := filepath.Glob(path); len(m) == 0 {
			out = append(out, e)
		}
	}
	return out
}

func runSandbox(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	opts := &decide.ConfineOptions{Inspect: true}
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.StringVar(&opts.Backend, "backend", "", "sandbox backend: auto, bwrap, landlock, seatbelt, token or none")
	fs.StringVar(&opts.Network, "network", "", "allowlist, on or off")
	fs.StringVar(&opts.Workspace, "workspace", "", "the writable workspace `DIR`")
	target := fs.String("platform", "", "darwin: print the Seatbelt profile and its parameters; windows: the restricted token, ACEs and job")
	stop := fs.Bool("stop", false, "end every session sandbox of yours and what runs in it")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	if *stop {
		n, err := sessionbox.Stop(decide.StateDir(os.Getenv))
		if err != nil {
			fmt.Fprintf(stderr, "cordon sandbox: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "stopped %d session sandbox(es)\n", n)
		return exitOK
	}
	if *target != "" && *target != "darwin" && *target != "windows" && *target != runtime.GOOS {
		return c.usageError(stderr, "--platform %q: only darwin and windows have a plan to print", *target)
	}
	if opts.Workspace != "" {
		opts.Workspace, _ = filepath.Abs(opts.Workspace)
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "cordon sandbox: cannot read the current directory: %v\n", err)
		return exitError
	}
	env := os.Environ()
	switch *target {
	case "darwin":
		return printSeatbelt(dir, env, opts, *asJSON, stdout, stderr)
	case "windows":
		return printWindowsPlan(dir, env, opts, *asJSON, stdout, stderr)
	}
	conf, err := decide.Confine(dir, env, opts)
	if err != nil {
		fmt.Fprintf(stderr, "cordon sandbox: %v\n", err)
		return exitError
	}
	bash := "/bin/bash"
	st := &sandboxStatus{Nested: conf.Nested, Unconfined: conf.Unconfined, Policy: conf.Policy, Removed: removed(env, conf.Policy.Env),
		WorkspaceWhy: conf.Workspace.Why, Unsafe: conf.Weaknesses}
	if conf.Nested {
		st.Report = &platform.Report{Backend: "none needed"}
	} else {
		st.Report = platform.Describe(conf.Backend, bash, []string{"bash", "-c", "true"})
	}
	st.Policy.Env = nil // the environment itself is the caller's, and may hold secrets
	st.Unmatched = unmatched(conf.Settings, st.Policy)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(st)
	} else {
		fmt.Fprint(stdout, st.text())
	}
	if len(st.Unsafe) > 0 {
		return exitError
	}
	return exitOK
}

// removed returns the names of the variables in env that are not in kept.
func removed(env, kept []string) []string {
	keep := map[string]bool{}
	for _, kv := range kept {
		keep[kv] = true
	}
	var out []string
	for _, kv := range env {
		if !keep[kv] {
			name, _, _ := strings.Cut(kv, "=")
			out = append(out, name)
		}
	}
	return out
}

func (st *sandboxStatus) text() string {
	var b strings.Builder
	p := st.Policy
	fmt.Fprintf(&b, "backend:   %s", st.Backend)
	if st.Detail != "" {
		fmt.Fprintf(&b, " (%s)", st.Detail)
	}
	if st.Nested {
		b.WriteString(" — already confined: nested commands run in the sandbox around this one")
	}
	b.WriteString("\n")
	ws := p.Workspace + " (" + st.WorkspaceWhy + ")"
	if p.Workspace == "" {
		ws = "none: " + st.WorkspaceWhy
	}
	net := string(p.Network)
	if p.Network == platform.NetworkAllowlist {
		net += fmt.Sprintf(" (through cordon's proxy: %d destinations allowed, %d denied; docs/network.md)", len(p.NetAllow), len(p.NetDeny))
	}
	fmt.Fprintf(&b, "workspace: %s\nnetwork:   %s\n", ws, net)
	list := func(name string, paths []string) {
		if len(paths) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s:\n", name)
		for _, path := range paths {
			fmt.Fprintf(&b, "  %s\n", printable.String(path))
		}
	}
	scratch := "scratch (shared)"
	if p.PrivateTmp {
		scratch = "scratch (/tmp private)"
	}
	list(scratch, p.Scratch)
	list("writable", p.Writable)
	list("caches, written through a private layer (the host's cache is read, never changed)", p.Caches)
	list("read-only inside them", p.ReadOnly)
	list("git configuration, writable: a change to a key that runs programs is undone", p.GitConfig)
	list("hidden", p.Hidden)
	list("credential files shown without their secret lines (the rest holds the person's settings)", p.FilteredPaths())
	list("readable inside hidden", p.Visible)
	list("hidden when they appear (judged by the rules until then)", p.Missing)
	list("environment variables removed", st.Removed)
	list("not enforced here", st.Degraded)
	list("settings entries that name nothing here (check for a typo)", st.Unmatched)
	var unsafe []string
	for _, w := range st.Unsafe {
		unsafe = append(unsafe, w.String())
	}
	list("UNSAFE, commands are refused (see cordon doctor)", unsafe)
	if len(st.CommandLine) > 0 {
		fmt.Fprintf(&b, "command line for bash -c true:\n  %s\n", invocation.QuoteArgv(st.CommandLine))
	}
	return b.String()
}

package shim

import (
	"errors"
	"github.com/cordonsh/cordon/platform"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// builtinRules compiles the embedded rules once, on first use.
var builtinRules = sync.OnceValue(rules.Builtin)

// Check judges argv (what an agent would exec: a shell invocation such as
// bash -lc '...', or a direct command) as if run in dir with env. It never
// executes any part of argv.
func Check(argv []string, dir string, env []string) (*rules.Judgement, error) {
	inv, err := Decode(argv, false)
	var de *DecodeError
	if errors.As(err, &de) {
		return refusedByShell(de), nil
	}
	if err != nil {
		return nil, err
	}
	return judge(inv, dir, env, true)
}

// refusedByShell is the judgement on an argv the shell itself rejects:
// nothing would run, so it is allowed, with the shell's message.
func refusedByShell(de *DecodeError) *rules.Judgement {
	return &rules.Judgement{Reasons: []rules.Reason{{Rule: "shell-rejects", Message: de.Msg + "; the shell would run nothing", Command: -1}}}
}

// Judge judges a decoded invocation as if run in dir with env. It never
// executes any part of inv.
//
// Warning: an interactive shell or a script read from standard input is
// not visible here; such invocations are allowed as a whole and left to
// the sandbox until statements are judged as they arrive.
//
// The judgement carries the reasons but not the per-command report
// ([rules.Judgement.Commands]), which only [Check] builds.
func Judge(inv *Invocation, dir string, env []string) (*rules.Judgement, error) {
	return judge(inv, dir, env, false)
}

func judge(inv *Invocation, dir string, env []string, report bool) (*rules.Judgement, error) {
	ctx, err := NewContext(dir, env, nil)
	if err != nil {
		return nil, err
	}
	d := ctx.Decide(Request{Shell: inv.Shell, Mode: inv.Mode.String(), Text: QuoteArgv(inv.Argv), Inv: inv, Query: true, Report: report})
	if d.Error != "" {
		return nil, errors.New(d.Error)
	}
	return d.Judgement, nil
}

// judgeWith judges inv with set, as if run in dir with env in the
// workspace ws. A foreign workspace is not looked at on disk: what git
// could restore there is unknown; host says where git runs (nil: the
// repository is not read), writable whether the sandbox lets the command
// write a path, seen whether it shows the command a path as it is, installed which script files are installed software (nil:
// none), brokered which credential variables it holds by placeholder
// (nil: none).
func judgeWith(set *rules.Set, inv *Invocation, dir string, env []string, ws WorkspaceChoice, foreign, report bool, host func() (gitstate.Host, error), writable, seen, installed, brokered func(string) bool) *rules.Judgement {
	// The path rules' variables as the sandbox reads them (a
	// $DARWIN_USER_CACHE_DIR of the environment's is not the sandbox's).
	lookup := envLookup(env)
	getenv := func(name string) string { return platform.Variable(lookup, name) }
	// Environ tells which credentials a dump of the environment would
	// pass on (env | base64 asks when one is set, env | sort never).
	ctx := &rules.Context{Env: rules.Env{Home: getenv("HOME"), Workspace: ws.Dir, NoWorkspace: ws.Hint(), Getenv: getenv, Environ: env, Foreign: foreign, Writable: writable, Brokered: brokered}, Report: report}
	if _, err := os.Lstat(filepath.Join(ws.Dir, ".git")); ws.Dir != "" && !foreign && err == nil {
		repo := &gitstate.Repo{Top: ws.Dir, Env: env, Host: host}
		repo.Agent = func() []string {
			agent, _ := agentRemotes(StateDir(getenv), ws.Dir, func() []string {
				remotes, _ := repo.Remotes()
				return remotes
			})
			return agent
		}
		ctx.Repo = repo
	}
	cfg := &parse.Config{
		Dialect: inv.Dialect, Env: env, Dir: dir, Arg0: inv.Arg0, Params: inv.Params,
		NoUnset: hasOption(inv.Options, "nounset"), Options: inv.Options, Knowledge: set, Shell: nestedShellWith(set),
		Startup:   func(path string) bool { return set.IsStartup(&ctx.Env, path) },
		Installed: installed, Pinned: inv.Pinned,
		Seen: seen,
	}
	if inv.Mode == ModeCommand && inv.Shell != "" {
		call := inv.shellCall()
		cfg.Start = &call
	}
	var res *parse.Result
	switch inv.Mode {
	case ModeCommand:
		res = parse.Parse(inv.Script, cfg)
	case ModeFile, ModeExec:
		res = parse.Exec(inv.Argv, cfg)
	default:
		res = &parse.Result{}
	}
	return set.Judge(res, ctx)
}

// nestedShellWith decodes a shell invocation found inside a script, with
// the shells that rules know.
func nestedShellWith(rules parse.Knowledge) func([]string) (parse.ShellCall, error) {
	return func(argv []string) (parse.ShellCall, error) {
		inv, err := decodeWith(rules, argv, false)
		if err != nil {
			return parse.ShellCall{}, err
		}
		return inv.shellCall(), nil
	}
}

// shellCall is what the walker needs of a shell started from a script.
// A shell given no script reads one from its standard input there
// (curl ... | sh, echo ... | cmd).
func (inv *Invocation) shellCall() parse.ShellCall {
	call := parse.ShellCall{
		Dialect: inv.Dialect, Arg0: inv.Arg0, Params: inv.Params,
		NoUnset: hasOption(inv.Options, "nounset"), Options: inv.Options, Delayed: inv.Delayed, Core: inv.Core,
		Login: inv.Login, Interactive: inv.Interactive || inv.Mode == ModeInteractive,
		NoRc: inv.NoRc || hasOption(inv.Options, "norcs"), NoProfile: inv.NoProfile, RcFile: inv.RcFile,
	}
	switch inv.Mode {
	case ModeCommand:
		call.Script, call.HasScript = inv.Script, true
	case ModeFile:
		call.File = inv.File
	case ModeInfo:
		call.HasScript = true
	default:
		call.Stdin = true
	}
	return call
}

func hasOption(opts []string, name string) bool {
	for _, o := range opts {
		if o == name {
			return true
		}
	}
	return false
}

func envLookup(env []string) func(string) string {
	if runtime.GOOS == "windows" {
		return windowsHome(winLookup(env))
	}
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}

// windowsHome is getenv with HOME, when unset (as it is outside Git
// Bash), read as USERPROFILE: the home directory that the rules' ~ and
// the settings' directories are under.
func windowsHome(getenv func(string) string) func(string) string {
	return func(k string) string {
		if v := getenv(k); v != "" || k != "HOME" {
			return v
		}
		return getenv("USERPROFILE")
	}
}

func refusedWorkspace(dir, home string) bool {
	return refusedBy(builtinRules().Paths().NotWorkspace, dir, home)
}

// refusedBy reports whether dir is the home directory, holds it, or is
// one of the not_workspace entries.
func refusedBy(notWorkspace []string, dir, home string) bool {
	// dir is resolved: so is the home it is compared with (a home
	// reached through a link), as well as the home as given.
	if real, err := filepath.EvalSymlinks(home); err == nil && home != "" && real != filepath.Clean(home) && refusedBy(notWorkspace, dir, real) {
		return true
	}
	if home != "" && platform.Within(filepath.Clean(home), dir) {
		return true
	}
	for _, e := range notWorkspace {
		switch {
		case strings.HasPrefix(e, "~"):
			if home == "" {
				continue
			}
			e = filepath.Clean(home) + e[1:]
		case strings.HasPrefix(e, "$"):
			name, rest, _ := strings.Cut(e[1:], "/")
			val := os.Getenv(name)
			if !filepath.IsAbs(val) {
				continue
			}
			e = filepath.Join(val, rest) // keeps a final "/**"
		}
		tree, below := strings.CutSuffix(e, "/**")
		if !below {
			if dir == e {
				return true
			}
			continue
		}
		for d := dir; ; d = filepath.Dir(d) {
			if ok, _ := path.Match(tree, d); ok {
				return true
			}
			if d == "." || filepath.Dir(d) == d { // "/", or C:\ on Windows
				break
			}
		}
	}
	return false
}

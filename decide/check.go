package decide

import (
	"errors"
	"github.com/cordonsh/cordon/platform"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// Check judges argv (what an agent would exec: a shell invocation such as
// bash -lc '...', or a direct command) as if run in dir with env. It never
// executes any part of argv.
func Check(argv []string, dir string, env []string) (*rules.Judgement, error) {
	inv, err := invocation.Decode(argv, false)
	var de *invocation.DecodeError
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
func refusedByShell(de *invocation.DecodeError) *rules.Judgement {
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
func Judge(inv *invocation.Invocation, dir string, env []string) (*rules.Judgement, error) {
	return judge(inv, dir, env, false)
}

func judge(inv *invocation.Invocation, dir string, env []string, report bool) (*rules.Judgement, error) {
	ctx, err := NewContext(dir, env, nil)
	if err != nil {
		return nil, err
	}
	d := ctx.Decide(Request{Shell: inv.Shell, Mode: inv.Mode.String(), Text: invocation.QuoteArgv(inv.Argv), Inv: inv, Query: true, Report: report})
	if d.Error != "" {
		return nil, errors.New(d.Error)
	}
	return d.Judgement, nil
}

// JudgeWith judges inv with set, as if run in dir with env in the
// workspace ws. A foreign workspace is not looked at on disk: what git
// could restore there is unknown; host says where git runs (nil: the
// repository is not read), writable whether the sandbox lets the command
// write a path, seen whether it shows the command a path as it is, installed which script files are installed software (nil:
// none), brokered which credential variables it holds by placeholder
// (nil: none).
func JudgeWith(set *rules.Set, inv *invocation.Invocation, dir string, env []string, ws WorkspaceChoice, foreign, report bool, host func() (gitstate.Host, error), writable, seen, installed, brokered func(string) bool) *rules.Judgement {
	return judgeWith(set, inv, dir, env, ws, foreign, report, host, writable, seen, installed, brokered, nil)
}

// judgeWith is [JudgeWith], keeping the outlines of large scripts in
// outlines (nil: none).
func judgeWith(set *rules.Set, inv *invocation.Invocation, dir string, env []string, ws WorkspaceChoice, foreign, report bool, host func() (gitstate.Host, error), writable, seen, installed, brokered func(string) bool, outlines parse.Outlines) *rules.Judgement {
	// The path rules' variables as the sandbox reads them (a
	// $DARWIN_USER_CACHE_DIR of the environment's is not the sandbox's).
	lookup := EnvLookup(env)
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
		NoUnset: invocation.HasOption(inv.Options, "nounset"), Options: inv.Options, Knowledge: set, Shell: nestedShellWith(set),
		Startup:   func(path string) bool { return set.IsStartup(&ctx.Env, path) },
		Installed: installed, Pinned: inv.Pinned,
		Seen: seen, Outlines: outlines,
	}
	if inv.Mode == invocation.ModeCommand && inv.Shell != "" {
		call := inv.ShellCall()
		cfg.Start = &call
	}
	var res *parse.Result
	switch inv.Mode {
	case invocation.ModeCommand:
		res = parse.Parse(inv.Script, cfg)
	case invocation.ModeFile, invocation.ModeExec:
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
		inv, err := invocation.DecodeWith(rules, argv, false)
		if err != nil {
			return parse.ShellCall{}, err
		}
		return inv.ShellCall(), nil
	}
}

// EnvLookup returns a lookup of env: by exact name, or on Windows
// ignoring the case of names, with HOME read as USERPROFILE when unset.
func EnvLookup(env []string) func(string) string {
	if runtime.GOOS == "windows" {
		return windowsHome(WinLookup(env))
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
	return refusedBy(invocation.BuiltinRules().Paths().NotWorkspace, dir, home)
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

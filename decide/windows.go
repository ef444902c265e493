package decide

import (
	"errors"
	"fmt"
	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/internal/repotop"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/winpath"
)

// CheckWindows judges a Windows command line (program first; for argv,
// join it with [winargs.Join] as Windows callers do) as if run in dir, a
// Windows path, with env. On another operating system the paths are not
// on this machine: nothing is looked up on disk, and what git could
// restore is unknown. It never executes any part of cmdline.
func CheckWindows(cmdline, dir string, env []string) (*rules.Judgement, error) {
	inv, err := invocation.DecodeWindows(cmdline)
	if err != nil {
		return Undecodable(err), nil
	}
	ctx := &Context{Dir: dir, Env: env, Getenv: WinLookup(env), Settings: &config.Config{}}
	d := ctx.Decide(Request{Shell: inv.Shell, Mode: "windows", Text: cmdline, Inv: inv, Windows: true, Query: true, Report: true})
	if d.Error != "" {
		return nil, errors.New(d.Error)
	}
	return d.Judgement, nil
}

// Undecodable is the judgement on a command line cordon cannot decode:
// a person decides.
func Undecodable(err error) *rules.Judgement {
	return &rules.Judgement{Verdict: rules.Ask, Reasons: []rules.Reason{{
		Rule: "undecodable", Verdict: rules.Ask, Command: -1,
		Message: err.Error() + "; cordon cannot tell what it would run",
	}}}
}

// judgeWindows judges a decoded Windows invocation run in dir with env,
// with the effective rules: on another machine the project's rule files
// are not there, the system's and user's are this machine's. The error
// is a *[RulesError].
func judgeWindows(c *Context, inv *invocation.Invocation, report bool) (*rules.Judgement, error) {
	dir, env := c.Dir, c.Env
	getenv := WinLookup(env)
	foreign := runtime.GOOS != "windows"
	home := getenv("USERPROFILE")
	if home == "" {
		home = winpath.FromMSYS(getenv("HOME"))
	}
	ws := windowsWorkspace(dir, home, getenv, foreign)
	rulesWS := ws
	if foreign {
		rulesWS = ""
	}
	loaded, err := Rules(rulesWS, getenv)
	if err != nil {
		return nil, err
	}
	set := loaded.Set
	if foreign {
		ws = projectAbove(ws, set.Paths().ProjectSubdirs, home, getenv)
	}
	ctx := &rules.Context{Report: report, Env: rules.Env{
		Home: winpath.Canon(home), Workspace: winpath.Canon(ws), Getenv: getenv, Environ: env,
		Windows: true, Foreign: foreign,
	}}
	if !foreign && ws != "" {
		if _, err := os.Lstat(filepath.Join(ws, ".git")); err == nil {
			ctx.Repo = canonRepo{&gitstate.Repo{Top: ws, Env: env, Host: GitHost(c)}}
		}
	}
	cfg := &parse.Config{
		Dialect: inv.Dialect, Env: env, Dir: dir, Arg0: inv.Arg0, Params: inv.Params,
		NoUnset: invocation.HasOption(inv.Options, "nounset"), Knowledge: set, Shell: nestedShellWith(set),
		Windows: true, Delayed: inv.Delayed, Core: inv.Core, CommandLine: nestedWindows,
		Startup: func(path string) bool { return set.IsStartup(&ctx.Env, path) },
	}
	var res *parse.Result
	switch inv.Mode {
	case invocation.ModeCommand:
		res = parse.Parse(inv.Script, cfg)
	case invocation.ModeFile:
		res = windowsFile(inv, dir, cfg)
	case invocation.ModeExec:
		res = parse.Exec(inv.Argv, cfg)
	case invocation.ModeStdin:
		res = &parse.Result{Problems: []parse.Problem{{Kind: parse.ProblemDepth, Pos: "1:1",
			Msg: inv.Shell + " reads its script from standard input, which is not part of the command line"}}}
	default:
		res = &parse.Result{}
	}
	return set.Judge(res, ctx), nil
}

// windowsFile finds what a script file run by PowerShell (-File) or
// Git Bash would run: it is read when it is on this machine.
func windowsFile(inv *invocation.Invocation, dir string, cfg *parse.Config) *parse.Result {
	if inv.Dialect != parse.PowerShell {
		return parse.Exec(inv.Argv, cfg)
	}
	path := winpath.Abs(inv.File, dir)
	var data []byte
	err := fmt.Errorf("it is not on this machine")
	if runtime.GOOS == "windows" && path != "" {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return &parse.Result{Problems: []parse.Problem{{Kind: parse.ProblemDepth, Pos: "1:1",
			Msg: fmt.Sprintf("%s -File %s: the script cannot be read (%v), so what it runs is unknown", inv.Shell, inv.File, err)}}}
	}
	return parse.Parse(string(data), cfg)
}

// nestedWindows decodes a Windows command line found inside a script.
func nestedWindows(cmdline string) (parse.ShellCall, error) {
	inv, err := invocation.DecodeWindows(cmdline)
	if err != nil {
		return parse.ShellCall{}, err
	}
	return inv.ShellCall(), nil
}

// WinLookup returns a lookup of env that ignores the case of names, as
// Windows does.
func WinLookup(env []string) func(string) string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, dup := m[strings.ToLower(k)]; !dup {
				m[strings.ToLower(k)] = v
			}
		}
	}
	return func(k string) string { return m[strings.ToLower(k)] }
}

// windowsWorkspace returns the workspace for a command run in dir on
// Windows: the git top level of dir when this machine can look, else
// dir; never a drive root, the profile directory or what holds it, a
// directory inside the profile's AppData or dot-directories, or a system
// directory. "" means there is none.
func windowsWorkspace(dir, home string, getenv func(string) string, foreign bool) string {
	ws := winpath.Abs(dir, "")
	if ws == "" {
		return ""
	}
	if !foreign {
		if top := repotop.Find(ws); top != "" {
			ws = top
		}
	}
	c := winpath.Canon(ws)
	if c == "" || strings.Count(c, "/") < 2 || strings.HasPrefix(c, "/unc/") && strings.Count(c, "/") < 4 {
		return "" // a drive or share root
	}
	if h := winpath.Canon(home); h != "" {
		if h == c || strings.HasPrefix(h, c+"/") {
			return ""
		}
		if rest, ok := strings.CutPrefix(c, h+"/"); ok && (strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, "appdata")) {
			return ""
		}
	}
	for _, v := range []string{"SystemRoot", "ProgramFiles", "ProgramFiles(x86)", "ProgramData"} {
		if s := winpath.Canon(getenv(v)); s != "" && (c == s || strings.HasPrefix(c, s+"/")) {
			return ""
		}
	}
	return ws
}

// projectAbove returns, for a workspace that is not on this machine, the
// project it is a subdirectory of when its name is one of subdirs (src,
// tests) and the directory above may be a workspace; else ws.
func projectAbove(ws string, subdirs []string, home string, getenv func(string) string) string {
	c := winpath.Canon(ws)
	i := strings.LastIndexByte(c, '/')
	if c == "" || i < 0 || !slices.Contains(subdirs, c[i+1:]) {
		return ws
	}
	if up := windowsWorkspace(winpath.Abs(`..`, ws), home, getenv, true); up != "" {
		return up
	}
	return ws
}

// canonRepo reports a repository's changes with canonical paths, as
// Windows judgements compare them.
type canonRepo struct{ *gitstate.Repo }

// Changes implements [rules.Repo].
func (r canonRepo) Changes() ([]rules.Change, error) {
	chs, err := r.Repo.Changes()
	for i := range chs {
		dir := strings.HasSuffix(chs[i].Path, "/") || strings.HasSuffix(chs[i].Path, `\`)
		chs[i].Path = winpath.Canon(chs[i].Path)
		if dir {
			chs[i].Path += "/"
		}
	}
	return chs, err
}

package decide

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/audit"
	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/review"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/layers"
)

// The one decision point. Every judgement (a one-shot command, each
// statement of a piped shell, a Windows command line, cordon check and
// explain) is [Context.Decide] on a [Request], with a [Context] read
// once per run; it returns one [decision.Decision]. In order:
//
//  1. the rules judge the request (a panic is a refusal, not a crash);
//  2. the [BeforeRun] steps see every decision that is not deny, and may
//     save what the command would destroy (Decision.Saved) and then
//     turn an ask into an allow;
//  3. an ask is allowed by a person's approved rule entry, by an
//     approval of `cordon approve` for this exact request, or by one
//     given in the agent's own dialog for what it refuses (cordon hook);
//  4. an ask left is put to the reviewer, when the settings name one;
//  5. an ask still left is recorded for `cordon approve` (Decision.ID);
//  6. the decision goes to the audit log.
//
// A query (check, explain) stops after step 1: it changes nothing.

// A Context is what judging a command needs, read once per run and
// shared by the judge, the sandbox and git's host.
type Context struct {
	Dir       string
	Env       []string
	Getenv    func(string) string
	Settings  *config.Config
	Workspace WorkspaceChoice
	Rules     *layers.Loaded
	// Prepare, when set (the shim), makes the sandbox for a command that
	// is allowed, before the decision is recorded: the record names the
	// backend, and a sandbox that cannot be made is the decision's error.
	Prepare func() (*Confinement, error)
	// Inspect, when set (cordon doctor), makes nothing on disk: the
	// state directories and caches the sandbox would make before its
	// first command are left unmade.
	Inspect bool
	// ForSession, when set (the shim and cordon run, with sessions on),
	// makes the policy without the repositories in scratch space
	// (platform.Spec.DeferScratchRepos): a command run in a session's
	// sandbox made earlier never needs them, and whatever makes a
	// sandbox from the policy looks for them first.
	ForSession bool
	// AgentSince, when set (tests), stands for [platform.AgentSince]:
	// this user's files changed since are not installed software.
	AgentSince func() time.Time

	since      time.Time
	sinceFound bool
	spec       *platform.Spec
	// specRemotes is set once Spec adds the remotes' part to spec.
	specRemotes bool
	policy      *platform.Policy
	roots       []string // from the writable part alone, before policy
	isConf      *bool
}

// A Request is one thing to decide.
type Request struct {
	// Shell is the shell's name ("bash", "cmd"); Mode how the code came
	// ("command", "file", "exec", "statement", "windows").
	Shell, Mode string
	// Text is the exact command: argv quoted as one line, or a piped
	// shell's statement. An approval binds it, with Bind: what else the command
	// runs (the script read from a file on standard input, the digest of
	// a script file).
	Text, Bind string
	// Inv is the decoded invocation judged. For a statement, its Script
	// holds the piped shell's prelude followed by the statement.
	Inv *invocation.Invocation
	// Rules, when set, judge instead of the context's (a piped shell's rules
	// of the moment).
	Rules *rules.Set
	// Windows: Inv is a Windows command line.
	Windows bool
	// Query: check or explain; nothing is recorded, approved or
	// reviewed.
	Query bool
	// Report: the judgement lists the commands found and their effects.
	Report bool
}

// BeforeRun are steps run after the rules judged a request and before
// anything else decides: each gets the context and every decision that
// is not a deny (d.Judgement is the rules' judgement). A step may save
// what the command would lose, list it in d.Saved, and set d.Verdict to
// allow. Steps must be quick when there is nothing to do. Registered at
// init.
var BeforeRun []func(ctx *Context, d *decision.Decision)

// Decide decides req.
func (ctx *Context) Decide(req Request) *decision.Decision {
	start := time.Now()
	d := &decision.Decision{Time: start, Shell: req.Shell, Mode: req.Mode, Dir: ctx.Dir, Workspace: ctx.Workspace.Dir}
	set := req.Rules
	if set == nil && ctx.Rules != nil {
		set = ctx.Rules.Set
	}
	if set == nil {
		set = invocation.BuiltinRules() // a Windows query: judgeWindows loads its own
	}
	if !req.Query {
		d.Parent = parentProcess()
		d.Command = set.Credentials().Mask(req.Text, ctx.Env)
	}
	var judgeErr error
	j, err := safeJudgeWith(func() *rules.Judgement {
		if req.Windows {
			j, e := judgeWindows(ctx, req.Inv, req.Report)
			if judgeErr = e; e != nil {
				return &rules.Judgement{}
			}
			return j
		}
		return judgeWith(set, req.Inv, ctx.Dir, ctx.Env, ctx.Workspace, false, req.Report, GitHost(ctx), ctx.writable(), ctx.seen(), ctx.installed, ctx.brokered(), ctx.outlines())
	})
	if judgeErr != nil {
		err = judgeErr
	}
	d.Step("judge", start)
	if err != nil {
		d.Verdict, d.Judged, d.Error = decision.Ask, decision.Ask, "could not judge the command: "+err.Error()
		d.Judgement = &rules.Judgement{Verdict: rules.Ask}
		if !req.Query {
			ctx.record(d)
		}
		return d
	}
	fill(d, j)
	if req.Query {
		maskDecision(d, set.Credentials().Masker(ctx.Env))
		return d
	}
	if d.Verdict != decision.Deny {
		for _, step := range BeforeRun {
			step(ctx, d)
		}
	}
	// The judge expanded the command's variables from the environment
	// outside, where credentials hold their real values: none of them
	// may reach a message, the log, a pending approval or the reviewer
	// (the savers above needed the paths as they are).
	maskDecision(d, set.Credentials().Masker(ctx.Env))
	var ac *agentCommand
	if d.Verdict == decision.Ask {
		ac = ctx.approve(d, set, req)
	}
	if d.Verdict == decision.Ask {
		ctx.review(d)
	}
	if d.Verdict == decision.Ask {
		ctx.pending(d, req, ac)
	}
	if d.Verdict == decision.Allow && ctx.Prepare != nil {
		if c, err := ctx.Prepare(); err != nil {
			d.Error = err.Error()
		} else {
			d.Backend = backendName(c)
		}
	}
	d.Step("decide", start)
	ctx.record(d)
	return d
}

// maskDecision replaces, in every string of d and its judgement, the
// values of credential variables (see [credvar.Matcher.Masker]).
func maskDecision(d *decision.Decision, mask func(string) string) {
	maskStrings(reflect.ValueOf(d).Elem(), mask, map[uintptr]bool{})
}

func maskStrings(v reflect.Value, mask func(string) string, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(mask(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() && !seen[v.Pointer()] {
			seen[v.Pointer()] = true
			maskStrings(v.Elem(), mask, seen)
		}
	case reflect.Interface:
		if !v.IsNil() {
			maskStrings(v.Elem(), mask, seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				maskStrings(v.Field(i), mask, seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			maskStrings(v.Index(i), mask, seen)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if e.Kind() == reflect.String {
				v.SetMapIndex(k, reflect.ValueOf(mask(e.String())).Convert(e.Type()))
			}
		}
	}
}

// brokered is what the judge asks of the sandbox an allowed command
// will run in: whether it holds credential variable name as a
// placeholder that only the variable's own hosts take (the network
// allowlist's proxy puts the value on in transit, docs/network.md):
// then sending or printing the variable gives nothing away. Made only
// when asked (a command that sends or prints a declared credential
// variable), with the sandbox the command needs next anyway. Nil when
// nothing will run (a query) or commands run unconfined: every
// credential variable is a secret then.
func (ctx *Context) brokered() func(string) bool {
	if ctx.Prepare == nil || ctx.Settings == nil || ctx.Settings.Sandbox.Backend == platform.BackendNone || runtime.GOOS != "linux" || ctx.Rules == nil {
		return nil
	}
	return func(name string) bool {
		if !slices.ContainsFunc(ctx.Rules.Set.CredentialKinds(), func(k rules.CredentialKind) bool { return k.Env == name }) {
			return false
		}
		c, err := ctx.Confine(nil)
		if err != nil || c.Nested || c.Unconfined {
			return false
		}
		return slices.ContainsFunc(c.Policy.Credentials, func(k platform.CredentialKind) bool { return k.Env == name }) && platform.Brokers(c.Backend, c.Policy)
	}
}

// writable is what the judge asks of the sandbox the command will run
// in: whether it lets the command write path (absolute, resolved). The
// policy is resolved on the first question (only a command that writes
// asks), and an allowed command runs with that same policy. Nil when commands run unconfined (backend none, or
// no sandbox on this system): nothing is read-only then.
func (ctx *Context) writable() func(string) bool {
	if ctx.Settings.Sandbox.Backend == platform.BackendNone || runtime.GOOS != "linux" {
		return nil
	}
	return func(path string) bool {
		// The workspace is always a writable root: most writes are
		// there, and need no policy to answer.
		if ws := ctx.Workspace.Dir; ws != "" && platform.Within(path, ws) {
			return true
		}
		// So are the scratch directories and caches the spec names by
		// a plain path (/tmp, ~/.cache): no policy either.
		if spec, err := ctx.Spec(); err == nil {
			home := ctx.Getenv("HOME")
			for _, e := range slices.Concat(spec.Scratch, spec.Writable, spec.Caches) {
				if rest, ok := strings.CutPrefix(e, "~/"); ok && filepath.IsAbs(home) {
					e = filepath.Join(home, rest)
				}
				if filepath.IsAbs(e) && !strings.ContainsAny(e, "*?[$") && platform.Within(path, e) {
					return true
				}
			}
		}
		// The whole policy, not WritableRoots' part of it: an allowed
		// command needs it next to run, and makes it once.
		p, err := ctx.Policy()
		if err != nil {
			return true // no sandbox can be made: that refusal says why
		}
		for _, r := range p.WritableRoots() {
			if platform.Within(path, r) {
				return true
			}
		}
		return false
	}
}

// seen is what the judge asks of the sandbox before it reads a file
// for a test ([ -e F ] || ...): whether the command will see path
// (absolute, resolved) as the judge does. Nil when commands run
// unconfined. What the sandbox lets the command write it shows as it is,
// except the paths it hides (credentials, even under /tmp); anything else
// may differ.
func (ctx *Context) seen() func(string) bool {
	writable := ctx.writable()
	if writable == nil {
		return nil
	}
	return func(path string) bool {
		if !writable(path) {
			return false
		}
		p, err := ctx.Policy()
		if err != nil {
			return false
		}
		for _, h := range p.Hidden {
			if platform.Within(path, h) {
				return false
			}
		}
		// The host's sockets are covered too, found where the sandbox
		// starts (not here: a command of a session starts none).
		if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
			return slices.ContainsFunc(p.Sockets, func(s string) bool { return platform.Within(path, s) })
		}
		return true
	}
}

// fill copies the rules' judgement into d.
func fill(d *decision.Decision, j *rules.Judgement) {
	d.Judgement = j
	d.Verdict = j.Verdict.String()
	d.Judged = d.Verdict
	d.Categories = append([]string{}, j.Categories...)
	d.Rules, d.Reasons = []string{}, []string{}
	for _, rs := range BlockingReasons(j) {
		d.Rules = append(d.Rules, rs.Rule)
		d.Reasons = append(d.Reasons, rs.Message)
	}
	n := 0
	for _, c := range j.Commands {
		n += len(c.Effects)
	}
	d.Targets = slices.Grow(d.Targets, n) // a long script's thousands at once
	for _, c := range j.Commands {
		d.Targets = append(d.Targets, c.Effects...)
	}
}

// state is cordon's state directory when no sandboxed command can write
// it: approvals and the log are kept there, else nowhere.
func (ctx *Context) state() (string, error) {
	state := StateDir(ctx.Getenv)
	if state == "" {
		return "", errors.New("there is no state directory (no HOME or XDG_STATE_HOME)")
	}
	roots, err := ctx.WritableRoots()
	if err != nil {
		return "", err
	}
	if r := Containing(state, roots); r != "" {
		return "", fmt.Errorf("cordon's state directory %s is inside %s, which sandboxed commands can write (set XDG_STATE_HOME elsewhere)", printable.String(state), printable.String(r))
	}
	return state, nil
}

// approve turns d into an allow when a person approved this request:
// an approved entry of the rules, an approval from cordon approve, or
// one given in the agent's own dialog. A request that is an agent's
// wrapper around its model's command (Claude Code's, Gemini CLI's) is
// approved by what is inside, whatever temporary names the wrapper
// holds: its ask is recorded under that key too, so that the agent's
// retry has the same id. It returns that command, nil for no wrapper.
func (ctx *Context) approve(d *decision.Decision, set *rules.Set, req Request) *agentCommand {
	if set.Approved(req.Text, ctx.Dir) {
		d.Verdict, d.Approval = decision.Allow, "rule"
		return nil
	}
	state, err := ctx.state()
	if err != nil {
		return nil
	}
	d.Key = approval.Key(req.Mode, req.Text+"\x00"+req.Bind, ctx.Dir)
	store := approval.New(state)
	if id, ok := store.Use(d.Key); ok {
		d.Verdict, d.Approval = decision.Allow, id
		return nil
	}
	ac := ctx.agentCommand(set, req)
	if ac != nil {
		d.Key = ac.key(ctx.Dir)
		if id, ok := store.Use(d.Key); ok {
			d.Verdict, d.Approval = decision.Allow, id
			store.Done(&approval.Ask{ID: approval.ID(d.Key)})
			return ac
		}
	}
	if id, ok := ctx.dialogApproval(store, set, req, ac); ok {
		d.Verdict, d.Approval = decision.Allow, id
		if ac != nil {
			// The hook recorded the ask for cordon approve as well.
			store.Done(&approval.Ask{ID: approval.ID(d.Key)})
		}
	}
	return ac
}

// pending records the ask d for cordon approve, and gives it its id. An
// agent's wrapped command (ac) is shown as the command inside.
func (ctx *Context) pending(d *decision.Decision, req Request, ac *agentCommand) {
	state, err := ctx.state()
	if err != nil || d.Key == "" || d.Error != "" {
		return
	}
	a := &approval.Ask{Key: d.Key, Mode: req.Mode, Text: req.Text, Shown: d.Command, Dir: ctx.Dir,
		Workspace: ctx.Workspace.Dir, Reasons: d.Reasons, Time: d.Time}
	if ac != nil {
		set := req.Rules
		if set == nil && ctx.Rules != nil {
			set = ctx.Rules.Set
		}
		a.Agent, a.Shown = ac.agent, ac.command
		if set != nil {
			a.Shown = set.Credentials().Mask(ac.command, ctx.Env)
		}
	}
	if approval.New(state).Record(a) == nil {
		d.ID = a.ID
	}
}

// record appends d to the audit log. A log that cannot be written is
// said on standard error, and the verdict stands; except in a shell
// started inside a sandbox, where the state directory is read-only by
// design: the command around it was logged. Where the
// state directory is is not checked here (it costs the policy): a state
// directory that sandboxed commands could write makes the self-check
// refuse to run anything ([Context.Confine]).
func (ctx *Context) record(d *decision.Decision) {
	state := StateDir(ctx.Getenv)
	err := errors.New("there is no state directory (no HOME or XDG_STATE_HOME)")
	if state != "" {
		l := &audit.Log{Dir: state, MaxSize: ctx.Settings.Log.MaxSize, Keep: ctx.Settings.Log.Keep, Syslog: ctx.Settings.Log.Syslog}
		err = l.Append(d)
	}
	if _, sandboxed := Sandboxed(); err != nil && !sandboxed {
		os.Stderr.WriteString("cordon: the decision was not written to the audit log: " + err.Error() + "\n")
	}
}

// Confined reports whether this process already runs in cordon's
// sandbox (see [platform.Confined]); asked once. Outside any sandbox
// the answer costs one read of /proc/self/status.
func (ctx *Context) Confined() bool {
	if _, in := Sandboxed(); !in {
		return false
	}
	if ctx.isConf == nil {
		p, err := ctx.Policy()
		if err != nil {
			return false
		}
		c := platform.Confined(p)
		ctx.isConf = &c
	}
	return *ctx.isConf
}

// parentProcess is the process that started this one: the agent.
func parentProcess() decision.Process {
	p := decision.Process{PID: os.Getppid()}
	if data, err := smallfile.ReadFile(filepath.Join("/proc", fmt.Sprint(p.PID), "comm")); err == nil {
		p.Name = strings.TrimSpace(string(data))
	}
	return p
}

// maxStatus bounds the git status summary given to the reviewer.
const maxStatus = 200

// review puts the ask d to the reviewer the settings name, if any. The
// reviewer is found on PATH past the directories sandboxed commands can
// write, and runs in the account's home directory with HOME, USER,
// LOGNAME, LANG, PATH (without those directories) and the settings'
// reviewer.pass_env.
func (ctx *Context) review(d *decision.Decision) {
	rc := ctx.Settings.Reviewer
	if len(rc.Command) == 0 {
		return
	}
	start := time.Now()
	defer d.Step("review", start)
	r, err := ctx.reviewer()
	if err != nil {
		d.Reviewer = &decision.Review{Verdict: decision.Ask, Error: err.Error()}
		return
	}
	d.Reviewer = r.Run(d, ctx.gitStatus())
	if d.Reviewer.Error == "" {
		d.Verdict = d.Reviewer.Verdict
	}
}

// reviewer resolves the settings' reviewer command.
func (ctx *Context) reviewer() (*review.Reviewer, error) {
	rc := ctx.Settings.Reviewer
	roots, err := ctx.WritableRoots()
	if err != nil {
		return nil, err
	}
	home := platform.AccountHome()
	pathEnv := strings.Join(platform.HostDirs(ctx.Getenv("PATH"), roots, ctx.agentSince), string(filepath.ListSeparator))
	prog := rc.Command[0]
	if rest, ok := strings.CutPrefix(prog, "~/"); ok {
		prog = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(prog) {
		if prog, err = platform.FindProgram(prog, pathEnv, roots, ctx.agentSince); err != nil {
			return nil, fmt.Errorf("the reviewer: %v", err)
		}
	} else if Within(prog, roots) {
		return nil, fmt.Errorf("the reviewer %s is in a directory sandboxed commands can write", printable.String(prog))
	}
	env := []string{"HOME=" + home, "PATH=" + pathEnv}
	for _, k := range append([]string{"USER", "LOGNAME", "LANG", "LC_ALL"}, rc.PassEnv...) {
		if v, ok := lookupEnv(ctx.Env, k); ok {
			env = append(env, k+"="+v)
		}
	}
	argv := append([]string{prog}, rc.Command[1:]...)
	return &review.Reviewer{Argv: argv, Timeout: rc.Timeout, Env: env, Dir: home}, nil
}

// gitStatus is the repository's changes in git status --porcelain's
// short form, read with the hardened runner the judge uses (no program
// of the repository's runs), at most maxStatus lines.
func (ctx *Context) gitStatus() string {
	ws := ctx.Workspace.Dir
	if ws == "" {
		return ""
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err != nil {
		return ""
	}
	repo := &gitstate.Repo{Top: ws, Env: ctx.Env, Host: GitHost(ctx)}
	changes, err := repo.Changes()
	if err != nil {
		return "(git status could not be read: " + err.Error() + ")\n"
	}
	var b strings.Builder
	for i, c := range changes {
		if i == maxStatus {
			fmt.Fprintf(&b, "... %d more\n", len(changes)-maxStatus)
			break
		}
		code := " M"
		switch c.Kind {
		case rules.Untracked:
			code = "??"
		case rules.Ignored:
			code = "!!"
		}
		rel, err := filepath.Rel(ws, c.Path)
		if err != nil {
			rel = c.Path
		}
		if strings.HasSuffix(c.Path, "/") {
			rel += "/"
		}
		fmt.Fprintf(&b, "%s %s\n", code, rel)
	}
	return b.String()
}

// lookupEnv is the value of key in env, and whether it is set.
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// backendName names how a command is confined, for the log: the
// backend, "none" when the settings ask for no sandbox, "nested" inside
// the sandbox of the command that started this shell.
func backendName(c *Confinement) string {
	switch {
	case c.Unconfined:
		return "none"
	case c.Nested:
		return "nested"
	}
	return c.Backend.Name()
}

// Sandboxed reports whether this process runs inside some sandbox,
// cordon's or another's: no_new_privs is set or a seccomp filter is on,
// which a person's login shell never has (Linux), or a Seatbelt profile
// applies (macOS); elsewhere it says no. why says how it was seen.
func Sandboxed() (why string, in bool) {
	if platform.SeatbeltApplied() {
		return "a Seatbelt profile applies", true
	}
	data, err := platform.SelfStatus()
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if v = strings.TrimSpace(v); (k == "NoNewPrivs" || k == "Seccomp") && v != "0" {
			return k + " is " + v, true
		}
	}
	return "", false
}

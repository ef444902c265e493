package rules

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cordonsh/cordon/parse"
)

// ChangeKind is how a path differs from what git can restore.
type ChangeKind uint8

// Change kinds.
const (
	Modified  ChangeKind = iota // tracked, with uncommitted changes
	Untracked                   // not tracked, not ignored
	Ignored                     // ignored by .gitignore
)

// A Change is one path git cannot restore as it is. Directory paths end
// in "/" when git reports a whole directory.
type Change struct {
	Path string
	Kind ChangeKind
}

// Repo is the repository's real state, asked lazily: only when a verdict
// depends on it.
type Repo interface {
	// Changes lists the modified, untracked and ignored paths, absolute.
	Changes() ([]Change, error)
	// Stashes returns the number of stash entries.
	Stashes() (int, error)
	// Unmerged reports whether deleting branch would lose commits: it is
	// neither merged into HEAD nor contained in a remote-tracking branch.
	Unmerged(branch string) (bool, error)
	// Remotes lists the repository's configured remotes.
	Remotes() ([]string, error)
	// Head returns the branch checked out ("" when HEAD is detached).
	Head() (string, error)
	// Remote returns the remote that name stands for ("": the current
	// branch's default, for push or fetch) and its URL as git would use
	// it ("" when it is not configured).
	Remote(name string, push bool) (remote, url string, err error)
}

// RemoteDetails is what a [Repo] may also tell of its remotes, for
// judging pushes.
type RemoteDetails interface {
	// AgentRemotes are the remotes sandboxed commands added (not the
	// person's own).
	AgentRemotes() []string
	// DefaultBranch returns the branch remote's HEAD names ("" when it
	// is not known).
	DefaultBranch(remote string) (string, error)
}

// PushSettings is what a [Repo] may also tell of what a git push with
// no refspec writes.
type PushSettings interface {
	// PushTarget returns the remote branch a push of branch to remote
	// writes, as the configuration chooses it: "" for the branch of the
	// same name, "*" for every matching branch, "?" when it is not known
	// (push.default=upstream and branch.X.merge, remote.X.push).
	PushTarget(remote, branch string) (string, error)
}

// RemoteBranches is what a [Repo] may also tell of a remote's branches.
type RemoteBranches interface {
	// RemoteHas reports whether the repository knows branch on remote
	// (refs/remotes/REMOTE/BRANCH, as the last fetch or push left it).
	RemoteHas(remote, branch string) (bool, error)
}

// Context is the machine and repository a script is judged against.
type Context struct {
	Env
	// Repo is the workspace's repository, or nil when it is not one.
	Repo Repo
	// Report asks for [Judgement.Commands], the per-command report.
	Report bool
}

// Judge judges what res would run.
func (s *Set) Judge(res *parse.Result, ctx *Context) *Judgement {
	j := &judging{set: s, ctx: ctx, res: res, j: &Judgement{Workspace: ctx.Env.Show(ctx.Workspace)}, unsavable: map[int]bool{}}
	j.run()
	j.j.Losses = slices.DeleteFunc(j.j.Losses, func(l Loss) bool { return j.unsavable[l.Reason] })
	if s.floor != nil {
		judgeFloor(j.j, s.floor, res, ctx)
	}
	return j.j
}

type judging struct {
	set     *Set
	ctx     *Context
	res     *parse.Result
	j       *Judgement
	effects [][]Effect
	changes []Change
	chErr   error
	chDone  bool
	// unsavable are the reasons some effect recorded that no snapshot
	// can cover.
	unsavable map[int]bool
	// heads are the branches checked out, as the script's own commands
	// leave them, when the commands that push run.
	heads map[int]scriptHead
}

// scriptHead is the branch checked out when a command runs ("" when not
// known), and whether the script made it.
type scriptHead struct {
	branch  string
	created bool
	made    map[string]bool // the branches the script made before
}

func (j *judging) run() {
	j.effects = make([][]Effect, len(j.res.Commands))
	var p parse.Problem
	var late bool
	if workers := effectWorkers(len(j.res.Commands)); workers > 1 {
		p, late = j.effectsShared(workers)
	} else {
		p, late = j.effectsOf(&j.ctx.Env, 0, len(j.res.Commands), nil)
	}
	if late {
		// Out of time: what is left is not judged, and asked about.
		j.apply(Effect{Kind: "over-budget", Cmd: -1, Raw: p.String(), Class: ClassNone})
	}
	j.remotes()
	j.flows()
	for _, p := range j.res.Problems {
		kind := "syntax"
		switch p.Kind {
		case parse.ProblemDepth:
			kind = "unfollowed"
		case parse.ProblemBudget:
			kind = "over-budget"
		}
		if p.Kind != parse.ProblemAbort {
			j.apply(Effect{Kind: kind, Cmd: -1, Raw: p.String(), Class: ClassNone})
		}
	}
	for _, effs := range j.effects {
		for _, e := range effs {
			j.apply(e)
		}
	}
	if j.ctx.Report {
		j.report()
	}
}

// effectsOf finds the effects of commands [from, to) with the
// environment e, into j.effects. It stops early, reporting the problem,
// when the judgement is out of time or stop is set (another worker found
// it so). It looks every few commands: one command's effects may ask the
// caller's functions, which take their time and, shared, wait on each
// other (a look every 64 overran a 400 ms budget by 800 ms, four workers
// each waiting on the others' 2 ms answers: TestEffectsSharedOverBudget).
func (j *judging) effectsOf(e *Env, from, to int, stop *atomic.Bool) (parse.Problem, bool) {
	for i := from; i < to; i++ {
		if (i-from)&7 == 7 {
			if stop != nil && stop.Load() {
				return parse.Problem{}, false
			}
			if p, late := j.res.Overdue(); late {
				return p, true
			}
		}
		c := &j.res.Commands[i]
		var up *parse.Command
		if c.StdinFrom >= 0 && c.StdinFrom < i {
			up = &j.res.Commands[c.StdinFrom]
		}
		effs := j.set.effects(e, c, i, up)
		effs = append(effs, j.envEffects(e, c, i, effs)...)
		if c.UnknownCode {
			effs = append(effs, Effect{Kind: "unknown-code", Cmd: i, Class: ClassNone})
		}
		if c.Elsewhere {
			// On another machine: none of this machine's paths, hosts or
			// repositories is what the command touches.
			for k := range effs {
				effs[k].Class, effs[k].Path = ClassElsewhere, ""
			}
		}
		j.effects[i] = effs
	}
	return parse.Problem{}, false
}

// sharedFrom is how many commands a judgement has before their effects
// are found by more than one goroutine: below it, starting them costs
// more than it saves.
const sharedFrom = 512

// defaultEffectWorkers bounds the goroutines that find effects: past a
// few, the answers each finds again cost more than they save.
const defaultEffectWorkers = 4

// maxEffectWorkers is defaultEffectWorkers, but for tests.
var maxEffectWorkers = defaultEffectWorkers

// effectWorkers is how many goroutines find the effects of n commands.
func effectWorkers(n int) int {
	if n < sharedFrom {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), maxEffectWorkers, n/(sharedFrom/2)))
}

// effectsShared is effectsOf for all commands, in workers goroutines of
// consecutive ranges, and reports as it does when the judgement ran out
// of time. A command's effects depend on the command, the one
// it reads from and what the disk and the environment's functions say,
// never on other commands' effects, so the order they are found in
// changes nothing. Each worker has its environment's answers of its own
// (the caches of [Env]: the answers of one judgement are as of each
// worker's first look); the functions the caller gave (Writable and
// Brokered may make the sandbox's policy on first use) are called one
// at a time, Getenv being a lookup. The paths shown as first written
// (Windows) stay those of the earliest command.
func (j *judging) effectsShared(workers int) (parse.Problem, bool) {
	own := j.ctx.Env
	var mu sync.Mutex
	j.ctx.Env.Writable, j.ctx.Env.Brokered = serialized(&mu, own.Writable), serialized(&mu, own.Brokered)
	defer func() { j.ctx.Env.Writable, j.ctx.Env.Brokered = own.Writable, own.Brokered }()
	// The first worker keeps the judgement's own answers; the others'
	// are adopted after, for what the rest of the judgement asks again
	// (flows, the report).
	envs := []*Env{&j.ctx.Env}
	for range workers - 1 {
		f := j.ctx.Env.fresh()
		envs = append(envs, &f)
	}
	type outcome struct {
		late   parse.Problem
		isLate bool
		panic  any
	}
	outs := make([]outcome, workers)
	var stop atomic.Bool
	var wg sync.WaitGroup
	n := len(j.res.Commands)
	for w, e := range envs {
		wg.Go(func() {
			// A worker's panic (a bug) is the judgement's, raised
			// again on its own goroutine below: the caller recovers it
			// there and refuses the command, where a goroutine's would
			// end the process.
			defer func() {
				if p := recover(); p != nil {
					outs[w].panic = p
					stop.Store(true)
				}
			}()
			outs[w].late, outs[w].isLate = j.effectsOf(e, n*w/workers, n*(w+1)/workers, &stop)
			if outs[w].isLate {
				stop.Store(true)
			}
		})
	}
	wg.Wait()
	for _, o := range outs {
		if o.panic != nil {
			panic(o.panic)
		}
	}
	for _, e := range envs[1:] {
		j.ctx.Env.adopt(&e.answers)
	}
	for _, o := range outs {
		if o.isLate {
			return o.late, true
		}
	}
	return parse.Problem{}, false
}

// serialized is f called under mu, or nil for nil.
func serialized[T any](mu *sync.Mutex, f func(string) T) func(string) T {
	if f == nil {
		return nil
	}
	return func(s string) T {
		mu.Lock()
		defer mu.Unlock()
		return f(s)
	}
}

// report describes every command and its effects, for people.
func (j *judging) report() {
	// Room for all at once: a long script's thousands of reports, grown
	// by doubling, were copied a dozen times.
	j.j.Commands = slices.Grow(j.j.Commands, len(j.effects))
	for i, effs := range j.effects {
		c := &j.res.Commands[i]
		rep := CommandReport{Line: c.Line(), Via: c.Via, Dir: c.Dir, Pos: c.Pos}
		for _, e := range effs {
			e.Path = j.ctx.Env.Show(e.Path)
			rep.Effects = append(rep.Effects, describe(e))
		}
		j.j.Commands = append(j.j.Commands, rep)
	}
}

// envEffects reports credential variables a command prints or sends.
func (j *judging) envEffects(e *Env, c *parse.Command, i int, effs []Effect) []Effect {
	var out []Effect
	if e.Windows {
		for _, v := range j.set.credentialValues(e, c) {
			out = append(out, Effect{Kind: "secret-env", Cmd: i, Raw: "$env:" + v, Class: ClassCred})
		}
		return out
	}
	if !j.set.printsArgs(c.Name()) && !isNetwork(effs) {
		return nil
	}
	vars := c.Vars
	if len(vars) == 0 {
		for _, w := range c.Args[min(1, len(c.Args)):] {
			vars = append(vars, w.Vars...)
		}
	}
	for _, v := range vars {
		if j.set.credentialSet(e, v) {
			out = append(out, Effect{Kind: "secret-env", Cmd: i, Raw: "$" + v, Class: ClassCred})
		}
	}
	return out
}

func isNetwork(effs []Effect) bool {
	for _, e := range effs {
		switch e.Kind {
		case "network", "download", "upload", "publish":
			return true
		}
	}
	return false
}

// cordonSSH reports whether command i is the ssh of cordon's own
// GIT_SSH_COMMAND, ssh -o 'ProxyCommand=FORWARDER connect %h %p' with
// cordon's forwarder in its state directory (platform/network_linux.go),
// assigned again by the script: an agent's shell snapshot of the
// sandbox's environment (Codex sources one before every command). The
// sandbox gives every command that value anyway, so it talks to no
// network the script would not reach without it; counted as a network
// command, it made every unknown code after it code from the network.
func (j *judging) cordonSSH(i int) bool {
	c := &j.res.Commands[i]
	if len(c.Via) == 0 || c.Via[len(c.Via)-1] != "$GIT_SSH_COMMAND" || len(c.Args) != 3 || c.Args[0].Text != "ssh" || c.Args[1].Text != "-o" {
		return false
	}
	fwd, ok := strings.CutPrefix(c.Args[2].Text, "ProxyCommand=")
	if !ok {
		return false
	}
	fwd, ok = strings.CutSuffix(fwd, " connect %h %p")
	return ok && path.Base(fwd) == "cordon-netfwd" && filepath.IsAbs(fwd) && j.set.classify(&j.ctx.Env, fwd) == ClassCordon
}

// flows adds effects that come from several commands together: code
// that arrives over the network, secrets that leave through it, data
// piped into a network tool, discards made safe by an earlier checkpoint.
func (j *judging) flows() {
	network, networks := -1, 0
	downloads := map[string]string{} // path -> the command that fetched it
	for i, effs := range j.effects {
		if j.cordonSSH(i) {
			continue
		}
		if isNetwork(effs) || hasClass(effs, ClassNetDev) {
			network = i
			networks++
			j.piped(i)
			for _, e := range effs {
				if e.Kind == "overwrite" && e.Path != "" {
					downloads[e.Path] = j.res.Commands[i].Line()
				}
			}
		}
	}
	j.scriptStates()
	j.envFilters()
	j.envDumps()
	if network < 0 {
		return
	}
	// A credential sent only to this machine (the agent's own dev server
	// on localhost) has not left it: the secret-env and secret-read asks
	// stand, the deny for sending it away does not.
	local := j.allNetworkLocal()
	for i, effs := range j.effects {
		c := &j.res.Commands[i]
		if from := j.fetched(c, downloads); from != "" {
			j.effects[i] = append(j.effects[i], Effect{Kind: "remote-code", Cmd: i, Raw: from, Class: ClassNone})
		}
		for n, e := range effs {
			switch {
			case e.Kind == "unknown-code" && (networks > 1 || network != i):
				// Unknown code is code from the network when another
				// command talks to it; a network command's own unknown
				// code (ssh host "$CMD") is not what it fetched.
				effs[n].Kind = "remote-code"
				effs[n].Raw = j.res.Commands[network].Line()
			case local:
			case j.isSecret(e):
				raw := e.Raw
				if e.Kind == "env-dump" {
					raw = strings.Join(j.credentialsSet(e.Raw), ", ")
				}
				j.effects[i] = append(j.effects[i], Effect{Kind: "exfil", Cmd: i, Raw: raw, Path: e.Path, Class: ClassCred})
			case e.Kind == "read" && (e.Class == ClassWorkspace || e.Class == ClassWSRoot):
				if cred := j.credentialIn(e.Path); cred != "" {
					j.effects[i] = append(j.effects[i], Effect{Kind: "exfil", Cmd: i, Raw: cred, Path: cred, Class: ClassWSCred})
				}
			}
		}
	}
}

// credentialIn returns a credential file that git reports inside dir
// (an ignored .env), or "".
func (j *judging) credentialIn(dir string) string {
	if j.ctx.Repo == nil {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	changes, err := j.repoChanges()
	if err != nil {
		return ""
	}
	for _, ch := range changes {
		p := strings.TrimSuffix(ch.Path, "/")
		if within(p, dir) && j.set.classify(&j.ctx.Env, p) == ClassWSCred {
			return p
		}
	}
	return ""
}

// fetched returns the command that downloaded the program or script c
// runs, or "".
func (j *judging) fetched(c *parse.Command, downloads map[string]string) string {
	if from := downloads[c.ScriptFile]; c.ScriptFile != "" && from != "" {
		return from
	}
	if len(c.Args) == 0 || !c.Args[0].IsKnown() {
		return ""
	}
	j.ctx.Env.of(c)
	return downloads[j.ctx.Env.resolve(c.Args[0].Text, c.Dir, false)]
}

// piped adds an upload to network command i when data flows into it.
func (j *judging) piped(i int) {
	c := &j.res.Commands[i]
	in := c.StdinFrom >= 0
	for _, r := range c.Redirs {
		in = in || r.Op == parse.RedirRead
	}
	if in && !hasKind(j.effects[i], "upload") {
		class := ClassNone
		if allLocal(j.effects[i]) {
			class = ClassLocal
		}
		j.effects[i] = append(j.effects[i], Effect{Kind: "upload", Cmd: i, Raw: c.Line(), Class: class})
	}
}

// envFilters flags an environment dump piped into a filter that picks
// out credentials (env | grep TOKEN): that prints them on purpose.
func (j *judging) envFilters() {
	for i, effs := range j.effects {
		if !hasKind(effs, "env-dump") {
			continue
		}
		for n := range j.res.Commands {
			c := &j.res.Commands[n]
			if c.StdinFrom != i || len(c.Args) < 2 {
				continue
			}
			for _, a := range c.Args[1:] {
				if !j.set.secretWord(a.Text) {
					continue
				}
				if creds := j.picksCredentials(c, a.Text); len(creds) > 0 {
					j.effects[i] = append(j.effects[i], Effect{Kind: "secret-env", Cmd: i, Raw: strings.Join(creds, ", "), Class: ClassCred})
					break
				}
			}
		}
	}
}

// envDumps makes a dump of the whole environment (env, printenv, export
// -p) a secret read, except when it is the whole script: that is how
// agents learn the variables their shell inherits (Claude Code runs
// bash -c env), and the sandbox strips credentials from it.
//
// A dump alone on the line prints to the agent only. A POSIX one (env,
// printenv) is allowed: agents probe the environment so as a session
// starts (Claude Code runs env). cmd's set and PowerShell's, and any
// dump piped or redirected, are flagged when the environment holds
// credentials, and only then. An env-dump with a target dumps
// the variables whose names start with it (cmd's set AWS).
func (j *judging) envDumps() {
	lone := len(j.res.Commands) == 1 && len(j.res.Commands[0].Redirs) == 0
	for i, effs := range j.effects {
		// filtered looks at every command: only for an env-dump (it
		// would make judging quadratic in the number of commands).
		if !hasKind(effs, "env-dump") || hasKind(effs, "secret-env") || j.filtered(i) {
			continue
		}
		if d := j.res.Commands[i].Dialect; lone && d != parse.Cmd && d != parse.PowerShell {
			continue
		}
		for _, e := range effs {
			if e.Kind != "env-dump" || strings.Contains(e.Raw, "=") {
				continue
			}
			// With no credential set there is nothing to print or
			// pass on (env | sort, env | cut -d= -f1).
			creds := j.credentialsSet(e.Raw)
			if len(creds) == 0 {
				continue
			}
			j.effects[i] = append(j.effects[i], Effect{Kind: "secret-env", Cmd: i, Raw: strings.Join(creds, ", "), Class: ClassCred})
			break
		}
	}
}

// credentialsSet returns the credential variables set in the environment
// whose names start with prefix (ignoring case on Windows).
func (j *judging) credentialsSet(prefix string) []string {
	var out []string
	env := &j.ctx.Env
	for _, kv := range env.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		name, p := k, prefix
		if env.Windows {
			name, p = strings.ToUpper(k), strings.ToUpper(prefix)
		}
		if strings.HasPrefix(name, p) && j.set.credentials().Var(name, v) && (env.Brokered == nil || !env.Brokered(k)) {
			out = append(out, k)
		}
	}
	return out
}

// filtered reports whether command i's output goes through a filter that
// picks something out (env | grep ^PATH=) rather than passing it all on:
// its first operand is a pattern, not a file, and names no credentials.
func (j *judging) filtered(i int) bool {
	for n := range j.res.Commands {
		c := &j.res.Commands[n]
		if c.StdinFrom != i || inverted(c) {
			continue
		}
		for _, a := range c.Args[min(1, len(c.Args)):] {
			if strings.HasPrefix(a.Text, "-") {
				continue
			}
			return !strings.Contains(a.Text, "/") && (!j.set.secretWord(a.Text) || len(j.picksCredentials(c, a.Text)) == 0)
		}
	}
	return false
}

// inverted reports whether c is a grep, or a program that reads -v as
// grep does (rg, ag, ack), that passes on the lines its pattern does not
// match.
func inverted(c *parse.Command) bool {
	if len(c.Args) == 0 {
		return false
	}
	switch path.Base(c.Args[0].Text) {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack":
		return slices.ContainsFunc(c.Args[1:], func(a parse.Word) bool { return hasFlag(a.Text, "--invert-match", 'v') })
	}
	return false
}

// hasFlag reports whether the argument a is the long option long, or
// short options among which is short.
func hasFlag(a, long string, short rune) bool {
	return a == long || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], short)
}

// picksCredentials returns the credential variables set in the
// environment that c, a filter of an environment dump, passes on with
// the pattern pat: for grep, those whose NAME=value line pat matches
// (case ignored, which finds more); for an inverted grep, any other
// filter, or a pattern Go's regular expressions do not read, every one
// set. A word in the pattern is not a credential: env | grep
// ^GIT_CONFIG_KEY_ passes on git's setting names (Gemini CLI's), and
// nothing when no credential is set.
func (j *judging) picksCredentials(c *parse.Command, pat string) []string {
	creds := j.credentialsSet("")
	prog := path.Base(c.Args[0].Text)
	if len(creds) == 0 || prog != "grep" && prog != "egrep" && prog != "fgrep" {
		return creds
	}
	if inverted(c) {
		return creds
	}
	fixed := prog == "fgrep" || slices.ContainsFunc(c.Args[1:], func(a parse.Word) bool { return hasFlag(a.Text, "--fixed-strings", 'F') })
	if fixed {
		pat = regexp.QuoteMeta(pat)
	}
	re, err := regexp.Compile("(?i)" + pat)
	if err != nil {
		return creds
	}
	return slices.DeleteFunc(creds, func(name string) bool { return !re.MatchString(name + "=" + j.ctx.Env.getenv(name)) })
}

// allLocal reports whether every network target is on this machine.
func allLocal(effs []Effect) bool {
	local := false
	for _, e := range effs {
		switch {
		case e.Kind != "network" && e.Kind != "download" && e.Kind != "upload" && e.Kind != "publish":
		case e.Class == ClassLocal:
			local = true
		default:
			return false
		}
	}
	return local
}

func hasClass(effs []Effect, class string) bool {
	for _, e := range effs {
		if e.Class == class {
			return true
		}
	}
	return false
}

func hasKind(effs []Effect, kind string) bool {
	for _, e := range effs {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

// allNetworkLocal reports whether every network effect of the script is
// on this machine.
func (j *judging) allNetworkLocal() bool {
	any := false
	for _, effs := range j.effects {
		if !isNetwork(effs) {
			continue
		}
		if hasClass(effs, ClassNetDev) || !allLocal(effs) {
			return false
		}
		any = true
	}
	return any
}

// isSecret reports whether e reads a credential: a credential file or
// variable, a command that prints stored credentials, or a dump of an
// environment that holds credential variables.
func (j *judging) isSecret(e Effect) bool {
	switch e.Kind {
	case "secret-cmd":
		return true
	case "env-dump":
		return len(j.credentialsSet(e.Raw)) > 0
	case "read", "secret-env":
		return e.Class == ClassCred || e.Class == ClassWSCred
	}
	return false
}

// apply finds the first policy that matches e and records its verdict.
func (j *judging) apply(e Effect) {
	priv := e.Cmd >= 0 && j.res.Commands[e.Cmd].Privileged
	state := ""
	for _, p := range j.set.policies {
		if !slices.Contains(p.Effect, e.Kind) || len(p.Target) > 0 && !slices.Contains(p.Target, e.Class) {
			continue
		}
		if p.Privileged != nil && *p.Privileged != priv || p.Recursive && !e.Recursive {
			continue
		}
		if len(p.State) > 0 {
			if state == "" {
				state = j.state(e)
			}
			if !slices.Contains(p.State, state) {
				continue
			}
		}
		if i := j.record(p, e, state); i >= 0 {
			j.noteLoss(p, e, state, i)
		}
		return
	}
}

// record adds p's reason for e and returns its index, or -1 when p
// allows.
func (j *judging) record(p *Policy, e Effect, state string) int {
	v, _ := ParseVerdict(p.Verdict)
	if v == Allow {
		return -1
	}
	msg := j.message(p.Message, e, state)
	for i, r := range j.j.Reasons {
		if r.Rule == p.ID && r.Message == msg {
			return i
		}
	}
	j.j.Reasons = append(j.j.Reasons, Reason{Rule: p.ID, Message: msg, Category: strings.Join(p.Category, ","), Verdict: v, Command: e.Cmd})
	j.j.Verdict = max(j.j.Verdict, v)
	for _, c := range p.Category {
		if !slices.Contains(j.j.Categories, c) {
			j.j.Categories = append(j.j.Categories, c)
		}
	}
	return len(j.j.Reasons) - 1
}

func (j *judging) message(tmpl string, e Effect, state string) string {
	name, line := "", ""
	if e.Cmd >= 0 {
		name, line = j.res.Commands[e.Cmd].Name(), j.res.Commands[e.Cmd].Line()
		if len(line) > 80 {
			line = line[:77] + "..."
		}
	}
	target := j.ctx.Env.Show(e.Path)
	if target == "" {
		target = e.Raw
	}
	switch {
	case e.Class == "workspace-root":
	case e.Filter != "":
		target = fmt.Sprintf("what matches %s in %s", e.Filter, target)
	case e.Selected:
		target = "what its tests select in " + target
	}
	ws := j.ctx.Env.Show(j.ctx.Workspace)
	if ws == "" {
		ws = cmp.Or(j.ctx.Env.NoWorkspace, "(none)")
	}
	r := strings.NewReplacer("{cmd}", name, "{line}", line, "{target}", target, "{workspace}", ws,
		"{state}", stateWords[state], "{effect}", e.Kind, "{raw}", e.Raw)
	return r.Replace(tmpl)
}

var stateWords = map[string]string{
	"uncommitted":   "uncommitted changes",
	"untracked":     "untracked files",
	"irreplaceable": "ignored files that cannot be regenerated",
	"unversioned":   "files that are not under version control",
	"stash":         "stashed changes",
	"unmerged":      "commits not merged or pushed anywhere",
	"unknown":       "work whose state could not be read",
	"unseen":        "work git may not be able to restore (the workspace is not on this machine, so its state is unknown)",
}

func describe(e Effect) string {
	t := e.Path
	if t == "" {
		t = e.Raw
	}
	recursive, sep := "", ""
	if e.Recursive {
		recursive = " -r"
	}
	if t != "" {
		sep = " "
	}
	// One string made, not four: a long script reports thousands.
	return e.Kind + recursive + sep + t + " (" + e.Class + ")"
}

// state works out what e would lose, from the repository's real state,
// or as the script's earlier commands leave it.
func (j *judging) state(e Effect) string {
	if e.State != "" {
		return e.State
	}
	switch e.Kind {
	case "push-to":
		return j.pushToState(e)
	case "push-branch":
		return j.pushBranchState(e)
	case "push-default":
		if j.localPush(e.Cmd) {
			return "branch"
		}
		return "default"
	case "drop-stash":
		return j.stashState()
	case "delete-branch":
		return j.branchState(e.Raw)
	}
	if e.Path == "" {
		return "unknown"
	}
	if j.ctx.Env.Foreign {
		p := e.Path
		if e.Filter != "" {
			p += "/" + strings.ToLower(e.Filter) // del *.log: what the pattern names
		}
		if j.ctx.Env.matchAny(p, j.set.pathsFor(&j.ctx.Env).Regenerable) {
			return "regenerable"
		}
		return "unseen"
	}
	if e.Kind != "discard-changes" && e.Kind != "git-clean" {
		mode, err := j.ctx.Env.lstat(j.ctx.Env.native(e.Path))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "absent"
		case err != nil:
			return "unknown"
		}
		if e.Kind == "overwrite" && mode.IsDir() && !e.Recursive {
			return "recoverable" // writing into a directory replaces nothing
		}
	}
	if j.ctx.Repo == nil {
		if j.ctx.Env.matchAny(e.Path, j.set.pathsFor(&j.ctx.Env).Regenerable) {
			return "regenerable"
		}
		return "unversioned"
	}
	changes, err := j.repoChanges()
	if err != nil {
		return "unknown"
	}
	return j.loss(e, changes)
}

func (j *judging) repoChanges() ([]Change, error) {
	if !j.chDone {
		j.changes, j.chErr = j.ctx.Repo.Changes()
		j.chDone = true
	}
	return j.changes, j.chErr
}

// loss returns the worst thing e would lose among changes.
func (j *judging) loss(e Effect, changes []Change) string {
	worst := "recoverable"
	rank := map[string]int{"recoverable": 0, "irreplaceable": 1, "untracked": 2, "uncommitted": 3}
	for _, ch := range changes {
		p := strings.TrimSuffix(ch.Path, "/")
		if !within(p, e.Path) && !within(e.Path, p) {
			continue
		}
		if e.Filter != "" && !filterMatch(e.Filter, p) && !(strings.HasSuffix(ch.Path, "/") && dirHolds(p, e.Filter)) {
			continue
		}
		got := j.changeLoss(e, ch, p)
		if rank[got] > rank[worst] {
			worst = got
		}
	}
	return worst
}

func (j *judging) changeLoss(e Effect, ch Change, p string) string {
	if within(e.Path, p) {
		p = e.Path // one file of a directory git reports as a whole (logs/app.log of logs/)
	}
	switch {
	case ch.Kind == Modified && e.Kind != "git-clean":
		return "uncommitted"
	case ch.Kind == Untracked && e.Kind != "discard-changes":
		if e.Kind == "git-clean" && !e.Dirs && strings.HasSuffix(ch.Path, "/") {
			return "recoverable"
		}
		if j.ctx.Env.matchAny(p, j.set.pathsFor(&j.ctx.Env).Regenerable) {
			return "recoverable"
		}
		return "untracked"
	case ch.Kind == Ignored && (e.Kind != "git-clean" || e.Ignored) && e.Kind != "discard-changes":
		if j.ctx.Env.matchAny(p, j.set.pathsFor(&j.ctx.Env).Regenerable) || strings.HasSuffix(ch.Path, "/") && j.allRegenerable(p) {
			return "recoverable"
		}
		return "irreplaceable"
	}
	return "recoverable"
}

// allRegenerable reports whether every file below dir, an ignored
// directory git reports as a whole, is regenerable by its kind (logs/
// holding only *.log), looking at most at 1000 entries.
func (j *judging) allRegenerable(dir string) bool {
	regen := j.set.pathsFor(&j.ctx.Env).Regenerable
	n, ok := 0, true
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		n++
		switch {
		case err != nil || n > 1000:
			ok = false
		case d.IsDir() && j.ctx.Env.matchAny(p, regen):
			return filepath.SkipDir
		case !d.IsDir() && !j.ctx.Env.matchAny(p, regen):
			ok = false
		}
		if !ok {
			return filepath.SkipAll
		}
		return nil
	})
	return ok && n > 1
}

// dirHolds reports whether a directory git reports as a whole holds a
// file whose name matches glob (looking at most at 10000 entries).
func dirHolds(dir, glob string) bool {
	n, found := 0, false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		n++
		if n > 10000 || found {
			return filepath.SkipAll
		}
		if err == nil && filterMatch(glob, p) {
			found = true
		}
		return nil
	})
	return found || n > 10000
}

func filterMatch(glob, p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	ok, _ := matchGlob(glob, base)
	return ok
}

func (j *judging) stashState() string {
	if j.ctx.Env.Foreign {
		return "unseen"
	}
	if j.ctx.Repo == nil {
		return "absent"
	}
	n, err := j.ctx.Repo.Stashes()
	switch {
	case err != nil:
		return "unknown"
	case n == 0:
		return "absent"
	}
	return "stash"
}

// remoteState says whether a push goes to a remote the repository had
// before this command ("known") or to one it adds ("foreign"); a push to
// a repository in the workspace named by its path is "local" (see
// [judging.pushToState]).
func (j *judging) remoteState(remote string) string {
	if j.ctx.Env.Foreign {
		return "unseen"
	}
	if j.ctx.Repo == nil || remote == "" || strings.Contains(remote, "?") {
		return "unknown" // no push destination (git says so), or computed
	}
	remotes, err := j.ctx.Repo.Remotes()
	if err != nil {
		return "unknown"
	}
	if !slices.Contains(remotes, remote) {
		return "foreign"
	}
	if d, ok := j.ctx.Repo.(RemoteDetails); ok && slices.Contains(d.AgentRemotes(), remote) {
		return "foreign" // an earlier command added it
	}
	return "known"
}

// pushToState is remoteState, and for a push to a known remote that
// names no refspec (git push, git push origin: the branch checked out)
// "default" when that branch is the remote's default one, "unknown"
// when that cannot be told.
func (j *judging) pushToState(e Effect) string {
	s := j.remoteState(e.Raw)
	if s == "foreign" && pathInWorkspace(e) {
		return "local"
	}
	if s == "known" && (j.otherRepo(e.Dir) || j.gitDirElsewhere(e.Cmd, e.Dir)) {
		return "foreign" // the remote of a repository the workspace's is not
	}
	if s != "known" || j.localPush(e.Cmd) {
		return s
	}
	for _, o := range j.effects[e.Cmd] {
		if o.Kind == "push-default" || o.Kind == "push-branch" && o.Raw != "" {
			return s // what it pushes is judged by its own effects
		}
	}
	if b := j.pushedBranch(e.Cmd, "", e.Raw); b != "known" {
		return b
	}
	return s
}

// gitDirElsewhere reports whether git command cmd, run in dir, names
// with --git-dir (or GIT_DIR, which the parser spells so) a repository
// that is not the workspace's own .git, or one that cannot be told.
func (j *judging) gitDirElsewhere(cmd int, dir string) bool {
	c := &j.res.Commands[cmd]
	git := j.set.command("git")
	if c.Name() != "git" || git == nil || j.ctx.Workspace == "" || j.ctx.Env.Foreign {
		return false
	}
	args := c.Args[1:]
	for k := 0; k < len(args) && strings.HasPrefix(args[k].Text, "-"); {
		opt, val, next, ok := parse.Option(args, k, git.spec.ValueOptions)
		if !ok {
			k++
			continue
		}
		j.ctx.Env.of(c)
		if opt == "--git-dir" && (!val.IsKnown() || j.ctx.Env.resolve(val.Text, dir, false) != j.ctx.Workspace+"/.git") {
			return true
		}
		k = next
	}
	return false
}

// pathInWorkspace reports whether push-to e names, as a path, a
// repository inside the workspace (git push ./remote.git: a test
// remote), which sends nothing off this machine. Only a path spelled as
// one: a remote's name cannot start with ".", ".." or "/", but a bare
// word could be a remote the script adds.
func pathInWorkspace(e Effect) bool {
	raw := e.Raw
	spelled := strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") || strings.HasPrefix(raw, "/")
	return spelled && e.Path != "" && e.Class == ClassWorkspace
}

// otherRepo reports whether git run in dir finds a repository that is
// not the workspace's: one below the workspace (a .git, or a bare
// repository's HEAD, objects and refs), one outside it, or one in a
// directory that does not exist yet or cannot be told (the script makes
// it: git init x && cd x). Its remotes are not the person's.
func (j *judging) otherRepo(dir string) bool {
	ws := j.ctx.Workspace
	if ws == "" || j.ctx.Env.Foreign {
		return false
	}
	if dir == "" || !within(dir, ws) {
		return true
	}
	exists := func(p string) bool {
		_, err := j.ctx.Env.lstat(j.ctx.Env.native(p))
		return err == nil
	}
	for d := dir; d != ws && within(d, ws); d = path.Dir(d) {
		if !exists(d) || exists(d+"/.git") || exists(d+"/HEAD") && exists(d+"/objects") && exists(d+"/refs") {
			return true
		}
	}
	return false
}

// pushBranchState says whether git push REMOTE SRC[:DST] writes the
// remote's default branch ("default"), another one ("branch"), or cannot
// be told ("unknown", "unseen"). A bare git push is judged by its
// push-to.
func (j *judging) pushBranchState(e Effect) string {
	if e.Raw == "" || j.localPush(e.Cmd) {
		return "branch"
	}
	remote := ""
	for _, o := range j.effects[e.Cmd] {
		if o.Kind == "push-to" {
			remote = o.Raw
		}
	}
	return j.pushedBranch(e.Cmd, e.Raw, remote)
}

// localPush reports whether command cmd pushes to a repository on this
// machine (a path): its default branch is no one else's.
func (j *judging) localPush(cmd int) bool {
	if cmd < 0 || cmd >= len(j.effects) {
		return false
	}
	for _, o := range j.effects[cmd] {
		if o.Kind == "push-to" {
			return o.Path != "" && !strings.Contains(o.Path, "://") && o.Class != ClassSSH && o.Class != ClassRemote && o.Class != ClassLocal && o.Class != ClassMetadata
		}
	}
	return false
}

// pushedBranch is the state of command cmd pushing refspec ("" for the
// branch checked out) to remote: "default", "unknown" or "unseen" when
// the branch written cannot be told, else "branch" for a named one and
// "known" for the one checked out.
func (j *judging) pushedBranch(cmd int, refspec, remote string) string {
	if strings.Contains(refspec, "?") || strings.Contains(remote, "?") {
		return "unknown" // computed at run time
	}
	spec := strings.TrimPrefix(refspec, "+")
	if spec == ":" || strings.Contains(spec, "*") {
		return "default" // matching branches, or a pattern: main too
	}
	dst := pushDestination(spec)
	current := dst == "" || dst == "HEAD" || dst == "@"
	if current && j.ctx.Env.Foreign {
		return "unseen"
	}
	if j.ctx.Repo == nil || j.ctx.Env.Foreign {
		return "branch"
	}
	d, ok := j.ctx.Repo.(RemoteDetails)
	def := ""
	if ok && remote != "" {
		def, _ = d.DefaultBranch(remote)
	}
	if current {
		if j.pushSettingBefore(cmd) {
			return "unknown"
		}
		head, err := j.ctx.Repo.Head()
		if h, ok := j.heads[cmd]; ok {
			head, err = h.branch, nil
			if h.created && h.branch != "" && def == "" && !j.mayBeDefault(cmd, remote, h.branch) {
				return "known" // a branch the script made: new on the remote
			}
		}
		if err != nil || head == "" || def == "" {
			return "unknown"
		}
		if p, ok := j.ctx.Repo.(PushSettings); ok {
			dst, err := p.PushTarget(remote, head)
			switch {
			case err != nil || dst == "?":
				return "unknown"
			case dst == "*":
				return "default"
			case dst != "":
				head = dst
			}
		}
		if head == def {
			return "default"
		}
		return "known"
	}
	if def != "" && dst == def {
		return "default"
	}
	if def == "" && j.mayBeDefault(cmd, remote, dst) {
		return "nodefault"
	}
	return "branch"
}

// mayBeDefault reports, for a remote whose default branch is not known,
// whether branch dst may be it: a branch the remote has, or, when that
// cannot be told, one the script did not make. A new branch is not the
// default; a branch the script makes under the name of one the remote
// has (git checkout -b develop origin/develop) may be.
func (j *judging) mayBeDefault(cmd int, remote, dst string) bool {
	if strings.HasPrefix(dst, "refs/") {
		return false // a tag or another ref
	}
	b, ok := j.ctx.Repo.(RemoteBranches)
	if !ok || remote == "" {
		return !j.heads[cmd].made[dst]
	}
	has, err := b.RemoteHas(remote, dst)
	return err != nil || has
}

// pushSettingBefore reports whether a command before cmd changes what a
// push with no refspec writes (git config push.default, git branch -u):
// the configuration read before the script no longer tells.
func (j *judging) pushSettingBefore(cmd int) bool {
	for k := 0; k < cmd && k < len(j.effects); k++ {
		for _, o := range j.effects[k] {
			if o.Kind == "push-setting" {
				return true
			}
		}
	}
	return false
}

// pushDestination is the branch a refspec (SRC[:DST], without "+")
// writes, as git completes it: "refs/heads/X", "heads/X" (git tries
// refs/X) and "X" all write branch X; "" for the branch checked out.
func pushDestination(spec string) string {
	dst := spec
	if _, after, ok := strings.Cut(spec, ":"); ok {
		dst = after
	}
	if d, ok := strings.CutPrefix(dst, "refs/heads/"); ok {
		return d
	}
	if !strings.HasPrefix(dst, "refs/") {
		return strings.TrimPrefix(dst, "heads/")
	}
	return dst
}

func (j *judging) branchState(branch string) string {
	if strings.Contains(branch, "?") {
		return "unknown" // computed at run time ("?" is never in a branch name)
	}
	if j.ctx.Env.Foreign {
		return "unseen"
	}
	if j.ctx.Repo == nil {
		return "absent"
	}
	lost, err := j.ctx.Repo.Unmerged(branch)
	switch {
	case err != nil:
		return "unknown"
	case lost:
		return "unmerged"
	}
	return "recoverable"
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/snapshot"
)

func doctorCommand() *command {
	return &command{
		name:  "doctor",
		args:  "[--json]",
		short: "check that cordon is set up and works here",
		long: `Runs a checklist and prints one line per check (ok, info, warn or FAIL),
the fix under each failure, and a summary:

  cordon      the binary and its version
  shims       the shims directory on PATH, and the shells installed there
  path        each shim comes before the real shell of its name on PATH
  login-path  the same on the PATH of a login shell (bash -l with a clean
              environment): agents started from a new login see that one
  real-shells the real shell behind each shim is found (as the shim finds it)
  settings    the settings files load
  rules       the rule files of every layer load (errors with file:line)
  backend     the sandbox backend, and what it cannot enforce here
  canary      a live test of the sandbox, run as the shim runs a command, in
              a throw-away workspace under the state directory: a write
              outside the workspace must fail, one inside must land, a
              credential file must be unreadable, and with the network
              allowlist a host not on it must be refused and the host's
              loopback unreachable directly; with the backend and the time
  self-check  nothing of cordon's (binary, shims, PATH entries before
              them, state, settings, rules) can be written by sandboxed
              commands, or an agent could switch cordon off
  state       the state directory is yours, and no one else can write it
  workspace   the workspace of the current directory, and why

Exits 0 when every check holds (warnings and notes included), 1 otherwise.
--json prints one object: {"ok", "checks": [{"id", "status", "summary",
"detail", "fix", "data"}], "counts"}.

--prefix PREFIX checks only the place install.sh is about to install to
(PREFIX/bin/cordon, PREFIX/share/cordon/shims): none of it may be where
sandboxed commands can write (scratch space, a workspace, a cache), or
cordon would refuse to run from it. install.sh asks before installing.`,
		run: runDoctor,
	}
}

// Statuses of a check. Only statusFail makes cordon doctor exit 1.
const (
	statusOK   = "ok"
	statusInfo = "info" // a fact worth knowing, nothing to fix
	statusWarn = "warn" // holds, but weaker than it could be; says why
	statusFail = "FAIL"
)

// A check is one line of cordon doctor's report.
type check struct {
	ID      string   `json:"id"`
	Status  string   `json:"status"`
	Summary string   `json:"summary"`
	Detail  []string `json:"detail,omitempty"`
	Fix     string   `json:"fix,omitempty"`
	// Data is what a program reading --json wants besides the text
	// (the canary's backend and time).
	Data any `json:"data,omitempty"`
}

// A doctor is one run of cordon doctor: what its checks share, and the
// checks made so far. A group of checks is a function that calls add;
// runDoctor calls the groups in turn.
type doctor struct {
	dir    string // the current directory
	env    []string
	getenv func(string) string
	self   string // the cordon binary, links resolved; "" when unknown
	// shims is the first PATH entry holding a shim, "" for none; names
	// are the shells installed there (links to cordon).
	shims string
	names []string
	// conf is how a command started here is confined (nil when it
	// cannot be: confErr says why).
	conf    *decide.Confinement
	confErr error
	// configBroken is set when the settings or the rules do not load.
	configBroken bool
	// login waits for a login shell's PATH (see startLogin).
	login  func() (string, error)
	checks []check
}

func (d *doctor) add(cs ...check) { d.checks = append(d.checks, cs...) }

// failed reports whether a check failed.
func (d *doctor) failed() bool {
	for _, c := range d.checks {
		if c.Status == statusFail {
			return true
		}
	}
	return false
}

func runDoctor(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	asJSON := fs.Bool("json", false, "print one JSON object")
	prefix := fs.String("prefix", "", "check only that `PREFIX` (install.sh's) is no place sandboxed commands can write")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	if *prefix != "" {
		return prefixCheck(*prefix, os.Environ(), stdout)
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "cordon doctor: cannot read the current directory: %v\n", err)
		return exitError
	}
	d := newDoctor(dir, os.Environ())
	d.setupChecks()
	d.agentChecks()
	if *asJSON {
		d.writeJSON(stdout)
	} else {
		fmt.Fprint(stdout, d.text())
	}
	if d.failed() {
		return exitError
	}
	return exitOK
}

func newDoctor(dir string, env []string) *doctor {
	d := &doctor{dir: dir, env: env, getenv: func(k string) string { return platform.Getenv(env, k) }}
	if self, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			d.self = real
		}
	}
	d.shims, d.names = shimsOnPath(d.getenv("PATH"), d.self)
	return d
}

// setupChecks are the checks of cordon's own set-up, in the order a
// person fixes them.
func (d *doctor) setupChecks() {
	d.login = d.startLogin()
	d.confine()
	canary := make(chan check, 1)
	go func() { canary <- d.canary() }()
	d.binaryCheck()
	d.shimChecks()
	d.configChecks()
	d.backendCheck()
	d.add(<-canary)
	d.selfCheck()
	d.stateCheck()
	d.workspaceCheck()
}

func (d *doctor) binaryCheck() {
	if d.self == "" {
		d.add(check{ID: "cordon", Status: statusFail, Summary: "cannot locate the cordon binary itself",
			Fix: "run cordon by its path (~/.local/bin/cordon), from an installation ./install.sh made"})
		return
	}
	d.add(check{ID: "cordon", Status: statusOK, Summary: fmt.Sprintf("cordon %s at %s", version(), printable.String(d.self))})
}

// configChecks loads the settings and the rules of every layer as the
// shim does, and shows each error with its file and line.
func (d *doctor) configChecks() {
	cfg, err := config.Load(d.getenv)
	if err != nil {
		d.configBroken = true
		d.add(check{ID: "settings", Status: statusFail, Summary: "the settings cannot be loaded: " + printable.String(err.Error()),
			Fix: "fix that file at the line shown, or move it away; the shim runs nothing until then"})
	} else {
		c := check{ID: "settings", Status: statusOK, Summary: "settings: none (the defaults: backend auto, network allowlist)"}
		if len(cfg.Files) > 0 {
			c.Summary = "settings load: " + printable.String(strings.Join(cfg.Files, " "))
		}
		d.add(c)
	}
	ws, err := decide.Workspace(d.dir, d.getenv)
	if err != nil {
		d.configBroken = true
		d.add(check{ID: "rules", Status: statusFail, Summary: "the rules were not loaded: the settings decide the workspace",
			Fix: "fix the settings first"})
		return
	}
	l, err := decide.Rules(ws.Dir, d.getenv)
	var re *decide.RulesError
	if err != nil {
		d.configBroken = true
	}
	switch {
	case errors.As(err, &re):
		d.add(check{ID: "rules", Status: statusFail, Summary: "a rule file does not load: " + printable.String(re.Err.Error()),
			Fix: "fix that file at the line shown, or remove it (cordon rules lint lists every problem); the shim runs nothing until then"})
		return
	case err != nil:
		d.add(check{ID: "rules", Status: statusFail, Summary: "the rules do not load: " + printable.String(err.Error()),
			Fix: "fix or remove that file"})
		return
	}
	layers := []string{fmt.Sprintf("built-in (%d policies)", len(l.Set.Policies()))}
	for _, f := range l.Files {
		layers = append(layers, f.Layer.String()+" "+printable.String(f.Path))
	}
	c := check{ID: "rules", Status: statusOK, Summary: "rules load: " + strings.Join(layers, ", ")}
	if len(l.Warnings) > 0 {
		c.Status, c.Detail = statusWarn, printableAll(l.Warnings)
		c.Fix = "see each warning (cordon rules lint and cordon rules test say more)"
	}
	d.add(c)
}

// confine makes the policy and picks the backend for a command started
// here, as the shim would for its first PATH shim.
func (d *doctor) confine() {
	invoked := ""
	if d.shims != "" {
		invoked = filepath.Join(d.shims, d.names[0])
	}
	d.conf, d.confErr = decide.Confine(d.dir, d.env, &decide.ConfineOptions{Invoked: invoked, Inspect: true})
}

func (d *doctor) backendCheck() {
	switch {
	case d.confErr != nil:
		var re *decide.RulesError
		if d.configBroken || errors.As(d.confErr, &re) {
			d.add(check{ID: "backend", Status: statusFail, Summary: "no sandbox policy: the settings or the rules do not load (see above)", Fix: "fix them first"})
			return
		}
		lines := printableAll(strings.Split(d.confErr.Error(), "\n"))
		d.add(check{ID: "backend", Status: statusFail, Summary: lines[0], Detail: lines[1:],
			Fix: "see the reasons above; docs/security.md says what each backend needs"})
		return
	case d.conf.Nested:
		d.add(check{ID: "backend", Status: statusFail, Summary: "cordon doctor runs inside cordon's sandbox (an agent ran it): what it sees is the sandbox's, not your set-up",
			Fix: "run cordon doctor in a terminal of your own, outside the agent"})
		return
	}
	r := platform.Describe(d.conf.Backend, "/bin/bash", []string{"bash", "-c", "true"})
	c := check{ID: "backend", Status: statusOK, Summary: "sandbox backend: " + r.Backend}
	if r.Detail != "" {
		c.Summary += " (" + r.Detail + ")"
	}
	for _, s := range r.Degraded {
		c.Detail = append(c.Detail, "not enforced here: "+printable.String(s))
	}
	if f := d.conf.Policy.FilteredPaths(); len(f) > 0 {
		c.Detail = append(c.Detail, "shown to commands without their secret lines (your settings in them kept): "+printable.String(strings.Join(f, " ")))
	}
	if d.conf.Unconfined {
		c.Status, c.Summary = statusFail, "sandbox backend: none: commands are judged but run unconfined"
		c.Fix = "remove `backend: none` from " + printable.String(strings.Join(d.conf.Settings.Files, " or "))
	}
	d.add(c)
}

// selfCheck is the shim's own check that nothing of cordon's can be
// written from inside the sandbox: one failure per place.
func (d *doctor) selfCheck() {
	if d.conf == nil {
		d.add(check{ID: "self-check", Status: statusFail, Summary: "self-check not done: no sandbox policy (see backend)", Fix: "fix the backend first"})
		return
	}
	if len(d.conf.Weaknesses) == 0 {
		d.add(check{ID: "self-check", Status: statusOK, Summary: "nothing of cordon's (binary, shims, PATH before them, state, settings, rules) can be written by sandboxed commands"})
		return
	}
	for _, w := range d.conf.Weaknesses {
		d.add(check{ID: "self-check", Status: statusFail,
			Summary: fmt.Sprintf("%s %s can be written by sandboxed commands (inside %s): an agent could switch cordon off", w.What, printable.String(w.Path), printable.String(w.Root)),
			Fix:     w.Fix, Data: w})
	}
}

// stateCheck: the state directory (approvals, the audit log, trusted
// rule files, the caches) must be the user's alone.
func (d *doctor) stateCheck() {
	dir := config.StateDir(d.getenv)
	if dir == "" {
		d.add(check{ID: "state", Status: statusFail, Summary: "no state directory: HOME and XDG_STATE_HOME are unset", Fix: "set HOME"})
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		d.add(check{ID: "state", Status: statusFail, Summary: "cannot make the state directory: " + printable.String(err.Error()),
			Fix: "make " + printable.String(dir) + " yours (mkdir -p; chown), or set XDG_STATE_HOME to a directory of yours"})
		return
	}
	if why, fix := notPrivate(dir); why != "" {
		d.add(check{ID: "state", Status: statusFail, Summary: "the state directory " + printable.String(dir) + " " + why, Fix: fix})
		return
	}
	d.add(check{ID: "state", Status: statusOK, Summary: "the state directory " + printable.String(dir) + " is yours, and no one else can write it or what holds it"})
	d.leftoversCheck(dir)
}

// leftoversCheck says what ended commands, sessions and workspaces left
// in the state directory dir, which the next snapshot round or session
// start removes.
func (d *doctor) leftoversCheck(dir string) {
	var found []string
	count := func(n int, what string) {
		if n > 0 {
			found = append(found, fmt.Sprintf("%d %s", n, what))
		}
	}
	count(len(guard.StaleLedgers(dir)), "guard records of workspaces removed or made again")
	count(len(platform.StaleLayers(dir)), "caches' private layers of workspaces unused for a month")
	count(len(snapshot.Open(dir, snapshot.Budgets{}).StaleTemp()), "partial copies of snapshot savers that were killed")
	c := check{ID: "leftovers", Status: statusOK, Summary: "nothing left behind by ended commands, sessions or removed workspaces"}
	if len(found) > 0 {
		c.Summary = "left behind, removed at the next snapshot round or session start: " + strings.Join(found, ", ")
	}
	locks, _ := filepath.Glob(filepath.Join(platform.SessionsDir(dir), "*.sock.lock"))
	locks = slices.DeleteFunc(locks, func(l string) bool {
		_, err := os.Stat(strings.TrimSuffix(l, ".lock"))
		return err == nil
	})
	if len(locks) > 0 {
		c.Detail = append(c.Detail, fmt.Sprintf("%d lock files of ended sessions are kept (empty; a session with the same key takes its lock again)", len(locks)))
	}
	d.add(c)
}

// notPrivate says why another user could change what is in dir: dir
// not owned by this user, or writable by others; an ancestor writable
// by others without the sticky bit (it could be renamed away). "" when
// it is private; fix is what to do.
func notPrivate(dir string) (why, fix string) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "cannot be read: " + err.Error(), "make it a directory of yours"
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Sprintf("belongs to another user (uid %d)", uid), "chown it to yourself, or set XDG_STATE_HOME to a directory of yours"
	}
	if fi.Mode().Perm()&0o002 != 0 {
		return fmt.Sprintf("is writable by everyone (mode %04o)", fi.Mode().Perm()), "chmod 700 " + printable.String(dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", ""
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o002 != 0 && fi.Mode()&os.ModeSticky == 0 {
			return fmt.Sprintf("is inside %s, which everyone can write (mode %04o, no sticky bit): another user could replace it", p, fi.Mode().Perm()),
				"chmod o-w " + printable.String(p) + ", or set XDG_STATE_HOME elsewhere"
		}
		if filepath.Dir(p) == p {
			return "", ""
		}
	}
}

func (d *doctor) workspaceCheck() {
	ws, err := decide.Workspace(d.dir, d.getenv)
	if err != nil {
		return // the settings check said why
	}
	if d.conf != nil {
		ws = d.conf.Workspace
	}
	c := check{ID: "workspace", Status: statusInfo, Data: map[string]string{"dir": ws.Dir, "why": ws.Why}}
	if ws.Dir != "" {
		c.Summary = fmt.Sprintf("workspace here: %s (%s)", printable.String(ws.Dir), printable.String(ws.Why))
	} else {
		c.Summary = "no workspace here: " + printable.String(ws.Why)
		if ws.Could != "" {
			c.Detail = []string{fmt.Sprintf("to make this directory one: run `git init` in %s, or add `workspaces: [%s]` to %s",
				printable.String(ws.Could), printable.String(ws.Could), printable.String(ws.Settings))}
		}
	}
	d.add(c)
	if d.conf != nil {
		if typos := unmatched(d.conf.Settings, d.conf.Policy); len(typos) > 0 {
			d.add(check{ID: "unmatched", Status: statusWarn, Summary: "entries of the settings' sandbox lists name nothing here: " + printable.String(strings.Join(typos, " ")),
				Fix: "check them for a typo (a path that is not there is neither writable nor protected)"})
		}
	}
}

func printableAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = printable.String(l)
	}
	return out
}

// counts tallies the checks by status.
func (d *doctor) counts() map[string]int {
	n := map[string]int{statusOK: 0, statusInfo: 0, statusWarn: 0, statusFail: 0}
	for _, c := range d.checks {
		n[c.Status]++
	}
	return n
}

func (d *doctor) writeJSON(w io.Writer) {
	out := struct {
		OK     bool           `json:"ok"`
		Checks []check        `json:"checks"`
		Counts map[string]int `json:"counts"`
	}{!d.failed(), d.checks, d.counts()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}

// text is the report: one line per check, its details and fix indented
// under it, and a summary line.
func (d *doctor) text() string {
	var b strings.Builder
	for _, c := range d.checks {
		fmt.Fprintf(&b, "%-4s  %-11s %s\n", c.Status, c.ID, c.Summary)
		for _, l := range c.Detail {
			fmt.Fprintf(&b, "                  %s\n", l)
		}
		if c.Fix != "" && c.Status != statusOK {
			fmt.Fprintf(&b, "                  fix: %s\n", c.Fix)
		}
	}
	n := d.counts()
	fmt.Fprintf(&b, "%d checks: %d ok, %d info, %d warn, %d FAIL: ", len(d.checks), n[statusOK], n[statusInfo], n[statusWarn], n[statusFail])
	if d.failed() {
		b.WriteString("fix each FAIL above, then run cordon doctor again\n")
	} else {
		b.WriteString("cordon is set up and its sandbox works here\n")
	}
	return b.String()
}

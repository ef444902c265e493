package shim

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/sessionbox"
)

// Exit statuses of the shim, the ones shells use for the same failures.
const (
	exitRefused  = 126 // the command was refused, or could not be judged
	exitNotFound = 127 // the real shell is not installed
)

// Run is cordon running as the shell named by argv[0]: it decodes argv,
// judges the script and, when it is allowed, replaces this process with the
// real shell, given argv unchanged. Run returns only when nothing was run:
// 126 after printing one paragraph on stderr when the command is refused
// or cannot be judged, 127 (with a message) when the real shell is not
// installed. Nothing of cordon's is printed when the command runs.
//
// An argv the shell itself would reject (a *invocation.DecodeError) is passed to the
// real shell unjudged, so that the shell prints its own error.
func Run(argv []string) int {
	r := &run{argv: argv, env: os.Environ(), name: canonicalName(argv), start: time.Now()}
	return r.main()
}

// A run is one shim invocation; its fields are read from the process once.
type run struct {
	argv []string
	env  []string
	name string              // the shell looked for, "bash"
	real string              // the real shell's path, once found
	ctx  *decide.Context     // what judging and confining read, once
	conf *decide.Confinement // the sandbox, once made
	// start is when the shim started: a change made before is not the
	// command's (the continuous snapshot saver).
	start time.Time
	// saved is the snapshot taken before the command ran ("" for none),
	// and command its text, for the continuous snapshot saver.
	saved, command string
	judged         bool        // the command was decided (not --version, say)
	round          *guardRound // the continuous guard's round after it, nil for none
	// pin is the script the shell reads, as it was judged: checked again
	// just before the shell starts.
	pin *pin
}

func (r *run) main() int {
	if runtime.GOOS == "windows" && len(r.argv) > 0 && invocation.IsWindowsShell(r.argv[0]) {
		return r.windows()
	}
	inv, decodeErr := invocation.Decode(r.argv, platform.IsTerminal(os.Stdin.Fd()))
	if code, ok := r.findReal(); !ok {
		return code
	}
	var de *invocation.DecodeError
	switch {
	case errors.As(decodeErr, &de):
		return r.exec()
	case decodeErr != nil:
		return r.fail("could not decode the command line: %v", decodeErr)
	case inv.Mode == invocation.ModeInfo:
		return r.exec()
	}
	return r.judgeAndRun(inv)
}

// windows is a run as cmd.exe or PowerShell: the command line is decoded
// from the raw text Windows passed, and the real shell receives that text
// unchanged.
func (r *run) windows() int {
	inv, err := invocation.DecodeWindows(platform.CommandLine())
	if code, ok := r.findReal(); !ok {
		return code
	}
	if err != nil {
		r.print(blockedMessage(r.argv, decide.Undecodable(err), r.env, "", false))
		return exitRefused
	}
	if inv.Mode == invocation.ModeInfo {
		return r.exec()
	}
	dir, err := os.Getwd()
	if err != nil {
		return r.fail("cannot read the current directory: %v", err)
	}
	if r.ctx, err = decide.NewContext(dir, r.env, nil); err != nil {
		return r.fail("could not judge the command: %v", err)
	}
	r.ctx.Prepare = func() (*decide.Confinement, error) { return r.confine(dir) }
	d := r.ctx.Decide(decide.Request{Shell: r.name, Mode: "windows", Text: platform.CommandLine(), Inv: inv, Windows: true})
	if d.Error == "" && d.Allowed() && judgesLines(inv) {
		return r.psTerminal(dir)
	}
	return r.follow(d)
}

// follow runs the command d allows, or prints why not.
func (r *run) follow(d *decision.Decision) int {
	switch {
	case d.Error != "":
		return r.fail("%v", d.Error)
	case !d.Allowed():
		r.print(r.refusedMessage(r.argv, d))
		return exitRefused
	}
	r.judged, r.command = true, d.Command
	if len(d.Saved) > 0 {
		r.saved = d.Saved[0]
	}
	return r.exec()
}

// findReal locates the real shell, or prints why not and returns the
// exit status.
func (r *run) findReal() (int, bool) {
	self, err := decide.Executable()
	if err == nil {
		r.real, err = platform.FindShell(r.name, getenv(r.env, "PATH"), self, platform.AgentSince)
	}
	var nf *platform.NotFoundError
	switch {
	case errors.As(err, &nf):
		r.print(notFoundMessage(nf))
		return exitNotFound, false
	case err != nil:
		r.print(fmt.Sprintf("cordon: %s: %v; nothing was run\n", r.name, err))
		return exitNotFound, false
	}
	return 0, true
}

func (r *run) judgeAndRun(inv *invocation.Invocation) int {
	dir, err := os.Getwd()
	if err != nil {
		return r.fail("cannot read the current directory: %v", err)
	}
	req := decide.Request{Shell: r.name, Mode: inv.Mode.String(), Text: requestText(r.argv), Inv: inv}
	if inv.Mode == invocation.ModeStdin {
		script, ok, err := regularStdin()
		if err != nil {
			return r.fail("%v", err)
		}
		if ok {
			c := *inv
			c.Mode, c.Script = invocation.ModeCommand, script
			inv, req.Inv, req.Bind = &c, &c, script
			r.pin = &pin{stdin: true, data: []byte(script), exists: true}
		}
	}
	if inv.Mode == invocation.ModeFile {
		// The script is read once: the judge judges these bytes, an
		// approval is for them, and the shell must find them there.
		path := scriptPath(dir, inv.File)
		if parse.SearchesPath(inv.Shell) {
			path = parse.ScriptPath(inv.File, dir, getenv(r.env, "PATH"), nil)
		}
		r.pin = pinFile(path)
		c := *inv
		c.Pinned = r.pin.pinned()
		inv, req.Inv = &c, &c
		req.Bind = r.pin.digest()
	}
	if r.ctx, err = decide.NewContext(dir, r.env, nil); err != nil {
		return r.fail("could not judge the command: %v", err)
	}
	r.ctx.ForSession = forSession(r.ctx.Settings)
	r.ctx.Prepare = func() (*decide.Confinement, error) { return r.confine(dir) }
	piped := (inv.Mode == invocation.ModeStdin || inv.Mode == invocation.ModeInteractive) && streamedStdin()
	// A guard that died before putting its workspace back (killed with
	// the sandbox still running) leaves that to the next command; so does
	// a process of a session's sandbox that wrote there since the last
	// command. Before the policy is made: what is put back is not bound,
	// and a remote a command of the session added (one still running)
	// is the ledger's, never the person's, when the policy's credential
	// broker reads it (a piped shell's too: TestGitPushBesideRunning).
	if ws := r.ctx.Workspace.Dir; ws != "" {
		for _, line := range reconcileBefore(decide.StateDir(r.ctx.Getenv), ws) {
			r.print(line + "\n")
		}
		// The session's manager, if one runs, takes the guard's ticket
		// while the command is judged (sessionbox.Prepare); a piped
		// shell runs in a sandbox of its own.
		if r.ctx.ForSession && !piped {
			sessionbox.Prepare(decide.StateDir(r.ctx.Getenv), getenv(r.env, "CORDON_SESSION"), ws, r.ctx.AgentStart)
		}
	}
	if piped {
		return r.piped(inv, dir)
	}
	d := r.ctx.Decide(req)
	if d.Error == "" && d.Allowed() && hookedTerminal(inv) {
		return r.terminal(inv, dir)
	}
	return r.follow(d)
}

// A pin is the script a shell reads (bash FILE, bash < FILE) as it was
// when judged. Just before the real shell starts it is read again, and a
// change refuses the command: the shell runs the bytes that were judged,
// or nothing (a command running beside it rewrote the file meanwhile).
type pin struct {
	path   string // the script file; "" for standard input
	stdin  bool
	data   []byte
	exists bool // the file could be read
}

// pinFile reads the script file at path.
func pinFile(path string) *pin {
	data, err := readScript(path)
	return &pin{path: path, data: data, exists: err == nil}
}

// readScript reads a script file as the judge would: a regular file of at
// most maxStdinScript bytes.
func readScript(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStdinScript+1))
	if err == nil && len(data) > maxStdinScript {
		return nil, errors.New("too large")
	}
	return data, err
}

// pinned is what the judge reads for the pinned file.
func (p *pin) pinned() map[string][]byte {
	if !p.exists || p.stdin {
		return nil
	}
	return map[string][]byte{p.path: p.data}
}

// digest is the sha256 of the pinned content, or "unreadable": an
// approval of bash FILE is for what FILE held when it was judged.
func (p *pin) digest() string {
	if !p.exists {
		return "unreadable"
	}
	return fmt.Sprintf("%x", sha256.Sum256(p.data))
}

// changed says why the script is no longer what was judged, or "".
func (p *pin) changed() string {
	if p.stdin {
		script, ok, err := regularStdin()
		if err != nil || !ok || script != string(p.data) {
			return "the script on standard input changed after it was judged"
		}
		return ""
	}
	now := pinFile(p.path)
	if now.exists != p.exists || !bytes.Equal(now.data, p.data) {
		return fmt.Sprintf("the script %s changed after it was judged (another command wrote it meanwhile); run the command again to have it judged as it is now", printable.String(p.path))
	}
	return ""
}

// scriptPath is the script file operand file, run in dir, as a path.
func scriptPath(dir, file string) string {
	if filepath.IsAbs(file) {
		return filepath.Clean(file)
	}
	return filepath.Join(dir, file)
}

// requestText is argv as one line, argv[0] by its base name: the text an
// approval binds.
func requestText(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	a := slices.Clone(argv)
	a[0] = a[0][strings.LastIndexAny(a[0], `/\`)+1:]
	return invocation.QuoteArgv(a)
}

// exec runs the real shell, confined, in place of this process. The
// process is already in the directory the command was judged for, so no
// directory is given.
func (r *run) exec() int {
	dir, err := os.Getwd()
	if err != nil {
		return r.fail("cannot read the current directory: %v", err)
	}
	c, err := r.confine(dir)
	if err != nil {
		return r.fail("%v", err)
	}
	return r.execIn(c)
}

// execIn is exec with the confinement c.
func (r *run) execIn(c *decide.Confinement) int {
	if c.Unconfined {
		r.print(decide.UnconfinedNotice(decide.StateDir(decide.EnvLookup(r.env))))
	}
	r.print(decide.ForeignNotice(c, decide.StateDir(decide.EnvLookup(r.env))))
	r.prepareRound(c)
	getenv := decide.EnvLookup(r.env)
	if r.pin != nil {
		if why := r.pin.changed(); why != "" {
			return r.fail("%s", why)
		}
	}
	err := execConfined(c, decide.StateDir(getenv), r.real, r.argv, getenv, true, r.round)
	return r.fail("cannot run the real shell: %v", err)
}

// confine is [decide.Confine] for this shim run: cordon's own places are
// checked, and the real shell is looked for again, past the directories
// the sandbox leaves writable, when it was found in one of them.
func (r *run) confine(dir string) (*decide.Confinement, error) {
	if r.conf != nil {
		return r.conf, nil
	}
	var argv0 string
	if len(r.argv) > 0 {
		argv0 = r.argv[0]
	}
	if r.ctx == nil {
		ctx, err := decide.NewContext(dir, r.env, nil)
		if err != nil {
			return nil, err
		}
		r.ctx = ctx
	}
	c, err := r.ctx.Confine(&decide.ConfineOptions{Invoked: argv0})
	if err != nil {
		return nil, err
	}
	if roots := c.Policy.WritableRoots(); decide.Within(r.real, roots) {
		self, err := decide.Executable()
		if err == nil {
			r.real, err = platform.FindShell(r.name, getenv(r.env, "PATH"), self, platform.AgentSince, roots...)
		}
		var nf *platform.NotFoundError
		if errors.As(err, &nf) {
			return nil, fmt.Errorf("the only %s found is in %s, which sandboxed commands can write, so it may not be the real one; install %s in /bin or /usr/bin", r.name, printable.String(strings.Join(nf.Writable, " ")), r.name)
		}
		if err != nil {
			return nil, err
		}
	}
	r.conf = c
	return c, nil
}

func (r *run) fail(format string, args ...any) int {
	r.print(fmt.Sprintf("cordon: %s: %s; nothing was run\n", r.name, fmt.Sprintf(format, args...)))
	return exitRefused
}

func (r *run) print(msg string) { os.Stderr.WriteString(msg) }

// maxStdinScript bounds the script read from a regular file on stdin.
const maxStdinScript = 1 << 20

// regularStdin reads the script a shell would read from standard input
// when that is a regular file (bash < script.sh), without moving the
// file offset, so the real shell still reads all of it. A pipe or a
// terminal is not read: ok is false.
func regularStdin() (script string, ok bool, err error) {
	fi, err := os.Stdin.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", false, nil
	}
	off, err := os.Stdin.Seek(0, io.SeekCurrent)
	if err != nil {
		return "", false, nil
	}
	if fi.Size()-off > maxStdinScript {
		return "", false, fmt.Errorf("the script on standard input is larger than %d bytes; cordon does not judge scripts that large", maxStdinScript)
	}
	buf := make([]byte, max(fi.Size()-off, 0))
	n, err := os.Stdin.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return "", false, fmt.Errorf("cannot read the script on standard input: %v", err)
	}
	return string(buf[:n]), true, nil
}

// ShellName returns the canonical name of the shell that argv0 names
// ("bash" for "/usr/bin/bash", "-bash" or "BASH.EXE"), and whether it is
// one of the shells cordon stands in for here: the POSIX shells, and on
// Windows cmd.exe and PowerShell too ([invocation.IsWindowsShell]).
func ShellName(argv0 string) (string, bool) {
	name := invocation.CommandName(argv0)
	return name, slices.Contains(platform.ShellNames, name) || runtime.GOOS == "windows" && invocation.IsWindowsShell(name)
}

func canonicalName(argv []string) string {
	if len(argv) == 0 {
		return "sh"
	}
	name, _ := ShellName(argv[0])
	return name
}

// getenv is the value of key in env (see [platform.Getenv]).
func getenv(env []string, key string) string { return platform.Getenv(env, key) }

func notFoundMessage(nf *platform.NotFoundError) string {
	var b strings.Builder
	switch {
	case runtime.GOOS == "windows" && (nf.Name == "cmd" || nf.Name == "powershell"):
		fmt.Fprintf(&b, "cordon: %s: the real %s.exe is not in Windows' system directory; it is part of Windows: repair the Windows installation, or remove this shim; nothing was run\n", nf.Name, nf.Name)
	case runtime.GOOS == "windows":
		fmt.Fprintf(&b, "cordon: %s: real shell not found on PATH or in its install folder", nf.Name)
		fmt.Fprintf(&b, "; install %s, or put the folder that holds it on PATH after the cordon shims; nothing was run\n", nf.Name)
	default:
		fmt.Fprintf(&b, "cordon: %s: real shell not found in PATH, /bin or /usr/bin", nf.Name)
		fmt.Fprintf(&b, "; install %s, or put the directory that holds it on PATH after the cordon shims; nothing was run\n", nf.Name)
	}
	fmt.Fprintf(&b, "  searched: %s\n", strings.Join(nf.Dirs, " "))
	if len(nf.Skipped) > 0 {
		fmt.Fprintf(&b, "  skipped (cordon itself): %s\n", strings.Join(nf.Skipped, " "))
	}
	return b.String()
}

// refusedMessage is [blockedMessage] for the decision d of this run.
func (r *run) refusedMessage(argv []string, d *decision.Decision) string {
	msg := blockedMessage(argv, d.Judgement, r.env, d.ID, r.ctx != nil && r.ctx.Confined())
	if d.Unsaved != "" {
		msg += "  cordon could not keep a copy first: " + printable.String(d.Unsaved) + "\n"
	}
	if r.ctx != nil {
		msg += r.ctx.ForeignRefusal()
	}
	return msg
}

// blockedMessage is DESIGN §7's paragraph for a refused command: the
// verdict, the reasons that made it, and what a person can do: approve
// it with cordon approve ID when it was asked about (id), or write a
// rule. nested says this shell was started by a command that was
// allowed and is running (inside cordon's sandbox): that command did
// run, only this inner one did not.
func blockedMessage(argv []string, j *rules.Judgement, env []string, id string, nested bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cordon: refused (%s)", strings.Join(append([]string{j.Verdict.String()}, j.Categories...), ", "))
	reasons := decide.BlockingReasons(j)
	switch len(reasons) {
	case 0:
		b.WriteString(": no reason recorded (a cordon bug, please report it)\n")
	case 1:
		fmt.Fprintf(&b, ": %s\n", reasonLine(reasons[0]))
	default:
		b.WriteString(":\n")
		for _, rs := range reasons {
			fmt.Fprintf(&b, "  %s\n", reasonLine(rs))
		}
	}
	what := "nothing was run."
	if nested {
		what = "this inner command was not run; the command around it did run (it started this shell), so what it did before this point stands."
	}
	switch {
	case id != "":
		fmt.Fprintf(&b, "  %s If this is intended, a person can approve it with `cordon approve %s` (in a terminal, outside the agent), and the agent then retries it; "+
			"or allow it with a rule in %s (see %s).\n", what, id, configDir(env), explainHint(argv))
	default:
		fmt.Fprintf(&b, "  %s If this is intended, a person can run it outside the agent, "+
			"or allow it with a rule in %s (see %s).\n", what, configDir(env), explainHint(argv))
	}
	return b.String()
}

func reasonLine(rs rules.Reason) string {
	line := printable.String(rs.Message)
	if rs.Rule != "" {
		line += " [rule " + printable.String(rs.Rule) + "]"
	}
	return line
}

// configDir is the user's cordon rules directory, as a person would type it.
func configDir(env []string) string {
	if x := getenv(env, "XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return printable.String(filepath.Join(x, "cordon", "rules")) + string(filepath.Separator)
	}
	return "~/.config/cordon/rules/"
}

// maxHint is the longest command line repeated in the explain hint.
const maxHint = 160

// explainHint is the cordon explain command line for argv, or a pointer to
// it when argv is too long to repeat.
func explainHint(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if i == 0 {
			a = a[strings.LastIndexAny(a, `/\`)+1:]
		}
		words[i] = invocation.Quote(a)
	}
	line := strings.Join(words, " ")
	if len(line) > maxHint || strings.ContainsAny(line, "\n\r") {
		return "`cordon explain -- ` followed by the same command"
	}
	return "`cordon explain -- " + printable.String(line) + "`"
}

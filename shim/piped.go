package shim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/watch"
	"github.com/cordonsh/cordon/stream"
	"github.com/cordonsh/cordon/tamper"
)

// A piped shell: a shell that reads its script from a pipe (bash,
// bash -s ARGS, sh -s, zsh, bash -i fed by a pipe, as pipe-driven agents
// run it). cordon reads the statements as they arrive, judges each line
// of complete statements with the rules of that moment, and writes the
// allowed ones, byte for byte, to one real shell started as its child, so
// that cd, variables and functions persist as in the real shell. A
// refused statement never reaches the shell: it gets instead a line that
// prints the refusal on its standard error and sets $? to 126.
//
// What the judge knows of earlier statements: the top-level statements
// that only change the shell's state (cd, pushd, popd, assignments,
// export, declare, local, readonly, unset, set, shopt, alias, function
// definitions) are kept, the last 256 KiB of them, and judged again as a
// prelude to each new statement, so that a relative path after cd, a
// variable or a function defined earlier are resolved as the shell will.
// Other statements are kept with every command that does not change the
// state made a no-op (true && cd .git is replayed as : && cd .git; a call
// to a function the piped shell defined, source and eval are kept). Past the
// bound, the oldest are dropped and the directory is taken as unknown.
// A piped shell refuses statements that would change what its refusal line
// runs (see [tamper.Hijack]).

// maxPrelude bounds the state statements kept for the judge.
const maxPrelude = 256 << 10

// streamedStdin reports whether standard input is read as it arrives:
// a pipe, a socket or a device, not a terminal and not a regular file
// (which [regularStdin] reads whole).
func streamedStdin() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir() && !platform.IsTerminal(os.Stdin.Fd())
}

// A piped is one piped shell's run.
type piped struct {
	r       *run
	inv     *invocation.Invocation
	dir     string                 // where the shell started
	ws      decide.WorkspaceChoice // the workspace of dir
	rules   func() *rules.Set
	prelude []string            // state statements, printed
	size    int                 // bytes in prelude
	funcs   map[string]bool     // functions the piped shell defined
	conf    *decide.Confinement // how the shell is confined
	cwd     string              // a terminal's directory, sent with each line
}

// piped runs the real shell as a child, confined, and feeds it the
// statements of standard input that the rules allow. It returns the
// shell's exit status.
func (r *run) piped(inv *invocation.Invocation, dir string) int {
	if name := tamper.FuncsInEnv(r.env); name != "" {
		return r.fail("the environment defines a shell function named %s (BASH_FUNC_%s%%%%), which would change what cordon's refusals run; unset it", printable.String(name), printable.String(name))
	}
	c, err := r.confine(dir)
	if err != nil {
		return r.fail("%v", err)
	}
	current, stop, err := r.pipedRules(dir, c)
	if err != nil {
		return r.fail("%v", err)
	}
	defer stop()
	if c.Unconfined {
		r.print(decide.UnconfinedNotice(decide.StateDir(decide.EnvLookup(r.env))))
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return r.fail("cannot make a pipe for the shell: %v", err)
	}
	child, err := guard.Start(c.Backend, c.ForSandbox(), decide.StateDir(decide.EnvLookup(r.env)), r.real, r.argv, c.Policy.Env, pr)
	pr.Close()
	if err != nil {
		pw.Close()
		return r.fail("cannot run the real shell: %v", err)
	}
	sigs := make(chan os.Signal, 16)
	platform.NotifyCaught(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		for s := range sigs {
			child.Forward(s)
		}
	}()
	s := &piped{r: r, inv: inv, dir: dir, ws: c.Workspace, rules: current, conf: c}
	go func() {
		s.feed(os.Stdin, pw)
		pw.Close()
	}()
	code, err := child.Wait()
	signal.Stop(sigs)
	if err != nil {
		r.print(fmt.Sprintf("cordon: %s: %v\n", r.name, err))
	}
	return code
}

// pipedRules returns the rules of the moment for a piped shell in dir,
// kept current by a watcher until stop. A rules directory that sandboxed
// commands can write is refused: an agent could loosen its own rules.
func (r *run) pipedRules(dir string, c *decide.Confinement) (current func() *rules.Set, stop func(), err error) {
	ws := c.Workspace.Dir
	dirs, load := decide.RuleSource(ws, r.env)
	roots := c.Policy.WritableRoots()
	guarded := func() (*rules.Set, error) {
		for _, d := range dirs {
			if _, err := os.Stat(d); err != nil || ws != "" && d == filepath.Join(ws, ".cordon") {
				continue // the project's rules are read-only in the sandbox
			}
			if root := decide.Containing(d, roots); root != "" {
				return nil, fmt.Errorf("the rules directory %s can be written by sandboxed commands (it is inside %s); move it out (set XDG_CONFIG_HOME elsewhere)", printable.String(d), printable.String(root))
			}
		}
		return load()
	}
	report := func(e watch.Event) {
		if e.Kind == watch.Rejected {
			r.print(fmt.Sprintf("cordon: %s: rules %s\n", r.name, e))
		}
	}
	w, err := watch.New(dirs, guarded, report)
	if err == nil {
		return w.Current, func() { w.Close() }, nil
	}
	// No watch (the system's limit on inotify instances), or no rules.
	set, lerr := guarded()
	if lerr != nil {
		return nil, nil, fmt.Errorf("cannot load the rules: %v", lerr)
	}
	r.print(fmt.Sprintf("cordon: %s: rule changes are not seen by this piped shell: %v\n", r.name, err))
	return func() *rules.Set { return set }, func() {}, nil
}

// feed judges the statements read from in and writes to the shell the
// allowed ones, or a refusal in their place. It returns at the end of in,
// after a syntax error (see [stream.Split]), or when the shell stops
// reading.
func (s *piped) feed(in io.Reader, shell io.Writer) {
	resync := s.inv.Interactive
	stream.Split(in, stream.Lang(s.inv.Dialect), resync, func(c stream.Chunk) bool {
		out := string(c.Text)
		if msg := s.judge(c); msg != "" {
			// As long as c (the same number of lines, for $LINENO). After
			// a syntax error a shell reading a script stops: so does the
			// piped shell, with the refusal's status.
			end := "(exit 126)"
			if c.Err != nil && !resync {
				end = "exit 126"
			}
			out = refusal(msg, end) + strings.Repeat("\n", max(strings.Count(out, "\n")-1, 0))
		}
		_, err := io.WriteString(shell, out)
		return err == nil
	})
}

// judge returns the refusal message for c, or "" when c is allowed.
func (s *piped) judge(c stream.Chunk) string {
	text := string(c.Text)
	switch {
	case errors.Is(c.Err, stream.ErrTooLarge):
		return s.r.failMessage("a statement is larger than %d bytes; cordon does not judge statements that large", stream.MaxStatement)
	case c.Err != nil:
		return s.r.failMessage("cannot parse the statement: %v", syntaxError(c.Err))
	case len(c.Stmts) == 0:
		return ""
	case bytes.IndexByte(c.Text, '\r') >= 0:
		return s.r.failMessage("the statement holds a carriage return (\\r), which the shell and cordon read differently; convert its line endings")
	}
	if s.inv.Interactive && tamper.HistoryBang(text) {
		return s.r.failMessage("the statement holds a ! that an interactive shell would expand from its history, which cordon does not see; quote it ('!') or escape it (\\!)")
	}
	if why := tamper.Hijack(c.Stmts); why != "" {
		return s.r.failMessage("a piped shell does not run this statement: %s, which would change what cordon's refusals run in this shell", why)
	}
	inv := *s.inv
	inv.Mode, inv.Script = invocation.ModeCommand, s.preludeText()+text
	stmt := strings.TrimSuffix(text, "\n")
	d := s.r.ctx.Decide(decide.Request{Shell: s.r.name, Mode: "statement", Text: stmt, Inv: &inv, Rules: s.rules()})
	switch {
	case d.Error != "":
		return s.r.failMessage("could not judge the command: %v", d.Error)
	case !d.Allowed():
		return s.r.refusedMessage([]string{s.inv.Shell, "-c", stmt}, d)
	}
	s.remember(c.Stmts)
	return ""
}

// syntaxError is a parser error without the parser's empty file name.
func syntaxError(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %s", pe.Pos.Line(), pe.Text)
	}
	return err.Error()
}

// failMessage is the message of [run.fail].
func (r *run) failMessage(format string, args ...any) string {
	return fmt.Sprintf("cordon: %s: %s; nothing was run\n", r.name, fmt.Sprintf(format, args...))
}

// refusal is a line of shell code that prints msg on standard error and
// then runs end ("(exit 126)" sets $? to 126), the same in bash, sh
// (dash) and zsh whatever their options: msg goes through printf's %b
// with every backslash and single quote escaped, so that the
// single-quoted word holds no quote to end it and no escape of the
// message's own is interpreted.
func refusal(msg, end string) string {
	esc := strings.NewReplacer(`\`, `\\`, `'`, `\0047`, "\x00", "").Replace(msg)
	return "command printf '%b' '" + esc + "' >&2; " + end + "\n"
}

// remember keeps the statements that change the shell's state, and
// notes where the directory can no longer be followed.
func (s *piped) remember(stmts []*syntax.Stmt) {
	for _, st := range stmts {
		if fd, ok := st.Cmd.(*syntax.FuncDecl); ok && fd.Name != nil {
			if s.funcs == nil {
				s.funcs = map[string]bool{}
			}
			s.funcs[fd.Name.Value] = true
		}
		if !changesState(st) && !stateOnly(st, s.funcs) {
			continue
		}
		var b strings.Builder
		if err := syntax.NewPrinter().Print(&b, st); err != nil {
			continue
		}
		b.WriteString("\n")
		s.prelude = append(s.prelude, b.String())
		s.size += b.Len()
	}
	lost := false
	for s.size > maxPrelude && len(s.prelude) > 0 {
		s.size -= len(s.prelude[0])
		s.prelude = s.prelude[1:]
		lost = true
	}
	if lost && (len(s.prelude) == 0 || s.prelude[0] != lostDirectory) {
		// What was dropped may have changed the directory.
		s.prelude = append([]string{lostDirectory}, s.prelude...)
		s.size += len(lostDirectory)
	}
}

// preludeText is the state statements kept, and a terminal's directory.
func (s *piped) preludeText() string {
	p := strings.Join(s.prelude, "")
	if s.cwd != "" {
		p += "cd -- " + invocation.Quote(s.cwd) + "\n"
	}
	return p
}

// stateBuiltins change the shell's state and nothing else.
var stateBuiltins = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "chdir": true, "export": true, "declare": true, "typeset": true,
	"local": true, "readonly": true, "unset": true, "set": true, "shopt": true, "setopt": true,
	"unsetopt": true, "alias": true, "unalias": true,
}

// changesState reports whether st, run at the top level, only changes
// the shell's state: a function definition, assignments alone, or one of
// stateBuiltins, not in the background.
func changesState(st *syntax.Stmt) bool {
	if st.Background || st.Coprocess || st.Negated {
		return false
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.FuncDecl, *syntax.DeclClause:
		return true
	case *syntax.CallExpr:
		if len(cmd.Args) == 0 {
			return len(cmd.Assigns) > 0
		}
		return stateBuiltins[cmd.Args[0].Lit()]
	}
	return false
}

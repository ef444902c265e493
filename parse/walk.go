package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/winpath"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// walker collects the commands of one judgement.
type walker struct {
	cfg    *Config
	res    *Result
	out    map[int]*string             // known standard output of a command, by index
	in     map[int]*string             // known standard input from a heredoc or file
	files  map[string]string           // files written earlier in the script, by path
	tops   map[string]string           // repoTop's answers, by directory
	byName writtenNames                // the paths of files written or linked, by name
	status map[*syntax.BinaryCmd]uint8 // known exit status of an && or || list just walked (1 known, 2 true)
	links  map[string]string           // symbolic links made earlier, link -> target
	copies map[string]string           // files copied earlier, copy -> original

	parsers [PowerShell + 1]*syntax.Parser
	winEnv  map[string]string // the environment by lower-case name, for Windows dialects

	m     meter // what the walk has spent of its budget
	bytes int   // bytes of known outputs and files held

	aliasSeq int // alias definitions made so far

	integers map[string]bool // variables declared -i: what is assigned to them is evaluated as arithmetic
	// evaluating are the variables whose values are being walked as
	// arithmetic (y=x; x=y: bash stops such a loop with an error).
	evaluating map[string]bool
	noAlias    bool            // the next command's name was quoted or expanded: no alias applies
	reading    map[string]int  // script files shells are reading line by line
	made       map[string]bool // base names of files the script wrote, copied or linked

	lazy map[*syntax.Stmt]*lazyBody // the bodies left out of skeletons (see outline.go), by the stand-in body

	texts  []string            // the code parsed to walk, for [walker.certainAbort]
	bare   map[string]bareLook // names looked for in texts
	anySet bool                // a builtin assigned a variable whose name is unknown

	expanders []*expander // expansion settings given back, for the next word ([walker.takeExpander])
}

// state is one shell's view while walking: a subshell gets a copy.
type state struct {
	dialect Dialect
	env     *env
	// standIn: the command stands for an option's value (git -c
	// remote.X.mirror is git push --mirror ?) and runs in the
	// environment already judged for the command that has the option.
	standIn bool
	dir     string
	dirs    []string // pushd's stack, without dir itself; never appended to in place
	later   bool     // the code may run again or later, in another state (a loop body, a trap): no test is taken as known
	nounset bool
	keyword bool     // set -k: NAME=value anywhere in a command is an assignment
	globs   globOpts // shopt/setopt globbing options
	funcs   *funcTable
	aliases map[string][]aliasDef // every definition, in order
	parsed  int                   // the alias definitions made when this code was parsed
	inAlias []string              // aliases being expanded: not expanded again
	via     []string
	priv    bool
	remote  bool // on another machine (ssh host CMD)
	depth   int
	// ownVars: the shell sets variables of its own that the judge does
	// not list (zsh, ksh, mksh; an interactive or login shell, which
	// reads start-up files too): an unset one never stops the walk.
	ownVars bool
	stop    *bool             // set by exit or an aborting expansion: nothing after runs
	ret     *bool             // set by return inside a function or sourced file
	input   *string           // known standard input of a compound command's body
	windows bool              // paths are Windows paths
	delayed bool              // cmd.exe /V:ON
	batch   bool              // cmd.exe reads a batch file
	core    bool              // PowerShell 7 (pwsh) rather than 5.1
	posix   bool              // bash's POSIX mode: aliases are expanded in scripts
	hashes  map[string]string // the shell's table of commands (hash -p), name -> path
	shell   *shellInfo        // what the shell process collects for its end
}

func newWalker(cfg *Config) *walker {
	m := newMeter(cfg.Budget)
	return &walker{cfg: cfg, res: &Result{deadline: m.deadline, limit: m.Time}, m: m, out: map[int]*string{}, in: map[int]*string{}, files: map[string]string{}}
}

func (w *walker) rootState(cfg *Config) *state {
	st := &state{
		dialect: cfg.Dialect,
		env:     newEnv(cfg.Env, cfg.Arg0, cfg.Params).shellStart(cfg.Dialect),
		dir:     cfg.Dir,
		nounset: cfg.NoUnset,
		windows: cfg.Windows,
		delayed: cfg.Delayed,
		core:    cfg.Core,
		funcs:   &funcTable{},
		aliases: map[string][]aliasDef{},
		stop:    new(bool),
		shell:   &shellInfo{},
	}
	st.ownVars = cfg.Dialect == Zsh || !plainShell(cfg.Arg0) || cfg.Start != nil && (cfg.Start.Interactive || cfg.Start.Login)
	st.shellOptions(cfg.Options)
	return st
}

// plainShell reports whether arg0 names bash or sh (dash), whose own
// variables the judge lists; "" is taken for one.
func plainShell(arg0 string) bool {
	switch strings.TrimPrefix(filepath.Base(arg0), "-") {
	case "", ".", "bash", "sh", "dash":
		return true
	}
	return false
}

// A funcTable is a shell's functions. A subshell's table shares its
// parent's definitions until it defines a function itself, then copies
// them: its own are gone after it, and every copy of its state (code
// it carries, its branches) holds the same table, so sees them.
type funcTable struct {
	defs   map[string]function
	shared bool // defs are an enclosing shell's too: copied before a change
}

// subshell returns the table of a subshell of the shell that has t.
func (t *funcTable) subshell() *funcTable {
	return &funcTable{defs: t.defs, shared: true}
}

// define sets a function's definition.
func (t *funcTable) define(name string, fn function) {
	if t.shared || t.defs == nil {
		t.defs, t.shared = maps.Clone(t.defs), false
		if t.defs == nil {
			t.defs = map[string]function{}
		}
	}
	t.defs[name] = fn
}

// A function is a shell function's body and the alias definitions made
// when it was parsed.
type function struct {
	body     *syntax.Stmt
	lazy     *lazyBody // the body, still to be parsed (body is nil)
	parsed   int
	exported bool // export -f: shells bash starts inherit it
}

// An aliasDef is one definition of an alias: its value, and seq, the
// count of definitions made when it was (see [walker.aliasSeq]).
type aliasDef struct {
	value string
	seq   int
}

// alias returns the value of alias name as the code being walked sees
// it: the last definition made before that code was parsed, unless the
// alias is being expanded already (bash and zsh do not expand an alias
// inside its own text: alias ls='ls --color=auto').
func (st *state) alias(name string) (string, bool) {
	if st.dialect == Bash && !st.globs.expandAliases && !st.posix || slices.Contains(st.inAlias, name) {
		return "", false
	}
	defs := st.aliases[name]
	for i := len(defs) - 1; i >= 0; i-- {
		if defs[i].seq <= st.parsed {
			return defs[i].value, true
		}
	}
	return "", false
}

// subshell returns a copy of st whose changes do not leak back.
func (st *state) subshell() *state {
	c := *st
	c.enterSubshell()
	return &c
}

// enterSubshell turns st, a copy of a shell's state, into its
// subshell's: what st points to and the subshell changes is its own.
func (st *state) enterSubshell() {
	st.env = st.env.clone()
	st.stop = new(bool)
	if st.ret != nil {
		st.ret = new(bool) // (return) leaves the subshell only
	}
	// A function defined in a subshell is gone after it: (rm() { :; })
	// leaves rm the program.
	st.funcs = st.funcs.subshell()
}

// inSubshell walks code in a subshell of st, as walk(st.subshell())
// would, but in st itself, put back as it was afterwards: the sides of
// a pipeline, thousands in a long script, copy no state. Nothing keeps
// a state past the walk of its code, so no one sees st as the
// subshell's once it returns.
func (w *walker) inSubshell(st *state, walk func(*state) int) int {
	saved := *st
	defer func() { *st = saved }()
	st.enterSubshell()
	return walk(st)
}

// aside walks code whose changes to st's own fields do not last (a
// branch, the right side of && or ||): in st itself, put back as it was
// afterwards, but for the directory and the directory stack it leaves,
// which it returns. An exit or return in it does not end what follows.
//
// The shell options it set are taken as [state.mayHaveRun] says.
func (w *walker) aside(st *state, walk func(*state)) (dir string, dirs []string) {
	saved := *st
	defer func() {
		side := *st
		*st = saved
		st.mayHaveRun(&side)
	}()
	st.stop = new(bool)
	if st.ret != nil {
		st.ret = new(bool)
	}
	walk(st)
	return st.dir, st.dirs
}

// nested returns the state for code carried by a command: deeper, with
// the carrier added to via.
func (st *state) nested(via string, priv bool) *state {
	c := *st
	c.via = append(append([]string(nil), st.via...), via)
	c.priv = st.priv || priv
	c.depth++
	return &c
}

// newShell returns the state of a new shell process started from st.
func (st *state) newShell(call ShellCall, via string) *state {
	c := st.nested(via, false)
	c.standIn = false // the shell runs code of its own
	c.dialect = call.Dialect
	c.delayed, c.core, c.batch = call.Delayed, call.Core, false
	c.env = st.env.child(call.Arg0, call.Params).shellStart(call.Dialect)
	c.nounset = call.NoUnset
	c.funcs = &funcTable{}
	c.aliases = map[string][]aliasDef{}
	c.globs, c.posix, c.hashes, c.shell = globOpts{}, false, nil, &shellInfo{}
	c.ownVars = call.Dialect == Zsh || !plainShell(call.Arg0) || call.Interactive || call.Login
	c.shellOptions(call.Options)
	stop := false
	c.stop = &stop
	return c
}

func (w *walker) problem(kind ProblemKind, pos, format string, args ...any) {
	if len(w.res.Problems) >= maxProblems && kind != ProblemBudget {
		w.exceed(pos, "the script has more than %d problems", maxProblems)
		return
	}
	w.res.Problems = append(w.res.Problems, Problem{Kind: kind, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func langOf(d Dialect) syntax.LangVariant {
	switch d {
	case POSIX:
		return syntax.LangPOSIX
	case Zsh:
		return syntax.LangZsh
	}
	return syntax.LangBash
}

// script parses and walks src in st. A syntax error is reported, and the
// lines before it are still walked: the shell runs them.
func (w *walker) script(st *state, src, name string) {
	w.parseWalk(st, src, name, 0)
}

// carriageReturn asks about a carriage return in text, parsed as n,
// outside single quotes: bash reads it as part of a word, and \ CR LF as
// an escaped CR, then the end of the line; the parser takes CR for a
// blank and \ CR LF for a continuation, joining two commands bash runs
// apart. Inside single quotes both take it as it is (bash-completion's
// git prompt sets IFS to CR LF so, and every shell snapshot that holds
// its functions has one).
func (w *walker) carriageReturn(d Dialect, n syntax.Node, text, name string) {
	if i := unquotedCR(n, text); i >= 0 {
		w.problem(ProblemSyntax, name, "%s: the script holds a carriage return (\\r, at byte %d) outside single quotes, which the shell and cordon read differently; convert its line endings", d, i)
	}
}

// unquotedCR returns the offset in text of the first carriage return
// that no single-quoted string of n (text parsed) holds, or -1.
func unquotedCR(n syntax.Node, text string) int {
	if !strings.Contains(text, "\r") {
		return -1
	}
	var quoted [][2]int
	syntax.Walk(n, func(n syntax.Node) bool {
		if q, ok := n.(*syntax.SglQuoted); ok {
			quoted = append(quoted, [2]int{int(q.Pos().Offset()), int(q.End().Offset())})
		}
		return true
	})
	for i, c := range []byte(text) {
		if c == '\r' && !slices.ContainsFunc(quoted, func(q [2]int) bool { return q[0] < i && i < q[1]-1 }) {
			return i
		}
	}
	return -1
}

// parseWalk is [walker.script]; the statements on lines up to first
// were parsed with the code around them (an alias's text), the others
// when the shell reads them.
func (w *walker) parseWalk(st *state, src, name string, first uint) {
	if w.m.over {
		return
	}
	if st.depth > maxDepth {
		w.problem(ProblemDepth, name, "code nested more than %d levels deep is not followed", maxDepth)
		return
	}
	if st.dialect == Cmd || st.dialect == PowerShell {
		w.winScript(st, src, name)
		return
	}
	if first == 0 {
		st.inAlias = nil // parsed anew: no alias is being expanded
	}
	w.texts = append(w.texts, src)
	outline := w.cfg.Outlines != nil && len(src) >= minOutline && mayOutline(src)
	if outline {
		if f, text, ok := w.outlined(st.dialect, src, name); ok {
			w.carriageReturn(st.dialect, f, text, name)
			w.parsedOtherwise(st.dialect, f, text)
			w.reserve(f)
			w.lines(st, f.Stmts, first)
			return
		}
	}
	if w.parsesAhead(src, name, first) {
		w.parseAhead(st, src, name, outline)
		return
	}
	f, err := w.parser(st.dialect).Parse(strings.NewReader(src), name)
	if err == nil {
		if outline {
			w.keepOutline(st.dialect, src, name, f)
		}
		w.carriageReturn(st.dialect, f, src, name)
		w.parsedOtherwise(st.dialect, f, src)
		w.reserve(f)
		w.lines(st, f.Stmts, first)
		return
	}
	w.syntaxError(st, src, name, err)
	// The lines before the one with the error still run.
	var perr syntax.ParseError
	if errors.As(err, &perr) {
		if off := int(perr.Pos.Offset()); off > 0 && off <= len(src) {
			before := src[:strings.LastIndexByte(src[:off], '\n')+1]
			if f, err := w.parser(st.dialect).Parse(strings.NewReader(before), name); err == nil {
				w.lines(st, f.Stmts, first)
			}
		}
	}
}

// syntaxError asks about src, which does not parse (err).
func (w *walker) syntaxError(st *state, src, name string, err error) {
	if i := strings.IndexByte(src, '\r'); i >= 0 {
		w.problem(ProblemSyntax, name, "%s: the script holds a carriage return (\\r, at byte %d), which the shell and cordon read differently; convert its line endings", st.dialect, i)
	}
	var perr syntax.ParseError
	if errors.As(err, &perr) {
		w.problem(ProblemSyntax, perr.Pos.String(), "%s does not parse: %s", st.dialect, perr.Text)
		return
	}
	w.problem(ProblemSyntax, name, "%s does not parse: %v", st.dialect, err)
}

// parser returns the walker's parser for a dialect, made once.
func (w *walker) parser(d Dialect) *syntax.Parser {
	if w.parsers[d] == nil {
		w.parsers[d] = syntax.NewParser(syntax.Variant(langOf(d)))
	}
	return w.parsers[d]
}

// lines walks a script's statements line by line, as the shell reads
// them: it parses a whole line (with the lines a command spans) before
// it runs any of it, so an alias defined on a line applies from the next
// line on. Statements on lines up to first were parsed before.
func (w *walker) lines(st *state, list []*syntax.Stmt, first uint) {
	w.linesFrom(st, list, first)
}

// linesFrom is [walker.lines]; it returns the last line parsed, for
// the statements that follow list ([walker.parseAhead]), and whether the
// walk stopped before the end of list.
func (w *walker) linesFrom(st *state, list []*syntax.Stmt, first uint) (end uint, stopped bool) {
	end = first
	for _, s := range list {
		if *st.stop || st.ret != nil && *st.ret || !w.step(s.Pos()) {
			return end, true
		}
		if s.Pos().Line() > end {
			st.parsed = w.aliasSeq
		}
		w.stmt(st, s, -1)
		end = max(end, s.End().Line())
	}
	return end, false
}

func (w *walker) stmts(st *state, list []*syntax.Stmt) int {
	last := -1
	for _, s := range list {
		if *st.stop || st.ret != nil && *st.ret || !w.step(s.Pos()) {
			break
		}
		last = w.stmt(st, s, -1)
	}
	return last
}

// stmt walks one statement and returns the index of the command whose
// output is the statement's output, or -1. stdin is the index of the
// command piped into it, or -1.
func (w *walker) stmt(st *state, s *syntax.Stmt, stdin int) int {
	if s.Background {
		// cmd &: a subshell, whose exit, cd and assignments stay there.
		st = st.pipeSide()
	}
	if call, ok := s.Cmd.(*syntax.CallExpr); ok {
		return w.call(st, call, s.Redirs, stdin)
	}
	var redirs []Redir
	body := st
	if len(s.Redirs) > 0 {
		var input *string
		redirs, input = w.redirs(st, s.Redirs)
		if input != nil {
			c := *st
			c.input = input
			body = &c
		}
	}
	out := -1
	if s.Cmd != nil {
		out = w.compound(body, s.Cmd, stdin)
	}
	if len(redirs) > 0 {
		w.emit(st, Command{Redirs: redirs, StdinFrom: -1, Pos: s.Pos().String()})
	}
	return out
}

func (w *walker) compound(st *state, cmd syntax.Command, stdin int) int {
	switch c := cmd.(type) {
	case *syntax.BinaryCmd:
		return w.binary(st, c, stdin)
	case *syntax.Block:
		return w.stmts(st, c.Stmts)
	case *syntax.Subshell:
		return w.stmts(st.subshell(), c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			last := w.stmts(st, c.Cond)
			ok, known := false, false
			if len(c.Cond) > 0 {
				ok, known = w.guardStatus(st, c.Cond[len(c.Cond)-1], last)
			}
			if known && !ok {
				continue // a known test: only the other branches can run
			}
			w.branch(st, func(b *state) { w.stmts(b, c.Then) })
			if known {
				break
			}
		}
	case *syntax.WhileClause:
		// The condition and the body run again, after the body changed
		// variables and files (twice when the body defines code).
		later := st.later
		st.later = true
		for pass := 0; pass < 1 || pass < 2 && loopDefines(c); pass++ {
			w.stmts(st, c.Cond)
			w.branch(st, func(b *state) { w.stmts(b, c.Do) })
		}
		st.later = later
	case *syntax.ForClause:
		later := st.later
		st.later = true
		w.forClause(st, c)
		st.later = later
	case *syntax.CaseClause:
		w.word(st, c.Word)
		for _, item := range c.Items {
			// The shell expands each pattern, in turn, until one
			// matches: any of them may run what it holds
			// (case a in $(rm -rf ~)) ...).
			for _, pat := range item.Patterns {
				w.word(st, pat)
			}
			w.branch(st, func(b *state) { w.stmts(b, item.Stmts) })
		}
	case *syntax.FuncDecl:
		if b := splitFuncDecl(c); b != nil {
			return w.binary(st, b, stdin)
		}
		// The body was parsed with the rest of its line: the aliases
		// it uses are those defined then.
		fn := function{body: c.Body, parsed: st.parsed}
		if lb := w.lazy[c.Body]; lb != nil {
			fn.body, fn.lazy = nil, lb
		}
		if c.Name != nil {
			st.funcs.define(c.Name.Value, fn)
		}
		for _, n := range c.Names {
			st.funcs.define(n.Value, fn)
		}
	case *syntax.DeclClause:
		if !w.shadowedClause(st, c.Variant.Value, c) {
			w.decl(st, c)
		}
	case *syntax.LetClause:
		if !w.shadowedClause(st, "let", c) {
			w.letClause(st, c)
		}
	case *syntax.ArithmCmd:
		w.substitutions(st, c)
		w.arith(st, c.X)
	case *syntax.TestClause:
		w.substitutions(st, c)
		w.testArith(st, c)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			return w.stmt(st, c.Stmt, stdin)
		}
	case *syntax.CoprocClause:
		w.stmt(st.subshell(), c.Stmt, -1)
		// The shell sets NAME (the descriptors) and NAME_PID.
		name := "COPROC"
		if c.Name != nil {
			if lit, ok := plainLit(c.Name); ok && syntax.ValidName(lit) {
				name = lit
			}
		}
		st.env.setString(name, Unknown, false)
		st.env.setString(name+"_PID", Unknown, false)
	default:
		w.substitutions(st, cmd)
	}
	return -1
}

// branch walks code that may or may not run (an if or case body, a loop
// body, the right side of && or ||). Everything in it is judged, but an
// exit or return in it does not end what follows, and a cd in it leaves
// the directory unknown afterwards. Variables it sets are kept.
func (w *walker) branch(st *state, walk func(*state)) {
	dir, dirs := w.aside(st, walk)
	if dir != st.dir {
		st.dir = ""
	}
	if !slices.Equal(dirs, st.dirs) {
		st.dirs = []string{""} // popd then leads somewhere unknown
	}
}

// mayHaveRun takes into st the shell options that code which may or may
// not have run (the right side of && or ||, a branch: [walker.aside]) left
// in b, each the
// way that hides no command from the judge: aliases expanded and
// commands hashed (hash -p) when either says so (`true && shopt -s
// expand_aliases` does turn it on); an unset variable an error, which
// ends the script, only when both say so; set -k and the globbing
// options as the code left them.
func (st *state) mayHaveRun(b *state) {
	expand := st.globs.expandAliases || b.globs.expandAliases
	st.globs = b.globs
	st.globs.expandAliases = expand
	st.posix = st.posix || b.posix
	st.nounset = st.nounset && b.nounset
	st.keyword = b.keyword
	if len(b.hashes) > 0 && !maps.Equal(st.hashes, b.hashes) {
		merged := maps.Clone(st.hashes)
		if merged == nil {
			merged = map[string]string{}
		}
		maps.Copy(merged, b.hashes)
		st.hashes = merged
	}
}

// compoundBody reports whether a function's body is one bash and sh
// accept: a compound command (zsh takes any command).
func compoundBody(fd *syntax.FuncDecl, d Dialect) bool {
	if d == Zsh || fd.Body == nil || fd.Name == nil {
		return true
	}
	if fd.Body.Negated || fd.Body.Background || fd.Body.Coprocess {
		return false
	}
	switch fd.Body.Cmd.(type) {
	case *syntax.Block, *syntax.Subshell, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
		*syntax.CaseClause, *syntax.TestClause, *syntax.ArithmCmd, *syntax.BinaryCmd:
		return true // (an and-or list or pipeline after the body: see splitFuncDecl)
	}
	return false
}

// splitFuncDecl undoes how the parser reads a function definition that
// an operator follows: `f() { :; } && rm -rf x` (or `| cat`) comes as f
// with the body `{ :; } && rm -rf x`, where the shell defines f with the
// body `{ :; }` and then runs rm (in a pipeline, defines f in the
// pipeline's subshell only). It returns the and-or list or pipeline the
// shell runs, the definition in place of its first side; nil when the
// body is one command, as the shell reads it.
func splitFuncDecl(fd *syntax.FuncDecl) *syntax.BinaryCmd {
	if fd.Body == nil {
		return nil
	}
	b, ok := fd.Body.Cmd.(*syntax.BinaryCmd)
	if !ok {
		return nil
	}
	return withDefinition(fd, b)
}

// withDefinition copies b with its first side, the function's true
// body, replaced by fd defined with that body. The parsed tree is not
// changed: it may be walked again.
func withDefinition(fd *syntax.FuncDecl, b *syntax.BinaryCmd) *syntax.BinaryCmd {
	nb := *b
	if inner, ok := b.X.Cmd.(*syntax.BinaryCmd); ok {
		x := *b.X
		x.Cmd = withDefinition(fd, inner)
		nb.X = &x
		return &nb
	}
	def := *fd
	def.Body = b.X
	nb.X = &syntax.Stmt{Position: b.X.Position, Cmd: &def}
	return &nb
}

func (w *walker) binary(st *state, c *syntax.BinaryCmd, stdin int) int {
	switch c.Op {
	case syntax.Pipe, syntax.PipeAll:
		// Each side runs in a subshell (see [state.pipeSide]).
		st.env.setPWD(st.dir)
		left := w.inSubshell(st, func(x *state) int { return w.stmt(x, c.X, stdin) })
		return w.inSubshell(st, func(y *state) int { return w.stmt(y, c.Y, left) })
	}
	x := w.stmt(st, c.X, stdin)
	if *st.stop || st.ret != nil && *st.ret || st.constant(c) {
		return -1
	}
	xok, xknown := w.guardStatus(st, c.X, x)
	if xknown && xok != (c.Op == syntax.AndStmt) {
		w.setStatus(c, xok, true)
		return -1 // a known test keeps the right side from running
	}
	// The right side runs only if the left succeeded (or failed): an exit
	// there does not end what follows, but its cd is taken to happen, as
	// in the everyday cd dir && cmd.
	first := len(w.res.Commands)
	var out int
	var yok, yknown bool
	st.dir, st.dirs = w.aside(st, func(y *state) {
		out = w.stmt(y, c.Y, -1)
		if c.Op == syntax.OrStmt && first > 0 {
			w.afterFailure(first-1, first)
		}
		yok, yknown = w.guardStatus(y, c.Y, out)
	})
	switch {
	case xknown && yknown:
		w.setStatus(c, yok, true) // the left side let the right run
	case yknown && yok != (c.Op == syntax.AndStmt):
		w.setStatus(c, yok, true) // a && false, a || true
	default:
		w.setStatus(c, false, false)
	}
	return out
}

// afterFailure records that the commands from first on run only when
// command failed ran and failed (the right side of "||").
func (w *walker) afterFailure(failed, first int) {
	for n := first; n < len(w.res.Commands); n++ {
		c := &w.res.Commands[n]
		c.AfterFailure = append(c.AfterFailure, failed)
	}
}

// constant reports a list whose right side can never run: false && ...,
// true || ... (the shell's own builtins, whatever PATH holds, unless a
// function or alias of that name takes their place).
func (st *state) constant(c *syntax.BinaryCmd) bool {
	call, ok := c.X.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || len(call.Assigns) > 0 || len(c.X.Redirs) > 0 || c.X.Negated {
		return false
	}
	lit, ok := plainLit(call.Args[0])
	switch {
	case !ok || st.shadowed(lit):
		return false
	case c.Op == syntax.AndStmt:
		return lit == "false"
	case c.Op == syntax.OrStmt:
		return lit == "true" || lit == ":"
	}
	return false
}

// pipeSide returns the state for one side of a pipeline, or for a
// command run in the background: bash runs each in a subshell (zsh runs
// the last side in the current shell; treating it as a subshell only
// loses a cd, which then stays known). The working directory is recorded
// for expansions first, so that the sides share it instead of each
// recording it in a layer of its own.
func (st *state) pipeSide() *state {
	st.env.setPWD(st.dir)
	return st.subshell()
}

func (w *walker) forClause(st *state, c *syntax.ForClause) {
	iter, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		w.substitutions(st, c.Loop)
		w.arith(st, c.Loop)
		for pass := 0; pass < 1 || pass < 2 && loopDefines(c); pass++ {
			w.branch(st, func(b *state) { w.stmts(b, c.Do) })
		}
		return
	}
	items, err := w.fields(st, iter.Items)
	if err != nil || len(items) == 0 || len(items) > 16 || !slices.ContainsFunc(items, Word.IsKnown) {
		items = []Word{{Text: Unknown}}
		if loopDefines(c) {
			items = append(items, items[0]) // a second pass sees what the first defined
		}
	}
	for _, item := range items {
		// The variable and what the body assigns stay set for the next
		// pass and after the loop, as in the shell.
		st.env.setString(iter.Name.Value, item.Text, false)
		w.branch(st, func(b *state) { w.stmts(b, c.Do) })
	}
}

// substitutions walks the command substitutions inside any node.
func (w *walker) substitutions(st *state, node syntax.Node) {
	if node == nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			w.stmts(st.subshell().nested("$(...)", false), n.Stmts)
			return false
		case *syntax.ProcSubst:
			w.stmts(st.subshell().nested("<(...)", false), n.Stmts)
			return false
		}
		return true
	})
}

func (w *walker) decl(st *state, c *syntax.DeclClause) {
	export := c.Variant.Value == "export"
	nameref := c.Variant.Value == "nameref"
	readonly := c.Variant.Value == "readonly"
	integer := false
	var frozen []string // made read-only once assigned
	defer func() {
		for _, name := range frozen {
			st.env.readOnly(name)
		}
	}()
	if printing := w.declPrint(st, c); printing {
		return
	}
	for _, a := range c.Args {
		if a.Name == nil || a.Naked {
			if a.Value != nil {
				v, _ := w.literal(st, a.Value)
				if name, value, ok := strings.Cut(v.Text, "="); !strings.HasPrefix(v.Text, "-") {
					w.arithValue(st, name) // declare 'a[$(cmd)]=1'
					if ok {
						w.assignNamed(st, name, value) // declare "$name=1"
					}
				}
				if strings.HasPrefix(v.Text, "-") && strings.Contains(v.Text, "n") {
					nameref = true // declare -n, typeset -n: a reference to another variable
				}
				if strings.HasPrefix(v.Text, "-") && strings.Contains(v.Text, "r") {
					readonly = true // declare -r, local -r
				}
				if strings.HasPrefix(v.Text, "-") && strings.Contains(v.Text, "i") {
					integer = true // declare -i: assignments are arithmetic
				}
			}
			if a.Naked && a.Name != nil && readonly {
				st.env.readOnly(a.Name.Value) // readonly NAME
			}
			if a.Naked && a.Name != nil && integer {
				w.integer(a.Name.Value) // declare -i NAME
			}
			if a.Naked && a.Name != nil && exportsFunc(w, st, c) {
				st.exportFuncs([]string{a.Name.Value}) // export -f NAME
			}
			continue
		}
		if readonly {
			frozen = append(frozen, a.Name.Value)
		}
		if integer {
			w.integer(a.Name.Value)
		}
		if nameref && a.Value != nil {
			if v, err := w.literal(st, a.Value); err == nil && syntax.ValidName(v.Text) {
				st.env.put(a.Name.Value, expand.Variable{Set: true, Kind: expand.NameRef, Str: v.Text})
				continue
			} else if err == nil && strings.Contains(v.Text, "[") {
				// A reference to an element (declare -n r='a[$(cmd)]'):
				// its subscript is evaluated where the reference is
				// used, walked here.
				w.arithValue(st, v.Text)
			}
		}
		w.assign(st, a, export)
		if v, set := st.env.lookup(a.Name.Value); set {
			w.envCode(st, a.Name.Value, v) // export GIT_EDITOR='...', as GIT_EDITOR='...' alone
		}
	}
}

// declPrint reports a declaration that prints variables (declare -p,
// export -p) as a command, so that the rules judge what it shows.
func (w *walker) declPrint(st *state, c *syntax.DeclClause) bool {
	args := []Word{{Text: c.Variant.Value}}
	printing := false
	for _, a := range c.Args {
		switch {
		case a.Naked && a.Value != nil:
			v, _ := w.literal(st, a.Value)
			printing = printing || v.Text == "-p" || strings.HasPrefix(v.Text, "-") && strings.Contains(v.Text, "p")
			args = append(args, v)
		case a.Naked && a.Name != nil:
			args = append(args, Word{Text: a.Name.Value})
		default:
			return false
		}
	}
	if printing {
		w.run(st, Command{Args: args, StdinFrom: -1, Pos: c.Pos().String()}, nil)
	}
	return printing
}

func (w *walker) assign(st *state, a *syntax.Assign, export bool) {
	// a[$(cmd)]=1, a[i]=1, a=([i]=1): the subscripts are expanded and
	// evaluated.
	w.subscripts(st, a)
	if w.shellArray(st, a) {
		return
	}
	if a.Name != nil && a.Name.Value == "POSIXLY_CORRECT" && st.dialect == Bash {
		st.posix = true // bash enters POSIX mode when it is assigned
	}
	if a.Value == nil && a.Array != nil {
		var list []string
		for _, el := range a.Array.Elems {
			if el.Value == nil {
				continue
			}
			fs, err := w.fields(st, []*syntax.Word{el.Value})
			if err != nil {
				w.abort(st, a.Pos(), err)
				return
			}
			list = append(list, wordTexts(fs)...)
		}
		st.env.Set(a.Name.Value, expand.Variable{Set: true, Kind: expand.Indexed, List: list})
		return
	}
	if a.Value == nil {
		st.env.setString(a.Name.Value, "", export)
		return
	}
	v, err := w.literal(st, a.Value)
	if err != nil {
		w.abort(st, a.Pos(), err)
		return
	}
	if a.Append {
		old, _ := st.env.lookup(a.Name.Value)
		v.Text = old + v.Text
	}
	if w.integers[a.Name.Value] {
		w.arithValue(st, v.Text)
	}
	st.env.setString(a.Name.Value, v.Text, export)
}

func (w *walker) abort(st *state, pos syntax.Pos, err error) {
	var unset expand.UnsetParameterError
	if errors.As(err, &unset) && unset.Node != nil && unset.Node.Param != nil {
		why := unset.Message
		if why == "" {
			why = "parameter null or not set"
		}
		err = fmt.Errorf("%s: %s", unset.Node.Param.Value, why)
	}
	w.problem(ProblemAbort, pos.String(), "the shell stops here: %v; nothing after it runs", err)
	*st.stop = true
}

// config returns the expansion settings for st. Command substitutions
// are walked as commands and stand for their known output, or Unknown.
func (w *walker) config(st *state) *expand.Config {
	x := w.newExpander()
	x.set(st)
	return &x.cfg
}

// An expander is the expansion settings for one state ([walker.config])
// with what its callbacks need. The words a script expands one at a time
// take one from the walker and give it back when their expansion is
// done ([walker.takeExpander]): each made a new expand.Config, and the
// functions in it, before. One is never shared by two expansions under
// way (a command substitution's words, expanded inside another word's
// expansion, take another), and every setting is set anew from the
// state when one is taken; what expand.Config keeps of its own between
// calls is scratch space it resets at each use.
type expander struct {
	cfg expand.Config
	w   *walker
	st  *state
}

func (w *walker) newExpander() *expander {
	x := &expander{w: w}
	x.cfg.ReadDir2 = w.readDir
	x.cfg.CmdSubst = x.cmdSubst
	x.cfg.ProcSubst = x.procSubst
	return x
}

// set makes x the settings for st.
func (x *expander) set(st *state) {
	st.env.setPWD(st.dir)
	x.st = st
	x.cfg.Env = st.env
	x.cfg.NoUnset = st.nounset
	x.cfg.ExtGlob = st.dialect != POSIX
	x.cfg.GlobStar = st.globs.globstar
	x.cfg.DotGlob = st.globs.dotglob
	x.cfg.NullGlob = st.globs.nullglob
	x.cfg.NoCaseGlob = st.globs.nocaseglob
}

func (x *expander) cmdSubst(wr io.Writer, cs *syntax.CmdSubst) error {
	w := x.w
	sub := x.st.subshell().nested("$(...)", false)
	out := w.stmts(sub, cs.Stmts)
	io.WriteString(wr, w.output(out))
	return nil
}

func (x *expander) procSubst(ps *syntax.ProcSubst) (string, error) {
	w := x.w
	out := w.stmts(x.st.subshell().nested("<(...)", false), ps.Stmts)
	path := fmt.Sprintf("/dev/fd/%d", 63+len(w.files))
	w.files[path] = w.rawOutput(out)
	return path, nil
}

// takeExpander returns the expansion settings for st, for expansions
// done before [walker.giveExpander] gives them back.
func (w *walker) takeExpander(st *state) *expander {
	var x *expander
	if n := len(w.expanders); n > 0 {
		x, w.expanders = w.expanders[n-1], w.expanders[:n-1]
	} else {
		x = w.newExpander()
	}
	x.set(st)
	return x
}

// giveExpander keeps x for the next expansion.
func (w *walker) giveExpander(x *expander) {
	x.st, x.cfg.Env = nil, nil
	w.expanders = append(w.expanders, x)
}

// globOpts are the shell options that change globbing.
type globOpts struct {
	globstar, dotglob, nullglob, nocaseglob bool
	expandAliases                           bool // bash expands aliases in scripts only with this
}

// set turns a globbing option on or off by its bash or zsh name, and
// reports whether it was one.
func (g *globOpts) set(name string, on bool) bool {
	switch strings.ToLower(strings.ReplaceAll(name, "_", "")) {
	case "globstar", "globstarshort":
		g.globstar = on
	case "dotglob", "globdots":
		g.dotglob = on
	case "nullglob":
		g.nullglob = on
	case "nocaseglob":
		g.nocaseglob = on
	case "expandaliases":
		g.expandAliases = on
	default:
		return false
	}
	return true
}

// output returns the known standard output of command i without its
// trailing newlines (as a substitution sees it), or Unknown.
func (w *walker) output(i int) string {
	if p := w.out[i]; p != nil {
		return strings.TrimRight(*p, "\n")
	}
	return Unknown
}

// rawOutput returns the known output of command i, or Unknown.
func (w *walker) rawOutput(i int) string {
	if p := w.out[i]; p != nil {
		return *p
	}
	return Unknown
}

// fields expands words into argument fields, like the shell would.
func (w *walker) fields(st *state, words []*syntax.Word) ([]Word, error) {
	out := make([]Word, 0, len(words))
	var cfg *expand.Config
	for _, word := range words {
		if lit, ok := plainLit(word); ok {
			w.m.words++
			out = append(out, Word{Text: lit})
			continue
		}
		if cfg == nil {
			x := w.takeExpander(st)
			defer w.giveExpander(x)
			cfg = &x.cfg
		}
		vars := wordVars(word, st.env)
		computed := isComputed(word)
		words := []*syntax.Word{word}
		if st.dialect != POSIX && hasBrace(word) {
			words = w.braces(word)
		}
		if st.dialect == Zsh && zshSpecial(word) || !w.expanding(st, word, true) {
			out = append(out, Word{Text: Unknown, Vars: vars})
			continue
		}
		for _, bw := range words {
			var fs []string
			err := noPanic(func() (err error) { fs, err = expand.Fields(cfg, bw); return err })
			if err != nil {
				if w.certainAbort(st, err) {
					return nil, err
				}
				fs = []string{Unknown} // the judge cannot expand it: unknown
			}
			if !st.globs.dotglob {
				fs = hideDotfiles(bw, fs)
			}
			fs = w.dotPattern(st, bw, fs)
			if !w.expanded(word.Pos(), len(fs), textLen(fs)) {
				fs = []string{Unknown}
			}
			for _, f := range fs {
				f = tildeDir(st, tildeUnset(st, tildeAfterEquals(st, f, bw), bw))
				wd := w.word0(st, f, vars)
				wd.Computed = computed
				out = append(out, wd)
			}
		}
	}
	return out, nil
}

// hideDotfiles drops the names starting with "." that a glob's last
// element matched though it does not start with "." itself (bash's "*.*"
// and "*.env" do not match ".env" unless dotglob is set). When nothing is
// left, the pattern stays as it is written, as bash leaves it.
func hideDotfiles(word *syntax.Word, fields []string) []string {
	// The last element must be all literal: D=.; echo $D* matches
	// dotfiles, its leading dot made by a variable.
	tail := ""
	for n := len(word.Parts) - 1; !strings.Contains(tail, "/"); n-- {
		if n < 0 {
			break
		}
		lit, ok := word.Parts[n].(*syntax.Lit)
		if !ok {
			return fields
		}
		tail = lit.Value + tail
	}
	pat := tail[strings.LastIndexByte(tail, '/')+1:]
	if pat == "" || pat[0] == '.' || !strings.ContainsAny(pat, "*?[") {
		return fields
	}
	out := fields[:0:0]
	for _, f := range fields {
		if base := f[strings.LastIndexByte(f, '/')+1:]; !strings.HasPrefix(base, ".") {
			out = append(out, f)
		}
	}
	if len(out) == 0 && len(fields) > 0 {
		f := fields[0]
		return []string{f[:strings.LastIndexByte(f, '/')+1] + pat} // the directory as expanded
	}
	return out
}

// dotPattern matches a last element that starts with "." and that the
// expander left unmatched (".[!.]*", ".[^.]*"), as bash does: a pattern
// with a leading "." matches dotfiles, but never "." or "..".
func (w *walker) dotPattern(st *state, word *syntax.Word, fields []string) []string {
	if len(fields) != 1 || st.dir == "" {
		return fields
	}
	var b strings.Builder
	for _, p := range word.Parts {
		lit, ok := p.(*syntax.Lit)
		if !ok {
			return fields
		}
		b.WriteString(lit.Value)
	}
	if b.String() != fields[0] {
		return fields
	}
	dir, pat := ".", fields[0]
	if k := strings.LastIndexByte(pat, '/'); k >= 0 {
		dir, pat = pat[:k+1], pat[k+1:]
	}
	if !strings.HasPrefix(pat, ".") || !strings.ContainsAny(pat, "*?[") || strings.ContainsAny(dir, "*?[\\") {
		return fields
	}
	expr, err := pattern.Regexp(pat, pattern.EntireString)
	if err != nil {
		return fields
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return fields
	}
	entries, err := w.readDir(st.abs(dir))
	if err != nil {
		return fields
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); n != "." && n != ".." && re.MatchString(n) {
			if dir == "." {
				out = append(out, n)
			} else {
				out = append(out, dir+n)
			}
		}
	}
	if len(out) == 0 {
		return fields
	}
	return out
}

// isComputed reports whether a word's value comes from a substitution or
// a variable.
func isComputed(word *syntax.Word) bool {
	computed := false
	syntax.Walk(word, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ParamExp, *syntax.ProcSubst, *syntax.ArithmExp:
			computed = true
		}
		return !computed
	})
	return computed
}

// zshSpecial reports whether a zsh word uses expansions the judge does not
// model (glob qualifiers, history modifiers, ${~x}, ${(f)x}): its value
// is then unknown.
func zshSpecial(word *syntax.Word) bool {
	var sb strings.Builder
	syntax.NewPrinter().Print(&sb, word)
	src := sb.String()
	if strings.Contains(src, "${~") || strings.Contains(src, "${(") || strings.Contains(src, "${=") {
		return true
	}
	for _, p := range word.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.ContainsAny(lit.Value, "()") {
			return true
		}
	}
	for _, m := range []string{":h", ":t", ":a", ":A", ":r", ":e", ":P", ":s", ":u", ":l", ":q", ":c"} {
		if strings.Contains(src, m) {
			return true
		}
	}
	return false
}

// tildeAfterEquals applies bash's tilde expansion after "=" in a word
// that looks like an assignment (make PREFIX=~/x, dd of=~/x).
func tildeAfterEquals(st *state, field string, word *syntax.Word) string {
	if len(word.Parts) == 0 {
		return field
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if !ok {
		return field
	}
	name, rest, found := strings.Cut(lit.Value, "=")
	if !found || !syntax.ValidName(name) || !strings.HasPrefix(rest, "~") || field != lit.Value && len(word.Parts) == 1 {
		return field
	}
	if rest != "~" && !strings.HasPrefix(rest, "~/") {
		return field
	}
	home, _ := st.env.lookup("HOME")
	return name + "=" + home + strings.TrimPrefix(field[len(name)+1:], "~")
}

// hasBrace reports whether a word has an unquoted "{", the start of a
// possible brace expansion.
func hasBrace(word *syntax.Word) bool {
	for _, p := range word.Parts {
		if lit, ok := p.(*syntax.Lit); ok && strings.Contains(lit.Value, "{") {
			return true
		}
	}
	return false
}

// plainLit returns the value of a word that expansion leaves as it is:
// one literal part with nothing to expand, split or match.
func plainLit(word *syntax.Word) (string, bool) {
	if len(word.Parts) != 1 {
		return "", false
	}
	lit, ok := word.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(lit.Value, "*?[{~\\") {
		return "", false
	}
	return lit.Value, true
}

// braces performs brace expansion ({a,b}, {1..3}) where the dialect
// has it.
func (w *walker) braces(word *syntax.Word) []*syntax.Word {
	// SplitBraces rewrites the word it is given; the script's own tree
	// stays as parsed (loop bodies and functions are walked again).
	cp := *word
	cp.Parts = append([]syntax.WordPart(nil), word.Parts...)
	word = &cp
	if !syntax.SplitBraces(word) {
		return []*syntax.Word{word}
	}
	var out []*syntax.Word
	for bw, err := range expand.BracesSeq(nil, word) {
		if err != nil {
			// Too many words to follow: one unknown word stands for them.
			return []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: Unknown}}}}
		}
		out = append(out, joinLits(bw))
	}
	return out
}

// joinLits merges adjacent literal parts, so that a word produced by
// brace expansion ("~" and "") gets tilde expansion like the shell's.
func joinLits(w *syntax.Word) *syntax.Word {
	var parts []syntax.WordPart
	for _, p := range w.Parts {
		lit, ok := p.(*syntax.Lit)
		if prev, pok := lastLit(parts); ok && pok {
			parts[len(parts)-1] = &syntax.Lit{ValuePos: prev.ValuePos, ValueEnd: lit.ValueEnd, Value: prev.Value + lit.Value}
			continue
		}
		parts = append(parts, p)
	}
	return &syntax.Word{Parts: parts}
}

func lastLit(parts []syntax.WordPart) (*syntax.Lit, bool) {
	if len(parts) == 0 {
		return nil, false
	}
	lit, ok := parts[len(parts)-1].(*syntax.Lit)
	return lit, ok
}

// word0 builds a Word from an expanded field. A field whose value is
// unknown past a known directory ("$HOME/$(ls)") is known to lie under
// that directory.
func (w *walker) word0(st *state, text string, vars []string) Word {
	wd := Word{Text: text, Vars: vars}
	i := strings.Index(text, Unknown)
	if i < 0 {
		return wd
	}
	if j := strings.LastIndexByte(text[:i], '/'); j >= 0 {
		if dir := st.abs(text[:max(j, 1)]); dir != "" {
			wd.Under = dir
		}
	}
	return wd
}

// literal expands one word without splitting or globbing.
func (w *walker) literal(st *state, word *syntax.Word) (Word, error) {
	if lit, ok := plainLit(word); ok && !w.m.over {
		// Nothing to expand (a redirection's file name, mostly): no
		// expansion's configuration made for it, counted all the same.
		w.m.at = word.Pos()
		if !w.expanded(word.Pos(), 1, len(lit)) {
			lit = Unknown
		}
		return Word{Text: lit}, nil
	}
	if !w.expanding(st, word, false) {
		return Word{Text: Unknown, Vars: wordVars(word, st.env)}, nil
	}
	var s string
	x := w.takeExpander(st)
	err := noPanic(func() (err error) { s, err = expand.Literal(&x.cfg, word); return err })
	w.giveExpander(x)
	if err != nil && !w.certainAbort(st, err) {
		s, err = Unknown, nil // the judge cannot expand it: unknown
	}
	if !w.expanded(word.Pos(), 1, len(s)) {
		s = Unknown
	}
	return Word{Text: s, Vars: wordVars(word, st.env)}, err
}

// textLen is the bytes of fields, together.
func textLen(fields []string) int {
	n := 0
	for _, f := range fields {
		n += len(f)
	}
	return n
}

func (w *walker) word(st *state, word *syntax.Word) {
	if word != nil {
		w.literal(st, word)
	}
}

// wordVars lists the variables a word's value comes from; for an
// indirect ${!name}, the variable name names too.
func wordVars(word *syntax.Word, e *env) []string {
	if _, ok := plainLit(word); ok {
		return nil
	}
	var vars []string
	syntax.Walk(word, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && !pe.Length {
			vars = append(vars, pe.Param.Value)
			if pe.Excl && e != nil {
				if target, ok := e.lookup(pe.Param.Value); ok && syntax.ValidName(target) {
					vars = append(vars, target)
				}
			}
		}
		return true
	})
	return vars
}

// tildeDir expands the "~+" (working directory) and "~-" (previous
// directory) prefixes.
func tildeDir(st *state, field string) string {
	if !strings.HasPrefix(field, "~+") && !strings.HasPrefix(field, "~-") || len(field) > 2 && field[2] != '/' {
		return field
	}
	dir := st.dir
	if field[1] == '-' {
		dir, _ = st.env.lookup("OLDPWD")
	}
	if dir == "" {
		return Unknown + field[2:]
	}
	return dir + field[2:]
}

// redirs expands redirections to files; heredocs and here-strings give
// the command's known input.
func (w *walker) redirs(st *state, rs []*syntax.Redirect) ([]Redir, *string) {
	var out []Redir
	var input *string
	for _, r := range rs {
		if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
			// {X}>file: the shell sets X to the descriptor it opens,
			// 10 or above (>&$X is a descriptor, not a file). An
			// array's element, {X[1]}>, sets the array.
			if name, _, _ := strings.Cut(strings.Trim(r.N.Value, "{}"), "["); syntax.ValidName(name) {
				st.env.setString(name, "10", false)
			}
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil && !w.expanding(st, r.Hdoc, false) {
				continue
			}
			var s string
			err := noPanic(func() (err error) { s, err = expand.Document(w.config(st), r.Hdoc); return err })
			if err == nil && !w.expanded(r.Pos(), 1, len(s)) {
				continue
			}
			if quotedHdoc(r.Word) {
				s = hdocText(r.Hdoc)
				err = nil
			}
			if err == nil {
				input = &s
			}
			continue
		case syntax.WordHdoc:
			if v, err := w.literal(st, r.Word); err == nil {
				s := v.Text + "\n"
				input = &s
			}
			continue
		case syntax.DplIn, syntax.DplOut:
			if v, err := w.literal(st, r.Word); err == nil && isFdNumber(v.Text) {
				if n, err := strconv.Atoi(v.Text); err == nil && r.Op == syntax.DplIn && n >= 3 {
					s := Caller
					input = &s
				}
				continue
			}
		}
		v, err := w.literal(st, r.Word)
		if err != nil {
			continue
		}
		rd := Redir{Op: redirOp(r.Op), Fd: redirFd(r), Target: v}
		out = append(out, rd)
		if rd.Op == RedirRead {
			if data, ok := w.readKnown(st, v.Text); ok {
				input = &data
			} else {
				s := Unknown
				input = &s
			}
		}
	}
	return out, input
}

func isFdNumber(s string) bool {
	return s == "-" || (s != "" && strings.Trim(s, "0123456789") == "")
}

func quotedHdoc(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return true
		}
	}
	return false
}

func hdocText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var sb strings.Builder
	syntax.NewPrinter().Print(&sb, w)
	return sb.String()
}

func redirOp(op syntax.RedirOperator) RedirOp {
	switch op {
	case syntax.RdrIn:
		return RedirRead
	case syntax.AppOut, syntax.AppAll, syntax.AppClob, syntax.AppAllClob:
		return RedirAppend
	case syntax.RdrInOut:
		return RedirRW
	}
	return RedirWrite
}

func redirFd(r *syntax.Redirect) int {
	if r.N != nil && len(r.N.Value) == 1 && r.N.Value[0] >= '0' && r.N.Value[0] <= '9' {
		return int(r.N.Value[0] - '0')
	}
	if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut {
		return 0
	}
	return 1
}

// abs resolves p against st's directory; "" when it cannot be known.
func (st *state) abs(p string) string {
	if strings.Contains(p, Unknown) {
		return ""
	}
	if st.windows {
		return winJoin(st.dir, winpath.FromMSYS(p))
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if st.dir == "" {
		return ""
	}
	return filepath.Join(st.dir, p)
}

// readKnown returns the content of a file the script wrote earlier, or
// of a real file on disk.
func (w *walker) readKnown(st *state, p string) (string, bool) {
	path := st.abs(p)
	if path == "" {
		return "", false
	}
	if s, ok := w.files[path]; ok {
		return s, !strings.Contains(s, Unknown)
	}
	data, err := readText(w.cfg, path)
	if err != nil {
		return "", false
	}
	return data, true
}

// emit records a command and returns its index.
func (w *walker) emit(st *state, c Command) int {
	if len(w.res.Commands) >= w.m.Commands {
		// Code that fans out (recursive functions, aliases, loops) is
		// followed only so far.
		w.exceed(c.Pos, "the script unfolds into more than %d commands", w.m.Commands)
	}
	if w.m.over {
		*st.stop = true
	}
	c.Dir = st.dir
	c.Via = st.via
	c.Dialect = st.dialect
	c.Privileged = c.Privileged || st.priv
	c.Elsewhere = st.remote
	if cmds := w.res.Commands; len(cmds) == cap(cmds) {
		// Doubled: append grows a long slice by a quarter, and a long
		// script's commands would be copied over and over.
		w.res.Commands = slices.Grow(cmds, max(len(cmds), 16))
	}
	w.res.Commands = append(w.res.Commands, c)
	return len(w.res.Commands) - 1
}

// reserve makes room in the result for the simple commands of the
// parsed file f, at once: a long script's thousands of commands, grown
// by doubling, were copied a dozen times and left twice their size.
// Functions' bodies are not counted: they run only when called (a
// shell snapshot defines hundreds, and calls few).
func (w *walker) reserve(f *syntax.File) {
	if len(f.Stmts) < 64 {
		return
	}
	w.reserveMore(countCalls(f.Stmts))
}

// reserveMore makes room in the result for n more commands, at once;
// at least doubled, when it must grow: n is a part of a script not
// parsed whole ([walker.parseAhead]), and the next part must not copy
// the commands over again.
func (w *walker) reserveMore(n int) {
	cmds := w.res.Commands
	if n = min(n, w.m.Commands-len(cmds)); n > cap(cmds)-len(cmds) {
		w.res.Commands = slices.Grow(cmds, max(n, len(cmds)))
	}
}

// countCalls counts the simple commands in stmts, outside functions'
// bodies. The lists and compound commands a long script is made of are
// gone through here, the rest with [syntax.Walk] (whose every step costs
// more than the few these take).
func countCalls(stmts []*syntax.Stmt) int {
	n := 0
	for _, s := range stmts {
		n += countStmt(s)
	}
	return n
}

func countStmt(s *syntax.Stmt) int {
	if s == nil {
		return 0
	}
	n := 0
	for _, r := range s.Redirs {
		if r.Hdoc != nil || !plainText(r.Word) {
			n += walkCalls(r)
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		for _, w := range c.Args {
			if !plainText(w) {
				return n + walkCalls(c)
			}
		}
		if len(c.Assigns) > 0 {
			return n + walkCalls(c)
		}
		return n + 1
	case *syntax.BinaryCmd:
		return n + countStmt(c.X) + countStmt(c.Y)
	case *syntax.Block:
		return n + countCalls(c.Stmts)
	case *syntax.Subshell:
		return n + countCalls(c.Stmts)
	case *syntax.FuncDecl:
		return n
	case nil:
		return n
	}
	return n + walkCalls(s.Cmd)
}

// walkCalls counts the simple commands in node, outside functions'
// bodies, with [syntax.Walk].
func walkCalls(node syntax.Node) int {
	n := 0
	syntax.Walk(node, func(node syntax.Node) bool {
		switch node.(type) {
		case *syntax.FuncDecl:
			return false
		case *syntax.CallExpr:
			n++
		}
		return true
	})
	return n
}

// plainText reports whether a word is literal and quoted text alone.
func plainText(word *syntax.Word) bool {
	for _, p := range word.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// hold returns data to keep as known content, or Unknown once the
// script's known data passes maxHeld bytes (content that doubles at every
// step must not exhaust memory).
func (w *walker) hold(data string) string {
	w.bytes += len(data)
	if w.bytes > maxHeld {
		return Unknown
	}
	return data
}

// recordWrites remembers what command i wrote to files through its
// redirections, so a script written and then run is judged too.
func (w *walker) recordWrites(st *state, i int) {
	for _, r := range w.res.Commands[i].Redirs {
		if r.Op != RedirWrite && r.Op != RedirAppend || r.Fd != 1 {
			continue
		}
		path := st.abs(r.Target.Text)
		if path == "" {
			continue
		}
		data := Unknown
		if p := w.out[i]; p != nil {
			data = *p
		}
		if r.Op == RedirAppend {
			data = w.files[path] + data
		}
		w.byName.add(path)
		w.files[path] = w.hold(data)
		w.madeFile(path)
		w.rewritesReading(i, path)
	}
}

// joinWords joins words with spaces, as eval joins its arguments.
func joinWords(ws []Word) string {
	var b bytes.Buffer
	for i, x := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.Text)
	}
	return b.String()
}

// errExpand is what an expansion that panicked in package expand
// returns: the word is unknown to the judge (bash reports most such
// words as a bad substitution).
var errExpand = errors.New("the expander failed on this word")

// noPanic runs an expansion, turning a panic of package expand (it
// panics on some operators it does not know, such as ${x@Q0000}) into
// errExpand.
func noPanic(f func() error) (err error) {
	defer func() {
		if recover() != nil {
			err = errExpand
		}
	}()
	return f()
}

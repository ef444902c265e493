package powershell

import (
	"strings"
)

// Limits on the work one call of [Commands] does.
const (
	maxDepth    = 12        // nested carriers (Invoke-Expression, script blocks, files)
	maxCommands = 20000     // commands reported
	maxBytes    = 8 << 20   // bytes of strings built by evaluation
	maxSteps    = 4_000_000 // statements and expressions visited
)

// walker walks a syntax tree, evaluating what it can and reporting the
// commands it finds.
type walker struct {
	cfg      *Config
	res      *Result
	core     bool
	scopes   []map[string]value // innermost last; keys from varKey
	env      map[string]value   // $env: assignments, keys lower case
	aliases  map[string]string  // Set-Alias, keys lower case
	funcs    map[string]string  // defined functions, lower case to as written
	dir      string
	dirStack []string
	via      []string
	priv     bool
	depth    int
	f        *file
	log      []string // variables assigned, in order
	steps    int
	bytes    int
	stopped  bool
	item     *value // $_ in a ForEach-Object or Where-Object block
	// blockParams are the arguments of & { param(...) ... } args, for the
	// block's param() to bind.
	blockParams []eArg
	written     map[string]string // files the script writes, by lower-case path
}

func newWalker(cfg *Config, res *Result) *walker {
	return &walker{
		cfg:     cfg,
		res:     res,
		core:    cfg.Core,
		scopes:  []map[string]value{{}},
		env:     map[string]value{},
		aliases: map[string]string{},
		funcs:   map[string]string{},
		dir:     cfg.Dir,
	}
}

// problem records a problem at offset off of the current file.
func (w *walker) problem(kind ProblemKind, off int, msg string) {
	pos := "1:1"
	if w.f != nil {
		pos = w.f.position(off)
	}
	w.res.Problems = append(w.res.Problems, Problem{Kind: kind, Pos: pos, Msg: msg})
}

// step counts work, and stops the walk when there is too much.
func (w *walker) step() {
	w.steps++
	if w.steps == maxSteps {
		w.problem(ProblemLimit, 0, "script too costly to follow: the rest was not read")
		w.stopped = true
	}
}

// grow accounts for n bytes of built string, and reports whether the
// budget allows them.
func (w *walker) grow(n int) bool {
	w.bytes += n
	return w.bytes <= maxBytes && n <= maxBytes
}

// script parses and walks the top-level script.
func (w *walker) script(src string, depth int) {
	w.depth = depth
	if depth > maxDepth {
		w.f = newFile(src)
		w.problem(ProblemDepth, 0, "code nested too deep to follow")
		return
	}
	w.text(src)
}

// text parses src as a new file and walks it in the current context.
func (w *walker) text(src string) {
	f := newFile(src)
	saved := w.f
	w.f = f
	stmts, err := parseScript(f, w.core)
	w.stmts(stmts)
	if err != nil {
		w.problem(ProblemSyntax, err.off, err.msg)
	}
	w.f = saved
}

// enterCarrier pushes a carrier; it reports false, with a problem, when
// that would nest too deep.
func (w *walker) enterCarrier(label string, off int) bool {
	if w.depth+1 > maxDepth {
		w.problem(ProblemDepth, off, "code nested too deep to follow: "+label)
		return false
	}
	w.depth++
	w.via = append(w.via, label)
	return true
}

func (w *walker) leaveCarrier() {
	w.depth--
	w.via = w.via[:len(w.via)-1]
}

// runText walks code known only at run time (Invoke-Expression): it
// reports false when the code could not be followed.
func (w *walker) runText(code, label string, off int) bool {
	if !w.enterCarrier(label, off) {
		return false
	}
	defer w.leaveCarrier()
	w.text(code)
	return true
}

// runBlock walks a script block; it reports false when the block's code
// is unknown or nested too deep. newScope gives it its own variables.
func (w *walker) runBlock(b *blockValue, label string, newScope bool, off int) bool {
	if b.sb == nil {
		return false
	}
	labels := append([]string{label}, b.via...)
	n := 0
	for _, l := range labels {
		if !w.enterCarrier(l, off) {
			break
		}
		n++
	}
	defer func() {
		for range n {
			w.leaveCarrier()
		}
	}()
	if n < len(labels) {
		return false
	}
	saved := w.f
	w.f = b.sb.f
	if newScope {
		w.scopes = append(w.scopes, map[string]value{})
	}
	w.stmts(b.sb.body)
	if newScope {
		w.scopes = w.scopes[:len(w.scopes)-1]
	}
	w.f = saved
	return true
}

func (w *walker) stmts(list []stmt) {
	for _, s := range list {
		if w.stopped {
			return
		}
		v := w.stmt(s)
		if pl, ok := s.(*pipeline); ok && len(pl.elems) == 1 {
			if e, ok := pl.elems[0].(*exprElem); ok && len(e.redirs) == 0 {
				w.printed(v, e.pos)
			}
		}
	}
}

// printed reports the value of an expression statement, which
// PowerShell writes to the output, as Write-Output of it: $env:TOKEN
// alone prints the token. Literal text and values not known are left
// out.
func (w *walker) printed(v value, off int) {
	if !v.comp || v.k == kBlock || v.k == kHash || v.k == kObj || v.k == kUnknown || v.k == kNull {
		return
	}
	c := Command{Name: "Write-Output", Pos: w.f.position(off), StdinFrom: -1}
	for j, e := range v.elems() {
		if !e.known() {
			return
		}
		c.Args = append(c.Args, Arg{Text: e.str(), Computed: true, More: j > 0})
	}
	w.emit(c)
}

// stmt walks a statement and returns its output, as far as it is known.
func (w *walker) stmt(s stmt) value {
	w.step()
	if w.stopped {
		return unknownValue
	}
	switch s := s.(type) {
	case *pipeline:
		return w.pipeline(s)
	case *chainStmt:
		for _, pl := range s.pipes {
			w.pipeline(pl)
		}
	case *assignStmt:
		w.assign(s)
		return value{k: kNull}
	case *ifStmt:
		mark := len(w.log)
		for i, c := range s.conds {
			w.stmt(c)
			w.stmts(s.bodies[i])
		}
		w.stmts(s.els)
		w.forget(w.log[mark:])
	case *loopStmt:
		w.forget(s.assigned)
		if s.varX != nil {
			w.setVar(s.varX.(*varExpr).name, unknownValue)
		}
		for _, part := range []stmt{s.init, s.cond, s.iter} {
			if part != nil {
				w.stmt(part)
			}
		}
		w.stmts(s.body)
		w.forget(s.assigned)
	case *switchStmt:
		w.switchStmt(s)
	case *tryStmt:
		mark := len(w.log)
		w.stmts(s.body)
		for _, c := range s.catches {
			w.stmts(c)
		}
		w.stmts(s.finally)
		w.forget(w.log[mark:])
	case *blockStmt:
		w.stmts(s.body)
	case *funcDef:
		w.funcs[strings.ToLower(s.name)] = s.name
		w.runBlock(&blockValue{sb: s.body}, "function "+s.name, true, s.pos)
	case *flowStmt:
		if s.value != nil {
			w.stmt(s.value)
		}
	case *paramStmt:
		for _, d := range s.defaults {
			w.eval(d)
		}
		args := w.blockParams
		w.blockParams = nil // only the block's own param() binds them
		for i, v := range bindBlock(s.names, args) {
			w.setVar(s.names[i], v)
		}
	}
	return unknownValue
}

func (w *walker) switchStmt(s *switchStmt) {
	if s.subject != nil {
		w.stmt(s.subject)
	}
	if s.file != nil {
		w.eval(s.file)
	}
	w.forget(s.assigned)
	mark := len(w.log)
	for i, c := range s.conds {
		if c != nil {
			if v := w.eval(c); v.k == kBlock {
				w.runBlock(v.blk, "switch {}", false, 0)
			}
		}
		w.stmts(s.bodies[i])
	}
	w.forget(w.log[mark:])
	w.forget(s.assigned)
}

// forget makes the variables named unknown: they were assigned in a
// branch or a loop, which may or may not have run.
func (w *walker) forget(names []string) {
	for _, n := range append([]string(nil), names...) {
		if strings.HasPrefix(n, "env:") {
			w.env[n[4:]] = unknownValue
			continue
		}
		w.scopes[len(w.scopes)-1][n] = unknownValue
	}
}

// setVar assigns a variable, $env: ones included.
func (w *walker) setVar(name string, v value) {
	key := varKey(name)
	w.log = append(w.log, key)
	if strings.HasPrefix(key, "env:") {
		w.env[key[4:]] = v
		return
	}
	scope := w.scopes[len(w.scopes)-1]
	if l := strings.ToLower(name); strings.HasPrefix(l, "global:") || strings.HasPrefix(l, "script:") {
		scope = w.scopes[0]
	}
	scope[key] = v
}

// getenv looks up an environment variable, assignments included.
func (w *walker) getenv(name string) (value, bool) {
	if v, ok := w.env[strings.ToLower(name)]; ok {
		return v, v.k != kNull
	}
	if w.cfg.Getenv != nil {
		if s, ok := w.cfg.Getenv(name); ok {
			return strValue(s), true
		}
	}
	return value{k: kNull}, false
}

// variable returns the value of $name.
func (w *walker) variable(name string) value {
	key := varKey(name)
	if strings.HasPrefix(key, "env:") {
		v, _ := w.getenv(name[strings.IndexByte(name, ':')+1:])
		return v.withComp(true)
	}
	if v, ok := automatic(w, key); ok {
		return v.withComp(true)
	}
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if v, ok := w.scopes[i][key]; ok {
			return v.withComp(true)
		}
	}
	return unknownValue
}

// automatic returns the value of an automatic variable.
func automatic(w *walker, key string) (value, bool) {
	switch key {
	case "true":
		return boolValue(true), true
	case "false":
		return boolValue(false), true
	case "null":
		return value{k: kNull}, true
	case "home":
		return w.known(w.cfg.Home), true
	case "pwd":
		return w.known(w.dir), true
	case "profile":
		if w.cfg.Home == "" {
			return unknownValue, true
		}
		dir := `\Documents\WindowsPowerShell\`
		if w.core {
			dir = `\Documents\PowerShell\`
		}
		v := strValue(w.cfg.Home + dir + "Microsoft.PowerShell_profile.ps1")
		v.extra = profileMark
		return v, true
	case "executioncontext":
		return objValue(typeEngine), true
	case "_", "psitem":
		if w.item != nil {
			return *w.item, true
		}
		return unknownValue, true
	case "args", "input", "this", "matches", "pshome", "psscriptroot",
		"pscommandpath", "myinvocation", "lastexitcode", "?", "$", "^", "error":
		return unknownValue, true
	}
	if strings.Contains(key, ":") {
		return unknownValue, true
	}
	return value{}, false
}

// known returns s as a value, unknown when s is "".
func (w *walker) known(s string) value {
	if s == "" {
		return unknownValue
	}
	return strValue(s)
}

// assign walks an assignment.
func (w *walker) assign(s *assignStmt) {
	v := w.stmt(s.value)
	target := s.target
	if c, ok := target.(*castExpr); ok {
		v = w.cast(c.typ, v)
		target = c.x
	}
	switch t := target.(type) {
	case *varExpr:
		switch s.op {
		case "=":
		case "??=":
			if old := w.variable(t.name); old.k != kNull {
				v = old
			}
		default:
			v = w.binop(strings.TrimSuffix(s.op, "="), w.variable(t.name), v)
		}
		w.setVar(t.name, v)
	case *arrayLit:
		elems := v.elems()
		for i, e := range t.elems {
			ev := unknownValue
			if v.k == kArr && i < len(elems) {
				ev = elems[i]
				if i == len(t.elems)-1 && len(elems) > len(t.elems) {
					ev = arrValue(elems[i:])
				}
			}
			if x, ok := e.(*varExpr); ok {
				w.setVar(x.name, ev)
			}
		}
	default:
		w.eval(target)
		if base := baseVar(target); base != "" {
			w.setVar(base, unknownValue)
		}
	}
}

// baseVar returns the variable at the root of $x.a[1].b, or "".
func baseVar(x expr) string {
	for {
		switch t := x.(type) {
		case *varExpr:
			return t.name
		case *memberExpr:
			x = t.x
		case *indexExpr:
			x = t.x
		default:
			return ""
		}
	}
}

// pipeline walks a pipeline and returns its output.
func (w *walker) pipeline(pl *pipeline) value {
	prev := -1
	var input *value
	out := unknownValue
	for _, e := range pl.elems {
		switch e := e.(type) {
		case *exprElem:
			v := w.eval(e.x)
			if len(e.redirs) > 0 {
				w.emit(Command{Name: "Out-File", Redirs: w.redirs(e.redirs), Pos: w.f.position(e.pos), StdinFrom: -1})
			}
			input, out = &v, v
		case *command:
			prev, out = w.command(e, prev, input)
			o := out
			input = &o
		}
	}
	return out
}

// emit reports a command and returns its index, or -1 past the limit.
func (w *walker) emit(c Command) int {
	if len(w.res.Commands) >= maxCommands {
		if !w.stopped {
			w.problem(ProblemLimit, 0, "too many commands: the rest was not read")
			w.stopped = true
		}
		return -1
	}
	c.Via = append([]string(nil), w.via...)
	if len(c.Via) == 0 {
		c.Via = nil
	}
	if c.Dir == "" {
		c.Dir = w.dir
	}
	c.Privileged = c.Privileged || w.priv
	w.res.Commands = append(w.res.Commands, c)
	return len(w.res.Commands) - 1
}

// unknownCode marks command i as running code cordon cannot see.
func (w *walker) unknownCode(i int) {
	if i >= 0 {
		w.res.Commands[i].UnknownCode = true
	}
}

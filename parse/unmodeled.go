package parse

import (
	"slices"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// What the shell does that a plain reading of the script does not show:
// names that a function, an alias or a hashed path takes over, code that
// runs when the shell ends or a command is missing, a loop's second pass,
// and code in arithmetic. Where the walker cannot tell what runs, the
// code is unknown, never nothing.

// A shellInfo is what one shell process collects for its end: the code of
// its traps, run when they fire (the end of the script at the latest),
// with the functions defined by then.
type shellInfo struct {
	traps []string
}

// shadowed reports whether name runs a function or an alias rather than
// the shell's builtin of that name.
func (st *state) shadowed(name string) bool {
	if _, ok := st.funcs.defs[name]; ok {
		return true
	}
	_, ok := st.alias(name)
	return ok
}

// shadowedClause runs a function that takes the place of a builtin the
// parser reads as a clause of its own (declare, export, local, let):
// bash calls the function. It reports whether it did.
func (w *walker) shadowedClause(st *state, name string, node syntax.Node) bool {
	if _, ok := st.funcs.defs[name]; !ok {
		return false
	}
	w.substitutions(st, node)
	w.run(st, Command{Args: []Word{{Text: name}, {Text: Unknown}}, StdinFrom: -1, Pos: node.Pos().String()}, nil)
	return true
}

// shellOptions applies the options a bash process starts with: those
// of its command line, and those it takes from its environment
// (POSIXLY_CORRECT and a posix in SHELLOPTS: POSIX mode, where aliases
// are expanded in scripts too; expand_aliases in BASHOPTS).
func (st *state) shellOptions(opts []string) {
	if st.dialect != Bash {
		return
	}
	if _, ok := st.env.base["POSIXLY_CORRECT"]; ok {
		st.posix = true
	}
	for _, o := range opts {
		st.setOption(o, true)
	}
	for _, list := range [...]string{st.env.base["SHELLOPTS"], st.env.base["BASHOPTS"]} {
		for o := range strings.SplitSeq(list, ":") {
			st.setOption(o, true)
		}
	}
}

// setOption turns a shell option (set -o or shopt name) on or off.
func (st *state) setOption(name string, on bool) {
	switch name {
	case "posix":
		st.posix = on
	case "nounset":
		st.nounset = on
	case "keyword":
		st.keyword = on
	default:
		st.globs.set(name, on)
	}
}

// hashBuiltin applies hash -p PATH NAME (bash) and hash NAME=PATH
// (zsh): NAME then runs PATH.
func (st *state) hashBuiltin(args []Word) {
	for j := 0; j < len(args); j++ {
		if args[j].Text == "-p" && j+2 < len(args) {
			st.hash(args[j+2].Text, args[j+1].Text)
			return
		}
		if name, path, ok := strings.Cut(args[j].Text, "="); ok && st.dialect == Zsh {
			st.hash(name, path)
		}
	}
}

// hash makes command name run the program at path (hash -p,
// BASH_CMDS[name]=path).
func (st *state) hash(name, path string) {
	if st.hashes == nil {
		st.hashes = map[string]string{}
	}
	st.hashes[name] = path
}

// hashed replaces the name of command i by the path the shell's table
// of commands holds for it.
func (w *walker) hashed(st *state, i int) {
	c := &w.res.Commands[i]
	name := c.Name()
	if path, ok := st.hashes[name]; ok && !strings.Contains(name, "/") {
		c.Args[0] = Word{Text: path, Vars: c.Args[0].Vars, Computed: true}
	}
}

// shellArrays are the arrays whose elements define what a name runs:
// bash's BASH_ALIASES and BASH_CMDS, zsh's aliases, commands and
// functions (and its global and suffix aliases, which are not followed).
var codeArrays = map[Dialect]map[string]string{
	Bash:  {"BASH_ALIASES": "alias", "BASH_CMDS": "hash"},
	POSIX: {"BASH_ALIASES": "alias", "BASH_CMDS": "hash"},
	Zsh:   {"aliases": "alias", "commands": "hash", "functions": "function", "galiases": "", "saliases": ""},
}

// shellArray handles an assignment to an element of a [codeArrays]
// array (BASH_ALIASES[ls]='rm -rf ~'): an alias, a hashed command, a
// function. It reports whether a was one.
func (w *walker) shellArray(st *state, a *syntax.Assign) bool {
	kind, ok := "", false
	if a.Name != nil {
		kind, ok = codeArrays[st.dialect][a.Name.Value]
	}
	if !ok {
		return false
	}
	type elem struct {
		index syntax.ArithmExpr
		value *syntax.Word
	}
	var elems []elem
	if a.Index != nil {
		elems = append(elems, elem{a.Index, a.Value})
	}
	if a.Array != nil {
		for _, el := range a.Array.Elems {
			elems = append(elems, elem{el.Index, el.Value})
		}
	}
	for _, el := range elems {
		key, value := Unknown, Unknown
		if word, ok := el.index.(*syntax.Word); ok {
			if v, err := w.literal(st, word); err == nil {
				key = v.Text
			}
		}
		if el.value != nil {
			if v, err := w.literal(st, el.value); err == nil {
				value = v.Text
			}
		} else {
			value = ""
		}
		i := w.emit(st, Command{Args: []Word{{Text: a.Name.Value + "[" + key + "]=" + value}}, StdinFrom: -1, Pos: a.Pos().String()})
		switch {
		case strings.Contains(key+value, Unknown) || kind == "" || !syntax.ValidName(strings.ReplaceAll(key, "-", "_")):
			w.unknownCode(i) // a name or code not known before it runs
		case kind == "hash":
			st.hash(key, value)
		case kind == "alias":
			w.defineAlias(st, i, key, value)
		case kind == "function":
			w.parseWalk(st, key+"() {\n"+value+"\n}", "functions["+key+"]", 0)
		}
	}
	return true
}

// defineAlias records alias name=value, defined by command i.
func (w *walker) defineAlias(st *state, i int, name, value string) {
	w.aliasSeq++
	st.aliases[name] = append(st.aliases[name], aliasDef{value: value, seq: w.aliasSeq})
	if msg := aliasProblem(w.parser(st.dialect), value); msg != "" {
		// The shell pastes an alias into the line before parsing it:
		// cordon cannot follow what it makes of the rest.
		w.problem(ProblemSyntax, w.res.Commands[i].Pos, "alias %s: %s", name, msg)
		w.unknownCode(i)
	}
}

// trap records the code of trap CODE SIGNAL...: it runs when the signal
// comes, at the end of the script at the latest, and may call functions
// defined after the trap.
func (st *state) trap(args []Word) {
	if len(args) < 2 || strings.HasPrefix(args[0].Text, "-") || args[0].Text == "" || st.shell == nil {
		return
	}
	st.shell.traps = append(st.shell.traps, args[0].Text)
}

// hookNames are the functions a shell calls by itself: bash's and zsh's
// handlers of a command not found, zsh's hooks (and zsh runs a TRAPNAL
// function on signal NAL, TRAPEXIT at the end, and the functions named
// in the NAME_functions arrays of the hooks).
var hookNames = []string{"command_not_found_handle", "command_not_found_handler", "zshexit", "chpwd", "precmd", "preexec", "periodic", "zshaddhistory"}

var zshHookArrays = []string{"zshexit_functions", "chpwd_functions", "precmd_functions", "preexec_functions", "periodic_functions", "zshaddhistory_functions"}

// shellEnd walks what may run by the time a shell ends without being
// named where it runs: its traps, and the hook functions it defined.
// They see the functions defined by then; an exit does not stop them.
func (w *walker) shellEnd(st *state) {
	if st.shell == nil || w.m.over {
		return
	}
	end := *st
	end.stop, end.ret = new(bool), nil
	end.inAlias = nil
	for _, code := range slices.Clone(st.shell.traps) {
		if !strings.Contains(code, Unknown) { // else unknown code already, where it was set
			w.emit(&end, Command{Args: []Word{{Text: "trap"}, {Text: code}}, StdinFrom: -1})
			w.script(end.nested("trap", false), code, "trap")
		}
	}
	var hooks []string
	for name := range st.funcs.defs {
		if slices.Contains(hookNames, name) || strings.HasPrefix(name, "TRAP") {
			hooks = append(hooks, name)
		}
	}
	for _, h := range zshHookArrays {
		if st.dialect != Zsh {
			break
		}
		if v := st.env.Get(h); v.IsSet() {
			hooks = append(hooks, v.List...)
			if v.List == nil {
				hooks = append(hooks, strings.Fields(v.Str)...)
			}
		}
	}
	slices.Sort(hooks)
	for _, name := range slices.Compact(hooks) {
		if *end.stop = false; !w.m.over {
			w.run(&end, Command{Args: []Word{{Text: name}}, StdinFrom: -1}, nil)
		}
	}
}

// loopDefines reports whether a loop's code may change what a later pass
// runs: it defines a function or an alias, assigns, hashes or reads a
// variable, or changes an option. Such a loop is walked twice.
func loopDefines(nodes ...syntax.Node) bool {
	found := false
	for _, n := range nodes {
		syntax.Walk(n, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.FuncDecl, *syntax.Assign, *syntax.DeclClause:
				found = true
			case *syntax.CallExpr:
				if len(n.Args) > 0 {
					lit, _ := plainLit(n.Args[0])
					switch lit {
					case "alias", "hash", "read", "mapfile", "readarray", "printf", "getopts", "set", "shopt",
						"setopt", "unset", "eval", "source", ".", "enable", "trap", "unalias", "export", "let":
						found = true
					}
				}
			}
			return !found
		})
	}
	return found
}

// arith walks what bash evaluates in arithmetic (( x )), $(( x )),
// let, [[ a -eq b ]] and array subscripts: besides the substitutions
// written there, the value of every variable named is evaluated as an
// expression in turn, and a subscript in it (a[$(cmd)]) is expanded,
// running the code inside.
func (w *walker) arith(st *state, node syntax.Node) {
	if node == nil {
		return
	}
	var names []string
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			if lit, ok := plainLit(n); ok && syntax.ValidName(lit) {
				names = append(names, lit)
			}
		case *syntax.ParamExp:
			if n.Param != nil {
				names = append(names, n.Param.Value)
			}
		}
		return true
	})
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if v, ok := st.env.lookup(name); ok && !w.evaluating[name] {
			if w.evaluating == nil {
				w.evaluating = map[string]bool{}
			}
			w.evaluating[name] = true
			w.arithValue(st, v)
			delete(w.evaluating, name)
		}
	}
	// What it assigns ((X=1)), let X++, for ((i=0; ...))) is set, to a
	// value not followed: never taken for unset, which under set -u
	// would stop the shell, and the judge's walk, there.
	for _, name := range arithAssigned(node) {
		st.env.setString(name, Unknown, false)
	}
}

// arithAssigned are the variables an arithmetic expression assigns
// (=, +=, ..., ++, --), an array's name for an element.
func arithAssigned(node syntax.Node) []string {
	var names []string
	target := func(x syntax.ArithmExpr) {
		word, ok := x.(*syntax.Word)
		if !ok {
			return
		}
		if lit, ok := plainLit(word); ok {
			if name, _, _ := strings.Cut(lit, "["); syntax.ValidName(name) {
				names = append(names, name)
			}
		} else if len(word.Parts) == 1 {
			if pe, ok := word.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil {
				names = append(names, pe.Param.Value) // a[2] = 3
			}
		}
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			switch n.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
				syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
				target(n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				target(n.X)
			}
		}
		return true
	})
	return names
}

// arithValue walks a value bash evaluates as an arithmetic expression:
// one with a subscript that expands something runs that. What cannot be
// read as an expression is unknown code.
func (w *walker) arithValue(st *state, value string) {
	if arithCode(value) {
		w.arithExpr(st, value)
	} else if arithNames(value) {
		w.arithNamed(st, value)
	}
	switch {
	case strings.Contains(value, Unknown):
		// An expression the judge cannot read may assign any variable
		// (P=$(cat f); (( P ))).
		w.anySet = true
	case strings.ContainsAny(value, "=+-"):
		w.arithAssigns(st, value) // P='X=1'; (( P )) sets X
	}
}

// arithNames reports whether s, evaluated as arithmetic, may name
// variables: it holds a letter or an underscore (not a number alone, in
// any base bash reads: 0x1F and 64#Zz name none, but are read as
// names here, which only costs a parse).
func arithNames(s string) bool {
	return !strings.Contains(s, Unknown) && strings.IndexFunc(s, func(r rune) bool { return r == '_' || unicode.IsLetter(r) }) >= 0
}

// arithNamed walks a value evaluated as arithmetic that names variables
// (y=x; (( y )), declare -i n; n=x): bash evaluates their values in
// turn, and a subscript in one of them (x='a[$(cmd)]') runs its code. A
// value that is no expression stops the shell's evaluation with an
// error.
func (w *walker) arithNamed(st *state, value string) {
	if w.m.over {
		return
	}
	f, err := w.parser(Bash).Parse(strings.NewReader("(( "+value+" ))"), "")
	if err != nil || len(f.Stmts) != 1 {
		return
	}
	if c, ok := f.Stmts[0].Cmd.(*syntax.ArithmCmd); ok {
		w.arith(st, c.X)
	}
}

// arithWord walks the value of a word evaluated as arithmetic.
func (w *walker) arithWord(st *state, word *syntax.Word) {
	if _, ok := plainLit(word); !ok {
		if v, err := w.literal(st, word); err == nil {
			w.arithValue(st, v.Text)
		}
	}
}

// letClause walks let's expressions: their values are expressions.
func (w *walker) letClause(st *state, c *syntax.LetClause) {
	for _, x := range c.Exprs {
		if op, ok := shellOperator(x); ok {
			// let x=0||rm -rf ~: the shell ends let's word at ||
			// and runs rm; the parser reads on, as arithmetic.
			w.problem(ProblemSyntax, x.Pos().String(), "let's operand holds %s unquoted, which the shell reads as an operator (a list, a pipe, a redirection) and cordon's parser as arithmetic; quote let's operands", op)
			return
		}
	}
	w.substitutions(st, c)
	for _, x := range c.Exprs {
		w.arith(st, x)
		if word, ok := x.(*syntax.Word); ok {
			if _, plain := plainLit(word); !plain {
				if v, err := w.literal(st, word); err == nil {
					w.arithExpr(st, v.Text)
					w.arithAssigns(st, v.Text) // let 'X = 1'
				}
			}
		}
	}
}

// shellOperator returns an operator of arithmetic x, read as let's
// unquoted operand, that the shell reads as a metacharacter instead:
// |, &, <, >, parentheses, and the operators made of them.
func shellOperator(x syntax.ArithmExpr) (string, bool) {
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Or, syntax.And, syntax.OrArit, syntax.AndArit, syntax.Lss, syntax.Gtr, syntax.Leq, syntax.Geq,
			syntax.Shl, syntax.Shr, syntax.OrAssgn, syntax.AndAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
			syntax.AndBoolAssgn, syntax.OrBoolAssgn:
			return x.Op.String(), true
		}
		if op, ok := shellOperator(x.X); ok {
			return op, true
		}
		return shellOperator(x.Y)
	case *syntax.UnaryArithm:
		return shellOperator(x.X)
	case *syntax.ParenArithm:
		return "(", true
	}
	return "", false // a word: quoted, or plain
}

// arithAssigns sets what text, evaluated as arithmetic, assigns (see
// [arithAssigned]), when it parses.
func (w *walker) arithAssigns(st *state, text string) {
	if strings.Contains(text, Unknown) {
		return // unknown code, asked about
	}
	f, err := w.parser(Bash).Parse(strings.NewReader("(( "+text+" ))"), "")
	if err != nil || len(f.Stmts) != 1 {
		return
	}
	for _, name := range arithAssigned(f.Stmts[0]) {
		st.env.setString(name, Unknown, false)
	}
}

// arithExpr walks text bash evaluates as an arithmetic expression, when
// it may expand something.
func (w *walker) arithExpr(st *state, value string) {
	if !strings.ContainsAny(value, "$`") || w.m.over {
		return
	}
	i := w.emit(st, Command{Args: []Word{{Text: "(("}, {Text: value}, {Text: "))"}}, StdinFrom: -1})
	f, err := w.parser(Bash).Parse(strings.NewReader("(( "+value+" ))"), "")
	if strings.Contains(value, Unknown) || err != nil {
		w.unknownCode(i)
		return
	}
	w.stmts(st.nested("arithmetic", false), f.Stmts)
}

// arithCode reports whether evaluating s as arithmetic may expand
// something: it holds a subscript and a $ or `.
func arithCode(s string) bool {
	return strings.Contains(s, "[") && strings.ContainsAny(s, "$`")
}

// nameArgs walks the subscripts of the variable names builtin command i
// assigns, tests or removes (read 'a[$(cmd)]', printf -v, unset,
// declare, getopts, test -v): bash expands them.
func (w *walker) nameArgs(st *state, i int) {
	c := &w.res.Commands[i]
	var names []string
	args := wordTexts(c.Args[1:])
	switch c.Name() {
	case "read":
		for j := 0; j < len(args); j++ {
			switch a := args[j]; {
			case a == "-a" && j+1 < len(args):
				names = append(names, args[j+1])
				j++
			case len(a) == 2 && strings.Contains("dinNptu", a[1:]) && a[0] == '-':
				j++
			case !strings.HasPrefix(a, "-"):
				names = append(names, a)
			}
		}
	case "printf", "test", "[", "wait":
		for j := 0; j+1 < len(args); j++ {
			if args[j] == "-v" || args[j] == "-p" && c.Name() == "wait" {
				names = append(names, args[j+1])
			}
		}
	case "unset", "declare", "typeset", "local", "export", "readonly":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
				name, _, _ := strings.Cut(a, "=")
				names = append(names, name)
			}
		}
	case "getopts":
		names = args[min(1, len(args)):min(2, len(args))]
	case "let":
		for _, a := range args {
			w.arithExpr(st, a)
		}
	}
	for _, name := range names {
		w.arithValue(st, name)
	}
}

// testArith walks the operands [[ ]] evaluates as arithmetic (-eq, -lt
// ...) and the names it tests with -v.
func (w *walker) testArith(st *state, c *syntax.TestClause) {
	done := map[*syntax.Word]bool{}
	syntax.Walk(c.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, x := range []syntax.TestExpr{n.X, n.Y} {
					if word, ok := x.(*syntax.Word); ok {
						w.arith(st, word)
						w.arithWord(st, word)
						done[word] = true
					}
				}
			}
		case *syntax.UnaryTest:
			if word, ok := n.X.(*syntax.Word); ok && n.Op == syntax.TsVarSet {
				w.arithWord(st, word)
			}
		case *syntax.Word:
			// Any operand's expansions ([[ a == $((x)) ]], a pattern
			// too), as for a command's words.
			if !done[n] {
				w.wordArith(st, n.Parts)
			}
			return false
		}
		return true
	})
}

// wordArith walks what expanding a word evaluates besides what is
// written in it: the values of the variables named in its arithmetic
// ($(( x )), ${a[i]}, ${s:i}), and a value expanded like a prompt
// (${x@P}), whose substitutions run.
func (w *walker) wordArith(st *state, parts []syntax.WordPart) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.ArithmExp:
			w.arith(st, p.X)
		case *syntax.ParamExp:
			if p.Index != nil {
				w.arith(st, p.Index)
			}
			if p.Slice != nil {
				w.arith(st, p.Slice.Offset)
				w.arith(st, p.Slice.Length)
			}
			if p.Excl && p.Names == 0 && p.Param != nil {
				// ${!x} with x='a[$(cmd)]': the element's subscript
				// is evaluated.
				if v, ok := st.env.lookup(p.Param.Value); ok && strings.Contains(v, "[") {
					w.arithValue(st, v)
				}
			}
			// What is expanded inside (${y:-$((x))}, ${x/a/$((x))}).
			if p.Exp != nil && p.Exp.Word != nil {
				w.wordArith(st, p.Exp.Word.Parts)
			}
			if p.Repl != nil {
				for _, word := range []*syntax.Word{p.Repl.Orig, p.Repl.With} {
					if word != nil {
						w.wordArith(st, word.Parts)
					}
				}
			}
			if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Param != nil {
				if op, _ := plainLit(p.Exp.Word); strings.Contains(op, "P") {
					v, _ := st.env.lookup(p.Param.Value)
					w.promptValue(st, p.Param.Value, v)
				}
			}
		case *syntax.DblQuoted:
			w.wordArith(st, p.Parts)
		}
	}
}

// promptValue walks the expansions of a value expanded like a prompt
// (${x@P}): as in a here-document, its substitutions run.
func (w *walker) promptValue(st *state, name, value string) {
	if !strings.ContainsAny(value, "$`") || w.m.over {
		return
	}
	i := w.emit(st, Command{Args: []Word{{Text: "${" + name + "@P}"}}, StdinFrom: -1})
	const end = "CORDON_PROMPT_END"
	if strings.Contains(value, Unknown) || strings.Contains(value, end) {
		w.unknownCode(i)
		return
	}
	w.parseWalk(st.nested("${"+name+"@P}", false), ": <<"+end+"\n"+value+"\n"+end+"\n", "prompt", 0)
}

// integer records that variable name has the integer attribute
// (declare -i): the values assigned to it are evaluated as arithmetic.
func (w *walker) integer(name string) {
	if w.integers == nil {
		w.integers = map[string]bool{}
	}
	w.integers[name] = true
}

// returned takes back what a function call changed in the shell it runs
// in: a function runs in the caller's shell, so its cd and options stay.
func (st *state) returned(fn *state) {
	st.dir, st.globs, st.nounset, st.keyword, st.posix, st.hashes = fn.dir, fn.globs, fn.nounset, fn.keyword, fn.posix, fn.hashes
}

// subscripts walks the subscripts of an assignment (a[i]=1, a=([i]=1)):
// bash expands and evaluates them.
func (w *walker) subscripts(st *state, a *syntax.Assign) {
	if a.Index != nil {
		w.substitutions(st, a.Index)
		w.arith(st, a.Index)
	}
	if a.Array != nil {
		for _, el := range a.Array.Elems {
			if el.Index != nil {
				w.substitutions(st, el.Index)
				w.arith(st, el.Index)
			}
		}
	}
}

// tildeUnset expands a tilde prefix that expansion left as it is because
// HOME is unset: bash then takes the user's home from the system (taken
// to be the HOME the shell inherited, else unknown), zsh an empty
// string. A POSIX script is read as bash would read it.
func tildeUnset(st *state, field string, word *syntax.Word) string {
	if field != "~" && !strings.HasPrefix(field, "~/") || len(word.Parts) == 0 {
		return field
	}
	if lit, ok := word.Parts[0].(*syntax.Lit); !ok || !strings.HasPrefix(lit.Value, "~") {
		return field // quoted: no tilde expansion
	}
	if _, set := st.env.lookup("HOME"); set {
		return field
	}
	switch st.dialect {
	case Bash, POSIX:
		home := st.env.base["HOME"]
		if home == "" {
			home = Unknown
		}
		return home + field[1:]
	case Zsh:
		return field[1:]
	}
	return field
}

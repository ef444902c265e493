package parse

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// call walks a simple command and returns its index, or -1.
func (w *walker) call(st *state, ce *syntax.CallExpr, rs []*syntax.Redirect, stdin int) int {
	pos := ce.Pos()
	if len(ce.Args) == 0 {
		for _, a := range ce.Assigns {
			w.assign(st, a, false)
			if a.Name != nil {
				// The shell itself runs PS4 (set -x), PS1 and
				// PROMPT_COMMAND; an export later hands the others on.
				v, _ := st.env.lookup(a.Name.Value)
				w.envCode(st, a.Name.Value, v)
			}
		}
		if redirs, _ := w.redirs(st, rs); len(redirs) > 0 {
			return w.emit(st, Command{Redirs: redirs, StdinFrom: -1, Pos: pos.String()})
		}
		return -1
	}
	// Assignments before a command apply to it alone. (The state is
	// copied only for them: a copy made for every command was a long
	// script's largest allocation after its commands.)
	var assigns []string
	cmdEnv := st.env
	if len(ce.Assigns) > 0 {
		inner := *st
		cmdEnv = st.env.clone()
		inner.env = cmdEnv
		for _, a := range ce.Assigns {
			w.assign(&inner, a, true)
			if a.Name != nil {
				v, _ := cmdEnv.lookup(a.Name.Value)
				assigns = append(assigns, a.Name.Value+"="+v)
				w.envCode(st, a.Name.Value, v)
			}
		}
	}
	var vars []string
	for _, word := range ce.Args[1:] {
		vars = append(vars, wordVars(word, st.env)...)
	}
	args, err := w.fields(st, ce.Args)
	if err != nil {
		w.abort(st, pos, err)
		return -1
	}
	if len(args) == 0 {
		return -1
	}
	if len(w.links) > 0 {
		args = w.throughLinks(st, args)
	}
	args[0] = w.program(st, args[0])
	args[0] = w.pathProgram(st, cmdEnv, args[0])
	if st.keyword {
		// With set -k, bash takes NAME=value among the arguments as an
		// assignment in the command's environment.
		for _, a := range args[1:] {
			if k, v, ok := strings.Cut(a.Text, "="); ok && syntax.ValidName(k) {
				assigns = append(assigns, a.Text)
				w.envCode(st, k, v)
			}
		}
	}
	redirs, input := w.redirs(st, rs)
	if input == nil && stdin < 0 {
		input = st.input
	}
	c := Command{Args: args, Vars: vars, Assigns: assigns, Redirs: redirs, StdinFrom: stdin, Pos: pos.String()}
	// Only a name written plainly is an alias: \rm, "rm" and $x are not.
	_, plain := plainLit(ce.Args[0])
	w.noAlias = !plain
	return w.run(st, c, input)
}

// run records c, applies what it does to the shell's state and follows
// the code it carries. It returns c's index.
func (w *walker) run(st *state, c Command, input *string) int {
	i := w.emit(st, c)
	if input != nil {
		w.in[i] = input
	}
	name := w.res.Commands[i].Name()
	noAlias := w.noAlias
	w.noAlias = false
	// The shell expands aliases as it parses, then looks for a function
	// of that name before its builtins (true, read, exit, cd): what the
	// name runs is then the alias's or the function's code, and its
	// output unknown.
	if value, ok := st.alias(name); ok && !noAlias {
		w.recordWrites(st, i)
		w.expandAlias(st, name, value, c.Args[1:])
		return i
	}
	_, isFunc := st.funcs.defs[name]
	if !isFunc {
		w.stream(st, i)
	}
	w.recordWrites(st, i)
	if !isFunc && w.builtin(st, i) {
		return i
	}
	if def, ok := st.funcs.defs[name]; ok {
		w.res.Commands[i].Function = true
		if st.depth >= maxDepth {
			w.problem(ProblemDepth, c.Pos, "functions nested more than %d calls deep are not followed", maxDepth)
			return i
		}
		body := def.body
		if def.lazy != nil {
			if body = w.lazyParsed(def.lazy); body == nil {
				w.problem(ProblemSyntax, c.Pos, "the function %s does not parse on its own as it did in its script", name)
				w.unknownCode(i)
				return i
			}
		}
		fn := st.nested(name+"()", false)
		fn.env = st.env
		fn.ret = new(bool)
		fn.parsed, fn.inAlias = def.parsed, nil
		old := st.env.params
		st.env.params = wordTexts(c.Args[1:])
		w.stmt(fn, body, -1)
		st.env.params = old
		st.returned(fn)
		return i
	}
	w.hashed(st, i)
	w.carry(st, i)
	return i
}

// builtin applies the shell's own builtins that change what later
// commands mean. It reports whether the command was fully handled.
func (w *walker) builtin(st *state, i int) bool {
	w.nameArgs(st, i)
	c := &w.res.Commands[i]
	args := c.Args
	switch c.Name() {
	case "cd", "chdir":
		old := st.dir
		st.dir = cdTarget(st, args[1:], withAssigns(st.env, c.Assigns))
		st.env.setString("OLDPWD", old, true)
	case "pushd", "popd":
		old := st.dir
		st.dirStack(c.Name(), args[1:], withAssigns(st.env, c.Assigns))
		st.env.setString("OLDPWD", old, true)
	case "shopt":
		on := len(args) > 1 && strings.HasPrefix(args[1].Text, "-") && strings.Contains(args[1].Text, "s")
		for _, a := range args[1:] {
			st.setOption(a.Text, on)
		}
	case "setopt", "unsetopt":
		for _, a := range args[1:] {
			name := strings.ToLower(a.Text)
			on := c.Name() == "setopt"
			if strings.HasPrefix(name, "no") && !st.globs.set(name, on) {
				st.globs.set(name[2:], !on)
			} else {
				st.globs.set(name, on)
			}
		}
	case "set":
		setOptions(st, args[1:])
	case "hash":
		st.hashBuiltin(args[1:])
	case "trap":
		st.trap(args[1:])
	case "unset":
		funcs := false
		for _, a := range args[1:] {
			switch {
			case strings.HasPrefix(a.Text, "-"):
				funcs = funcs || strings.Contains(a.Text, "f") // unset -f NAME: a function, not a variable
			case !funcs:
				st.env.unset(a.Text)
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		for _, a := range args[1:] {
			k, v, ok := strings.Cut(a.Text, "=")
			switch {
			case ok && syntax.ValidName(k):
				st.env.setString(k, v, c.Name() == "export")
				w.envCode(st, k, v)
			case ok && !strings.HasPrefix(k, "-"):
				w.assignNamed(st, k, v) // declare X+=1, 'a[1]=2'
			}
		}
	case "printf":
		w.printfVar(st, args[1:])
	case "mapfile", "readarray":
		w.mapfile(st, i, args[1:])
		return true
	case "read", "getopts":
		w.readVars(st, i, c.Name(), args[1:])
		return true
	case "wait":
		// wait -p NAME (-pNAME, -np NAME): the id of the job that ended.
		for j := 1; j < len(args); j++ {
			a := args[j].Text
			if k := strings.IndexByte(a, 'p'); strings.HasPrefix(a, "-") && k > 0 && strings.Trim(a[1:k], "nf") == "" {
				name := a[k+1:]
				if name == "" && j+1 < len(args) {
					name = args[j+1].Text
				}
				if syntax.ValidName(name) {
					st.env.setString(name, Unknown, false)
				} else if strings.Contains(name, Unknown) {
					w.anySet = true
				}
			}
		}
	case "alias":
		for _, a := range args[1:] {
			if st.dialect == Zsh && strings.HasPrefix(a.Text, "-") && strings.ContainsAny(a.Text, "gs") {
				// zsh expands a global alias anywhere on a line, a
				// suffix alias for any file name with its ending.
				w.problem(ProblemSyntax, c.Pos, "alias %s: zsh expands global and suffix aliases in any word, which cordon does not follow", a.Text)
				w.unknownCode(i)
				break
			}
			if k, v, ok := strings.Cut(a.Text, "="); ok {
				w.defineAlias(st, i, k, v)
			}
		}
	case "exit":
		*st.stop = true
		return true
	case "return":
		switch {
		case st.ret != nil:
			*st.ret = true // leaves the function or sourced file only
		case st.dialect != Bash:
			*st.stop = true // dash and zsh leave the script; bash goes on
		}
		return true
	}
	return false
}

// cdTarget returns the directory cd changes to. A directory that does
// not exist now is unknown: the script may create it first, and if it
// does not, cd fails and what follows runs where the shell already was.
func cdTarget(st *state, args []Word, env *env) string {
	for len(args) > 0 && strings.HasPrefix(args[0].Text, "-") && args[0].Text != "-" {
		args = args[1:]
	}
	if len(args) == 0 {
		home, _ := st.env.lookup("HOME")
		return st.absOrEmpty(home)
	}
	target := args[0].Text
	if target == "-" {
		target, _ = st.env.lookup("OLDPWD")
	}
	switch p := cdpath(env, st, target); p {
	case Unknown:
		return ""
	case "":
	default:
		return st.absOrEmpty(p)
	}
	dir := st.absOrEmpty(target)
	if fi, err := os.Stat(dir); dir != "" && (err != nil || !fi.IsDir()) {
		return ""
	}
	return dir
}

// dirStack applies pushd or popd: pushd DIR saves the directory and
// changes to DIR, pushd alone swaps the two on top, popd returns to the
// last saved one. Either fails, changing nothing, on an empty stack; a
// rotation (+N, -N) leaves the directory unknown.
func (st *state) dirStack(name string, args []Word, env *env) {
	if len(args) > 0 && args[0].Text == "-n" {
		return // only the stack changes
	}
	if len(args) > 0 && len(args[0].Text) > 1 && strings.IndexByte("+-", args[0].Text[0]) >= 0 {
		st.dir, st.dirs = "", nil
		return
	}
	n := len(st.dirs)
	switch {
	case name == "pushd" && len(args) > 0:
		st.dirs = append(slices.Clip(st.dirs), st.dir)
		st.dir = cdTarget(st, args, env)
	case n == 0:
		// "directory stack empty": nothing changes
	case name == "pushd":
		st.dir, st.dirs = st.dirs[n-1], append(slices.Clip(st.dirs[:n-1]), st.dir)
	default:
		st.dir, st.dirs = st.dirs[n-1], st.dirs[:n-1:n-1]
	}
}

func (st *state) absOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	abs := st.abs(p)
	if abs == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

func setOptions(st *state, args []Word) {
	for j := 0; j < len(args); j++ {
		a := args[j].Text
		switch {
		case a == "-o" || a == "+o":
			if j+1 < len(args) && args[j+1].Text == "posix" {
				st.posix = a == "-o"
			}
			if j+1 < len(args) && args[j+1].Text == "nounset" {
				st.nounset = a == "-o"
			}
			if j+1 < len(args) && args[j+1].Text == "keyword" {
				st.keyword = a == "-o"
			}
			j++
		case a == "--":
			st.env.params = wordTexts(args[j+1:])
			return
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			on := a[0] == '-'
			if strings.Contains(a, "u") {
				st.nounset = on
			}
			if strings.Contains(a, "k") {
				st.keyword = on
			}
		}
	}
}

// envCode follows code carried in an environment variable the script
// sets (GIT_EDITOR='...', BASH_ENV=file): the programs that read it run
// it.
func (w *walker) envCode(st *state, name, value string) {
	if w.cfg.Knowledge == nil || value == "" {
		return
	}
	sub := st.nested("$"+name, false)
	sub.later = true // run by a program later, in the state of then
	switch w.cfg.Knowledge.EnvCode(name) {
	case EnvScript:
		i := w.emit(st, Command{Args: []Word{{Text: name + "=" + value}}, StdinFrom: -1})
		w.code(sub, i, inputCommand(value))
	case EnvFile:
		i := w.emit(st, Command{Args: []Word{{Text: name + "=" + value}}, StdinFrom: -1})
		w.file(sub, i, value)
	case EnvLibrary:
		if !w.installedLibs(st, value) {
			i := w.emit(st, Command{Args: []Word{{Text: name + "=" + value}}, StdinFrom: -1})
			w.unknownCode(i)
		}
	}
}

// printfVar applies printf -v NAME FORMAT ARGS.
func (w *walker) printfVar(st *state, args []Word) {
	var name string
	switch {
	case len(args) >= 3 && args[0].Text == "-v":
		name, args = args[1].Text, args[2:]
	case len(args) >= 2 && strings.HasPrefix(args[0].Text, "-v") && len(args[0].Text) > 2:
		name, args = args[0].Text[2:], args[1:] // printf -vX
	default:
		return
	}
	if strings.Contains(name, Unknown) {
		w.anySet = true
		return
	}
	base, _, element := strings.Cut(name, "[")
	if !syntax.ValidName(base) {
		return
	}
	out, err := printf(w.config(st), args[0].Text, wordTexts(args[1:]))
	if err != nil || element {
		out = Unknown // printf -v 'a[1]': an array's element
	}
	st.env.setString(base, out, false)
}

// assignNamed sets what a declaration's operand NAME=value assigns, its
// name computed (declare "$n=1", $'\x58'=1): the variable itself, or
// for NAME+=, NAME[i]=, an unknown value; for a name the judge cannot
// read (unknown, or {X,Y}+=1), any variable may be set ([walker.anySet]).
func (w *walker) assignNamed(st *state, name, value string) {
	base, element := strings.CutSuffix(name, "+")
	if i := strings.IndexByte(base, '['); i > 0 && strings.HasSuffix(base, "]") {
		base, element = base[:i], true
	}
	switch {
	case !syntax.ValidName(base):
		w.anySet = true
	case element:
		st.env.setString(base, Unknown, false)
	default:
		st.env.setString(base, value, false)
		w.envCode(st, base, value)
	}
}

// mapfile sets the array mapfile assigns from its known input's lines,
// or an unknown value.
func (w *walker) mapfile(st *state, i int, args []Word) {
	name := "MAPFILE"
	for j := 0; j < len(args); j++ {
		switch a := args[j].Text; {
		case strings.HasPrefix(a, "-C"):
			// -C CODE: run with an index and a line, every -c lines.
			code := a[2:]
			if code == "" && j+1 < len(args) {
				j++
				code = args[j].Text
			}
			w.code(st.nested("mapfile -C", false), i, code+" 0 line")
		case a == "-d" || a == "-n" || a == "-O" || a == "-s" || a == "-u" || a == "-c":
			j++
		case !strings.HasPrefix(a, "-") && syntax.ValidName(a):
			name = a
		case strings.Contains(a, Unknown):
			w.anySet = true // mapfile "$name"
		}
	}
	in := w.stdinOf(i)
	if in == nil || strings.Contains(*in, Unknown) {
		st.env.setString(name, Unknown, false)
		return
	}
	st.env.Set(name, expand.Variable{Set: true, Kind: expand.Indexed, List: strings.Split(strings.TrimSuffix(*in, "\n"), "\n")})
}

// readVars sets the variables read assigns: from its known input's first
// line, or unknown.
func (w *walker) readVars(st *state, i int, name string, args []Word) {
	var names []string
	for j := 0; j < len(args); j++ {
		a := args[j].Text
		switch {
		case strings.HasPrefix(a, "-") && len(a) > 1 && a != "--":
			// A cluster of options (-ra NAME, -raNAME): the first that
			// takes a value takes the rest of the cluster, or the next
			// word; -a's value is an array, of the line's fields.
			for k := 1; k < len(a); k++ {
				if !strings.ContainsRune("adinNptu", rune(a[k])) {
					continue
				}
				value := a[k+1:]
				if value == "" && j+1 < len(args) {
					j++
					value = args[j].Text
				}
				if a[k] == 'a' {
					if syntax.ValidName(value) {
						st.env.setString(value, Unknown, false)
					} else if strings.Contains(value, Unknown) {
						w.anySet = true
					}
				}
				break
			}
		case strings.HasPrefix(a, "-"):
		case syntax.ValidName(a):
			names = append(names, a)
		case strings.Contains(a, Unknown):
			w.anySet = true // read "$name"
		}
	}
	if len(names) == 0 && name == "read" {
		names = []string{"REPLY"}
	}
	line := Unknown
	if in := w.stdinOf(i); in != nil && name == "read" {
		line, _, _ = strings.Cut(*in, "\n")
	}
	for n, v := range names {
		val := line
		if n < len(names)-1 && line != Unknown {
			f := strings.Fields(line)
			val = ""
			if n < len(f) {
				val = f[n]
			}
		}
		st.env.setString(v, val, false)
	}
}

func wordTexts(ws []Word) []string {
	out := make([]string, len(ws))
	for i, x := range ws {
		out[i] = x.Text
	}
	return out
}

func quoteWords(ws []Word) string {
	var parts []string
	for _, x := range ws {
		q, err := syntax.Quote(x.Text, syntax.LangBash)
		if err != nil {
			q = "'" + Unknown + "'"
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " ")
}

// expandAlias walks the command alias name stands for, with its
// arguments args: the shell pastes the alias's text in place of the
// name. When the text ends in a blank, the next word is expanded as an
// alias too (alias sudo='sudo '), and so on; a word that came from an
// expansion ($x) is not, nor is one of the aliases being expanded.
func (w *walker) expandAlias(st *state, name, value string, args []Word) {
	sub := st.nested("alias "+name, false)
	sub.inAlias = append(slices.Clip(st.inAlias), name)
	text := value
	for len(args) > 0 && (strings.HasSuffix(text, " ") || strings.HasSuffix(text, "\t")) {
		next, ok := st.alias(args[0].Text)
		if !ok || args[0].Computed || !args[0].IsKnown() {
			break
		}
		sub.inAlias = append(sub.inAlias, args[0].Text)
		text += next
		args = args[1:]
	}
	// The text is parsed with the line it was found on.
	w.parseWalk(sub, text+" "+quoteWords(args), name, 1)
}

// aliasProblem says why an alias's value cannot be judged as a command
// of its own, or "": one that is not complete (an open quote, a dangling
// operator) takes in what follows it on the line.
func aliasProblem(p *syntax.Parser, value string) string {
	if value == "" {
		return ""
	}
	if _, err := p.Parse(strings.NewReader(value), ""); err != nil {
		return "its value is not a complete command (" + err.Error() + "), so it takes in what follows it"
	}
	return ""
}

package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// What a shell finds by name, and what it reads on its own: the PATH
// lookup of a program the script put there, exported functions, CDPATH,
// the start-up files a shell is pointed at, and git's configuration
// passed in the environment. Where the judge cannot see what runs, it is
// unknown code, never nothing.

// shellBuiltins are the names bash runs itself, whatever PATH holds.
var shellBuiltins = map[string]bool{
	"alias": true, "bg": true, "bind": true, "break": true, "builtin": true, "caller": true,
	"cd": true, "command": true, "compgen": true, "complete": true, "continue": true,
	"declare": true, "dirs": true, "disown": true, "echo": true, "enable": true, "eval": true,
	"exec": true, "exit": true, "export": true, "false": true, "fc": true, "fg": true,
	"getopts": true, "hash": true, "help": true, "history": true, "jobs": true, "kill": true,
	"let": true, "local": true, "logout": true, "mapfile": true, "popd": true, "printf": true,
	"pushd": true, "pwd": true, "read": true, "readarray": true, "readonly": true, "return": true,
	"set": true, "shift": true, "shopt": true, "source": true, ".": true, "suspend": true,
	"test": true, "[": true, "times": true, "trap": true, "true": true, "type": true,
	"typeset": true, "ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true,
	":": true,
}

// pathProgram returns the file a command name without a slash runs when
// PATH leads to a program this script copied, linked or wrote (cp
// /bin/rm ./ls; PATH=.:$PATH ls): the copy's original, the link's target,
// or the written file's path. A builtin, a function, or a name that PATH
// resolves first to a file already on disk is left as it is.
func (w *walker) pathProgram(st *state, env *env, name Word) Word {
	if strings.Contains(name.Text, "/") || !name.IsKnown() || shellBuiltins[name.Text] || !w.made[name.Text] {
		return name
	}
	if _, fn := st.funcs[name.Text]; fn {
		return name
	}
	path, _ := env.lookup("PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "." // an empty entry is the working directory
		}
		p := st.abs(filepath.Join(dir, name.Text))
		if p == "" {
			return Word{Text: Unknown, Vars: name.Vars}
		}
		if src, ok := w.copies[p]; ok {
			return Word{Text: src, Vars: name.Vars}
		}
		if target, ok := w.links[p]; ok {
			return Word{Text: target, Vars: name.Vars}
		}
		if _, ok := w.files[p]; ok {
			return Word{Text: p, Vars: name.Vars}
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return name // found on disk first
		}
	}
	return name
}

// madeFile notes a file the script wrote, copied or linked, by its base
// name: only such a name can lead PATH to one of them.
func (w *walker) madeFile(path string) {
	if w.made == nil {
		w.made = map[string]bool{}
	}
	w.made[filepath.Base(path)] = true
}

// cdpath resolves cd's relative target through CDPATH, as the shell
// does: the first entry under which the target is a directory. It
// returns "" when CDPATH plays no part, Unknown when it cannot be known.
func cdpath(env *env, st *state, target string) string {
	cdp, set := env.lookup("CDPATH")
	if !set || cdp == "" || target == "" || filepath.IsAbs(target) ||
		target == "." || target == ".." || strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../") {
		return ""
	}
	if strings.Contains(cdp, Unknown) {
		return Unknown
	}
	for _, dir := range filepath.SplitList(cdp) {
		if dir == "" {
			dir = "."
		}
		p := st.abs(filepath.Join(dir, target))
		if p == "" {
			return Unknown
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
	}
	return ""
}

// exportFuncs marks functions exported (export -f NAME, declare -fx):
// shells bash starts inherit them.
func (st *state) exportFuncs(names []string) {
	for _, n := range names {
		if fn, ok := st.funcs[n]; ok {
			fn.exported = true
			st.funcs[n] = fn
		}
	}
}

// inheritFuncs gives a new bash the functions it imports: those st
// exported, and those in its environment as BASH_FUNC_NAME%%=() {...}
// (what export -f puts there, and what anyone can put there with env).
func (w *walker) inheritFuncs(parent, child *state) {
	if child.dialect != Bash {
		return
	}
	for n, fn := range parent.funcs {
		if fn.exported {
			child.funcs[n] = fn
		}
	}
	for k, v := range child.env.base {
		name, ok := strings.CutPrefix(k, "BASH_FUNC_")
		if !ok {
			continue
		}
		if name, ok = strings.CutSuffix(name, "%%"); !ok {
			continue
		}
		if fn, ok := w.importFunc(name, v); ok {
			child.funcs[name] = fn
		}
	}
}

// importFunc parses an exported function's value, "() { BODY }", as bash
// does on start.
func (w *walker) importFunc(name, value string) (function, bool) {
	if !strings.HasPrefix(value, "() {") {
		return function{}, false
	}
	f, err := w.parser(Bash).Parse(strings.NewReader("f "+value), "BASH_FUNC_"+name)
	if err != nil || len(f.Stmts) != 1 {
		return function{}, false
	}
	decl, ok := f.Stmts[0].Cmd.(*syntax.FuncDecl)
	if !ok {
		return function{}, false
	}
	return function{body: decl.Body, exported: true}, true
}

// withAssigns returns env with command c's own assignments (NAME=value
// before it, or env's operands) exported on top, for the programs it
// starts.
func withAssigns(e *env, assigns []string) *env {
	if len(assigns) == 0 {
		return e
	}
	c := e.clone()
	for _, a := range assigns {
		if k, v, ok := strings.Cut(a, "="); ok {
			c.setString(k, v, true)
		}
	}
	return c
}

// startupFiles are the files a shell started as call reads before its
// script, in its environment env: bash's --rcfile or ~/.bashrc when
// interactive, the profile when a login shell, zsh's $ZDOTDIR files, $ENV
// for an interactive POSIX shell.
func startupFiles(call ShellCall, env *env) []string {
	home, _ := env.lookup("HOME")
	at := func(dir string, names ...string) []string {
		var out []string
		for _, n := range names {
			if dir != "" {
				out = append(out, filepath.Join(dir, n))
			}
		}
		return out
	}
	var files []string
	switch {
	case call.Dialect == Zsh:
		dir, ok := env.lookup("ZDOTDIR")
		if !ok || dir == "" {
			dir = home
		}
		if call.NoRc {
			return nil
		}
		files = at(dir, ".zshenv")
		if call.Login {
			files = append(files, at(dir, ".zprofile")...)
		}
		if call.Interactive {
			files = append(files, at(dir, ".zshrc")...)
		}
		if call.Login {
			files = append(files, at(dir, ".zlogin")...)
		}
	case call.Dialect == Bash:
		if call.Login && !call.NoProfile {
			files = append(files, firstExisting(at(home, ".bash_profile", ".bash_login", ".profile"))...)
		}
		if call.Interactive && !call.Login && !call.NoRc {
			if call.RcFile != "" {
				files = append(files, call.RcFile)
			} else {
				files = append(files, at(home, ".bashrc")...)
			}
		}
	default:
		if call.Login {
			files = append(files, at(home, ".profile")...)
		}
		if v, ok := env.lookup("ENV"); ok && v != "" && call.Interactive {
			files = append(files, v)
		}
	}
	return files
}

// firstExisting keeps the first of paths that exists (bash reads only
// the first of its login files), or the first when none does: a file the
// script writes does not exist yet.
func firstExisting(paths []string) []string {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return []string{p}
		}
	}
	if len(paths) > 0 {
		return paths[:1]
	}
	return nil
}

// startup walks the start-up files a shell started by command i reads,
// in that shell (sub). The user's own start-up files and installed
// software's are not followed, unless this script wrote them; a file
// that does not exist runs nothing. For the top-level shell (i < 0) a
// command standing for the shell is recorded when a file is followed.
func (w *walker) startup(sub *state, i int, call ShellCall) {
	cmd := func() int {
		if i < 0 {
			i = w.emit(sub, Command{Args: []Word{{Text: call.Arg0}}, StdinFrom: -1, Pos: "1:1"})
		}
		return i
	}
	for _, f := range startupFiles(call, sub.env) {
		path := sub.abs(f)
		if path == "" {
			w.unknownCode(cmd()) // $HOME or $ZDOTDIR not known
			continue
		}
		_, written := w.files[path]
		if !written {
			if w.cfg.Startup != nil && w.cfg.Startup(path) || w.installed(f, path) {
				continue
			}
			if _, err := os.Stat(path); err != nil {
				continue
			}
		}
		src := sub.nested("start-up "+f, false)
		w.file(src, cmd(), f)
		sub.dir = src.dir
	}
}

// gitConfigArgs returns the -c options that git's configuration in the
// environment amounts to: GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n, and --config-env=KEY=VAR among args. A count or a
// value that cannot be known is an include of unknown configuration.
func gitConfigArgs(env *env, args []Word) []Word {
	var out []Word
	if n, set := env.lookup("GIT_CONFIG_COUNT"); set && n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count > 64 {
			return []Word{{Text: "-c"}, {Text: "include.path=" + Unknown}}
		}
		for j := range count {
			k, _ := env.lookup("GIT_CONFIG_KEY_" + strconv.Itoa(j))
			v, _ := env.lookup("GIT_CONFIG_VALUE_" + strconv.Itoa(j))
			out = append(out, Word{Text: "-c"}, Word{Text: k + "=" + v})
		}
	}
	for j := 1; j < len(args); j++ {
		a := args[j].Text
		if !strings.HasPrefix(a, "-") {
			break
		}
		spec, ok := strings.CutPrefix(a, "--config-env=")
		if !ok && a == "--config-env" && j+1 < len(args) {
			spec, ok = args[j+1].Text, true
		}
		if !ok {
			continue
		}
		if i := strings.LastIndexByte(spec, '='); i > 0 {
			v, _ := env.lookup(spec[i+1:])
			out = append(out, Word{Text: "-c"}, Word{Text: spec[:i] + "=" + v})
		}
	}
	return out
}

// installedLibs reports whether every entry of a loader variable's value
// (LD_PRELOAD's files, LD_LIBRARY_PATH's directories; separated by ":"
// or blanks) is installed software: outside the places commands write,
// and not written by this script. A directory counts as installed when
// its first regular file is (then no command can add one beside it).
func (w *walker) installedLibs(st *state, value string) bool {
	if w.cfg.Installed == nil || strings.Contains(value, Unknown) {
		return false
	}
	for _, e := range strings.FieldsFunc(value, func(r rune) bool { return r == ':' || r == ' ' || r == '\t' }) {
		if !filepath.IsAbs(e) || strings.Contains(e, "..") {
			return false
		}
		p := filepath.Clean(e)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if p = firstFile(p); p == "" {
				return false
			}
		}
		if _, written := w.files[p]; written || !w.cfg.Installed(p) {
			return false
		}
	}
	return true
}

// firstFile is the first regular file among the first entries of
// directory dir, or "".
func firstFile(dir string) string {
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	ents, _ := f.ReadDir(64)
	for _, e := range ents {
		if e.Type().IsRegular() {
			return filepath.Join(dir, e.Name())
		}
	}
	return ""
}

// inputCommand is the command a less input preprocessor runs
// (LESSOPEN='|cmd %s', '||cmd %s', '|-cmd %s'), or value unchanged.
func inputCommand(value string) string {
	if v, ok := strings.CutPrefix(value, "|"); ok {
		return strings.TrimPrefix(strings.TrimPrefix(v, "|"), "-")
	}
	return value
}

// exportsFunc reports whether declaration c exports functions (export
// -f, declare -fx).
func exportsFunc(w *walker, st *state, c *syntax.DeclClause) bool {
	export := c.Variant.Value == "export"
	f := false
	for _, a := range c.Args {
		if a.Naked && a.Value != nil {
			v, _ := w.literal(st, a.Value)
			if strings.HasPrefix(v.Text, "-") {
				f = f || strings.Contains(v.Text, "f")
				export = export || strings.Contains(v.Text, "x")
			}
		}
	}
	return f && export
}

// shebangArgv is the argv the kernel makes of a "#!" line: the
// interpreter and, when there is one, the rest of the line as one
// argument; nil when there is no "#!" line.
func shebangArgv(head []byte) []string {
	if len(head) < 3 || head[0] != '#' || head[1] != '!' {
		return nil
	}
	line, _, _ := strings.Cut(string(head[2:]), "\n")
	line = strings.TrimRight(strings.TrimLeft(line, " \t"), " \t\r")
	if line == "" {
		return nil
	}
	interp, arg, found := strings.Cut(line, " ")
	if i := strings.IndexByte(interp, '\t'); i >= 0 {
		interp, arg, found = line[:i], line[i+1:], true
	}
	if arg = strings.TrimLeft(arg, " \t"); found && arg != "" {
		return []string{interp, arg}
	}
	return []string{interp}
}

// shebang follows a file run by its path whose "#!" line names a
// program other than a shell (env -S ..., python3): that line is the
// command that runs, with the file and the arguments after it. An
// installed file is a program like any other. env -S splits its
// argument as env does, quotes included.
func (w *walker) shebang(st *state, i int, argv []string, path string) bool {
	c := w.res.Commands[i]
	if _, written := w.files[path]; !written && w.installed(c.Args[0].Text, path) {
		return false
	}
	if st.depth >= maxDepth {
		// A file whose interpreter runs the file again (#!/usr/bin/env
		// -i sh, read by env as one option): the kernel gives up too.
		w.problem(ProblemDepth, c.Pos, "the #! line of %s leads through more than %d interpreters", c.Args[0].Text, maxDepth)
		return true
	}
	args := []Word{{Text: argv[0]}}
	if len(argv) > 1 {
		if s, ok := strings.CutPrefix(argv[1], "-S"); ok && filepath.Base(argv[0]) == "env" {
			words, err := splitQuoted(s)
			if err != nil {
				w.unknownCode(i)
				return true
			}
			args = append(args, words...)
		} else {
			args = append(args, Word{Text: argv[1]})
		}
	}
	args = append(append(args, c.Args[0]), c.Args[1:]...)
	w.run(st.nested("#! "+c.Args[0].Text, false), Command{Args: args, Assigns: c.Assigns, StdinFrom: c.StdinFrom, Pos: c.Pos}, w.stdinOf(i))
	return true
}

// splitQuoted splits s into words as env -S does: blanks separate,
// quotes and backslashes are removed.
func splitQuoted(s string) ([]Word, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader("x "+s), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil, errors.New("not a simple word list")
	}
	ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(f.Stmts[0].Redirs) > 0 || len(ce.Assigns) > 0 {
		return nil, errors.New("not a simple word list")
	}
	var out []Word
	for _, word := range ce.Args[1:] {
		text, err := expand.Literal(nil, word)
		if err != nil {
			return nil, err
		}
		out = append(out, Word{Text: text})
	}
	return out, nil
}

// read records that a shell reads the script file path line by line
// while it runs it (bash FILE, ./FILE; source reads a file whole first),
// and returns the function that ends it.
func (w *walker) read(path string) func() {
	if path == "" {
		return func() {}
	}
	if w.reading == nil {
		w.reading = map[string]int{}
	}
	w.reading[path]++
	return func() { w.reading[path]-- }
}

// rewritesReading reports command i, which writes path, as code that
// is not followed when a shell is reading path as its script: the shell reads on
// from the changed file (a script that appends its own next line), and
// what runs is not what was judged.
func (w *walker) rewritesReading(i int, path string) {
	if w.reading[path] > 0 {
		w.problem(ProblemDepth, w.res.Commands[i].Pos, "the script writes %s, the file the shell is reading it from, so what runs after this line is not what was judged", path)
	}
}

// gitApply judges the diff git apply applies as patch would apply it
// (the rules' knowledge of patch says what a diff deletes): read from
// its file operands, a file this script wrote or one on disk, or from
// standard input. A diff that cannot be read is unknown.
func (w *walker) gitApply(st *state, i int) {
	c := w.res.Commands[i]
	args := c.Args[1:]
	j := 0
	for j < len(args) && strings.HasPrefix(args[j].Text, "-") {
		if _, _, next, _ := Option(args, j, []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"}); next > j {
			j = next
		} else {
			j++
		}
	}
	if j >= len(args) || args[j].Text != "apply" {
		return
	}
	var diffs []string
	for _, a := range args[j+1:] {
		switch t := a.Text; {
		case t == "--check" || t == "--stat" || t == "--numstat" || t == "--summary":
			return // reports only
		case strings.HasPrefix(t, "-") && t != "-":
		default:
			diffs = append(diffs, t)
		}
	}
	sub := st.nested("git apply", false)
	if len(diffs) == 0 {
		diffs = []string{"-"}
	}
	for _, d := range diffs {
		var in *string
		if d == "-" {
			in = w.stdinOf(i)
		} else if data, ok := w.readKnown(st, d); ok {
			in = &data
		}
		if in == nil || strings.Contains(*in, Unknown) {
			w.unknownCode(i)
			continue
		}
		w.run(sub, Command{Args: []Word{{Text: "patch"}, {Text: "-p1"}}, StdinFrom: -1, Pos: c.Pos}, in)
	}
}

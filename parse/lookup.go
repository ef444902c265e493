package parse

import (
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What a shell finds by name on its own: the PATH lookup of a program
// the script put there, exported functions, CDPATH. Where the judge
// cannot see what runs, it is unknown code, never nothing.

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
	if _, fn := st.funcs.defs[name.Text]; fn {
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
		if fn, ok := st.funcs.defs[n]; ok {
			fn.exported = true
			st.funcs.define(n, fn)
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
	for n, fn := range parent.funcs.defs {
		if fn.exported {
			child.funcs.define(n, fn)
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
			child.funcs.define(name, fn)
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

// SearchesPath reports whether the shell named name looks for a script
// file operand without a slash on PATH when it is not in the working
// directory (bash does, in POSIX mode too; dash and zsh do not).
func SearchesPath(name string) bool { return name == "bash" || name == "rbash" }

// ScriptPath is the script file a shell that searches PATH runs for
// the operand file in dir: dir/file when it exists or file has a slash,
// else the first regular file of that name on path, else dir/file.
// written, when not nil, reports files that exist though not yet on disk.
func ScriptPath(file, dir, path string, written func(string) bool) string {
	if filepath.IsAbs(file) {
		return filepath.Clean(file)
	}
	exists := func(p string) bool {
		if written != nil && written(p) {
			return true
		}
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	p := filepath.Join(dir, file)
	if exists(p) || strings.Contains(file, "/") {
		return p
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if exists(filepath.Join(d, file)) {
			return filepath.Join(d, file)
		}
	}
	return p
}

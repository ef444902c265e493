package parse

import (
	"bytes"
	"github.com/cordonsh/cordon/internal/repotop"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cordonsh/cordon/sqlkind"
)

// carry follows the code that command i carries, as its rule knowledge
// describes.
func (w *walker) carry(st *state, i int) {
	if len(w.res.Commands[i].Args) == 0 {
		return
	}
	if w.scriptFile(st, i) || w.cfg.Knowledge == nil {
		return
	}
	k := w.cfg.Knowledge.Carrier(w.res.Commands[i].Name())
	if k == nil {
		return
	}
	w.optionCode(st, i, k)
	if c := w.res.Commands[i]; c.Name() == "git" {
		env := withAssigns(st.env, c.Assigns)
		if extra := gitConfigArgs(env, w.cfg.Env, c.Args); len(extra) > 0 && !st.standIn {
			w.optionCodeIn(st, c, extra, k)
		}
		if d, set := env.lookup("GIT_DIR"); set && !startsWith(w.cfg.Env, "GIT_DIR", d) {
			// The repository the script points git at, judged as
			// --git-dir names it.
			w.res.Commands[i].Args = slices.Insert(c.Args, 1, Word{Text: "--git-dir=" + d})
		}
		w.gitApply(st, i)
	}
	w.runs(st, i, k)
	switch k.Kind {
	case CarryExec:
		w.carryExec(st, i, k)
	case CarryShell:
		w.carryShell(st, i)
	case CarryEval:
		w.carryEval(st, i)
	case CarrySource:
		w.carrySource(st, i)
	case CarryFind:
		w.carryFind(st, i, k)
	case CarryInterp:
		w.carryInterp(st, i, k)
	case CarryRemote:
		w.carryRemote(st, i, k)
	}
}

// scriptFile follows a command run by its path ("./x.sh", "/tmp/x")
// when the file is a shell script: one the script wrote earlier, or one
// on disk whose "#!" line names a POSIX shell. It reports whether it did.
func (w *walker) scriptFile(st *state, i int) bool {
	c := w.res.Commands[i]
	name := c.Args[0].Text
	if !strings.Contains(name, "/") || !c.Args[0].IsKnown() {
		return false
	}
	path := st.abs(name)
	data, written := w.files[path]
	head := []byte(data)
	if !written {
		head = readHead(path, 256)
	}
	if argv := shebangArgv(head); argv != nil && !w.shellShebang(head) {
		return w.shebang(st, i, argv, path)
	}
	if !written {
		if !w.shellShebang(head) || w.installed(name, path) {
			return false
		}
		b, err := readFile(w.cfg, path)
		if err != nil {
			w.unknownCode(i)
			return true
		}
		data = string(b)
	}
	parent := *st
	parent.env = withAssigns(st.env, c.Assigns)
	sub := parent.newShell(ShellCall{Dialect: dialectOf(data, st.dialect), Arg0: name, Params: wordTexts(c.Args[1:])}, "script "+name)
	w.inheritFuncs(st, sub)
	defer w.read(path)()
	w.code(sub, i, data)
	w.shellEnd(sub)
	return true
}

// installed reports whether the script file at path, named name in the
// script, is installed software ([Config.Installed]) that the script did
// not write, copy or link earlier, and that does not source a file named
// by a literal path that is not installed (one of the workspace): that
// file's code is the agent's.
func (w *walker) installed(name, path string) bool {
	if w.cfg.Installed == nil || path == "" || strings.Contains(name, "..") {
		return false
	}
	_, written := w.files[path]
	_, copied := w.copies[path]
	_, linked := w.links[path]
	if written || copied || linked || !w.cfg.Installed(path) {
		return false
	}
	data, err := readFile(w.cfg, path)
	if err != nil {
		return false
	}
	f, err := w.parser(dialectOf(string(data), Bash)).Parse(bytes.NewReader(data), path)
	if err != nil {
		return false
	}
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, isCall := n.(*syntax.CallExpr)
		if !ok || !isCall || len(ce.Args) < 2 {
			return ok
		}
		if cmd, _ := plainLit(ce.Args[0]); cmd == "source" || cmd == "." {
			file, lit := plainLit(ce.Args[1])
			ok = !lit || filepath.IsAbs(file) && w.cfg.Installed(filepath.Clean(file))
		}
		return ok
	})
	return ok
}

// shellShebang reports whether a file starts with a "#!" line that runs
// a POSIX shell, one of the rules' shell carriers.
func (w *walker) shellShebang(b []byte) bool {
	if len(b) < 2 || b[0] != '#' || b[1] != '!' || w.cfg.Knowledge == nil {
		return false
	}
	line, _, _ := strings.Cut(string(b[2:min(len(b), 256)]), "\n")
	f := strings.Fields(line)
	if len(f) == 0 {
		return false
	}
	prog := f[0]
	if strings.HasSuffix(prog, "/env") && len(f) > 1 {
		prog = f[1]
	}
	k := w.cfg.Knowledge.Carrier(prog[strings.LastIndexByte(prog, '/')+1:])
	return k != nil && k.Kind == CarryShell
}

func dialectOf(script string, def Dialect) Dialect {
	line, _, _ := strings.Cut(script, "\n")
	switch {
	case !strings.HasPrefix(line, "#!"):
		return def
	case strings.Contains(line, "zsh"):
		return Zsh
	case strings.Contains(line, "bash"), strings.Contains(line, "ksh"):
		return Bash
	}
	return POSIX
}

// runs follows the files a command runs on its own (git hooks) when the
// script wrote them.
func (w *walker) runs(st *state, i int, k *Carrier) {
	// Only what the script wrote is run from here: with nothing written
	// (most scripts) there is nothing to look for, nor a top to find.
	if len(k.Runs) == 0 && len(k.RunFiles) == 0 || len(w.files) == 0 {
		return
	}
	top := "" // (outside a repository, git runs no hooks)
	if len(k.Runs) > 0 && st.dir != "" {
		top = w.repoTop(st.dir)
	}
	if top != "" {
		for _, r := range k.Runs {
			path := filepath.Join(top, r)
			for _, data := range w.contents(path) {
				sub := st.newShell(ShellCall{Dialect: dialectOf(data, POSIX), Arg0: path}, "runs "+r)
				w.code(sub, i, data)
			}
		}
	}
	for _, t := range k.RunFiles {
		for _, path := range w.byName.paths(t.File) {
			// Each at every run: what its scripts do depends on the run
			// (the variables npm passes on, HOME among them, and the
			// directory), so a package judged at one run is not judged
			// for the next. A script of many packages each tested many
			// times can run out of its budget, and is asked about.
			for _, data := range w.contents(path) {
				if strings.Contains(data, Unknown) {
					w.unknownCode(i)
					continue
				}
				sub := st.newShell(ShellCall{Dialect: POSIX}, "runs "+t.File)
				for _, m := range t.Pattern.FindAllStringSubmatch(data, -1) {
					for g := 1; g < len(m); g++ {
						m[g] = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(m[g])
					}
					w.translate(sub, w.res.Commands[i], t, m)
				}
			}
		}
	}
}

// contents are what a tool may read at path, of what the script wrote:
// what it wrote there, and, when path is a link it made, what it wrote
// where the link leads (as that file is now, not as it was when the
// link was made). Both, when both are known: which one a write through
// the link changed is not followed.
func (w *walker) contents(path string) []string {
	var out []string
	if data, ok := w.files[path]; ok {
		out = append(out, data)
	}
	for hops := 0; hops < 8; hops++ {
		target, ok := w.links[path]
		if !ok {
			break
		}
		if data, ok := w.files[target]; ok {
			out = append(out, data)
		}
		path = target
	}
	return out
}

// writtenNames are the paths of the files a script wrote, by their
// names folded to lower case (a case-insensitive file system, macOS's
// or Windows's, gives Package.json to a tool that opens package.json),
// Windows paths among them. They are indexed when first asked for: a
// long script that writes thousands of files mostly never asks.
type writtenNames struct {
	added   []string // every path added, in order
	indexed int      // how many of added are in byName
	byName  map[string][]string
	seen    map[string]bool
}

// add records path.
func (n *writtenNames) add(path string) { n.added = append(n.added, path) }

// paths are the files named name that the script wrote or linked,
// wherever, in the order they were first made. A tool reads one of
// them (npm the package.json in its directory or the nearest above it),
// but which one is beyond the judge: --prefix, -C, a workspace flag, a
// directory the script made and entered, a nearer file removed or a
// link to another all change it. Every one is judged.
func (n *writtenNames) paths(name string) []string {
	for ; n.indexed < len(n.added); n.indexed++ {
		path := n.added[n.indexed]
		if n.seen[path] {
			continue
		}
		if n.seen == nil {
			n.seen, n.byName = map[string]bool{}, map[string][]string{}
		}
		n.seen[path] = true
		name := strings.ToLower(path[strings.LastIndexAny(path, `/\`)+1:])
		n.byName[name] = append(n.byName[name], path)
	}
	return n.byName[strings.ToLower(name)]
}

// repoTop is [repotop.Find] of dir, looked up once per directory and
// judgement: a long script's thousands of `go test` and `npm test` in
// one directory asked it each.
func (w *walker) repoTop(dir string) string {
	if top, ok := w.tops[dir]; ok {
		return top
	}
	top := repotop.Find(dir)
	if w.tops == nil {
		w.tops = map[string]string{}
	}
	w.tops[dir] = top
	return top
}

// unknownCode marks command i as running code the judge cannot see.
func (w *walker) unknownCode(i int) { w.res.Commands[i].UnknownCode = true }

func (w *walker) carryExec(st *state, i int, k *Carrier) {
	c := w.res.Commands[i]
	name := c.Name()
	args := c.Args[1:]
	sub := st.nested(name, k.Privileged)
	if k.InShell {
		sub = st // builtin cd changes this shell's directory
	}
	var split []Word
	var argFile *Word
	j := 0
	for j < len(args) {
		a := args[j].Text
		if a == "--" {
			j++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" && !k.Assigns {
			break
		}
		for _, f := range k.NotRun {
			if a == f || InCluster(a, f) {
				return // command -v cd: looked up, not run
			}
		}
		opt, val, next, _ := Option(args, j, k.ValueOptions)
		switch {
		case contains(k.DirOptions, opt):
			sub.dir = st.absOrEmpty(val.Text)
		case contains(k.SplitOptions, opt):
			split = splitWords(os.Expand(val.Text, func(v string) string {
				s, _ := st.env.lookup(strings.Trim(v, "{}"))
				return s
			}))
		case contains(k.ArgFileOptions, opt):
			argFile = &val
		}
		j = next
	}
	if len(k.Subs) > 0 {
		if j >= len(args) || !contains(k.Subs, args[j].Text) {
			return
		}
		j++
		for j < len(args) && strings.HasPrefix(args[j].Text, "-") && args[j].Text != "--" {
			_, _, next, _ := Option(args, j, k.ValueOptions)
			j = next
		}
		if j < len(args) && args[j].Text == "--" {
			j++
		}
	}
	j = min(j+k.Skip, len(args))
	var assigns []string
	for k.Assigns && j < len(args) && envAssign(args[j].Text) {
		assigns = append(assigns, args[j].Text)
		j++
	}
	inner := append(split, args[j:]...)
	for k.Assigns && len(inner) > 0 && envAssign(inner[0].Text) {
		assigns = append(assigns, inner[0].Text) // env -S 'NAME=value cmd'
		inner = inner[1:]
	}
	if w.carryArgs(sub, i, k, inner) {
		return
	}
	if len(inner) == 0 {
		return
	}
	if k.StdinArgs {
		in := w.stdinOf(i)
		if argFile != nil {
			in = w.argFile(st, argFile.Text)
		}
		inner = w.stdinArgs(c, k, inner, in, argFile == nil)
	}
	n := w.run(sub, Command{Args: inner, Assigns: append(c.Assigns, assigns...), StdinFrom: c.StdinFrom, Pos: c.Pos}, w.stdinOf(i))
	if out := w.out[n]; out != nil && !k.StdinArgs {
		w.out[i] = out // the wrapper prints what the command prints
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// envAssign reports whether env takes s for an assignment: anything
// with "=" after a first character (env 'BASH_FUNC_ls%%=() {...}').
func envAssign(s string) bool {
	k, _, ok := strings.Cut(s, "=")
	return ok && k != ""
}

func splitWords(s string) []Word {
	var out []Word
	for _, f := range strings.Fields(s) {
		out = append(out, Word{Text: f})
	}
	return out
}

// stdinArgs adds the arguments xargs reads from its input (in; nil when
// unknown): unknown, but bounded when the input comes from find.
func (w *walker) stdinArgs(c Command, k *Carrier, inner []Word, in *string, fromFind bool) []Word {
	repl := replaceStrings(c, k)
	if in != nil && !strings.Contains(*in, Unknown) {
		return xargsKnown(c, repl, inner, *in)
	}
	arg := Word{Text: Unknown}
	if fromFind && c.StdinFrom >= 0 {
		up := w.res.Commands[c.StdinFrom]
		if k := w.cfg.Knowledge.Carrier(up.Name()); k != nil && k.Kind == CarryFind {
			arg.Under, arg.Filter = findScope(up)
		}
	}
	replaced := false
	for _, r := range repl {
		for n := range inner {
			if strings.Contains(inner[n].Text, r) {
				text := strings.ReplaceAll(inner[n].Text, r, Unknown)
				inner[n] = Word{Text: text, Under: arg.Under, Filter: arg.Filter}
				if k := strings.Index(text, Unknown); k > 0 && arg.Under == "" {
					if d := strings.LastIndexByte(text[:k], '/'); d > 0 {
						inner[n].Under = filepath.Clean(text[:d])
					}
				}
				replaced = true
			}
		}
	}
	if replaced {
		return inner
	}
	return append(inner, arg)
}

// replaceStrings are the strings in xargs' command that an input line
// replaces: -I R, -iR and --replace=R (-i and --replace alone mean {}),
// or else the carrier's own (parallel's {}).
func replaceStrings(c Command, k *Carrier) []string {
	args := c.Args[1:]
	for j := 0; j < len(args); {
		t := args[j].Text
		switch {
		case t == "--" || !strings.HasPrefix(t, "-"):
			return k.Replacements
		case t == "-i" || t == "--replace":
			return []string{"{}"}
		case strings.HasPrefix(t, "--replace="):
			return []string{t[len("--replace="):]}
		case strings.HasPrefix(t, "-i") && len(t) > 2:
			return []string{t[2:]}
		}
		opt, val, next, ok := Option(args, j, k.ValueOptions)
		if ok && opt == "-I" {
			return []string{val.Text}
		}
		j = next
	}
	return k.Replacements
}

// argFile returns the content of a file of arguments (xargs -a FILE),
// or nil when it is unknown.
func (w *walker) argFile(st *state, name string) *string {
	if name == "/dev/null" {
		return new(string)
	}
	if data, ok := w.readKnown(st, name); ok {
		return &data
	}
	return nil
}

// xargsKnown builds the command xargs runs from input it knows: with a
// replace string the first line replaces it, otherwise the input's words
// are appended.
func xargsKnown(c Command, repl []string, inner []Word, in string) []Word {
	if len(repl) > 0 {
		line, _, _ := strings.Cut(strings.TrimLeft(in, "\n"), "\n")
		out := make([]Word, len(inner))
		hit := false
		for n, x := range inner {
			out[n] = x
			for _, r := range repl {
				if strings.Contains(x.Text, r) {
					out[n] = Word{Text: strings.ReplaceAll(out[n].Text, r, line)}
					hit = true
				}
			}
		}
		if hit {
			return out
		}
	}
	sep := ""
	for j := 1; j < len(c.Args); j++ {
		a := c.Args[j].Text
		if a == "-0" || a == "--null" || InCluster(a, "-0") {
			sep = "\x00"
		}
		if opt, val, _, ok := Option(c.Args, j, []string{"-d", "--delimiter"}); ok && (opt == "-d" || opt == "--delimiter") {
			sep = strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\0`, "\x00").Replace(val.Text)
		}
	}
	if sep == "" {
		return append(inner, splitWords(in)...)
	}
	for _, f := range strings.Split(in, sep) {
		if f = strings.TrimSuffix(f, "\n"); f != "" {
			inner = append(inner, Word{Text: f})
		}
	}
	return inner
}

// findScope returns the single search root of a find command, resolved,
// and its -name pattern.
func findScope(c Command) (under, filter string) {
	var roots []string
	j := 1
	for ; j < len(c.Args); j++ {
		a := c.Args[j].Text
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for ; j+1 < len(c.Args); j++ {
		if a := c.Args[j].Text; a == "-name" || a == "-iname" {
			filter = c.Args[j+1].Text
		}
	}
	if len(roots) == 1 {
		st := state{dir: c.Dir}
		under = st.abs(roots[0])
	}
	return under, filter
}

func (w *walker) carryShell(st *state, i int) {
	c := w.res.Commands[i]
	if w.cfg.Shell == nil {
		w.unknownCode(i)
		return
	}
	call, err := w.cfg.Shell(wordTexts(c.Args))
	if err != nil {
		w.unknownCode(i)
		return
	}
	parent := *st
	parent.env = withAssigns(st.env, c.Assigns)
	sub := parent.newShell(call, c.Name()+" -c")
	defer w.shellEnd(sub)
	w.inheritFuncs(st, sub)
	w.startup(sub, i, call)
	switch {
	case call.HasScript:
		w.code(sub, i, call.Script)
	case call.File != "":
		sub.via[len(sub.via)-1] = c.Name() + " " + call.File
		path := st.abs(call.File)
		if _, written := w.files[path]; !written && path != "" && SearchesPath(c.Name()) {
			p, _ := parent.env.lookup("PATH")
			path = ScriptPath(call.File, st.dir, p, func(f string) bool { _, ok := w.files[f]; return ok })
		}
		if w.installed(call.File, path) {
			// Run like the program it is: judged by its name and
			// arguments (python3 -c ... through a version manager's shim).
			args := []Word{{Text: path}}
			for _, p := range call.Params {
				args = append(args, Word{Text: p})
			}
			w.run(st.nested(sub.via[len(sub.via)-1]+" (installed)", false), Command{Args: args, StdinFrom: c.StdinFrom, Pos: c.Pos}, w.stdinOf(i))
			return
		}
		defer w.read(path)()
		if path == "" {
			w.file(sub, i, call.File)
		} else {
			w.file(sub, i, path)
		}
	default:
		sub.via[len(sub.via)-1] = c.Name() + " <stdin"
		if in := w.stdinOf(i); in != nil {
			w.code(sub, i, *in)
		} else {
			w.unknownCode(i)
		}
	}
}

// code walks script text carried by command i, or marks it unknown.
func (w *walker) code(st *state, i int, script string) {
	switch {
	case strings.Trim(script, Caller+" \t\n") == "":
		// Only data the caller passed on an inherited descriptor.
	case strings.Contains(script, Unknown):
		w.unknownCode(i)
	default:
		w.script(st, script, "")
	}
}

// file walks a script file run by command i. A file that does not exist
// runs nothing (the shell reports it missing); one the script wrote with
// content the judge cannot know runs unknown code; one it copied holds
// what the original holds.
func (w *walker) file(st *state, i int, p string) {
	path := st.abs(p)
	w.res.Commands[i].ScriptFile = path
	read := p
	if src, ok := w.copies[path]; ok {
		if _, written := w.files[path]; !written {
			read = src
		}
	}
	data, ok := w.readKnown(st, read)
	switch {
	case ok:
		w.code(st, i, data)
	case path == "":
		w.unknownCode(i)
	default:
		if _, written := w.files[path]; written {
			w.unknownCode(i)
		} else if _, err := os.Stat(path); err == nil {
			w.unknownCode(i)
		}
	}
}

func (w *walker) carryEval(st *state, i int) {
	c := w.res.Commands[i]
	args := c.Args[1:]
	if len(args) > 0 && args[0].Text == "--" {
		args = args[1:]
	}
	sub := st.nested("eval", false)
	w.code(sub, i, joinWords(args))
	st.inherit(sub)
}

// inherit takes back what code run in the current shell (eval, source)
// changed there: the directory and the shell's options.
func (st *state) inherit(sub *state) {
	st.dir, st.globs, st.nounset = sub.dir, sub.globs, sub.nounset
	if *sub.stop {
		*st.stop = true
	}
}

func (w *walker) carrySource(st *state, i int) {
	c := w.res.Commands[i]
	if len(c.Args) < 2 {
		return
	}
	if path := st.abs(c.Args[1].Text); path != "" && w.cfg.Startup != nil && w.cfg.Startup(path) {
		if _, written := w.files[path]; !written {
			return // the user's own startup file, as a login shell runs it
		}
	}
	// Installed software's own setup (source ~/.nvm/nvm.sh), like the
	// user's startup files. A bare name is looked for on PATH first.
	if name := c.Args[1].Text; strings.Contains(name, "/") && w.installed(name, st.abs(name)) {
		return
	}
	sub := st.nested(c.Name()+" "+c.Args[1].String(), false)
	sub.ret = new(bool)
	if len(c.Args) > 2 {
		sub.env.params = wordTexts(c.Args[2:])
	}
	w.file(sub, i, c.Args[1].Text)
	stop := *sub.stop
	st.inherit(sub)
	*st.stop = stop
}

func (w *walker) carryFind(st *state, i int, k *Carrier) {
	c := w.res.Commands[i]
	under, filter := findScope(c)
	for j := 1; j < len(c.Args); j++ {
		if !contains(k.ExecFlags, c.Args[j].Text) {
			continue
		}
		var inner []Word
		placed := false
		for j++; j < len(c.Args) && c.Args[j].Text != ";" && c.Args[j].Text != "+"; j++ {
			a := c.Args[j]
			if strings.Contains(a.Text, "{}") {
				a, placed = Word{Text: Unknown, Under: under, Filter: filter}, true
			}
			inner = append(inner, a)
		}
		if !placed && j == len(c.Args) && len(inner) > 0 {
			// No terminator (fd -x CMD): the path is appended.
			inner = append(inner, Word{Text: Unknown, Under: under, Filter: filter})
		}
		if len(inner) > 0 {
			w.run(st.nested(c.Name()+" "+c.Args[j-len(inner)-1].Text, false), Command{Args: inner, StdinFrom: -1, Pos: c.Pos}, nil)
		}
	}
}

func (w *walker) carryInterp(st *state, i int, k *Carrier) {
	c := w.res.Commands[i]
	code, ok := interpCode(c.Args[1:], k.CodeFlags, k.ValueOptions, k.CodeAnywhere)
	if !ok && k.CodeOperand {
		code, ok = nthOperand(c.Args[1:], k.ValueOptions, k.Skip)
	}
	if !ok && len(k.FileFlags) > 0 {
		code, ok = w.codeFile(st, i, c.Args[1:], k)
		if !ok && !w.unknown(i) {
			code, ok = w.defaultFile(st, i, k)
		}
		if !ok && (w.unknown(i) || len(k.DefaultFiles) > 0) {
			return // make reads its makefile, not standard input
		}
	}
	if !ok && !k.CodeOperand {
		// A program file the script itself wrote, or a <(...) stream.
		if file, found := nthOperand(c.Args[1:], k.ValueOptions, k.Skip); found && file != "-" {
			data, written := w.files[st.abs(file)]
			switch {
			case !written:
				return
			case strings.Contains(data, Unknown):
				w.unknownCode(i)
				return
			}
			code, ok = data, true
		}
	}
	if !ok {
		if !readsStdin(c.Args[1:], k.ValueOptions, k.Skip) {
			return
		}
		in := w.stdinOf(i)
		if in == nil || strings.Contains(*in, Unknown) {
			if c.StdinFrom >= 0 || in != nil {
				w.unknownCode(i)
			}
			return
		}
		code = *in
	}
	home, _ := st.env.lookup("HOME")
	if st.windows {
		home = w.winHome()
	}
	for _, r := range k.Rewrites {
		code = r.Pattern.ReplaceAllString(code, strings.ReplaceAll(r.With, "{home}", home))
	}
	sub := st.nested(c.Name(), false)
	var kinds []string
	sub.later = sub.later || k.Later
	if k.Later {
		// Code that runs later (a trap's) is judged here, where it is
		// set; an exit or an abort in it ends the shell then, not here:
		// what follows is walked all the same.
		sub.stop, sub.ret = new(bool), nil
		// Nor does set -u: a variable unset here (trap 'rm -f "$tmp"'
		// EXIT; tmp=$(mktemp)) is set when the code runs, and the code
		// is judged again then, at the shell's end, as it stands.
		sub.nounset = false
	}
	for _, t := range k.Translations {
		if len(t.SQL) > 0 {
			if kinds == nil {
				kinds = sqlkind.Kinds(code)
			}
			for _, kind := range kinds {
				if contains(t.SQL, kind) {
					w.translate(sub, c, t, []string{kind, kind})
				}
			}
			continue
		}
		for _, m := range t.Pattern.FindAllStringSubmatch(code, -1) {
			w.translate(sub, c, t, m)
		}
	}
}

// carryRemote judges the command ssh runs on another machine: the
// arguments after the options and the host, joined by spaces, are a
// script for the remote user's shell. Its commands are marked Elsewhere:
// nothing of this machine (its workspace, its files) is what they touch.
func (w *walker) carryRemote(st *state, i int, k *Carrier) {
	args := w.res.Commands[i].Args[1:]
	j, skipped := 0, 0
	for j < len(args) {
		a := args[j].Text
		if a == "--" {
			j++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if skipped == k.Skip {
				break
			}
			skipped++
			j++
			continue
		}
		_, _, next, _ := Option(args, j, k.ValueOptions)
		j = next
	}
	if skipped < k.Skip || j >= len(args) {
		return // no command: a login, a tunnel
	}
	sub := st.newShell(ShellCall{Dialect: POSIX, Arg0: "sh"}, w.res.Commands[i].Name())
	sub.remote, sub.priv, sub.dir = true, false, "" // not this machine's privileges or directory
	w.code(sub, i, joinWords(args[j:]))
}

// interpCode finds the code given to an interpreter after one of flags:
// "-c CODE", "-cCODE", or a cluster ending in the flag ("-ne CODE"),
// before the first operand or, with anywhere, among all the arguments.
func interpCode(args []Word, flags, valued []string, anywhere bool) (string, bool) {
	for j := 0; j < len(args); j++ {
		t := args[j].Text
		if t == "--" {
			return "", false
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			if anywhere {
				continue
			}
			return "", false
		}
		if contains(flags, t) {
			if j+1 < len(args) {
				return args[j+1].Text, true
			}
			return "", false
		}
		if contains(valued, t) {
			j++ // an option's value, not code
			continue
		}
		for _, f := range flags {
			switch {
			case strings.HasPrefix(f, "--") && strings.HasPrefix(t, f+"="):
				return t[len(f)+1:], true
			case len(f) == 2 && isCluster(t) && strings.HasSuffix(t, f[1:]) && j+1 < len(args):
				return args[j+1].Text, true
			case len(f) == 2 && !strings.HasPrefix(t, "--") && strings.HasPrefix(t, f) && len(t) > 2:
				return t[2:], true
			}
		}
	}
	return "", false
}

// codeFile reads the code an interpreter takes from a file flag (make -f
// FILE): standard input, or a file the script wrote.
func (w *walker) codeFile(st *state, i int, args []Word, k *Carrier) (string, bool) {
	for j := 0; j < len(args); {
		opt, val, next, found := Option(args, j, k.FileFlags)
		j = next
		if !found || !contains(k.FileFlags, opt) {
			continue
		}
		var data *string
		if val.Text == "-" || val.Text == "/dev/stdin" {
			data = w.stdinOf(i)
		} else if s, written := w.files[st.abs(val.Text)]; written {
			data = &s
		} else {
			continue
		}
		if data == nil || strings.Contains(*data, Unknown) {
			w.unknownCode(i)
			return "", false
		}
		return *data, true
	}
	return "", false
}

// defaultFile reads the file of code a command takes by a fixed name
// from its directory ([Carrier.DefaultFiles]): the first that exists, as
// the command looks for it, judged only when the script wrote it.
func (w *walker) defaultFile(st *state, i int, k *Carrier) (string, bool) {
	for _, name := range k.DefaultFiles {
		path := st.abs(name)
		if path == "" {
			return "", false
		}
		if data, written := w.files[path]; written {
			if strings.Contains(data, Unknown) {
				w.unknownCode(i)
				return "", false
			}
			return data, true
		}
		if _, err := os.Stat(path); err == nil {
			return "", false // the project's own file
		}
	}
	return "", false
}

// unknown reports whether command i was found to run unknown code.
func (w *walker) unknown(i int) bool { return w.res.Commands[i].UnknownCode }

// firstOperand returns the first argument that is not an option or an
// option's value (awk's program).
func firstOperand(args []Word, valued []string) (string, bool) {
	return nthOperand(args, valued, 0)
}

// nthOperand returns operand n (from 0): an argument that is not an
// option or an option's value, or any argument after "--".
func nthOperand(args []Word, valued []string, n int) (string, bool) {
	for j := 0; j < len(args); j++ {
		a := args[j].Text
		switch {
		case a == "--":
			if j+1+n < len(args) {
				return args[j+1+n].Text, true
			}
			return "", false
		case strings.HasPrefix(a, "-") && a != "-":
			if contains(valued, a) {
				j++
			}
		case n == 0:
			return a, true
		default:
			n--
		}
	}
	return "", false
}

// isCluster reports whether t is a cluster of short option letters
// ("-lne").
func isCluster(t string) bool {
	if len(t) < 3 || t[0] != '-' || t[1] == '-' {
		return false
	}
	for _, r := range t[1:] {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return true
}

// readsStdin reports whether an interpreter reads its program from
// standard input: no operand after the skip ones, or "-".
func readsStdin(args []Word, valued []string, skip int) bool {
	op, found := nthOperand(args, valued, skip)
	return !found || op == "-"
}

func (w *walker) translate(st *state, c Command, t Translation, m []string) {
	fill := func(s string) string {
		s = strings.ReplaceAll(s, "{unknown}", Unknown)
		for g := len(m) - 1; g >= 1; g-- {
			s = strings.ReplaceAll(s, "$"+string(rune('0'+g)), m[g])
		}
		return s
	}
	if t.Shell != "" {
		w.script(st, fill(t.Shell), "")
		return
	}
	home, _ := st.env.lookup("HOME")
	args := make([]Word, len(t.Argv))
	for n, a := range t.Argv {
		text := fill(a)
		if text == "~" || strings.HasPrefix(text, "~/") {
			text = home + text[1:]
		}
		args[n] = Word{Text: text}
	}
	in := *st
	in.standIn = true
	w.run(&in, Command{Args: args, StdinFrom: -1, Pos: c.Pos}, nil)
}

// optionCode follows shell code held in option values (git -c
// alias.x='!cmd').
func (w *walker) optionCode(st *state, i int, k *Carrier) {
	c := w.res.Commands[i]
	w.optionCodeIn(st, c, c.Args[1:], k)
}

// optionCodeIn is [walker.optionCode] over the options args of c.
func (w *walker) optionCodeIn(st *state, c Command, args []Word, k *Carrier) {
	for j := 0; j < len(args); {
		a := args[j].Text
		if a == "--" {
			return
		}
		opt, val, next, _ := Option(args, j, k.ValueOptions)
		if !strings.HasPrefix(a, "-") {
			opt, val, next = "", args[j], j+1
		}
		for _, t := range k.OptionCode {
			if len(t.Options) > 0 && !contains(t.Options, opt) && len(Abbreviates(opt, t.Options, t.Options)) == 0 {
				continue
			}
			if m := t.Pattern.FindStringSubmatch(val.Text); m != nil {
				w.translate(st.nested(c.Name()+" "+opt, k.Privileged), c, t, m)
			}
		}
		j = next
	}
}

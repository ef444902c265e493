package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// What a shell reads on its own: the start-up files it is pointed at,
// the "#!" line of a file run by its path, and the script file it reads
// line by line while the script may change it.

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

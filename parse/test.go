package parse

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// A guard is a test ([ ... ], test ..., [[ ... ]]) whose outcome the
// walker can know before anything runs: every operand is known, and its
// files were not touched by what ran before it. Code that a known guard
// keeps from running ([ -n "$UNSET" ] && rm -rf "$UNSET/x") is not judged;
// any doubt leaves the outcome unknown and both sides judged.

// guardStatus reports the exit status of statement s, just walked as
// command i (-1 for a compound command), when it is a known test.
func (w *walker) guardStatus(st *state, s *syntax.Stmt, i int) (ok, known bool) {
	if s == nil || st.later || len(s.Redirs) > 0 && !quietRedirs(s.Redirs) {
		return false, false
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		if i < 0 || i >= len(w.res.Commands) || len(x.Assigns) > 0 {
			return false, false
		}
		c := w.res.Commands[i]
		name := c.Name()
		if _, fn := st.funcs.defs[name]; fn || c.Function || c.UnknownCode {
			return false, false // a function or alias named test
		}
		if _, alias := st.alias(name); alias {
			return false, false
		}
		args := c.Args[1:]
		switch name {
		case "[":
			if len(args) == 0 || args[len(args)-1].Text != "]" {
				return false, false
			}
			args = args[:len(args)-1]
		case "test":
		default:
			return false, false
		}
		if !w.knownWords(st, c, args, x.Args) || w.redefinedBuiltins(st, i) {
			return false, false
		}
		texts := wordTexts(args)
		if st.dialect != Bash && slices.Contains(texts, "==") {
			return false, false // dash and zsh reject == in test: an error, status 2
		}
		ok, known = w.testArgs(st, i, texts)
	case *syntax.TestClause:
		if w.redefinedBuiltins(st, len(w.res.Commands)) {
			return false, false
		}
		ok, known = w.testExpr(st, x.X)
	case *syntax.BinaryCmd:
		ok, known = w.status[x]&2 != 0, w.status[x]&1 != 0
	default:
		return false, false
	}
	if s.Negated {
		ok = !ok
	}
	return ok, known
}

// setStatus records the exit status of an && or || list just walked,
// when it is known.
func (w *walker) setStatus(c *syntax.BinaryCmd, ok, known bool) {
	if !known {
		delete(w.status, c) // a nil map is fine
		return
	}
	if w.status == nil {
		w.status = map[*syntax.BinaryCmd]uint8{}
	}
	var s uint8
	if known {
		s = 1
		if ok {
			s |= 2
		}
	}
	w.status[c] = s
}

// redefinedBuiltins reports whether a command before i may have changed
// what a test means: enable (a builtin loaded from a file, or turned
// off), or an option that changes [[ ]]'s pattern matching
// (nocasematch, extglob), also from the environment (BASHOPTS).
func (w *walker) redefinedBuiltins(st *state, i int) bool {
	for _, name := range []string{"BASHOPTS", "SHELLOPTS"} {
		if v, _ := st.env.lookup(name); strings.Contains(v, "nocasematch") || strings.Contains(v, "extglob") || strings.Contains(v, "posix") {
			return true
		}
	}
	for _, c := range w.res.Commands[:min(i, len(w.res.Commands))] {
		if c.Name() == "enable" {
			return true
		}
		for _, a := range c.Args {
			if strings.Contains(a.Text, "nocasematch") || strings.Contains(a.Text, "extglob") || strings.Contains(a.Text, "NO_CASE") {
				return true
			}
		}
	}
	return false
}

// quietRedirs reports whether redirections only silence output
// (2>/dev/null, 2>&1) or feed a here-document: ones that cannot fail.
// A redirection that fails (< missing, > dir) makes the test false
// without evaluating it.
func quietRedirs(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		lit, ok := plainLit(r.Word)
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		case syntax.DplOut:
			if !ok || lit != "1" && lit != "2" {
				return false
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll:
			if !ok || lit != "/dev/null" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// knownWords reports whether a test's operands are all known: no part
// unknown or computed by a substitution, and no variable that is unset
// here but that the shell may set itself.
func (w *walker) knownWords(st *state, c Command, args []Word, words []*syntax.Word) bool {
	for _, a := range args {
		if !a.IsKnown() || !ascii(a.Text) {
			return false
		}
	}
	for _, word := range words {
		subst := false
		for _, p := range word.Parts {
			if lit, ok := p.(*syntax.Lit); ok && lit.Value != "[" && lit.Value != "]" && strings.ContainsAny(lit.Value, "*?[") {
				subst = true // a glob: what it matches when the test runs may differ
			}
		}
		syntax.Walk(word, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
				subst = true
			case *syntax.ParamExp:
				if n.Param != nil {
					v, _ := st.env.lookup(n.Param.Value)
					subst = !ascii(v) // ${#X} counts by the locale
				}
			}
			return !subst
		})
		if subst {
			return false
		}
	}
	for _, v := range c.Vars {
		if val, set := st.env.lookup(v); !set && st.shellSets(v) || !ascii(val) {
			return false
		}
	}
	return true
}

// ascii reports whether s is plain ASCII. Outside it, what a test
// decides depends on the locale (in C, é is two characters: ? does not
// match it, ${#X} counts bytes), which the walker does not model.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// shellSets reports whether the shell may set a variable of this name
// itself (positional and special parameters, the variables of
// [shellSet], and those bash and zsh give a default when the
// environment lacks them), so that its being unset in the environment
// says nothing.
func (st *state) shellSets(name string) bool {
	if name == "" || name == "_" || name == "argv" || name[0] >= '0' && name[0] <= '9' || strings.ContainsAny(name[:1], "@*#?-$!") {
		return true
	}
	return st.env.shell[name] || shellDefaults[name]
}

// shellDefaults are the variables a shell sets when the environment
// does not (bash's PATH, PWD and prompts; zsh's HOME from the password
// database), or as it runs (REPLY, COLUMNS and LINES with checkwinsize).
var shellDefaults = map[string]bool{
	"PATH": true, "PWD": true, "OLDPWD": true, "IFS": true, "HOME": true, "PS1": true, "PS2": true, "PS3": true,
	"PS4": true, "HISTFILE": true, "HISTSIZE": true, "HISTFILESIZE": true, "MAILCHECK": true, "COLUMNS": true,
	"LINES": true, "REPLY": true, "OPTIND": true, "OPTARG": true, "TMOUT": true,
}

// testArgs evaluates test's arguments (POSIX: by their number), for
// command i.
func (w *walker) testArgs(st *state, i int, a []string) (ok, known bool) {
	switch len(a) {
	case 0:
		return false, true
	case 1:
		return a[0] != "", true
	case 2:
		if a[0] == "!" {
			ok, known = w.testArgs(st, i, a[1:])
			return !ok, known
		}
		return w.unary(st, i, a[0], a[1])
	case 3:
		if testBinaryOps[a[1]] {
			// The middle word is a binary operator: bash compares
			// (even "( -ef )"), known or not.
			return binary(a[0], a[1], a[2], false)
		}
		if a[0] == "!" {
			ok, known = w.testArgs(st, i, a[1:])
			return !ok, known
		}
		if a[0] == "(" && a[2] == ")" {
			return w.testArgs(st, i, a[1:2])
		}
	case 4:
		if a[0] == "!" {
			ok, known = w.testArgs(st, i, a[1:])
			return !ok, known
		}
	}
	return false, false
}

// unary evaluates a unary test on a string or a file.
func (w *walker) unary(st *state, i int, op, x string) (ok, known bool) {
	switch op {
	case "-n":
		return x != "", true
	case "-z":
		return x == "", true
	case "-e", "-f", "-d", "-s", "-L", "-h":
		return w.fileTest(st, i, op, x)
	}
	return false, false
}

// testBinaryOps are the binary operators of bash's test, which decide a
// three-word test before "!" or parentheses do.
var testBinaryOps = map[string]bool{
	"=": true, "==": true, "!=": true, "<": true, ">": true, "-a": true, "-o": true, "-nt": true, "-ot": true, "-ef": true,
	"-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true,
}

var decimal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]{0,17})$`) })

// binary evaluates a binary string or integer comparison; glob makes the
// right side of == and != a pattern ([[ ]]).
func binary(x, op, y string, glob bool) (ok, known bool) {
	switch op {
	case "=", "==", "!=":
		eq := x == y
		if glob {
			// [[ ]] matches as if extglob were on.
			expr, err := pattern.Regexp(y, pattern.EntireString|pattern.ExtendedOperators)
			if err != nil {
				return false, false
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return false, false
			}
			eq = re.MatchString(x)
		}
		return eq == (op != "!="), true
	case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		// Only plain decimals: [[ ]] reads operands as arithmetic
		// (010 is octal there, a name is a variable).
		if !decimal().MatchString(x) || !decimal().MatchString(y) {
			return false, false
		}
		a, err1 := strconv.ParseInt(x, 10, 64)
		b, err2 := strconv.ParseInt(y, 10, 64)
		if err1 != nil || err2 != nil {
			return false, false
		}
		switch op {
		case "-eq":
			return a == b, true
		case "-ne":
			return a != b, true
		case "-lt":
			return a < b, true
		case "-le":
			return a <= b, true
		case "-gt":
			return a > b, true
		}
		return a >= b, true
	}
	return false, false
}

// fileTest evaluates a file test on the real file, relative to the
// walker's directory. It is known only when no command before i (in
// this script and what it carries) could have changed files: only tests
// and shell builtins that change nothing on disk ran, without writing
// redirections, and the script wrote no file.
func (w *walker) fileTest(st *state, i int, op, x string) (ok, known bool) {
	path := st.abs(x)
	if path == "" || x == "" || len(w.files) > 0 || !w.untouched(i) || !w.seen(path) {
		return false, false
	}
	var fi os.FileInfo
	var err error
	if op == "-L" || op == "-h" {
		fi, err = os.Lstat(path)
	} else {
		fi, err = os.Stat(path)
	}
	if err != nil {
		if os.IsNotExist(err) {
			return false, true
		}
		return false, false
	}
	switch op {
	case "-f":
		return fi.Mode().IsRegular(), true
	case "-d":
		return fi.IsDir(), true
	case "-s":
		return fi.Size() > 0, true
	case "-L", "-h":
		return fi.Mode()&os.ModeSymlink != 0, true
	}
	return true, true
}

// seen reports whether the command sees path as the judge does: its
// sandbox may hide it (a credential) or show another file there, also
// through a link (ws/link/.ssh/id_rsa).
func (w *walker) seen(path string) bool {
	if w.cfg.Seen == nil {
		return true
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
		if !os.IsNotExist(err) || derr != nil {
			return false
		}
		real = filepath.Join(dir, filepath.Base(path))
	}
	return w.cfg.Seen(real)
}

// untouched reports whether every command before i leaves files alone:
// tests and the shell's own state builtins, with no redirection other
// than to /dev/null.
func (w *walker) untouched(i int) bool {
	for _, c := range w.res.Commands[:i] {
		for _, r := range c.Redirs {
			if r.Op != RedirRead && r.Target.Text != "/dev/null" {
				return false
			}
		}
		if len(c.Args) == 0 {
			continue
		}
		switch c.Name() {
		case "[", "test", "[[", "cd", "pushd", "popd", "export", "set", "shopt", "unset", "local", "declare", "typeset", "true", "false", ":", "echo", "pwd":
		default:
			return false
		}
	}
	return true
}

// testExpr evaluates a [[ ]] expression.
func (w *walker) testExpr(st *state, x syntax.TestExpr) (ok, known bool) {
	switch e := x.(type) {
	case *syntax.ParenTest:
		return w.testExpr(st, e.X)
	case *syntax.UnaryTest:
		if e.Op == syntax.TsNot {
			ok, known = w.testExpr(st, e.X)
			return !ok, known
		}
		word, isWord := e.X.(*syntax.Word)
		if !isWord {
			return false, false
		}
		s, known := w.testWord(st, word)
		if !known {
			return false, false
		}
		return w.unary(st, len(w.res.Commands), e.Op.String(), s)
	case *syntax.BinaryTest:
		switch e.Op {
		case syntax.AndTest, syntax.OrTest:
			l, lk := w.testExpr(st, e.X)
			if lk && (l == (e.Op == syntax.OrTest)) {
				return l, true // short circuit
			}
			r, rk := w.testExpr(st, e.Y)
			if !lk || !rk {
				return false, false
			}
			return r, true
		}
		xw, ok1 := e.X.(*syntax.Word)
		yw, ok2 := e.Y.(*syntax.Word)
		if !ok1 || !ok2 {
			return false, false
		}
		xs, k1 := w.testWord(st, xw)
		ys, k2 := w.testWord(st, yw)
		if !k1 || !k2 {
			return false, false
		}
		op := e.Op.String()
		glob := false
		if op == "==" || op == "=" || op == "!=" {
			if glob = !quotedWord(yw); glob {
				if ys, k2 = w.testPattern(st, yw); !k2 {
					return false, false
				}
			}
		}
		return binary(xs, op, ys, glob)
	case *syntax.Word:
		s, known := w.testWord(st, e)
		return s != "", known
	}
	return false, false
}

// testWord expands one [[ ]] operand when nothing in it is computed by a
// substitution or names a variable the shell may set itself.
func (w *walker) testWord(st *state, word *syntax.Word) (string, bool) {
	known := true
	syntax.Walk(word, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			known = false
		case *syntax.ParamExp:
			if n.Param == nil || n.Exp != nil || n.Repl != nil || n.Index != nil || n.Slice != nil || n.Excl || n.Length || n.Width {
				known = false
			} else if v, set := st.env.lookup(n.Param.Value); !set && st.shellSets(n.Param.Value) || !ascii(v) {
				known = false
			}
		}
		return known
	})
	if !known {
		return "", false
	}
	s, err := w.literal(st, word)
	if err != nil || !s.IsKnown() || !ascii(s.Text) {
		return "", false
	}
	return s.Text, true
}

// testPattern is the pattern a [[ ]] operand on the right of == makes:
// quoted parts match themselves, unquoted text and expansions are
// pattern (a backslash escapes). Unknown for zsh, whose patterns differ
// (<1-9>, (a|b) without extglob), and for a tilde.
func (w *walker) testPattern(st *state, word *syntax.Word) (string, bool) {
	if st.dialect != Bash {
		return "", false
	}
	var b strings.Builder
	for i, p := range word.Parts {
		part := &syntax.Word{Parts: []syntax.WordPart{p}}
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return "", false
			}
			b.WriteString(p.Value) // raw: its backslashes escape
		case *syntax.SglQuoted, *syntax.DblQuoted:
			s, known := w.testWord(st, part)
			if !known {
				return "", false
			}
			for _, r := range s {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
		default:
			s, known := w.testWord(st, part)
			if !known {
				return "", false
			}
			b.WriteString(s)
		}
	}
	return b.String(), true
}

// quotedWord reports whether a word is wholly quoted (no pattern).
func quotedWord(word *syntax.Word) bool {
	if len(word.Parts) != 1 {
		return false
	}
	switch word.Parts[0].(type) {
	case *syntax.SglQuoted, *syntax.DblQuoted:
		return true
	}
	return false
}

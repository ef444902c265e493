package cmdexe

import "strings"

// exec reports the command text (expanded) would run, then follows what
// it carries. builtins is false for a command started in a new process
// (start, forfiles), where set and cd do not change this one.
func (w *walker) exec(f *frame, text string, redirs []Redir, pos string, taint, builtins bool) {
	text = strings.TrimLeft(text, " \t@;,=")
	name, rest := splitName(text)
	c := Command{Redirs: redirs, Pos: pos, CommandLine: strings.TrimRight(text, " \t"), StdinFrom: -1}
	if name == "" && strings.TrimSpace(rest) == "" {
		if len(redirs) == 0 {
			return
		}
	} else {
		c.Args = append([]string{name}, splitArgs(rest)...)
	}
	c.UnknownCode = taint || strings.Contains(name, Unknown)
	idx := w.emit(f, c)
	if idx < 0 || name == "" {
		return
	}
	lname := strings.ToLower(name)
	if lname != "echo" {
		w.forgetWritten(f, c.Args[1:], redirs)
	}
	switch {
	case lname == "start":
		w.start(f, rest, pos)
	case lname == "forfiles" || lname == "forfiles.exe":
		w.forfiles(f, rest, pos)
	case isBatchName(lname):
		w.runBatch(f, idx, name, rest, pos)
	case builtins:
		w.builtin(f, idx, lname, rest, pos)
	}
}

// builtin follows the builtins that change the process or carry code.
func (w *walker) builtin(f *frame, idx int, name, rest, pos string) {
	switch name {
	case "echo":
		w.echoed(f, rest, w.res.Commands[idx].Redirs)
	case "set":
		f.st.set(rest)
	case "cd", "chdir":
		w.cd(f, rest)
	case "pushd":
		w.pushd(f, rest)
	case "popd":
		f.st.popd()
	case "setlocal":
		switch r := strings.ToLower(rest); {
		case strings.Contains(r, "enabledelayedexpansion"):
			f.st.delayed = true
		case strings.Contains(r, "disabledelayedexpansion"):
			f.st.delayed = false
		}
	case "call":
		w.call(f, idx, rest, pos)
	default:
		if len(name) == 2 && name[1] == ':' && isLetter(name[0]) && strings.TrimSpace(rest) == "" && !sameDrive(f.st.dir, name) {
			f.st.dir = "" // another drive, whose directory is not known
		}
	}
}

func isBatchName(lname string) bool {
	return strings.HasSuffix(lname, ".bat") || strings.HasSuffix(lname, ".cmd")
}

// internals are the builtins whose name may be glued to what follows
// (echo., cd.., rd/s, goto:eof).
var internals = []string{"echo", "cd", "chdir", "md", "mkdir", "rd", "rmdir", "del", "erase",
	"dir", "type", "copy", "move", "ren", "rename", "set", "start", "pushd", "popd", "exit",
	"goto", "title", "cls", "ver", "vol", "path", "prompt", "pause", "color", "mklink",
	"assoc", "ftype", "verify", "setlocal", "endlocal", "shift", "call", "break", "date", "time"}

// splitName splits a command's text into its name, quotes removed, and
// the rest, as written.
func splitName(s string) (name, rest string) {
	if s == "" {
		return "", ""
	}
	if s[0] == '"' {
		j := strings.IndexByte(s[1:], '"')
		if j < 0 {
			return s[1:], ""
		}
		return s[1 : 1+j], s[2+j:]
	}
	word := s
	if k := strings.IndexAny(s, " \t"); k >= 0 {
		word, rest = s[:k], s[k:]
	}
	for _, in := range internals {
		if len(word) > len(in) && strings.EqualFold(word[:len(in)], in) &&
			strings.IndexByte(`./\(:+,;=[]`, word[len(in)]) >= 0 {
			tail := word[len(in):]
			if in == "echo" {
				tail = tail[1:] // echo. and echo( print what follows
			}
			return word[:len(in)], tail + rest
		}
	}
	return unquote(word), rest
}

// splitArgs splits at spaces and tabs outside quotes, and removes the
// quotes.
func splitArgs(s string) []string {
	var args []string
	var b strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
			in = true
		case (c == ' ' || c == '\t') && !quoted:
			if in {
				args = append(args, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		args = append(args, b.String())
	}
	return args
}

// paramSplit splits a batch file's arguments as %1 %2 read them: at
// blanks, commas, semicolons and equal signs outside quotes, quotes
// kept.
func paramSplit(s string) []string {
	var args []string
	start, quoted := -1, false
	for i := 0; i <= len(s); i++ {
		if i < len(s) && (quoted || strings.IndexByte(" \t,;=", s[i]) < 0) {
			if s[i] == '"' {
				quoted = !quoted
			}
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			args = append(args, s[start:i])
			start = -1
		}
	}
	return args
}

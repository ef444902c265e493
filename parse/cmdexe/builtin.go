package cmdexe

import (
	"errors"
	"strings"
)

// set follows set NAME=value, set "NAME=value", set /a and set /p (whose
// values are Unknown).
func (st *state) set(rest string) {
	s := strings.TrimLeft(rest, " \t")
	ls := strings.ToLower(s)
	switch {
	case strings.HasPrefix(ls, "/a"):
		for _, part := range strings.Split(unquote(s[2:]), ",") {
			part = strings.TrimSpace(part)
			j := 0
			for j < len(part) && (isLetter(part[j]) || isDigit(part[j]) || strings.IndexByte("_$#@.", part[j]) >= 0) {
				j++
			}
			if j > 0 && strings.Contains(part[j:], "=") {
				st.vars[strings.ToUpper(part[:j])] = value{text: Unknown, set: true, safe: true}
			}
		}
	case strings.HasPrefix(ls, "/p"):
		if name, _, ok := strings.Cut(strings.TrimLeft(unquote(s[2:]), " \t"), "="); ok && name != "" {
			st.setVar(name, Unknown)
		}
	case strings.HasPrefix(s, `"`):
		inner := s[1:]
		if k := strings.LastIndexByte(inner, '"'); k >= 0 {
			inner = inner[:k]
		}
		if name, val, ok := strings.Cut(inner, "="); ok && name != "" {
			st.setVar(name, val)
		}
	default:
		if name, val, ok := strings.Cut(s, "="); ok && name != "" {
			st.setVar(name, val)
		}
	}
}

// cd follows cd [/d] path. Without /d, a path on another drive changes
// that drive's directory, not the current one.
func (w *walker) cd(f *frame, rest string) {
	s := strings.TrimSpace(rest)
	slashD := len(s) >= 2 && strings.EqualFold(s[:2], "/d") && (len(s) == 2 || s[2] == ' ' || s[2] == '\t' || s[2] == '"')
	if slashD {
		s = strings.TrimSpace(s[2:])
	}
	s = strings.TrimSpace(unquote(s))
	switch {
	case s == "" || len(s) == 2 && s[1] == ':':
		return // cd and cd D: print a directory
	case strings.Contains(s, Unknown):
		f.st.dir = ""
	case !slashD && drive(s) != "" && !sameDrive(f.st.dir, s):
		if drive(f.st.dir) == "" {
			f.st.dir = ""
		}
	default:
		f.st.dir = w.join(f.st.dir, s)
	}
}

func (w *walker) pushd(f *frame, rest string) {
	s := strings.TrimSpace(unquote(rest))
	if s == "" {
		return
	}
	f.st.stack = append(f.st.stack, f.st.dir)
	f.st.dir = w.join(f.st.dir, s)
}

// popd returns to the directory of the last pushd seen, or to an unknown
// one.
func (st *state) popd() {
	if n := len(st.stack); n > 0 {
		st.dir = st.stack[n-1]
		st.stack = st.stack[:n-1]
		return
	}
	st.dir = ""
}

// call follows call: a second round of percent expansion, then the
// command. A label is walked anyway with the rest of the batch file; on a
// command line, where labels do not exist, it is unknown code.
func (w *walker) call(f *frame, idx int, rest, pos string) {
	s := strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(s, ":") {
		if !f.batch {
			w.res.Commands[idx].UnknownCode = true
		}
		return
	}
	if strings.TrimSpace(s) == "" || w.deep(f, pos) {
		return
	}
	w.line(f.carry("call", pos), s, pos)
}

// start follows start ["title"] [/d dir] [/b] [/wait] ... command: the
// command runs in a new process, in /d's directory.
func (w *walker) start(f *frame, rest, pos string) {
	s := strings.TrimLeft(rest, " \t")
	if strings.HasPrefix(s, `"`) {
		if j := strings.IndexByte(s[1:], '"'); j >= 0 {
			s = s[j+2:]
		} else {
			s = ""
		}
	}
	dir := f.st.dir
	for {
		s = strings.TrimLeft(s, " \t")
		if !strings.HasPrefix(s, "/") {
			break
		}
		sw, after := cutWord(s)
		switch lsw := strings.ToLower(sw); {
		case lsw == "/d":
			var d string
			d, after = cutWord(strings.TrimLeft(after, " \t"))
			dir = w.join(f.st.dir, unquote(d))
		case strings.HasPrefix(lsw, "/d"):
			dir = w.join(f.st.dir, unquote(sw[2:]))
		case lsw == "/node" || lsw == "/affinity":
			_, after = cutWord(strings.TrimLeft(after, " \t"))
		}
		s = after
	}
	if strings.TrimSpace(s) == "" || w.deep(f, pos) {
		return
	}
	sub := f.carry("start", pos)
	sub.st = f.st.clone()
	sub.st.dir = dir
	w.exec(sub, s, nil, pos, false, false)
}

// cutWord returns the word at the start of s (quotes group) and what
// follows it.
func cutWord(s string) (string, string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ' ', '\t':
			if !quoted {
				return s[:i], s[i:]
			}
		}
	}
	return s, ""
}

// runBatch follows a batch file run by name: read through
// Config.ReadFile, in the same process, its parameters from the
// command's text. A batch file run without call does not return to the
// line that ran it; the walk goes on anyway (more is reported, nothing is
// missed).
func (w *walker) runBatch(f *frame, idx int, name, rest, pos string) {
	c := &w.res.Commands[idx]
	path := w.join(f.st.dir, name)
	data, err := w.readFile(path)
	if err != nil || len(data) > maxFile {
		c.UnknownCode = true
		return
	}
	if w.deep(f, pos) {
		return
	}
	sub := f.carry("batch "+name, "")
	sub.base = ""
	sub.batch = true
	sub.params = append([]string{name}, paramSplit(rest)...)
	sub.batchPath = path
	sub.forVars = nil
	sub.redirs = append([]Redir(nil), c.Redirs...)
	w.batch(sub, string(data))
}

// readFile reads a batch file: one this walk wrote, else through
// Config.ReadFile.
func (w *walker) readFile(path string) ([]byte, error) {
	if text, ok := w.written[strings.ToLower(path)]; ok && path != "" {
		return []byte(text), nil
	}
	if w.cfg.ReadFile == nil || path == "" {
		return nil, errNoFile
	}
	return w.cfg.ReadFile(path)
}

var errNoFile = errors.New("cannot be read")

// echoed records what echo writes into the files it is redirected to.
func (w *walker) echoed(f *frame, rest string, redirs []Redir) {
	text := strings.TrimPrefix(rest, " ")
	if strings.Contains(text, Unknown) {
		return
	}
	for _, r := range redirs {
		if r.Fd != 1 || r.Op == "<" || strings.Contains(r.Target, Unknown) {
			continue
		}
		path := strings.ToLower(w.join(f.st.dir, r.Target))
		if path == "" {
			continue
		}
		if w.written == nil {
			w.written = map[string]string{}
		}
		if r.Op == ">" {
			w.written[path] = ""
		}
		if len(w.written[path])+len(text) < maxFile {
			w.written[path] += text + "\r\n"
		}
	}
}

// forgetWritten drops what echo wrote to a file another command may
// change (copy x.txt c.bat): it is then read as any other file.
func (w *walker) forgetWritten(f *frame, args []string, redirs []Redir) {
	if len(w.written) == 0 {
		return
	}
	for _, r := range redirs {
		args = append(args, r.Target)
	}
	for _, a := range args {
		delete(w.written, strings.ToLower(w.join(f.st.dir, a)))
	}
}

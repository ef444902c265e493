package cmdexe

import (
	"strconv"
	"strings"
)

// state is what one cmd.exe process keeps while it runs: its variables
// (over Config.Getenv), its directory and whether !VAR! is expanded.
type state struct {
	vars    map[string]value // upper-case names
	dir     string
	delayed bool
	stack   []string // pushd
}

type value struct {
	text string
	set  bool // false: unset by set NAME=
	safe bool // an Unknown in text cannot hold code: set /a's number
}

func (s *state) clone() *state {
	c := *s
	c.vars = make(map[string]value, len(s.vars))
	for k, v := range s.vars {
		c.vars[k] = v
	}
	c.stack = append([]string(nil), s.stack...)
	return &c
}

func (s *state) setVar(name, text string) {
	s.vars[strings.ToUpper(name)] = value{text: text, set: text != ""}
}

// lookup returns the value of a variable, name being what stands between
// the % or ! signs: NAME, NAME:~start,len or NAME:old=new.
func (w *walker) lookup(st *state, name string) (string, bool) {
	base, edit, hasEdit := strings.Cut(name, ":")
	if base == "" {
		return "", false
	}
	v, ok := w.variable(st, base)
	if !ok || !hasEdit {
		return v, ok
	}
	if strings.Contains(v, Unknown) {
		return Unknown, true
	}
	if rest, ok := strings.CutPrefix(edit, "~"); ok {
		return substring(v, rest)
	}
	old, repl, ok := strings.Cut(edit, "=")
	if !ok || old == "" {
		return "", false
	}
	if strings.Contains(old+repl, Unknown) {
		return Unknown, true
	}
	return replaceFold(v, old, repl), true
}

// variable returns a variable's value: set in the walk, in the
// environment, or one of cmd.exe's dynamic variables.
func (w *walker) variable(st *state, name string) (string, bool) {
	if v, ok := st.vars[strings.ToUpper(name)]; ok {
		w.unsafe = w.unsafe || !v.safe && strings.Contains(v.text, Unknown)
		return v.text, v.set
	}
	if w.cfg.Getenv != nil {
		if v, ok := w.cfg.Getenv(name); ok {
			w.unsafe = w.unsafe || strings.Contains(v, Unknown)
			return v, true
		}
	}
	switch strings.ToUpper(name) {
	case "CD", "__CD__":
		if st.dir == "" {
			return Unknown, true
		}
		if len(name) > 2 {
			return strings.TrimSuffix(st.dir, `\`) + `\`, true
		}
		return st.dir, true
	case "CMDEXTVERSION":
		return "2", true
	case "RANDOM", "ERRORLEVEL", "DATE", "TIME", "CMDCMDLINE", "HIGHESTNUMANODENUMBER", "__APPDIR__":
		return Unknown, true
	}
	return "", false
}

// substring applies :~start,len to v (negative numbers count from the
// end), as set /? describes.
func substring(v, spec string) (string, bool) {
	a, b, hasLen := strings.Cut(spec, ",")
	start, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil {
		return "", false
	}
	n := len(v)
	if start < 0 {
		start = max(n+start, 0)
	}
	start = min(start, n)
	end := n
	if hasLen {
		k, err := strconv.Atoi(strings.TrimSpace(b))
		if err != nil {
			return "", false
		}
		if k < 0 {
			end = max(n+k, start)
		} else {
			end = min(start+k, n)
		}
	}
	return v[start:end], true
}

// replaceFold replaces old by repl in v, ignoring case; *old replaces
// everything up to and including the first old.
func replaceFold(v, old, repl string) string {
	lv, lo := strings.ToLower(v), strings.ToLower(old)
	if rest, ok := strings.CutPrefix(lo, "*"); ok {
		if rest == "" {
			return repl + v
		}
		i := strings.Index(lv, rest)
		if i < 0 {
			return v
		}
		return repl + v[i+len(rest):]
	}
	var b strings.Builder
	for {
		i := strings.Index(lv, lo)
		if i < 0 || len(lv) != len(v) {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		b.WriteString(repl)
		v, lv = v[i+len(lo):], lv[i+len(lo):]
	}
}

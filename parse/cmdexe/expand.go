package cmdexe

import (
	"strings"

	"github.com/cordonsh/cordon/winargs"
)

// value returns v, or Unknown once the walk has expanded maxBytes.
func (w *walker) spend(v string) string {
	w.bytes += len(v)
	if w.bytes > maxBytes {
		return Unknown
	}
	return v
}

// percent does cmd.exe's first pass on a line: %VAR% everywhere; in a
// batch file also %%, %0..%9, %* and %~dp0, an undefined variable then
// expanding to nothing. taint reports whether unknown text came in.
func (w *walker) percent(f *frame, line string) (out string, taint bool) {
	if !strings.Contains(line, "%") {
		return line, false
	}
	w.unsafe = false
	if f.batch {
		out = w.percentBatch(f, line)
	} else {
		out = winargs.ExpandPercent(line, func(name string) (string, bool) {
			v, ok := w.lookup(f.st, name)
			return w.spend(v), ok
		})
	}
	return out, w.unsafe
}

func (w *walker) percentBatch(f *frame, line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		c := line[i]
		if c != '%' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 == len(line) {
			break // a lone % at the end is dropped
		}
		switch n := line[i+1]; {
		case n == '%':
			b.WriteByte('%')
			i += 2
		case isDigit(n):
			w.unsafe = w.unsafe || strings.Contains(f.param(int(n-'0')), Unknown)
			b.WriteString(w.spend(f.param(int(n - '0'))))
			i += 2
		case n == '*':
			w.unsafe = w.unsafe || strings.Contains(strings.Join(f.params, " "), Unknown)
			b.WriteString(w.spend(strings.Join(f.paramsFrom(1), " ")))
			i += 2
		case n == '~':
			mods, end := modifiers(line[i+2:])
			if k := i + 2 + end; k < len(line) && isDigit(line[k]) {
				w.unsafe = w.unsafe || strings.Contains(f.param(int(line[k]-'0')), Unknown)
				b.WriteString(w.spend(w.paramMod(f, int(line[k]-'0'), mods)))
				i = k + 1
				continue
			}
			b.WriteByte('%')
			i++
		default:
			j := strings.IndexByte(line[i+1:], '%')
			if j < 0 {
				i++ // an unpaired % is dropped
				continue
			}
			if v, ok := w.lookup(f.st, line[i+1:i+1+j]); ok {
				b.WriteString(w.spend(v))
			}
			i += j + 2
		}
	}
	return b.String()
}

// modifiers returns the length of the path modifiers (f d p n x s a t z,
// and $VAR:) at the start of s.
func modifiers(s string) (string, int) {
	i := 0
	for i < len(s) && strings.IndexByte("fdpnxsatzFDPNXSATZ", s[i]) >= 0 {
		i++
	}
	if i < len(s) && s[i] == '$' {
		if j := strings.IndexByte(s[i:], ':'); j > 0 {
			i += j + 1
		}
	}
	return s[:i], i
}

func (f *frame) param(n int) string {
	if n < len(f.params) {
		return f.params[n]
	}
	return ""
}

func (f *frame) paramsFrom(n int) []string {
	if n < len(f.params) {
		return f.params[n:]
	}
	return nil
}

// paramMod expands %~mods n. For %~f0 and the like, the batch file's own
// resolved path is used, whatever cd has done since.
func (w *walker) paramMod(f *frame, n int, mods string) string {
	v := unquote(f.param(n))
	if n == 0 && f.batchPath != "" {
		return w.modify(f.batchPath, mods, "")
	}
	return w.modify(v, mods, f.st.dir)
}

// modify applies path modifiers to v, a path relative to dir: f the full
// path, d its drive, p its directory, n its name, x its extension; s
// changes nothing here; a, t, z and $PATH: read the disk and are
// Unknown.
func (w *walker) modify(v, mods, dir string) string {
	lm := strings.ToLower(mods)
	if lm == "" {
		return v
	}
	if strings.Contains(v, Unknown) {
		return Unknown
	}
	if strings.ContainsAny(lm, "atz$") {
		return Unknown
	}
	full := w.join(dir, v)
	if full == "" || strings.Contains(full, Unknown) {
		return Unknown
	}
	if strings.Trim(lm, "fs") == "" {
		return full
	}
	drive, path, name, ext := splitPath(full)
	var b strings.Builder
	for _, part := range []struct {
		mod  byte
		text string
	}{{'d', drive}, {'p', path}, {'n', name}, {'x', ext}} {
		if strings.IndexByte(lm, part.mod) >= 0 {
			b.WriteString(part.text)
		}
	}
	return b.String()
}

// splitPath splits a full Windows path into drive (C:), directory (\a\b\),
// name and extension (.bat).
func splitPath(full string) (drive, dir, name, ext string) {
	if len(full) >= 2 && full[1] == ':' {
		drive, full = full[:2], full[2:]
	}
	k := strings.LastIndexAny(full, `\/`)
	dir, name = full[:k+1], full[k+1:]
	if j := strings.LastIndexByte(name, '.'); j >= 0 {
		name, ext = name[:j], name[j:]
	}
	return drive, dir, name, ext
}

func unquote(s string) string { return strings.ReplaceAll(s, `"`, "") }

// runtime expands what cmd.exe expands when a command runs: FOR
// variables, then !VAR! with delayed expansion.
func (w *walker) runtime(f *frame, text string) string {
	if len(f.forVars) > 0 && strings.Contains(text, "%") {
		text = w.forSubst(f, text)
	}
	if f.st.delayed && strings.Contains(text, "!") {
		text = w.delayed(f, text)
	}
	return text
}

// forSubst replaces %x and %~modsx for the FOR variables in scope.
func (w *walker) forSubst(f *frame, text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '%' || i+1 == len(text) {
			b.WriteByte(c)
			continue
		}
		if v, ok := f.forVars[text[i+1]]; ok {
			b.WriteString(w.spend(v))
			i++
			continue
		}
		if text[i+1] != '~' {
			b.WriteByte(c)
			continue
		}
		_, end := modifiers(text[i+2:])
		at := i + 2 + end
		if _, ok := f.forVars[byteAt(text, at)]; !ok || at >= len(text) {
			// The letter may be the last modifier: %~dpi.
			at = -1
			for k := i + 1 + end; k >= i+2; k-- {
				if _, ok := f.forVars[text[k]]; ok {
					at = k
					break
				}
			}
		}
		if at < 0 {
			b.WriteByte(c)
			continue
		}
		v, mods := f.forVars[text[at]], text[i+2:at]
		b.WriteString(w.spend(w.modify(unquote(v), mods, f.st.dir)))
		i = at
	}
	return b.String()
}

func byteAt(s string, i int) byte {
	if i >= 0 && i < len(s) {
		return s[i]
	}
	return 0
}

// delayed does the !VAR! pass: carets escape the next character, an
// unpaired ! is dropped, an undefined variable expands to nothing in a
// batch file and stays as written on a command line.
func (w *walker) delayed(f *frame, text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '^':
			if i+1 < len(text) {
				i++
				b.WriteByte(text[i])
			}
		case '!':
			j := strings.IndexByte(text[i+1:], '!')
			if j < 0 {
				continue
			}
			name := text[i+1 : i+1+j]
			if v, ok := w.lookup(f.st, name); ok {
				b.WriteString(w.spend(v))
			} else if !f.batch {
				b.WriteString("!" + name + "!")
			}
			i += j + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

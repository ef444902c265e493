package cmdexe

import (
	"strconv"
	"strings"
)

// forLoop walks a for's body once per item when the items are known
// literals, else once with the variable Unknown. The command of for /f
// ('command') is walked as a nested command line.
func (w *walker) forLoop(f *frame, n *forNode) {
	if n.body == nil {
		return
	}
	set := w.runtime(f, n.set)
	via := "for"
	values := []string{Unknown}
	extra := 0
	switch n.mode {
	case 'f':
		via = "for /f"
		values, extra = w.forF(f, n, set)
	case 'l':
		values = forRange(set)
	case 'r':
		// The items below a directory, at any depth: judged as the
		// items in the directory itself, which is where they lie.
		values = w.forGlobs(f, true, n.root, forItems(set, true))
	default:
		values = w.forGlobs(f, false, "", forItems(set, true))
	}
	sub := f.carry(via, "")
	sub.depth--
	sub.base = f.base
	for _, v := range values {
		if w.stop {
			return
		}
		sub.forVars = make(map[byte]string, len(f.forVars)+1+extra)
		for k, x := range f.forVars {
			sub.forVars[k] = x
		}
		sub.forVars[n.letter] = v
		for i := 1; i <= extra && int(n.letter)+i < 0x7f; i++ {
			sub.forVars[n.letter+byte(i)] = Unknown
		}
		w.node(sub, n.body)
	}
}

// forItems splits a for set into its items (blanks, commas, semicolons
// and equal signs separate, quotes kept). Too many items make the
// variable Unknown, and so do wildcards unless globs is set.
func forItems(set string, globs bool) []string {
	items := paramSplit(set)
	if len(items) == 0 {
		return nil
	}
	if len(items) > maxItems {
		return []string{Unknown}
	}
	for _, it := range items {
		if !globs && strings.ContainsAny(it, "*?") {
			return []string{Unknown}
		}
	}
	return items
}

// forGlobs turns the wildcards of a for set into the paths they match,
// written as the wildcard joined to its directory (C:\x\*.txt): the
// rules judge such a path as what it matches. For /r (recursive), root is
// the tree's top, or "" for the current directory; every item lies below
// it.
func (w *walker) forGlobs(f *frame, recursive bool, root string, items []string) []string {
	if n := len(items); n == 0 || items[0] == Unknown {
		return items
	}
	base := f.st.dir
	if root != "" {
		base = w.join(f.st.dir, unquote(w.runtime(f, root)))
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if !recursive && !strings.ContainsAny(it, "*?") {
			out = append(out, it)
			continue
		}
		p := w.join(base, unquote(it))
		if p == "" {
			p = Unknown
		}
		out = append(out, p)
	}
	return out
}

// forRange reads for /l's (start,step,end).
func forRange(set string) []string {
	parts := paramSplit(set)
	if len(parts) != 3 {
		return []string{Unknown}
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return []string{Unknown}
		}
		n[i] = v
	}
	var out []string
	for v := n[0]; n[1] > 0 && v <= n[2] || n[1] < 0 && v >= n[2]; v += n[1] {
		if len(out) == maxItems {
			return []string{Unknown}
		}
		out = append(out, strconv.Itoa(v))
	}
	return out
}

// forF follows for /f: a command is walked (Via "for /f") and its output
// is Unknown; a literal string gives its first token under the default
// options; a file's content is Unknown. extra counts the variables after
// the first that tokens= defines.
func (w *walker) forF(f *frame, n *forNode, set string) (values []string, extra int) {
	opts := strings.ToLower(unquote(w.runtime(f, n.opts)))
	backq := strings.Contains(opts, "usebackq")
	extra = tokenCount(opts) - 1
	s := strings.TrimSpace(set)
	cmdQuote, strQuote := byte('\''), byte('"')
	if backq {
		cmdQuote, strQuote = '`', '\''
	}
	switch {
	case len(s) >= 2 && s[0] == cmdQuote && s[len(s)-1] == cmdQuote:
		pos := f.pos(n.at)
		if !w.deep(f, pos) {
			sub := f.carry("for /f", pos)
			sub.st = f.st.clone() // cmd /c: a process of its own
			sub.st.delayed = false
			sub.batch = false
			sub.forVars = nil
			w.line(sub, s[1:len(s)-1], pos)
		}
		if out, ok := echoOutput(s[1 : len(s)-1]); ok && (opts == "" || opts == "delims=") {
			// for /f %i in ('echo C:\x') reads what echo prints.
			if opts == "" {
				out = strings.Fields(out[0])[:1]
			}
			return out, 0
		}
	case len(s) >= 2 && s[0] == strQuote && s[len(s)-1] == strQuote && opts == "":
		if tok := strings.Fields(s[1 : len(s)-1]); len(tok) > 0 {
			return tok[:1], 0
		}
		return nil, 0
	}
	return []string{Unknown}, extra
}

// tokenCount returns how many variables tokens= defines (at least 1).
func tokenCount(opts string) int {
	_, spec, ok := strings.Cut(opts, "tokens=")
	if !ok {
		return 1
	}
	spec, _, _ = strings.Cut(spec, " ")
	n := 0
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSuffix(part, "*")
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if isRange && err1 == nil && err2 == nil && b >= a {
			n += b - a + 1
		} else {
			n++
		}
	}
	if strings.HasSuffix(spec, "*") {
		n++
	}
	return min(max(n, 1), 31)
}

// echoOutput returns the lines a command line that is one echo prints.
func echoOutput(line string) ([]string, bool) {
	line = strings.TrimSpace(line)
	name, rest := splitName(line)
	if !strings.EqualFold(name, "echo") || strings.ContainsAny(rest, "&|<>()^%!") || strings.Contains(rest, Unknown) {
		return nil, false
	}
	text := strings.TrimSpace(rest)
	if text == "" || strings.EqualFold(text, "on") || strings.EqualFold(text, "off") {
		return nil, false
	}
	return []string{text}, true
}

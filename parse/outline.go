package parse

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Outlines: a large script that is mostly function definitions (a shell
// snapshot that Codex or Claude Code sources before every command, tens
// of kB of bash-completion's functions) costs the judge its parse, not
// its walk: a definition only records its body, which is walked when the
// function is called. So the first judgement of such a script keeps its
// outline, where its top-level functions' bodies lie; a later judgement
// of the same bytes parses the skeleton (the script with each of those
// bodies cut down to "{ :" and its line breaks, so that every other
// statement keeps its line and column), walks it as before, and parses a
// function's body from the script's own text, at its own lines and
// columns, only when the function is called.
//
// The outline depends on nothing but the bytes, the dialect and the
// parser: everything else (the state before the script, the rules, what
// the functions do when called) is judged afresh every time, and the
// bodies come from the bytes being judged, never from the outline. It is
// kept only after checking, on the whole parse, that the skeleton parses
// to the same statements at the same lines and columns, printed alike
// but for the bodies, and that each body parsed alone is the definition
// the whole parse holds, printed alike: a body that parses differently
// alone (a here-document begun before it on its line) leaves no outline.
// A body is left out only if its "}" ends its line, so no statement
// follows it there. Read back, an outline is used only if each of its
// bodies is, in the skeleton, the body of a top-level definition that
// starts where it says; a called function whose text does not parse
// alone as one definition of that extent runs unknown code.

// Outlines keeps outlines between judgements, by a key that names the
// script's bytes and dialect; the keeper adds what names the parser (the
// binary). Nil keeps none.
type Outlines interface {
	Outline(key string) ([]byte, bool)
	KeepOutline(key string, data []byte)
}

// minOutline is the smallest script worth an outline, and the least of
// its bytes that function bodies must take.
const minOutline = 8 << 10

// outlineFormat is the first line of an outline.
const outlineFormat = "cordon-outline 1"

// A lazyBody is a top-level function whose body was left out of the
// skeleton: the script's text, and where the definition lies in it.
type lazyBody struct {
	src                 string
	dialect             Dialect
	start, lbrace, rend int // the definition's first byte, its body's '{', and one past its '}'
	body                *syntax.Stmt
	failed              bool
}

// span is one function of an outline.
type span struct{ start, lbrace, rbrace int }

func outlineKey(d Dialect, src string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00", outlineFormat, d)
	// Through a buffer: []byte(src) copied a long script whole.
	var buf [4096]byte
	for len(src) > 0 {
		n := copy(buf[:], src)
		h.Write(buf[:n])
		src = src[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

func encodeOutline(spans []span) []byte {
	b := []byte(outlineFormat + "\n")
	for _, s := range spans {
		b = fmt.Appendf(b, "%d %d %d\n", s.start, s.lbrace, s.rbrace)
	}
	return b
}

func decodeOutline(data []byte, size int) ([]span, bool) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 2 || lines[0] != outlineFormat {
		return nil, false
	}
	spans := make([]span, 0, len(lines)-1)
	last := -1
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) != 3 {
			return nil, false
		}
		var n [3]int
		for i := range f {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, false
			}
			n[i] = v
		}
		s := span{n[0], n[1], n[2]}
		if s.start <= last || s.lbrace < s.start || s.rbrace <= s.lbrace || s.rbrace >= size {
			return nil, false
		}
		spans = append(spans, s)
		last = s.rbrace
	}
	return spans, true
}

// skeleton returns src with the bodies of spans left out: each becomes
// "{ :", its line breaks, and "}" (or "{ :;}" on one line), so that every
// other statement keeps its line and column (a body's "}" ends its line)
// at a fraction of the bytes. It returns where each stand-in body's "{"
// is.
func skeleton(src string, spans []span) (string, []int) {
	var b strings.Builder
	b.Grow(len(src) / 4)
	at := make([]int, len(spans))
	last := 0
	for k, s := range spans {
		b.WriteString(src[last:s.lbrace])
		at[k] = b.Len()
		b.WriteString("{ :")
		if n := strings.Count(src[s.lbrace:s.rbrace], "\n"); n > 0 {
			b.WriteString(strings.Repeat("\n", n))
		} else {
			b.WriteByte(';')
		}
		last = s.rbrace
	}
	b.WriteString(src[last:])
	return b.String(), at
}

// outlined parses src from its kept outline, and returns the skeleton
// parsed and its text; or false.
func (w *walker) outlined(d Dialect, src, name string) (*syntax.File, string, bool) {
	data, ok := w.cfg.Outlines.Outline(outlineKey(d, src))
	if !ok {
		return nil, "", false
	}
	spans, ok := decodeOutline(data, len(src))
	if !ok {
		return nil, "", false
	}
	for _, s := range spans {
		if !s.fits(src) {
			return nil, "", false
		}
	}
	text, at := skeleton(src, spans)
	f, err := w.parser(d).Parse(strings.NewReader(text), name)
	if err != nil {
		return nil, "", false
	}
	lazy := make(map[*syntax.Stmt]*lazyBody, len(spans))
	k := 0
	for _, s := range f.Stmts {
		if k == len(spans) || int(s.Pos().Offset()) < at[k]-(spans[k].lbrace-spans[k].start) {
			continue
		}
		body, ok := lazyDecl(s)
		if !ok || int(s.Pos().Offset()) != at[k]-(spans[k].lbrace-spans[k].start) || int(body.Pos().Offset()) != at[k] {
			return nil, "", false
		}
		lazy[body] = spans[k].lazy(src, d)
		k++
	}
	if k != len(spans) {
		return nil, "", false
	}
	if w.lazy == nil {
		w.lazy = lazy
	} else {
		maps.Copy(w.lazy, lazy)
	}
	return f, text, true
}

// mayOutline reports whether src could have an outline: a body left out
// ends in a "}" that ends its line ([span.fits]). A long script without
// one (Codex's wrapper around a command: tens of lines of if ... fi) is
// neither hashed nor looked for in the store.
func mayOutline(src string) bool {
	return strings.Contains(src, "}\n") || strings.HasSuffix(src, "}")
}

// fits reports whether a span is a body in src, "{" to "}", with its
// "}" at the end of a line: no other statement follows it there.
func (s span) fits(src string) bool {
	return s.start <= s.lbrace && s.lbrace < s.rbrace && s.rbrace < len(src) && src[s.lbrace] == '{' && src[s.rbrace] == '}' &&
		(s.rbrace+1 == len(src) || src[s.rbrace+1] == '\n')
}

func (s span) lazy(src string, d Dialect) *lazyBody {
	return &lazyBody{src: src, dialect: d, start: s.start, lbrace: s.lbrace, rend: s.rbrace + 1}
}

// lazyDecl returns the body of a top-level statement that can be left
// out of a skeleton: a plain function definition whose body is a { }
// block without redirections.
func lazyDecl(s *syntax.Stmt) (*syntax.Stmt, bool) {
	fd, ok := s.Cmd.(*syntax.FuncDecl)
	if !ok || s.Negated || s.Background || s.Coprocess || s.Disown || len(s.Redirs) > 0 || fd.Body == nil || len(fd.Body.Redirs) > 0 || fd.Body.Negated || fd.Body.Background {
		return nil, false
	}
	if _, ok := fd.Body.Cmd.(*syntax.Block); !ok {
		return nil, false
	}
	return fd.Body, true
}

// keepOutline makes and keeps the outline of src, parsed whole as f,
// when its function bodies are most of it and it checks out.
func (w *walker) keepOutline(d Dialect, src, name string, f *syntax.File) {
	var spans []span
	blank := 0
	for _, s := range f.Stmts {
		body, ok := lazyDecl(s)
		if !ok {
			continue
		}
		sp := span{int(s.Pos().Offset()), int(body.Pos().Offset()), int(body.End().Offset()) - 1}
		if !sp.fits(src) {
			continue
		}
		spans = append(spans, sp)
		blank += sp.rbrace - sp.lbrace
	}
	if blank < minOutline/2 || !w.outlineHolds(d, src, name, f, spans) {
		return
	}
	w.cfg.Outlines.KeepOutline(outlineKey(d, src), encodeOutline(spans))
}

// outlineHolds checks an outline against the whole parse f: the skeleton
// has the same statements at the same places, printed alike but for the
// bodies, and every body parsed alone is the one f holds.
func (w *walker) outlineHolds(d Dialect, src, name string, f *syntax.File, spans []span) bool {
	text, at := skeleton(src, spans)
	sk, err := w.parser(d).Parse(strings.NewReader(text), name)
	if err != nil || len(sk.Stmts) != len(f.Stmts) {
		return false
	}
	p := syntax.NewPrinter()
	print := func(n syntax.Node) string {
		var b bytes.Buffer
		p.Print(&b, n)
		return b.String()
	}
	same := func(a, b syntax.Pos) bool { return a.Line() == b.Line() && a.Col() == b.Col() }
	k := 0
	for i, s := range f.Stmts {
		t := sk.Stmts[i]
		if !same(s.Pos(), t.Pos()) || s.End().Line() != t.End().Line() {
			return false
		}
		if k < len(spans) && int(s.Pos().Offset()) == spans[k].start {
			body, ok := lazyDecl(t)
			alone, err := w.parseLazy(spans[k].lazy(src, d), name)
			if !ok || int(body.Pos().Offset()) != at[k] || err != nil || print(s) != print(alone) ||
				!same(alone.Pos(), s.Pos()) || !same(alone.End(), s.End()) {
				return false
			}
			k++
			continue
		}
		if !same(s.End(), t.End()) || print(s) != print(t) {
			return false
		}
	}
	return k == len(spans)
}

// parseLazy parses a left-out definition alone, at its lines and
// columns, and checks that it is one definition spanning what it did.
func (w *walker) parseLazy(lb *lazyBody, name string) (*syntax.Stmt, error) {
	line := strings.Count(lb.src[:lb.start], "\n")
	col := lb.start - (strings.LastIndexByte(lb.src[:lb.start], '\n') + 1)
	pad := line + col
	text := strings.Repeat("\n", line) + strings.Repeat(" ", col) + lb.src[lb.start:lb.rend]
	f, err := w.parser(lb.dialect).Parse(strings.NewReader(text), name)
	if err != nil {
		return nil, err
	}
	if _, late := lateHeredoc(f, text); late {
		// (Asked about in the whole script's parse; alone, the body
		// is not what the shell runs.)
		return nil, errors.New("a here-document the parser reads late")
	}
	if unquotedCR(f, text) >= 0 {
		// (The whole script's parse asks about it; alone, the
		// body is not the one it judged.)
		return nil, errors.New("a carriage return outside single quotes")
	}
	if len(f.Stmts) != 1 {
		return nil, errors.New("not one definition")
	}
	body, ok := lazyDecl(f.Stmts[0])
	if !ok || int(body.Pos().Offset())-pad != lb.lbrace-lb.start || int(body.End().Offset())-pad != lb.rend-lb.start {
		return nil, errors.New("not the definition outlined")
	}
	return f.Stmts[0], nil
}

// lazyParsed returns a left-out function's body, parsed when first
// called; nil when it does not parse as it did in the whole script.
func (w *walker) lazyParsed(lb *lazyBody) *syntax.Stmt {
	if lb.body == nil && !lb.failed {
		if s, err := w.parseLazy(lb, ""); err != nil {
			lb.failed = true
		} else {
			lb.body = s.Cmd.(*syntax.FuncDecl).Body
		}
	}
	return lb.body
}

package parse

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// LiteralWord returns the text the shell word s stands for when s is
// one word and nothing in it is expanded: plain, single-quoted and
// double-quoted text, as an agent's wrapper quotes the command it hands
// to eval (Claude Code's `eval 'CMD'`). ok is false for anything else:
// more than one word, a word with an expansion, text that does not
// parse.
func LiteralWord(s string, d Dialect) (string, bool) {
	f, err := syntax.NewParser(syntax.Variant(langOf(d))).Parse(strings.NewReader(s), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Last) > 0 {
		return "", false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) != 1 {
		return "", false
	}
	// The word must be all of s: nothing before or after it but what
	// the parser drops (no comment, no second line).
	w := call.Args[0]
	if w.Pos().Offset() != 0 || int(w.End().Offset()) != len(s) {
		return "", false
	}
	return literal(w)
}

// literal is the value of w when it expands to itself alone: plain,
// single-quoted and double-quoted text with no expansion in it.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescape(l.Value, true))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes the shell removes from unquoted text
// (every one) or from double-quoted text (before $ ` " \ and newline).
func unescape(s string, dquoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if next == '\n' {
				i++
				continue
			}
			if !dquoted || strings.IndexByte("$`\"\\", next) >= 0 {
				i++
				b.WriteByte(s[i])
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

package parse

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// EvalLiterals lists the arguments of the eval commands in script that
// are literal text (quoted, with nothing to expand): the code an agent's
// wrapper script hands to eval, such as Claude Code's `... && eval 'CMD'
// < /dev/null && ...`. A script that does not parse lists none.
func EvalLiterals(script string, d Dialect) []string {
	f, err := syntax.NewParser(syntax.Variant(langOf(d))).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) != 2 || call.Args[0].Lit() != "eval" {
			return true
		}
		if s, ok := literal(call.Args[1]); ok {
			out = append(out, s)
		}
		return true
	})
	return out
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

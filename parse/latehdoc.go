package parse

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// lateHeredoc returns a here-document of n (parsed from text) whose
// body the parser took from another line than the shell does.
// mvdan.cc/sh reads the bodies pending on a line at the newline that
// ends it, but not at one that follows "]]" or a "let" (v3.14): it
// parses the body's lines as commands, and the body from the lines after
// them or not at all. Walked so, `cat > t.sh <<EOF || [[ -f x ]]` with
// `exit` as its body stopped the walk at that exit, and the `rm -rf ~`
// after the body, which bash runs, was allowed. The signs: a "]]" or a
// let that ends the operator's line (blanks or a comment after it), and,
// for a body the parser did read, a statement that starts after the
// operator's line and before the body's first (one on a line continued
// with a backslash, `cat <<EOF | \`, shows too: that costs a question,
// never an allow).
func lateHeredoc(n syntax.Node, text string) (*syntax.Redirect, bool) {
	var heredocs []*syntax.Redirect
	var starts []uint       // the lines statements start on
	var ending []syntax.Pos // where a [[ ]] or a let ends
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			starts = append(starts, n.Pos().Line())
		case *syntax.Redirect:
			if n.Op == syntax.Hdoc || n.Op == syntax.DashHdoc {
				heredocs = append(heredocs, n)
			}
		case *syntax.TestClause, *syntax.LetClause:
			ending = append(ending, n.End())
		}
		return true
	})
	if len(heredocs) == 0 {
		return nil, false
	}
	endsLine := func(p syntax.Pos) bool {
		off := int(p.Offset())
		if off > len(text) {
			return false
		}
		rest, _, _ := strings.Cut(text[off:], "\n")
		rest = strings.TrimLeft(rest, " \t")
		return rest == "" || rest[0] == '#'
	}
	slices.Sort(starts)
	for _, r := range heredocs {
		line := r.OpPos.Line()
		for _, e := range ending {
			if e.Line() == line && endsLine(e) {
				return r, true
			}
		}
		if r.Hdoc == nil || !r.Hdoc.Pos().IsValid() {
			continue
		}
		// The first statement after the operator's line.
		i, _ := slices.BinarySearch(starts, line+1)
		if i < len(starts) && starts[i] < r.Hdoc.Pos().Line() {
			return r, true
		}
	}
	return nil, false
}

// heredocsRead asks about code (parsed as n) whose here-documents the
// parser read from other lines than the shell ([lateHeredoc]): what it
// would walk is not what the shell runs.
func (w *walker) heredocsRead(n syntax.Node, text, name string) {
	if !mayHeredoc(text) {
		return
	}
	if r, late := lateHeredoc(n, text); late {
		w.problem(ProblemSyntax, r.OpPos.String(), "the here-document begun here is read by cordon's parser from a later line than the shell reads it (after a line that ends in ]] or a let); end that line otherwise, or move the here-document to a line of its own")
	}
}

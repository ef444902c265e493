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
		return rest == "" || rest[0] == '#' || rest == "\\" // (a backslash: the line goes on)
	}
	slices.Sort(starts)
	for _, r := range heredocs {
		line := r.OpPos.Line()
		read := r.Hdoc != nil && r.Hdoc.Pos().IsValid()
		for _, e := range ending {
			// Between the operator and the body: on the operator's line,
			// or on a line that goes on from it. (A body not read: up to
			// anywhere after.)
			if e.Line() >= line && (!read || e.Line() < r.Hdoc.Pos().Line()) && endsLine(e) {
				return r, true
			}
		}
		if !read {
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

// parsedOtherwise asks about code (text, parsed as n in dialect d) that
// the parser read otherwise than the shell does: a here-document read
// from other lines ([lateHeredoc]), a function whose body the shell
// does not take ([compoundBody]). What the walk would follow is not what
// the shell runs, or runs nothing of (in an eval: then the script goes
// on after it, an exit in it never run).
func (w *walker) parsedOtherwise(d Dialect, n syntax.Node, text string) {
	if mayHeredoc(text) {
		if r, late := lateHeredoc(n, text); late {
			w.problem(ProblemSyntax, r.OpPos.String(), "the here-document begun here is read by cordon's parser from a later line than the shell reads it (after a line that ends in ]] or a let); end that line otherwise, or move the here-document to a line of its own")
		}
	}
	if mayDefine(text) {
		w.funcBodies(d, n)
	}
}

// mayDefine reports whether text may define a function: f(), f ( ),
// function f.
func mayDefine(text string) bool {
	return strings.Contains(text, "()") || strings.Contains(text, "( )") || strings.Contains(text, "function")
}

// funcBodies asks about the functions of n whose body is not one the
// shell takes ([compoundBody]).
func (w *walker) funcBodies(d Dialect, n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && !compoundBody(fd, d) {
			w.problem(ProblemSyntax, fd.Pos().String(), "%s: the body of the function %s is not a compound command ({ ...; }, ( ... ), if, for, while, case, [[ ]], (( ))): the shell does not parse it", d, fd.Name.Value)
		}
		return true
	})
}

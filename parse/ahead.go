package parse

import (
	"errors"
	"io"
	"strings"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"
)

// Parsing ahead: a long script is parsed on a goroutine of its own while
// the walk goes through the statements parsed so far, so that on a
// machine with a second core the parse (a third of a long script's
// judgement) costs next to nothing. The statements are the parser's
// own, one by one as [syntax.Parser.StmtsSeq] gives them: the same as the
// whole parse holds, walked in the same order, line by line as
// [walker.lines] walks them. The walk owns everything of the walker;
// the goroutine owns its parser and nothing else.
//
// A script with a here-document, or with a line continued by a
// backslash, is parsed whole. The parser fills a here-document when it
// reads the newline that ends its line, after it has given the
// statements that use it, and not always at the first newline (not at
// one after "]]" or a "let", see [lateHeredoc]); a backslash makes
// several lines one. Either way a statement that starts on a later line
// is no sign that what came before is done: handed over on that sign, a
// here-document was walked empty or half written, its "rm -rf ~"
// allowed. (Long generated scripts, the ones this is for, seldom have
// either.)
//
// A line's statements go to the walk only once a statement starts on a
// later line, or the script ends: as the shell reads a whole line before
// it runs any of it, a line that does not parse runs none of its
// statements, and those are dropped.
//
// The parser always goes to the end of the script, even once the walk
// has stopped (exit, the budget): a syntax error anywhere is a problem,
// as it is for a whole parse, never one found or not by how far the
// parser got. What differs from a whole parse is a script that does not
// parse from some line on: the whole parse walks what parses of the
// lines before that line; here every statement of those lines that the
// parser completed, which is the same but where a construct left open
// before the line makes the lines before it unparsable alone (then the
// whole parse walks nothing, and here the lines before the construct,
// which the shell runs). The error is a problem either way.

// aheadFrom is the size from which a script is parsed ahead: below it
// the parse takes less than handing statements over to the walk saves.
var aheadFrom = 16 << 10

// parsesAhead reports whether src, at the top of a script (its first
// line, no name: not an alias's text, a trap's, a function's), is parsed
// ahead: a long script with no carriage return (which is looked for in
// the whole parse).
func (w *walker) parsesAhead(src, name string, first uint) bool {
	from := aheadFrom
	if w.cfg.aheadFrom != 0 {
		from = w.cfg.aheadFrom
	}
	return first == 0 && name == "" && len(src) >= from && !strings.Contains(src, "\r") &&
		!strings.Contains(src, "\\\n") && !mayHeredoc(src)
}

// mayHeredoc reports whether src may hold a here-document: a "<<" that
// is not a here-string's "<<<" (an arithmetic shift counts too).
func mayHeredoc(src string) bool {
	for i := 0; ; {
		j := strings.Index(src[i:], "<<")
		if j < 0 {
			return false
		}
		if j += i; j+2 >= len(src) || src[j+2] != '<' {
			return true
		}
		i = j + 3
	}
}

// aheadBatch is how many statements go to the walk at once.
const aheadBatch = 64

// parsed is a batch of statements parsed ahead: calls is how many simple
// commands they hold ([countStmt]); err, on the last batch, is the
// parser's error; fault a panic of the parser, raised again by the walk.
type parsed struct {
	stmts []*syntax.Stmt
	calls int
	err   error
	fault any
}

// parseAhead is [walker.parseWalk] of src from its first line, parsed
// ahead; with outline set, src's outline is kept ([walker.keepOutline])
// once it is parsed whole and has parsed.
func (w *walker) parseAhead(st *state, src, name string, outline bool) {
	batches := make(chan parsed, 64)
	var quit atomic.Bool
	var counted atomic.Int64 // simple commands handed over so far
	var upTo atomic.Int64    // bytes parsed so far
	var all []*syntax.Stmt   // with outline, every statement: the walk's once batches is closed
	go func() {
		defer close(batches)
		defer func() {
			if p := recover(); p != nil {
				batches <- parsed{fault: p}
			}
		}()
		var b parsed
		send := func(s *syntax.Stmt) {
			n := countStmt(s)
			counted.Add(int64(n))
			b.stmts, b.calls = append(b.stmts, s), b.calls+n
			if len(b.stmts) == aheadBatch {
				batches <- b
				b = parsed{}
			}
		}
		// The statements of the last line read, held until its end is.
		var held []*syntax.Stmt
		var heldEnd uint
		// A parser of its own: the walk parses nested code (eval,
		// aliases, functions' bodies) with the walker's.
		p := syntax.NewParser(syntax.Variant(langOf(st.dialect)))
		b.err = aheadStmts(p, &quitReader{strings.NewReader(src), &quit}, func(s *syntax.Stmt) {
			upTo.Store(int64(s.End().Offset()))
			if outline {
				all = append(all, s)
			}
			if len(held) > 0 && s.Pos().Line() > heldEnd {
				for _, h := range held {
					send(h)
				}
				held = held[:0]
			}
			held, heldEnd = append(held, s), max(heldEnd, s.End().Line())
		})
		// At the end, the last line's statements; at an error, those of
		// the lines before the error's, unless what failed begins on
		// their line (exit; for i in a, then a line that ends the for
		// wrongly): the shell reads that whole line, fails, and runs
		// none of it.
		line, known := errorLine(b.err)
		if n := len(held); b.err != nil && n > 0 && !restOfLineBlank(src, int(held[n-1].End().Offset())) {
			held = nil
		}
		for _, h := range held {
			if b.err == nil || known && h.End().Line() < line {
				send(h)
			}
		}
		batches <- b
	}()
	// A panic of the walk itself (a bug, recovered by the caller) stops
	// the parser at its next read, and what it still sends is dropped.
	done := false
	defer func() {
		if !done {
			quit.Store(true)
			go func() {
				for range batches {
				}
			}()
		}
	}()
	var end uint
	var err error
	walked, stopped, defines := 0, false, mayDefine(src)
	for b := range batches {
		if b.fault != nil {
			panic(b.fault)
		}
		if err = b.err; err != nil {
			w.syntaxError(st, src, name, err)
		}
		if stopped {
			continue
		}
		// Room for the commands, at once, as [walker.reserve] makes
		// for a whole parse: first for as many as the script holds at
		// the rate of those parsed so far (room that is never used is
		// never touched either: it costs no memory), then for those
		// parsed and not walked.
		n, at := int(counted.Load()), int(upTo.Load())
		if walked == 0 && at > 0 {
			n = int(int64(n) * int64(len(src)) / int64(at))
		}
		w.reserveMore(n - walked)
		walked += b.calls
		if defines {
			for _, s := range b.stmts {
				w.funcBodies(st.dialect, s) // as [walker.parsedOtherwise]; no here-document is parsed ahead
			}
		}
		end, stopped = w.linesFrom(st, b.stmts, end)
	}
	done = true
	if outline && err == nil {
		w.keepOutline(st.dialect, src, name, &syntax.File{Stmts: all})
	}
}

// restOfLineBlank reports whether nothing but blanks, separators and a
// comment follow offset off on its line in src.
func restOfLineBlank(src string, off int) bool {
	for ; off < len(src); off++ {
		switch src[off] {
		case ' ', '\t', ';', '&':
		case '\n', '#':
			return true
		default:
			return false
		}
	}
	return true
}

// errorLine is the line of a parser's error, when it says.
func errorLine(err error) (uint, bool) {
	var perr syntax.ParseError
	var lerr syntax.LangError
	switch {
	case errors.As(err, &perr):
		return perr.Pos.Line(), true
	case errors.As(err, &lerr):
		return lerr.Pos.Line(), true
	}
	return 0, false
}

// aheadStmts is [stmts]; tests make it panic.
var aheadStmts = stmts

// stmts calls fn with each statement of r that parses, in order, and
// returns the parser's first error. (Not [syntax.Parser.Stmts], which
// stops its loop at an error while the iterator below it goes on
// yielding: a panic. This loop never stops early; the reader ends
// instead, [quitReader].)
func stmts(p *syntax.Parser, r io.Reader, fn func(*syntax.Stmt)) error {
	var first error
	for s, err := range p.StmtsSeq(r) {
		switch {
		case first != nil:
		case err != nil:
			first = err
		default:
			fn(s)
		}
	}
	return first
}

// quitReader reads r until quit is set; then it fails, and the parser
// ends at what it has read.
type quitReader struct {
	r    io.Reader
	quit *atomic.Bool
}

// errQuit ends the parse of a walk that panicked.
var errQuit = errors.New("the walk panicked")

func (q *quitReader) Read(b []byte) (int, error) {
	if q.quit.Load() {
		return 0, errQuit
	}
	return q.r.Read(b)
}

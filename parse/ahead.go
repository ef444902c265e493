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
// One thing differs from a whole parse: a script that does not parse
// from some point on. The whole parse walks what parses of the lines
// before the error's; here every statement the parser completed before
// the error has been walked, those before it on the error's line too,
// which the shell would not run (it reads the whole line first). More
// is judged, never less, and the error is a problem either way.

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
	return first == 0 && name == "" && len(src) >= from && !strings.Contains(src, "\r")
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

// errQuit ends the parse of a walk that stopped.
var errQuit = errors.New("the walk stopped")

func (q *quitReader) Read(b []byte) (int, error) {
	if q.quit.Load() {
		return 0, errQuit
	}
	return q.r.Read(b)
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
	var counted atomic.Int64 // simple commands parsed so far
	var upTo atomic.Int64    // bytes parsed so far
	var all []*syntax.Stmt   // with outline, every statement: the walk's once batches is closed
	go func() {
		defer close(batches)
		var b parsed
		defer func() {
			if p := recover(); p != nil {
				batches <- parsed{fault: p}
			}
		}()
		// A parser of its own: the walk parses nested code (eval,
		// aliases, functions' bodies) with the walker's.
		p := syntax.NewParser(syntax.Variant(langOf(st.dialect)))
		b.err = aheadStmts(p, &quitReader{strings.NewReader(src), &quit}, func(s *syntax.Stmt) {
			n := countStmt(s)
			counted.Add(int64(n))
			upTo.Store(int64(s.End().Offset()))
			b.stmts, b.calls = append(b.stmts, s), b.calls+n
			if outline {
				all = append(all, s)
			}
			if len(b.stmts) == aheadBatch {
				batches <- b
				b = parsed{}
			}
		})
		batches <- b
	}()
	// A panic of the walk itself (a bug, recovered by the caller) stops
	// the parser at its next statement, and what it still sends is
	// dropped.
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
	walked, stopped := 0, false
	for b := range batches {
		if b.fault != nil {
			panic(b.fault)
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
		end, stopped = w.linesFrom(st, b.stmts, end)
		if stopped {
			quit.Store(true)
			continue
		}
		if err = b.err; err != nil {
			w.syntaxError(st, src, name, err)
		}
	}
	done = true
	if outline && !stopped && err == nil {
		w.keepOutline(st.dialect, src, name, &syntax.File{Stmts: all})
	}
}

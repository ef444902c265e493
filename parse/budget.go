package parse

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A Budget bounds the work of one judgement, so that no script can make
// the judge run out of time or memory. Past any of its bounds the walk
// stops and the result holds a [ProblemBudget]: the script is asked
// about, not judged in part.
type Budget struct {
	Time     time.Duration // wall clock for the whole walk
	Steps    int           // statements walked (loops, functions and carriers walk some again)
	Commands int           // commands found
	Words    int           // argument fields expanded, in all
	Bytes    int           // bytes of text expanded, in all
	Word     int           // bytes one word or value may expand to
	GlobDirs int           // directories read to match file name patterns
	Entries  int           // directory entries read to match them
}

// DefaultBudget is far above what ordinary commands need (a 2,000-line
// script takes about 2,000 steps, 10,000 words and 50 ms).
var DefaultBudget = Budget{
	Time:     2 * time.Second,
	Steps:    200_000,
	Commands: 20_000,
	Words:    100_000,
	Bytes:    64 << 20,
	Word:     4 << 20,
	GlobDirs: 10_000,
	Entries:  200_000,
}

// maxProblems bounds the problems reported: each is a reason to ask
// already, and judging each costs time.
const maxProblems = 100

// meter is what a walk has spent of its budget.
type meter struct {
	Budget
	deadline                           time.Time
	steps, words, bytes, dirs, entries int
	over                               bool       // a bound was passed: the walk stops
	at                                 syntax.Pos // the position of the word being expanded
}

func newMeter(b *Budget) meter {
	if b == nil {
		b = &DefaultBudget
	}
	return meter{Budget: *b, deadline: time.Now().Add(b.Time)}
}

// exceed records that a bound was passed, once, and stops the walk.
func (w *walker) exceed(pos, format string, args ...any) {
	if w.m.over {
		return
	}
	w.m.over = true
	w.problem(ProblemBudget, pos, format, args...)
}

// step counts one statement walked and reports whether the walk may go
// on: no bound passed, the deadline not reached.
func (w *walker) step(pos syntax.Pos) bool {
	if w.m.over {
		return false
	}
	w.m.steps++
	switch {
	case w.m.steps > w.m.Steps:
		w.exceed(pos.String(), "the script runs more than %d statements as cordon follows it (loops, functions, nested code)", w.m.Steps)
	case w.m.steps&63 == 0 && time.Now().After(w.m.deadline):
		w.exceed(pos.String(), "judging the script took longer than %v", w.m.Time)
	}
	return !w.m.over
}

// expanding checks, before word is expanded (into fields, or not), that what it can expand to
// stays within the budget; false means it is not expanded (the budget is
// then exceeded).
func (w *walker) expanding(st *state, word *syntax.Word, fields bool) bool {
	if w.m.over {
		return false
	}
	w.m.at = word.Pos()
	if n := sizeOf(st.env, word, w.m.Word); n > w.m.Word {
		w.exceed(word.Pos().String(), "a word expands to more than %s", sizeText(w.m.Word))
		return false
	} else if fields && n >= w.m.Words-w.m.words && splits(word) {
		// Split into fields, it could pass the words budget before
		// it could be counted.
		w.exceed(word.Pos().String(), "the script expands to more than %d words", w.m.Words)
		return false
	}
	w.wordArith(st, word.Parts)
	return true
}

// splits reports whether a word has an unquoted expansion, which field
// splitting can make into many words.
func splits(word *syntax.Word) bool {
	for _, p := range word.Parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			return true
		}
	}
	return false
}

// expanded counts the fields and bytes an expansion produced, and
// reports whether the budget still holds.
func (w *walker) expanded(pos syntax.Pos, fields, bytes int) bool {
	w.m.words += fields
	w.m.bytes += bytes
	switch {
	case w.m.over:
	case bytes > w.m.Word:
		w.exceed(pos.String(), "a word expands to more than %s", sizeText(w.m.Word))
	case w.m.words > w.m.Words:
		w.exceed(pos.String(), "the script expands to more than %d words", w.m.Words)
	case w.m.bytes > w.m.Bytes:
		w.exceed(pos.String(), "the script's expansions make more than %s of text", sizeText(w.m.Bytes))
	case time.Now().After(w.m.deadline):
		w.exceed(pos.String(), "judging the script took longer than %v", w.m.Time)
	}
	return !w.m.over
}

// readDir lists a directory for globbing, within the budget. Only
// directories are read: opening a FIFO or a device to list it could
// block or act.
func (w *walker) readDir(dir string) ([]fs.DirEntry, error) {
	if w.m.over {
		return nil, errBudget
	}
	w.m.dirs++
	switch {
	case w.m.dirs > w.m.GlobDirs:
		w.exceed(w.m.at.String(), "its file name patterns read more than %d directories", w.m.GlobDirs)
		return nil, errBudget
	case time.Now().After(w.m.deadline):
		w.exceed(w.m.at.String(), "judging the script took longer than %v (matching file name patterns)", w.m.Time)
		return nil, errBudget
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	left := w.m.Entries - w.m.entries
	list, err := f.ReadDir(left + 1)
	w.m.entries += len(list)
	if len(list) > left {
		w.exceed(w.m.at.String(), "its file name patterns read more than %d directory entries", w.m.Entries)
		return nil, errBudget
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return list, nil
}

var errBudget = errors.New("over the judge's budget")

// sizeText shows a byte count in MB when it is one.
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// sizeOf bounds the bytes expanding node takes, from the values the
// variables hold now, without expanding anything. A command
// substitution's output counts as nothing (what the walker knows of
// outputs is bounded by maxHeld) except where a pattern replacement
// repeats it, where it counts as all of maxHeld. limit stops the count
// early: any result above it is as bad.
func sizeOf(e *env, node syntax.Node, limit int) int {
	return sizer{e: e, limit: limit}.size(node)
}

type sizer struct {
	e      *env
	limit  int
	repeat bool // inside a replacement that is repeated
}

func (z sizer) size(node syntax.Node) int {
	if node == nil {
		return 0
	}
	n := 0
	syntax.Walk(node, func(x syntax.Node) bool {
		if n > z.limit {
			return false
		}
		switch x := x.(type) {
		case *syntax.Lit:
			n = sat(n, len(x.Value))
		case *syntax.SglQuoted:
			n = sat(n, len(x.Value))
		case *syntax.ParamExp:
			n = sat(n, z.param(x))
			return false
		case *syntax.CmdSubst, *syntax.ProcSubst:
			if z.repeat {
				n = sat(n, maxHeld)
			}
			return false
		case *syntax.ArithmExp:
			n = sat(n, 24) // a number; the words in it count too
		}
		return true
	})
	return n
}

// word bounds a word that may be missing.
func (z sizer) word(w *syntax.Word) int {
	if w == nil {
		return 0
	}
	return z.size(w)
}

// param bounds a parameter expansion.
func (z sizer) param(pe *syntax.ParamExp) int {
	n := 0
	if pe.Param != nil {
		n = z.value(pe.Param.Value)
		if pe.Excl {
			target, _ := z.e.lookup(pe.Param.Value)
			n = sat(n, z.value(target))
			n = sat(n, mul(24, z.count(pe.Param.Value)))
		}
	}
	if pe.NestedParam != nil {
		n = sat(n, z.size(pe.NestedParam))
	}
	if pe.Index != nil {
		n = sat(n, z.size(pe.Index))
	}
	if pe.Names != 0 {
		z.e.Each(func(name string, _ expand.Variable) bool {
			n = sat(n, len(name)+1)
			return n <= z.limit
		})
	}
	switch {
	case pe.Length:
		return 24
	case pe.Slice != nil:
		n = sat(n, sat(z.size(pe.Slice.Offset), z.size(pe.Slice.Length)))
	case pe.Repl != nil:
		orig := z.word(pe.Repl.Orig)
		with := z.word(pe.Repl.With)
		if pe.Repl.All {
			r := z
			r.repeat = true
			// Every character can match: the replacement is repeated
			// once for each, and once more for an empty match.
			with = mul(sat(n, 1), r.word(pe.Repl.With))
		}
		n = sat(sat(n, orig), with)
	case pe.Exp != nil:
		n = sat(n, z.word(pe.Exp.Word))
		switch pe.Exp.Op {
		case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
			n = mul(n, 2) // a case change can make a character longer
		case syntax.OtherParamOps:
			n = sat(mul(n, 4), 64) // ${x@Q} quotes every character
		}
	}
	if pe.Flags != nil || len(pe.Modifiers) > 0 {
		n = sat(mul(n, 4), 64)
	}
	return n
}

// value bounds the bytes of a variable's value: a string, or the
// elements of an array with a separator each.
func (z sizer) value(name string) int {
	v := z.e.Get(name)
	for i := 0; v.Kind == expand.NameRef && i < 8; i++ {
		v = z.e.Get(v.Str)
	}
	switch v.Kind {
	case expand.Indexed:
		n := 0
		for _, s := range v.List {
			n = sat(n, len(s)+1)
		}
		return n
	case expand.Associative:
		n := 0
		for k, s := range v.Map {
			n = sat(n, len(k)+len(s)+2)
		}
		return n
	}
	return len(v.Str)
}

// count is the number of elements of a variable (1 for a string).
func (z sizer) count(name string) int {
	v := z.e.Get(name)
	switch v.Kind {
	case expand.Indexed:
		return len(v.List)
	case expand.Associative:
		return len(v.Map)
	}
	return 1
}

// sat adds without overflowing.
func sat(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// mul multiplies non-negative numbers without overflowing.
func mul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

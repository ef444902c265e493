package cmdexe

import (
	"fmt"
	"strings"
)

// walker follows one text and collects what it would run.
type walker struct {
	cfg   *Config
	res   *Result
	bytes int  // expanded so far
	steps int  // nodes walked
	stop  bool // a limit was reached: nothing more is reported
	stdin int  // StdinFrom for the next command reported
	// unsafe is set when an expansion brought in unknown text that may
	// hold code: set /p's answer, a for /f token kept in a variable.
	unsafe bool
	// written holds what echo wrote to files in this walk, by lower-case
	// path: a batch file written, then run, is read from here.
	written map[string]string
}

// frame is the context of the code being walked: the process state, and
// what the carriers around it add.
type frame struct {
	st        *state
	batch     bool
	params    []string
	batchPath string // the batch file, resolved, for %~dp0
	via       []string
	depth     int
	forVars   map[byte]string
	redirs    []Redir    // of the groups and carriers around
	base      string     // position of the carrier, for code from a string
	lines     *lineTable // positions in the text being walked
}

func newWalker(cfg *Config) *walker {
	return &walker{cfg: cfg, res: &Result{}, stdin: -1}
}

func (w *walker) rootFrame() *frame {
	f := &frame{
		st:     &state{vars: map[string]value{}, dir: w.cfg.Dir, delayed: w.cfg.Delayed},
		batch:  w.cfg.Batch,
		params: w.cfg.Params,
		depth:  w.cfg.Depth,
	}
	if len(f.params) > 0 {
		f.batchPath = w.join(f.st.dir, unquote(f.params[0]))
	}
	return f
}

// carry returns the frame for code a carrier runs, one level deeper.
func (f *frame) carry(via, pos string) *frame {
	c := *f
	c.via = append(append([]string(nil), f.via...), via)
	c.depth++
	c.base = pos
	return &c
}

func (w *walker) problem(kind ProblemKind, pos, format string, args ...any) {
	w.res.Problems = append(w.res.Problems, Problem{Kind: kind, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// deep reports, as a problem, a carrier nested too deep to follow.
func (w *walker) deep(f *frame, pos string) bool {
	if f.depth < maxDepth {
		return false
	}
	w.problem(ProblemDepth, pos, "code nested more than %d deep is not followed", maxDepth)
	return true
}

func (f *frame) pos(off int) string {
	if f.base != "" || f.lines == nil {
		if f.base == "" {
			return "1:1"
		}
		return f.base
	}
	return f.lines.pos(off)
}

// line walks a command line: percent expansion, then the commands. pos
// is the carrier's position, or "" for the text's own.
func (w *walker) line(f *frame, text, pos string) {
	text, taint := w.percent(f, text)
	p := newParser(text, 1, taint)
	l := p.parse()
	f2 := *f
	if pos == "" {
		f2.lines = &p.lines
	}
	w.parsed(&f2, p, l)
}

// parsed walks what a parser read, then reports its problems.
func (w *walker) parsed(f *frame, p *parser, l *list) {
	w.list(f, l)
	for _, e := range p.probs {
		w.problem(e.kind, f.pos(e.at), "%s", e.msg)
	}
	if e := p.fatal; e != nil {
		w.problem(e.kind, f.pos(e.at), "%s", e.msg)
	}
}

// batch walks a batch file's text, every line once: goto and exit /b
// are not followed, so code after them is walked too.
func (w *walker) batch(f *frame, text string) {
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines) && !w.stop; i++ {
		first := strings.TrimSuffix(lines[i], "\r")
		if strings.TrimLeft(first, " \t@") == "" {
			continue
		}
		first, taint := w.percent(f, first)
		p := newParser(first, i+1, taint)
		p.more = func() (string, int, bool, bool) {
			if i+1 >= len(lines) {
				return "", 0, false, false
			}
			i++
			t, taint := w.percent(f, strings.TrimSuffix(lines[i], "\r"))
			return t, i + 1, taint, true
		}
		l := p.parse()
		f2 := *f
		f2.lines = &p.lines
		w.parsed(&f2, p, l)
	}
}

func (w *walker) list(f *frame, l *list) {
	for _, pl := range l.items {
		if w.stop {
			return
		}
		w.pipeline(f, pl)
	}
}

// pipeline walks commands joined by |; each runs in a cmd.exe of its own,
// so what they set does not last.
func (w *walker) pipeline(f *frame, pl []node) {
	if len(pl) == 1 {
		w.node(f, pl[0])
		return
	}
	prev := -1
	for _, n := range pl {
		sub := *f
		sub.st = f.st.clone()
		w.stdin = prev
		start := len(w.res.Commands)
		w.node(&sub, n)
		prev = -1
		if len(w.res.Commands) > start {
			prev = len(w.res.Commands) - 1
		}
	}
	w.stdin = -1
}

func (w *walker) node(f *frame, n node) {
	w.steps++
	if w.steps > maxSteps && !w.stop {
		w.stop = true
		w.problem(ProblemDepth, f.pos(n.offset()), "more than %d steps; the rest is not followed", maxSteps)
	}
	if w.stop {
		return
	}
	switch n := n.(type) {
	case *simple:
		w.simple(f, n)
	case *group:
		g := *f
		g.redirs = append(w.redirs(f, n.redirs), f.redirs...)
		w.list(&g, n.body)
	case *list:
		w.list(f, n)
	case *ifNode:
		sub := f.carry("if", "")
		sub.depth--
		sub.base = f.base
		for _, b := range []node{n.then, n.els} {
			if b != nil {
				w.node(sub, b)
			}
		}
	case *forNode:
		w.forLoop(f, n)
	}
}

// redirs expands redirections and keeps those to files.
func (w *walker) redirs(f *frame, rs []redir) []Redir {
	var out []Redir
	for _, r := range rs {
		if strings.HasPrefix(r.target, "&") {
			continue
		}
		fd := r.fd
		if fd < 0 {
			fd = 1
			if r.op == "<" {
				fd = 0
			}
		}
		out = append(out, Redir{Op: r.op, Fd: fd, Target: unquote(w.runtime(f, r.target))})
	}
	return out
}

func (w *walker) simple(f *frame, n *simple) {
	text := w.runtime(f, n.text)
	w.exec(f, text, w.redirs(f, n.redirs), f.pos(n.at), n.taint, true)
}

// emit reports a command and returns its index, or -1 past the limit.
func (w *walker) emit(f *frame, c Command) int {
	if w.stop {
		return -1
	}
	if len(w.res.Commands) >= maxCommands {
		w.stop = true
		w.problem(ProblemDepth, c.Pos, "the text unfolds into more than %d commands; the rest is not followed", maxCommands)
		return -1
	}
	c.Via = append([]string(nil), f.via...)
	c.Dir = f.st.dir
	c.StdinFrom = w.stdin
	w.stdin = -1
	c.Redirs = append(c.Redirs, f.redirs...)
	w.res.Commands = append(w.res.Commands, c)
	return len(w.res.Commands) - 1
}

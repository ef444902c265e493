package stream

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cordonsh/cordon/parse"
)

// MaxStatement bounds one statement (a line, or the lines of a construct
// left open: an if, a quote, a here-document) read by a piped shell.
const MaxStatement = 1 << 20

// ErrTooLarge stops the parser at a statement larger than MaxStatement.
var ErrTooLarge = errors.New("statement too large")

// A Chunk is the text of one or more complete statements, as read: the
// bytes the real shell gets when they are allowed.
type Chunk struct {
	Text  []byte
	Stmts []*syntax.Stmt // nil for blank and comment lines
	Err   error          // a syntax error, or ErrTooLarge: Text does not parse
}

// Split reads a script from in as it arrives and calls fn with
// each complete line of statements as soon as its last line has been
// read, in order, with the exact bytes read. It ends at the end of in, or
// when fn returns false. A syntax error, or a statement larger than
// MaxStatement, is passed to fn as a Chunk with err set: with resync, the
// rest of that line is skipped and reading goes on with a new parser (an
// interactive shell reports the error and reads on); without, it is the
// last Chunk (a shell reading a script stops at a syntax error).
func Split(in io.Reader, lang syntax.LangVariant, resync bool, fn func(Chunk) bool) {
	lr := &lineReader{br: bufio.NewReaderSize(in, 64<<10)}
	for {
		p := syntax.NewParser(syntax.Variant(lang))
		stopped := false
		err := p.Interactive(lr, func(stmts []*syntax.Stmt) bool {
			if p.Incomplete() {
				return true
			}
			if !fn(Chunk{Text: lr.take(), Stmts: stmts}) {
				stopped = true
				return false
			}
			return true
		})
		switch {
		case stopped:
			return
		case err == nil:
			// The end of input, maybe after a last line with no newline,
			// which the interactive parser never completes.
			lastChunk(lr.take(), lang, fn)
			return
		}
		if lr.err == ErrTooLarge {
			err = lr.err
		}
		text := lr.take()
		atEOF := lr.err != nil && lr.err != ErrTooLarge
		if !fn(Chunk{Text: text, Err: err}) || !resync || atEOF || lr.err == ErrTooLarge {
			return
		}
		if len(text) > 0 && text[len(text)-1] != '\n' {
			lr.skipLine()
		}
	}
}

// lastChunk passes on text read at the end of input without a newline.
func lastChunk(text []byte, lang syntax.LangVariant, fn func(Chunk) bool) {
	if len(text) == 0 {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(string(text)), "")
	if err != nil {
		fn(Chunk{Text: text, Err: err})
		return
	}
	fn(Chunk{Text: text, Stmts: f.Stmts})
}

// A lineReader gives the parser one line at a time, so that what the
// parser has read when it reports complete statements is exactly their
// lines, and keeps those bytes until taken.
type lineReader struct {
	br      *bufio.Reader
	rest    []byte // the part of the current line not yet given
	pending []byte // given since the last take
	err     error  // the error that ended reading
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if len(l.pending) > MaxStatement {
		l.err = ErrTooLarge
		return 0, l.err
	}
	if len(l.rest) == 0 {
		line, err := l.br.ReadSlice('\n')
		if len(line) == 0 {
			l.err = err
			if err == nil || err == bufio.ErrBufferFull {
				l.err = io.ErrUnexpectedEOF // cannot happen
			}
			return 0, l.err
		}
		l.rest = append(l.rest[:0], line...)
	}
	n := copy(p, l.rest)
	l.pending = append(l.pending, l.rest[:n]...)
	l.rest = l.rest[n:]
	return n, nil
}

// take returns the bytes given since the last take, and what was read of
// the current line but not given yet (the parser stopped in it).
func (l *lineReader) take() []byte {
	out := append(l.pending, l.rest...)
	l.pending, l.rest = nil, nil
	return out
}

// skipLine drops the rest of the current line.
func (l *lineReader) skipLine() {
	for {
		_, err := l.br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			if err != nil {
				l.err = err
			}
			return
		}
	}
}

// Lang is the parser's language for a dialect.
func Lang(d parse.Dialect) syntax.LangVariant {
	switch d {
	case parse.POSIX:
		return syntax.LangPOSIX
	case parse.Zsh:
		return syntax.LangZsh
	}
	return syntax.LangBash
}

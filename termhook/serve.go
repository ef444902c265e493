// Package termhook is the channel between the hook that cordon installs
// in an interactive shell on a terminal and the judge on the host (see
// docs/interactive.md): the wire protocol, served on any connection, the
// shells' set-up files, and the command line that makes a shell read them.
package termhook

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Version is the protocol's version, sent in the hook's hello.
const Version = "1"

// Limits of a message's fields.
const (
	// MaxText bounds a line's text: a longer one is refused, unread.
	MaxText = 1 << 20
	// maxField bounds every other field: a longer one ends the
	// connection.
	maxField = 64 << 10
)

// A Line is one entered command as the hook sends it.
type Line struct {
	Seq  string // the hook's sequence number, echoed in the answer
	Cwd  string // the shell's $PWD
	Text string // the whole edit buffer, without a final newline
	// TooLarge: the text was longer than MaxText; Text is empty.
	TooLarge bool
}

// Verdicts of an [Answer].
const (
	Run    = "run"    // the line runs as entered
	More   = "more"   // not a complete command yet: editing goes on
	Refuse = "refuse" // the line does not run; Message says why
)

// An Answer is the judge's verdict on a [Line].
type Answer struct {
	Verdict string
	Message string // the refusal, for Refuse
}

// A Hello is the hook's first message, sent before the user's set-up
// files run.
type Hello struct {
	Shell, Version string
}

// Serve serves one connection: it reads the hook's hello, calls hello
// (which may end the connection with an error), then answers each line
// with judge, until the connection ends (nil) or breaks (the error). A
// malformed message ends it: the hook then refuses every line (fail
// closed). Serve knows nothing of the transport; a transport that checks
// who writes returns an error from Read.
func Serve(conn io.ReadWriter, hello func(Hello) error, judge func(Line) Answer) error {
	r := bufio.NewReaderSize(conn, 64<<10)
	first := true
	for {
		kind, _, err := field(r, maxField)
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
		switch {
		case kind == "hello" && first:
			var h Hello
			if _, err := fields(r, &h.Shell, &h.Version); err != nil {
				return err
			}
			if h.Version != Version {
				return fmt.Errorf("the shell's hook speaks version %q of the protocol, not %s", h.Version, Version)
			}
			if err := hello(h); err != nil {
				return err
			}
		case kind == "line" && !first:
			var l Line
			if _, err := fields(r, &l.Seq, &l.Cwd); err != nil {
				return err
			}
			if _, err := strconv.ParseUint(l.Seq, 10, 64); err != nil {
				return fmt.Errorf("a line's sequence number is %q", l.Seq)
			}
			text, long, err := field(r, MaxText)
			if err != nil {
				return err
			}
			l.Text, l.TooLarge = text, long
			a := judge(l)
			if a.Verdict != Refuse {
				a.Message = ""
			}
			if _, err := io.WriteString(conn, a.Verdict+"\x00"+l.Seq+"\x00"+a.Message+"\x00"); err != nil {
				return err
			}
		default:
			return fmt.Errorf("the shell's hook sent %q out of turn", kind)
		}
		first = false
	}
}

// errLong is a field other than the text longer than maxField.
var errLong = errors.New("a field of the shell's hook is too long")

// fields reads fields into dst, each at most maxField long.
func fields(r *bufio.Reader, dst ...*string) (int, error) {
	for i, d := range dst {
		s, long, err := field(r, maxField)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err == nil && long {
			err = errLong
		}
		if err != nil {
			return i, err
		}
		*d = s
	}
	return len(dst), nil
}

// field reads one NUL-ended field. Past limit bytes it reads on to the
// NUL and returns "" with long set. io.EOF only when nothing was read.
func field(r *bufio.Reader, limit int) (s string, long bool, err error) {
	var b []byte
	n := 0
	for {
		chunk, err := r.ReadSlice(0)
		n += len(chunk)
		if !long && n <= limit+1 {
			b = append(b, chunk...)
		} else {
			long, b = true, nil
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && n > 0:
			return "", false, io.ErrUnexpectedEOF
		case err != nil:
			return "", false, err
		}
		if long {
			return "", true, nil
		}
		return string(b[:len(b)-1]), false, nil
	}
}

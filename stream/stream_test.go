package stream

import (
	"io"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		resync bool
		want   []string // Chunk texts; "!" prefix for a Chunk with an error
	}{
		{"lines", "echo a\necho b; echo c\n", false, []string{"echo a\n", "echo b; echo c\n"}},
		{"open-if", "if true\nthen echo x\nfi\necho y\n", false, []string{"if true\nthen echo x\nfi\n", "echo y\n"}},
		{"open-quote", "echo 'a\nb'\n", false, []string{"echo 'a\nb'\n"}},
		{"heredoc", "cat <<EOF\nrm -rf /\nEOF\necho z\n", false, []string{"cat <<EOF\nrm -rf /\nEOF\n", "echo z\n"}},
		{"continuation", "echo a \\\n  b\n", false, []string{"echo a \\\n  b\n"}},
		{"blank-and-comment", "\n# hi\necho a\n", false, []string{"\n", "# hi\n", "echo a\n"}},
		{"no-final-newline", "echo a\necho b", false, []string{"echo a\n", "echo b"}},
		{"syntax-error-stops", "echo a\nif then\necho b\n", false, []string{"echo a\n", "!if then\n"}},
		{"syntax-error-resyncs", "echo a\nif then\necho b\n", true, []string{"echo a\n", "!if then\n", "echo b\n"}},
		{"open-at-eof", "echo a\necho 'b\n", false, []string{"echo a\n", "!echo 'b\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			Split(strings.NewReader(tt.in), syntax.LangBash, tt.resync, func(c Chunk) bool {
				s := string(c.Text)
				if c.Err != nil {
					s = "!" + s
				}
				got = append(got, s)
				return true
			})
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestSplitStatementsAsTheyArrive checks that a statement is passed on as
// soon as its line is read, before the next line arrives.
func TestSplitStatementsAsTheyArrive(t *testing.T) {
	pr, pw := io.Pipe()
	got := make(chan string, 10)
	go Split(pr, syntax.LangBash, false, func(c Chunk) bool { got <- string(c.Text); return true })
	for _, line := range []string{"echo a\n", "if true; then\n"} {
		pw.Write([]byte(line))
	}
	select {
	case s := <-got:
		if s != "echo a\n" {
			t.Fatalf("first Chunk %q", s)
		}
	case <-time.After(time.Second):
		t.Fatal("a complete line was not passed on before the next one")
	}
	select {
	case s := <-got:
		t.Fatalf("an open if was passed on: %q", s)
	case <-time.After(50 * time.Millisecond):
	}
	pw.Write([]byte("echo b; fi\n"))
	if s := <-got; s != "if true; then\necho b; fi\n" {
		t.Fatalf("second Chunk %q", s)
	}
	pw.Close()
}

func TestTooLarge(t *testing.T) {
	in := "echo a\necho '" + strings.Repeat("x\n", MaxStatement/2+10) + "'\necho b\n"
	var errs, n int
	Split(strings.NewReader(in), syntax.LangBash, true, func(c Chunk) bool {
		n++
		if c.Err != nil {
			errs++
		}
		return true
	})
	if n != 2 || errs != 1 {
		t.Errorf("got %d chunks, %d with errors; want echo a, then the refusal, then nothing", n, errs)
	}
}

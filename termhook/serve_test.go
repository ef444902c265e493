package termhook

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// duplex is a connection whose reads come from in and writes go to out.
type duplex struct {
	io.Reader
	out bytes.Buffer
}

func (d *duplex) Write(p []byte) (int, error) { return d.out.Write(p) }

func serve(t *testing.T, in string) (string, []Line, error) {
	t.Helper()
	d := &duplex{Reader: strings.NewReader(in)}
	var got []Line
	err := Serve(d, func(h Hello) error {
		if h.Shell != "bash" {
			t.Errorf("hello from %q", h.Shell)
		}
		return nil
	}, func(l Line) Answer {
		got = append(got, l)
		switch {
		case l.TooLarge:
			return Answer{Verdict: Refuse, Message: "too large"}
		case strings.HasPrefix(l.Text, "rm"):
			return Answer{Verdict: Refuse, Message: "no\n"}
		case strings.HasSuffix(l.Text, "do"):
			return Answer{Verdict: More, Message: "dropped"}
		}
		return Answer{Verdict: Run}
	})
	return d.out.String(), got, err
}

func TestServe(t *testing.T) {
	hello := "hello\x00bash\x00" + Version + "\x00"
	out, got, err := serve(t, hello+
		"line\x001\x00/w\x00echo hi\x00"+
		"line\x002\x00/w\x00rm -rf ~\x00"+
		"line\x003\x00/w d\x00for i in 1; do\x00")
	if err != nil {
		t.Fatal(err)
	}
	want := "run\x001\x00\x00refuse\x002\x00no\n\x00more\x003\x00\x00"
	if out != want {
		t.Errorf("answers %q, want %q", out, want)
	}
	if len(got) != 3 || got[2].Cwd != "/w d" || got[1].Text != "rm -rf ~" {
		t.Errorf("lines %+v", got)
	}
}

// TestServeTooLarge: a text past MaxText is refused unread, and the
// stream stays in step for the next line.
func TestServeTooLarge(t *testing.T) {
	big := strings.Repeat("x", MaxText+10)
	out, got, err := serve(t, "hello\x00bash\x00"+Version+"\x00line\x001\x00/\x00"+big+"\x00line\x002\x00/\x00echo\x00")
	if err != nil {
		t.Fatal(err)
	}
	if out != "refuse\x001\x00too large\x00run\x002\x00\x00" || !got[0].TooLarge || got[0].Text != "" {
		t.Errorf("answers %q", out)
	}
}

// TestServeBroken: anything out of protocol ends the connection with an
// error, and nothing is judged after it.
func TestServeBroken(t *testing.T) {
	hello := "hello\x00bash\x00" + Version + "\x00"
	for name, in := range map[string]string{
		"no-hello":      "line\x001\x00/\x00echo\x00",
		"two-hellos":    hello + hello,
		"old-version":   "hello\x00bash\x000\x00",
		"unknown-kind":  hello + "junk\x00",
		"bad-seq":       hello + "line\x00x\x00/\x00echo\x00",
		"cut-short":     hello + "line\x001\x00/\x00ech",
		"field-too-big": hello + "line\x00" + strings.Repeat("1", maxField+1) + "\x00/\x00echo\x00",
	} {
		t.Run(name, func(t *testing.T) {
			out, got, err := serve(t, in)
			if err == nil || out != "" || len(got) != 0 {
				t.Errorf("err %v, answers %q, lines %d", err, out, len(got))
			}
		})
	}
}

package wire

import (
	"bytes"
	"slices"
	"testing"
)

type sample struct {
	Path string
	Argv []string
	Env  []string
	N    int
}

// TestBytes: strings that are not UTF-8 come back byte for byte, and the
// line holds no newline.
func TestBytes(t *testing.T) {
	in := sample{Path: "/w/caf\xe9", Argv: []string{"bash", "-c", "printf %s \xff\xfe\n"}, Env: []string{"X=\x80\x81", "Y=ok"}, N: 3}
	line, err := Encode(&in)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(line, "\r\n") {
		t.Fatalf("a newline in %q", line)
	}
	var out sample
	if err := Decode(append(line, '\n'), &out); err != nil {
		t.Fatal(err)
	}
	if out.Path != in.Path || !slices.Equal(out.Argv, in.Argv) || !slices.Equal(out.Env, in.Env) || out.N != 3 {
		t.Errorf("got %+q, want %+q", out.Argv, in.Argv)
	}
	if err := Decode([]byte("not base64!"), &out); err == nil {
		t.Error("garbage decoded")
	}
}

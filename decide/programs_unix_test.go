//go:build unix

package decide

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/filestamp"
)

// stampsOf is the memo's stamps of dirs as they are now ("" for a
// missing one).
func stampsOf(t *testing.T, dirs []string) []string {
	t.Helper()
	var out []string
	for _, d := range dirs {
		var st unix.Stat_t
		if err := unix.Stat(d, &st); err != nil {
			out = append(out, "")
			continue
		}
		s := filestamp.Of(&st, time.Now())
		if s == "" {
			t.Fatalf("%s changed too recently for a stamp", d)
		}
		out = append(out, s)
	}
	return out
}

func foundNames(m map[string]bool) []string {
	var out []string
	for p, ok := range m {
		if ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

func writeExec(t *testing.T, file string) {
	t.Helper()
	if err := os.WriteFile(file, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestProgramsMemo: the memo answers for the programs no directory of
// PATH held, and only while none of those directories changed: a
// program installed, a missing directory made with one inside, a link
// that led nowhere whose target appears, a file made executable, another
// PATH, a memo that is not the user's own: each is found or looked for
// again.
func TestProgramsMemo(t *testing.T) {
	root := t.TempDir()
	d1, d2, gone := filepath.Join(root, "bin1"), filepath.Join(root, "bin2"), filepath.Join(root, "later")
	elsewhere := filepath.Join(root, "elsewhere")
	for _, d := range []string{d1, d2, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeExec(t, filepath.Join(d2, "tool"))
	if err := os.Symlink(filepath.Join(elsewhere, "target"), filepath.Join(d1, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d1, "plain"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := d1 + ":" + gone + ":relative:" + d2
	dirs := pathDirs(path)
	memo := filepath.Join(root, "state", "programs")
	programs := []string{"tool", "nx", "nx2", "dangling", "plain"}

	// Just made: no directory has a stamp yet, and nothing is kept.
	if got := foundNames(lookPrograms(programs, path, memo)); !slices.Equal(got, []string{"tool"}) {
		t.Fatalf("found %v, want [tool]", got)
	}
	if _, err := os.Stat(memo); err == nil {
		t.Fatal("a memo was kept for directories changed a moment ago")
	}
	time.Sleep(filestamp.Margin + 100*time.Millisecond)

	if got := foundNames(lookPrograms(programs, path, memo)); !slices.Equal(got, []string{"tool"}) {
		t.Fatalf("found %v, want [tool]", got)
	}
	entries := readProgramsMemo(memo)
	if len(entries) != 1 || entries[0].path != path || !slices.Equal(entries[0].absent, []string{"nx", "nx2"}) || !slices.Equal(entries[0].dirs, dirs) {
		t.Fatalf("memo %+v, want nx and nx2 absent from %v (not the link nor the plain file, which are entries)", entries, dirs)
	}
	if got := entries[0].absentNow(); !maps.Equal(got, map[string]bool{"nx": true, "nx2": true}) {
		t.Fatalf("absent now: %v", got)
	}

	// The memo is what answers: one that says so (with the directories'
	// true stamps) hides even an installed program.
	lie := programsEntry{path: path, dirs: dirs, stamps: stampsOf(t, dirs), absent: []string{"nx", "tool"}}
	writeProgramsMemo(memo, lie, nil)
	if got := lookPrograms([]string{"tool"}, path, memo); got["tool"] {
		t.Fatal("a memo that holds was not used")
	}
	// ... for that PATH only.
	if got := lookPrograms([]string{"tool"}, d2, memo); !got["tool"] {
		t.Fatal("the memo of another PATH answered")
	}
	// ... and only when the file is the user's alone.
	if err := os.Chmod(memo, 0o666); err != nil {
		t.Fatal(err)
	}
	if got := lookPrograms([]string{"tool"}, path, memo); !got["tool"] {
		t.Fatal("a memo others can write was used")
	}
	writeProgramsMemo(memo, programsEntry{path: path, dirs: dirs, stamps: stampsOf(t, dirs), absent: []string{"nx", "nx2"}}, nil)

	// A link that led nowhere, and a file not executable, were not
	// kept: they become programs without their directory changing.
	writeExec(t, filepath.Join(elsewhere, "target"))
	if err := os.Chmod(filepath.Join(d1, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := foundNames(lookPrograms(programs, path, memo)); !slices.Equal(got, []string{"dangling", "plain", "tool"}) {
		t.Fatalf("found %v, want dangling, plain and tool", got)
	}
	// A directory of PATH that was missing, made with a program inside.
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	writeExec(t, filepath.Join(gone, "nx2"))
	if got := lookPrograms([]string{"nx2"}, path, memo); !got["nx2"] {
		t.Fatal("a program in a directory made after the memo was not found")
	}
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	if got := readProgramsMemo(memo)[0].absentNow(); !got["nx"] {
		t.Fatalf("the memo does not hold again once the directory is gone: %v", got)
	}
	// A program installed in a directory of PATH.
	writeExec(t, filepath.Join(d1, "nx"))
	if got := lookPrograms([]string{"nx"}, path, memo); !got["nx"] {
		t.Fatal("a program installed after the memo was not found")
	}
}

// TestProgramsMemoBroken: memos that are not well formed are none.
func TestProgramsMemoBroken(t *testing.T) {
	for _, data := range []string{
		"",
		"cordon-programs 2\np /bin\nd - /bin\na x\n",
		programsFormat + "\nd - /bin\na x\n",
		programsFormat + "\np /bin\nd 1 2 3 /bin\na x\n",
		programsFormat + "\np /bin\nd - /bin\n",
		programsFormat + "\np /bin\nd - /bin\nz x\n",
		programsFormat + "\np /bin\nnoline\n",
	} {
		if e, ok := parseProgramsMemo([]byte(data)); ok {
			t.Errorf("%q read as %+v", data, e)
		}
	}
	e, ok := parseProgramsMemo([]byte(programsFormat + "\np /a b:/c\nd - /a b\nd 1 2 3 4 5 /c d e\na x y\n"))
	want := []programsEntry{{path: "/a b:/c", dirs: []string{"/a b", "/c d e"}, stamps: []string{"", "1 2 3 4 5"}, absent: []string{"x", "y"}}}
	if !ok || len(e) != 1 || e[0].path != want[0].path || !slices.Equal(e[0].dirs, want[0].dirs) || !slices.Equal(e[0].stamps, want[0].stamps) || !slices.Equal(e[0].absent, want[0].absent) {
		t.Errorf("read %+v %v, want %+v", e, ok, want)
	}
	if got := lookPrograms([]string{"sh"}, "/bin\n:/usr/bin", filepath.Join(t.TempDir(), "programs")); strings.Contains(strings.Join(foundNames(got), ","), "x") {
		t.Errorf("found %v", got)
	}
}

// TestProgramsMemoBounded: the memo keeps the last few PATHs, the one
// just written first.
func TestProgramsMemoBounded(t *testing.T) {
	memo := filepath.Join(t.TempDir(), "programs")
	for i := range maxProgramsPaths + 3 {
		p := "/p" + string(rune('a'+i))
		writeProgramsMemo(memo, programsEntry{path: p, dirs: []string{p}, stamps: []string{""}, absent: []string{"x"}}, readProgramsMemo(memo))
	}
	writeProgramsMemo(memo, programsEntry{path: "/pj", dirs: []string{"/pj"}, stamps: []string{""}, absent: []string{"y"}}, readProgramsMemo(memo))
	got := readProgramsMemo(memo)
	if len(got) != maxProgramsPaths || got[0].path != "/pj" || !slices.Equal(got[0].absent, []string{"y"}) || got[1].path != "/pk" {
		t.Fatalf("memo holds %+v", got)
	}
	for _, e := range got[1:] {
		if e.path == "/pj" {
			t.Fatal("a PATH kept twice")
		}
	}
}

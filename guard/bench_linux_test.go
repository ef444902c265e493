package guard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// BenchmarkReconcile is the guard's part of a session's later command
// when nothing changed: the reconcile before it ([Reconcile]) in a
// repository with git's sample hooks, an .envrc and its configuration.
func BenchmarkReconcile(b *testing.B) {
	ws := filepath.Join(b.TempDir(), "ws")
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Skipf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(ws, ".envrc"), []byte("export A=1\n"), 0o644)
	state := filepath.Join(b.TempDir(), "state")
	// The files as they are in a workspace a while after they were made
	// (a stamp is taken only of a file unchanged for a few seconds).
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Now().Add(time.Minute) }
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded:     []string{ws + "/.git/hooks", ws + "/.envrc", ws + "/.vscode/tasks.json"},
		GitConfig:   []string{ws + "/.git/config"},
		RootGuarded: []string{".git/hooks/", ".envrc", ".vscode/tasks.json"}, RootGitConfig: []string{".git/config"}}
	if _, err := Hold(state, p); err != nil {
		b.Fatal(err)
	}
	defer Release(state, ws)
	b.ReportAllocs()
	for b.Loop() {
		if lines, err := Reconcile(state, ws); err != nil || len(lines) > 0 {
			b.Fatalf("%v %v", lines, err)
		}
	}
}

// BenchmarkFindBelow is the snapshot round's own walk after a command
// that changed nothing below the root: 1,000 directories of source, five
// bare test remotes with git's 256 object directories each, and a
// node_modules of 2,000 directories.
func BenchmarkFindBelow(b *testing.B) {
	ws := filepath.Join(b.TempDir(), "ws")
	for i := range 1000 {
		d := filepath.Join(ws, "pkg"+strconv.Itoa(i/50), "dir"+strconv.Itoa(i))
		os.MkdirAll(d, 0o755)
		for j := range 10 {
			os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(j)+".go"), nil, 0o644)
		}
	}
	for i := range 5 {
		r := filepath.Join(ws, "remotes", "r"+strconv.Itoa(i)+".git")
		os.MkdirAll(filepath.Join(r, "refs/heads"), 0o755)
		os.WriteFile(filepath.Join(r, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		for j := range 256 {
			os.MkdirAll(filepath.Join(r, "objects", fmt.Sprintf("%02x", j)), 0o755)
		}
	}
	for i := range 2000 {
		os.MkdirAll(filepath.Join(ws, "node_modules", "p"+strconv.Itoa(i/10), "d"+strconv.Itoa(i)), 0o755)
	}
	since := time.Now().Add(time.Minute)
	b.ResetTimer()
	for b.Loop() {
		found, _, _ := FindBelow(ws, []string{".envrc", ".npmrc", ".vscode/"}, []string{"node_modules"}, nil, since, nil)
		if len(found) > 0 {
			b.Fatal(found)
		}
	}
}

// BenchmarkCheckBelow is what a command's end costs before its status is
// given ([CheckBelow]) when it changed nothing below the root: the walk
// of a workspace of 1,000 directories of source (10,000 files) with a
// node_modules of 2,000 directories, which it does not go into. cpu-ms
// is the process's user and system time per walk (less sensitive to a
// loaded machine than the wall time).
func BenchmarkCheckBelow(b *testing.B) {
	ws := filepath.Join(b.TempDir(), "ws")
	for i := range 1000 {
		d := filepath.Join(ws, "pkg"+strconv.Itoa(i/50), "dir"+strconv.Itoa(i))
		os.MkdirAll(d, 0o755)
		for j := range 10 {
			os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(j)+".go"), nil, 0o644)
		}
	}
	for i := range 2000 {
		os.MkdirAll(filepath.Join(ws, "node_modules", "p"+strconv.Itoa(i/10), "d"+strconv.Itoa(i)), 0o755)
	}
	state := filepath.Join(b.TempDir(), "state")
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"}, RootGuarded: []string{".envrc", ".npmrc", ".vscode/"}, Regenerable: []string{"node_modules"}}
	since := time.Now().Add(time.Minute)
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	b.ResetTimer()
	for b.Loop() {
		if lines := CheckBelow(state, p, since); len(lines) > 0 {
			b.Fatal(lines)
		}
	}
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

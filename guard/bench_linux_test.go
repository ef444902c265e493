package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/platform"
)

// BenchmarkReconcile is the guard's part of a session's later command
// when nothing changed: the reconcile before it ([Reconcile]) in a
// repository with git's sample hooks, an .envrc and its configuration.
func BenchmarkReconcile(b *testing.B) { benchReconcile(b, true) }

// BenchmarkReconcileIdle is the same with nothing of the session running
// (no ticket held): a later command's usual case.
func BenchmarkReconcileIdle(b *testing.B) { benchReconcile(b, false) }

func benchReconcile(b *testing.B, held bool) {
	ws, state, p := benchWorkspace(b)
	if _, err := Hold(state, p); err != nil {
		b.Fatal(err)
	}
	if held {
		defer Release(state, ws)
	} else {
		Release(state, ws)
	}
	b.ReportAllocs()
	for b.Loop() {
		if lines, err := Reconcile(state, ws); err != nil || len(lines) > 0 {
			b.Fatalf("%v %v", lines, err)
		}
	}
}

// benchWorkspace is a repository with git's sample hooks, an .envrc and
// its configuration, a state directory, and the policy that guards them;
// its files are taken as they are a while after they were made (a stamp
// is taken only of a file unchanged for a few seconds), until b ends.
func benchWorkspace(b testing.TB) (ws, state string, p *platform.Policy) {
	ws = filepath.Join(b.TempDir(), "ws")
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Skipf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(ws, ".envrc"), []byte("export A=1\n"), 0o644)
	state = filepath.Join(b.TempDir(), "state")
	old := now
	now = func() time.Time { return time.Now().Add(time.Minute) }
	b.Cleanup(func() { now = old })
	p = &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded:     []string{ws + "/.git/hooks", ws + "/.envrc", ws + "/.vscode/tasks.json"},
		GitConfig:   []string{ws + "/.git/config"},
		RootGuarded: []string{".git/hooks/", ".envrc", ".vscode/tasks.json"}, RootGitConfig: []string{".git/config"}}
	return ws, state, p
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
		found, _, _ := FindBelow("", ws, []string{".envrc", ".npmrc", ".vscode/"}, []string{"node_modules"}, nil, since, nil)
		if len(found) > 0 {
			b.Fatal(found)
		}
	}
}

// agentRemotesLedger writes a ledger for ws with the remotes sandboxed
// commands added and a trusted state of 40 hook files (as git's sample
// hooks are): what every command in a repository reads it for.
func agentRemotesLedger(t testing.TB, state, ws string, remotes []string) {
	l := ledger{Workspace: ws, AgentRemotes: remotes, Trusted: state2(ws)}
	data, err := json.Marshal(&l)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(ledgerFile(state, ws)), 0o700)
	if err := os.WriteFile(ledgerFile(state, ws), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func state2(ws string) state {
	s := state{}
	for i := range 40 {
		s[fmt.Sprintf("%s/.git/hooks/h%d.sample", ws, i)] = &entry{Kind: 'f', Mode: 0o755, Data: []byte(strings.Repeat("#!/bin/sh\n", 80))}
	}
	return s
}

func TestAgentRemotes(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	if r, _ := AgentRemotes(state, ws, ""); r != nil {
		t.Errorf("no ledger: %q", r)
	}
	agentRemotesLedger(t, state, ws, []string{"fork", "x"})
	if r, _ := AgentRemotes(state, ws, ""); !slices.Equal(r, []string{"fork", "x"}) {
		t.Errorf("AgentRemotes = %q", r)
	}
	if r, _ := AgentRemotes(state, filepath.Dir(ws)+"/other", ""); r != nil {
		t.Errorf("another workspace's ledger: %q", r)
	}
	os.WriteFile(ledgerFile(state, ws), []byte(`{"workspace":`), 0o600)
	if r, _ := AgentRemotes(state, ws, ""); r != nil {
		t.Errorf("a damaged ledger: %q", r)
	}
}

// BenchmarkAgentRemotes is what judging a command in a repository pays
// to know the remotes sandboxed commands added.
func BenchmarkAgentRemotes(b *testing.B) {
	state, ws := b.TempDir(), b.TempDir()
	agentRemotesLedger(b, state, ws, []string{"fork"})
	b.ReportAllocs()
	for b.Loop() {
		if r, _ := AgentRemotes(state, ws, ""); len(r) != 1 {
			b.Fatal(r)
		}
	}
}

// Reconcile with no ticket held takes the lines kept for the next
// command without decoding the whole ledger; with a dead process's
// ticket it still sweeps it (the ledger read in full).
func TestReconcileIdle(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	p := &platform.Policy{Workspace: ws, Guarded: []string{ws + "/.envrc"}, RootGuarded: []string{".envrc"}}
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	Release(state, ws)
	KeepLines(state, ws, []string{"put back .envrc"})
	if lines, err := Reconcile(state, ws); err != nil || !slices.Equal(lines, []string{"put back .envrc"}) {
		t.Fatalf("Reconcile = %q, %v; want the kept line", lines, err)
	}
	if lines, _ := Reconcile(state, ws); len(lines) != 0 {
		t.Fatalf("the line was said twice: %q", lines)
	}
	// A ledger cut short (a crash, a full disk) is not taken for an idle
	// one: read in full, it is found damaged and said to be.
	data, _ := os.ReadFile(ledgerFile(state, ws))
	os.WriteFile(ledgerFile(state, ws), data[:len(data)/2], 0o600)
	if lines, _ := Reconcile(state, ws); len(lines) != 1 || !strings.Contains(lines[0], "could not be read") {
		t.Fatalf("a damaged ledger: %q", lines)
	}
	Hold(state, p)
	Release(state, ws)
	// A ticket of a process that is gone: swept.
	data, _ = os.ReadFile(ledgerFile(state, ws))
	var l ledger
	json.Unmarshal(data, &l)
	l.Active = []ticket{{Pid: 1 << 22, Start: "1"}}
	data, _ = json.Marshal(&l)
	os.WriteFile(ledgerFile(state, ws), data, 0o600)
	if _, err := Reconcile(state, ws); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(ledgerFile(state, ws))
	if l = (ledger{}); json.Unmarshal(data, &l) != nil || len(l.Active) != 0 {
		t.Errorf("the dead ticket was not swept: %s", data)
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

// BenchmarkCheckBelowRepos is [BenchmarkCheckBelow] in a repository
// whose ledger keeps 20 clones of the person's below the root
// (vendor/libN), as the walk that finds them reads it, and a command's
// whole ticket: the trusted state taken ([Hold]), the walk, the
// reconcile ([Release]).
func BenchmarkCheckBelowRepos(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("no git")
	}
	ws := filepath.Join(b.TempDir(), "ws")
	for i := range 1000 {
		d := filepath.Join(ws, "pkg"+strconv.Itoa(i/50), "dir"+strconv.Itoa(i))
		os.MkdirAll(d, 0o755)
		for j := range 10 {
			os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(j)+".go"), nil, 0o644)
		}
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Fatal(err, string(out))
	}
	for i := range 20 {
		if out, err := exec.Command("git", "init", "-q", filepath.Join(ws, "vendor", "lib"+strconv.Itoa(i))).CombinedOutput(); err != nil {
			b.Fatal(err, string(out))
		}
	}
	state := filepath.Join(b.TempDir(), "state")
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"},
		Guarded: []string{ws + "/.git/hooks"}, GitConfig: []string{ws + "/.git/config"},
		RootGuarded: []string{".git/hooks/", ".git/hooks", ".envrc", ".npmrc", ".vscode/"}, RootGitConfig: []string{".git/config"},
		Regenerable: []string{"node_modules"}, GitConfigSafe: []string{"core.repositoryFormatVersion", "core.fileMode", "core.bare", "core.logAllRefUpdates"}}
	// (Hooks and configurations as old as a person's clone's: trusted by
	// their stamps, not read again.)
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return time.Now().Add(time.Minute) }
	if _, err := Hold(state, p); err != nil { // (the first: its walk is not measured)
		b.Fatal(err)
	}
	Release(state, ws)
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	b.ResetTimer()
	for b.Loop() {
		since := time.Now()
		if _, err := Hold(state, p); err != nil {
			b.Fatal(err)
		}
		if lines := CheckBelow(state, p, since); len(lines) > 0 {
			b.Fatal(lines)
		}
		if lines, _ := Release(state, ws); len(lines) > 0 {
			b.Fatal(lines)
		}
	}
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkHoldRelease is the guard's part of a session's later command
// in its manager: the ticket taken as the command starts ([HoldWatched],
// with the session's watch) and given back as it ends
// ([ReleaseIdleSaveLater] with the watch), in the repository of
// [BenchmarkReconcile], nothing changed in between: the trusted state is
// not taken again, nor the workspace reconciled ([Changes.Still]).
func BenchmarkHoldRelease(b *testing.B) { benchHoldRelease(b, true) }

// BenchmarkHoldReleaseLook is [BenchmarkHoldRelease] without the watch:
// the trusted state taken, the look for repositories that appeared
// since the last ticket ([adoptAppeared]) and the reconcile, as a
// command's own guard does.
func BenchmarkHoldReleaseLook(b *testing.B) { benchHoldRelease(b, false) }

func benchHoldRelease(b *testing.B, watched bool) {
	ws, state, p := benchWorkspace(b)
	var c *Changes
	if watched {
		c = WatchChanges(p, time.Now())
		defer c.Stop()
		c.Appeared()
	}
	b.ReportAllocs()
	for b.Loop() {
		if lines, err := HoldWatched(state, p, c); err != nil || len(lines) > 0 {
			b.Fatalf("hold: %v %v", lines, err)
		}
		lines, _, save, err := ReleaseIdleSaveLater(state, ws, c)
		if err != nil || len(lines) > 0 {
			b.Fatalf("release: %v %v", lines, err)
		}
		if err := save(); err != nil {
			b.Fatal(err)
		}
	}
}

package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMadeWhileHeld: a git directory born in a place commands of another
// workspace could write, while they could, is taken for a command's;
// one born before, or in the workspace itself, or where they could not
// write, is not; an interval still open covers what is born now; an
// unreadable record takes every repository for a command's.
func TestMadeWhileHeld(t *testing.T) {
	state, scratch, ws := t.TempDir(), t.TempDir(), t.TempDir()
	mkgit := func(dir string) string {
		t.Helper()
		g := filepath.Join(dir, ".git")
		if err := os.MkdirAll(g, 0o755); err != nil {
			t.Fatal(err)
		}
		return g
	}
	old := mkgit(filepath.Join(scratch, "old"))
	time.Sleep(2 * belowTick)
	from := time.Now()
	noteHeld(state, ws, []string{scratch, ws}, from, time.Time{})
	made := mkgit(filepath.Join(scratch, "made"))
	own := mkgit(filepath.Join(ws, "sub"))
	elsewhere := mkgit(filepath.Join(t.TempDir(), "x"))
	if w, ok := madeWhileHeld(state, made); !ok || w != ws {
		t.Errorf("a repository made in scratch space while commands ran: %q, %v", w, ok)
	}
	for _, g := range []string{old, own, elsewhere} {
		if w, ok := madeWhileHeld(state, g); ok {
			t.Errorf("%s is taken for a command's (%s)", g, w)
		}
	}
	noteHeld(state, ws, []string{scratch}, from, time.Now())
	time.Sleep(2 * belowTick)
	later := mkgit(filepath.Join(scratch, "later"))
	if _, ok := madeWhileHeld(state, made); !ok {
		t.Error("the closed interval no longer covers what was made in it")
	}
	if w, ok := madeWhileHeld(state, later); ok {
		t.Errorf("a repository made after the commands ended is taken for a command's (%s)", w)
	}
	// The next run of the workspace's commands soon after is the same
	// interval: it covers the time between too.
	noteHeld(state, ws, []string{scratch}, time.Now(), time.Time{})
	if all := readHeld(state); len(all) != 1 || !all[0].To.IsZero() {
		t.Errorf("the intervals after a second run soon after: %+v", all)
	}
	if _, ok := madeWhileHeld(state, later); !ok {
		t.Error("a repository made between two runs close together is not a command's")
	}
	os.WriteFile(heldFile(state), []byte("{\n"), 0o600)
	if _, ok := madeWhileHeld(state, old); !ok {
		t.Error("with the record unreadable, a repository is taken for the person's")
	}
}

// TestHeldBounded: the log is compacted as it grows (past maxHeld
// intervals the closest two merge), and what each covered stays covered.
func TestHeldBounded(t *testing.T) {
	state, scratch := t.TempDir(), t.TempDir()
	base := time.Now().Add(-time.Duration(maxHeld+10) * time.Hour)
	for i := range maxHeld + 10 {
		from := base.Add(time.Duration(i) * time.Hour)
		ws := filepath.Join(scratch, "..", "ws"+strings.Repeat("x", i%3))
		noteHeld(state, ws, []string{scratch}, from, time.Time{})
		noteHeld(state, ws, []string{scratch}, from, from.Add(time.Minute))
	}
	if fi, err := os.Stat(heldFile(state)); err != nil || fi.Size() > 2*compactAt {
		t.Fatalf("the log was not compacted: %v, %v", fi.Size(), err)
	}
	all := readHeld(state)
	for i := range maxHeld + 10 {
		at := base.Add(time.Duration(i)*time.Hour + 30*time.Second)
		covered := false
		for _, h := range all {
			if !at.Before(h.From) && !at.After(h.To) {
				covered = true
			}
		}
		if !covered {
			t.Fatalf("interval %d is no longer covered", i)
		}
	}
}

// heldRecord is how many intervals BenchmarkHeld's record holds.
var heldRecord = maxHeld - 1

// BenchmarkHeld is what a command's first ticket and last end add: the
// interval opened, then closed, with a full record.
func BenchmarkHeld(b *testing.B) {
	state, scratch := b.TempDir(), b.TempDir()
	base := time.Now().Add(-time.Duration(heldRecord+1) * time.Hour)
	for i := range heldRecord {
		from := base.Add(time.Duration(i) * time.Hour)
		noteHeld(state, "/w"+strings.Repeat("x", i), []string{scratch, "/var/tmp"}, from, from.Add(time.Minute))
	}
	for b.Loop() {
		from := time.Now()
		noteHeld(state, "/ws", []string{scratch, "/var/tmp"}, from, time.Time{})
		noteHeld(state, "/ws", []string{scratch, "/var/tmp"}, from, time.Now())
	}
}

// BenchmarkHeldShort is BenchmarkHeld with the record of a few days'
// work in a few workspaces.
func BenchmarkHeldShort(b *testing.B) {
	heldRecord = 20
	defer func() { heldRecord = maxHeld - 1 }()
	BenchmarkHeld(b)
}

// BenchmarkMadeWhileHeld is what a judgement in a repository adds when
// no ledger holds it as made: the log read at its largest.
func BenchmarkMadeWhileHeld(b *testing.B) {
	state, scratch := b.TempDir(), b.TempDir()
	g := filepath.Join(scratch, "x", ".git")
	os.MkdirAll(g, 0o755)
	line := `{"w":"/home/someone/src/project","r":["/tmp","/var/tmp"],"f":"2026-12-05T04:00:00.123456789Z","t":"2026-12-05T04:10:00.123456789Z"}` + "\n"
	os.MkdirAll(filepath.Dir(heldFile(state)), 0o700)
	os.WriteFile(heldFile(state), []byte(strings.Repeat(line, compactAt/len(line))), 0o600)
	for b.Loop() {
		madeWhileHeld(state, g)
	}
}

// TestRemotesElsewhere: a remote a command of another workspace added to
// a repository is the command's when a shell is in that repository; a
// compaction keeps every one; a record that cannot be read makes every
// remote the command's.
func TestRemotesElsewhere(t *testing.T) {
	state, repo := t.TempDir(), t.TempDir()
	g := filepath.Join(repo, ".git")
	os.Mkdir(g, 0o755)
	config := filepath.Join(g, "config")
	os.WriteFile(config, []byte("[remote \"origin\"]\n\turl = https://git.example/me/app\n"), 0o644)
	if r, by := AgentRemotes(state, repo, config); r != nil || by != "" {
		t.Fatalf("before: %q, %q", r, by)
	}
	noteElsewhere(state, g, []string{"evil"})
	for i := range 20 {
		noteElsewhere(state, t.TempDir(), []string{fmt.Sprint("r", i)})
	}
	noteElsewhere(state, g, []string{"evil", "evil2"})
	noteElsewhere(state, g, []string{"evil2"})
	if data, _ := os.ReadFile(elsewhereFile(state)); strings.Count(string(data), "evil") != 2 {
		t.Errorf("the log names a remote more than once:\n%s", data)
	}
	if r, by := AgentRemotes(state, repo, config); !slices.Equal(r, []string{"evil", "evil2"}) || by != "" {
		t.Errorf("after: %q, %q", r, by)
	}
	f, _ := os.OpenFile(elsewhereFile(state), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("{\n")
	f.Close()
	if _, by := AgentRemotes(state, repo, config); by == "" {
		t.Error("with the record unreadable, the repository's remotes are the person's")
	}
}

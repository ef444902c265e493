package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
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

// TestMayHold: the log goes unparsed only when no interval can hold the
// repository: one in a root written with escapes (json.Marshal's) is
// found, and a line damaged inside (its ends intact) still makes every
// repository a command's.
func TestMayHold(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	scratch := filepath.Join(t.TempDir(), `odd <&> "dir"`)
	made := filepath.Join(scratch, "made", ".git")
	if err := os.MkdirAll(made, 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "x", ".git")
	os.MkdirAll(elsewhere, 0o755)
	noteHeld(state, ws, []string{scratch}, time.Now().Add(-time.Minute), time.Time{})
	data, _ := os.ReadFile(heldFile(state))
	if !bytes.Contains(data, []byte(`\u003c`)) {
		t.Fatalf("the root is not escaped in the log, the test tries nothing: %s", data)
	}
	if _, ok := madeWhileHeld(state, made); !ok {
		t.Error("a repository in a root written with escapes is not a command's")
	}
	if mayHold(data, elsewhere) {
		t.Error("the log is parsed for a repository no interval can hold")
	}
	if _, ok := madeWhileHeld(state, elsewhere); ok {
		t.Error("a repository elsewhere is a command's")
	}
	// The workspace's own repository, in its root too: not parsed for.
	own := filepath.Join(scratch, "ws", ".git")
	os.MkdirAll(own, 0o755)
	state2 := t.TempDir()
	noteHeld(state2, filepath.Dir(own), []string{scratch}, time.Now().Add(-time.Minute), time.Time{})
	data2, _ := os.ReadFile(heldFile(state2))
	if mayHold(data2, own) {
		t.Error("the log is parsed for a workspace's own repository")
	}
	if _, ok := madeWhileHeld(state2, own); ok {
		t.Error("a workspace's own repository is a command's")
	}
	// Intervals of two workspaces merged by a compaction have none.
	merged := `{"w":"","r":[` + string(must(json.Marshal(scratch))) + `],"f":"2026-12-05T04:00:00Z"}` + "\n"
	os.WriteFile(heldFile(state2), []byte(merged), 0o600)
	if _, ok := madeWhileHeld(state2, own); !ok {
		t.Error("a repository in the places of merged intervals is not a command's")
	}
	damaged := bytes.Replace(data, []byte(`odd`), []byte("\x00\x00\x00"), 1)
	os.WriteFile(heldFile(state), damaged, 0o600)
	if _, ok := madeWhileHeld(state, elsewhere); !ok {
		t.Error("with a line damaged inside, a repository is taken for the person's")
	}
	// A last line still being written counts for neither.
	os.WriteFile(heldFile(state), append(slices.Clone(data), `{"w":"/x","r":["/`...), 0o600)
	if _, ok := madeWhileHeld(state, elsewhere); ok {
		t.Error("a line being written made a repository a command's")
	}
}

// TestMayHoldLossyNames: json.Marshal writes every byte of a name that
// is not UTF-8 as \ufffd, so two names may be written alike, and a name
// read back from the log is not the one written. A repository that the
// log's full parse takes for a command's is taken for one still when a
// line's workspace is written as one of its directories is
// (/tmp/caf\xe9, the workspace; /tmp/caf\xe8, made there by its
// command), or a line's root is read back as one of them.
func TestMayHoldLossyNames(t *testing.T) {
	scratch := t.TempDir()
	for _, c := range []struct{ name, ws, root, made string }{
		{"workspace", filepath.Join(scratch, "caf\xe9"), scratch, filepath.Join(scratch, "caf\xe8", ".git")},
		{"workspace above", filepath.Join(scratch, "w\xff"), scratch, filepath.Join(scratch, "w\xfe", "x", ".git")},
		{"root", t.TempDir(), filepath.Join(scratch, "r\xff"), filepath.Join(scratch, "r\ufffd", "x", ".git")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.MkdirAll(c.made, 0o755); err != nil {
				t.Skip("the file system takes no such name:", err)
			}
			state := t.TempDir()
			noteHeld(state, c.ws, []string{c.root}, time.Now().Add(-time.Minute), time.Time{})
			data, _ := os.ReadFile(heldFile(state))
			if _, full := fullMadeWhileHeld(state, c.made); !full {
				t.Fatalf("the full parse takes it for the person's, the test tries nothing: %s", data)
			}
			if _, ok := madeWhileHeld(state, c.made); !ok {
				t.Errorf("a repository the log's full parse takes for a command's is the person's: %q in %s", c.made, data)
			}
		})
	}
}

// fullMadeWhileHeld is madeWhileHeld with the log always parsed.
func fullMadeWhileHeld(stateDir, gitDir string) (string, bool) {
	data, _ := os.ReadFile(heldFile(stateDir))
	return heldWithin(foldHeld(data), gitDir)
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
// no ledger holds it as made: the log read at its largest, for a
// repository in scratch space (parsed) and one in the home directory
// (in no interval's places: not parsed, [mayHold]).
func BenchmarkMadeWhileHeld(b *testing.B) {
	state, scratch := b.TempDir(), b.TempDir()
	line := `{"w":"/home/someone/src/project","r":["/tmp","/var/tmp"],"f":"2026-12-05T04:00:00.123456789Z","t":"2026-12-05T04:10:00.123456789Z"}` + "\n"
	os.MkdirAll(filepath.Dir(heldFile(state)), 0o700)
	os.WriteFile(heldFile(state), []byte(strings.Repeat(line, compactAt/len(line))), 0o600)
	for _, c := range []struct{ name, dir string }{{"scratch", scratch}, {"home", "/home/someone/src/other"}} {
		b.Run(c.name, func(b *testing.B) {
			g := filepath.Join(c.dir, "x", ".git")
			for b.Loop() {
				madeWhileHeld(state, g)
			}
		})
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

// TestParseHeldLine: a line the fast reader takes is read as
// json.Unmarshal reads it; lines written otherwise (escapes, spaces,
// another order, a bad time, not UTF-8, trailing bytes) are left to
// json.Unmarshal, and a log of them folds as before.
func TestParseHeldLine(t *testing.T) {
	from := time.Date(2026, 12, 6, 4, 25, 2, 228219845, time.UTC)
	var lines [][]byte
	for _, h := range []heldInterval{
		{Workspace: "/tmp/ws", Roots: []string{"/dev/shm", "/tmp", "/var/tmp"}, From: from},
		{Workspace: "/tmp/ws", Roots: []string{"/tmp"}, From: from, To: from.Add(time.Minute)},
		{Workspace: "/tmp/a&b<c>", Roots: []string{"/tmp/\"q\"", "/tmp/\\", "/tmp/\n", "/tmp/é"}, From: from.In(time.FixedZone("x", 3600))},
		{Workspace: "/tmp/\xff", Roots: []string{"/tmp/\xfe"}, From: from},
		{Workspace: "", Roots: []string{}, From: from},
		{Roots: nil, From: from},
	} {
		line, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	lines = append(lines,
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02Z"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02+01:00","t":"2026-12-06T05:25:02Z"}`),
		[]byte(`{"w": "/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02Z"}`),
		[]byte(`{"r":["/tmp"],"w":"/tmp/ws","f":"2026-12-06T04:25:02Z"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02Z"} `),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02Z"}x`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp",],"f":"2026-12-06T04:25:02Z"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp""/x"],"f":"2026-12-06T04:25:02Z"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-13-06T04:25:02Z"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"not a time"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":""}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02Z","t":"2026-12-06T04:25:02Z","t":"2027-01-01T00:00:00Z"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02Z","W":"/other"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"],"f":"2026-12-06T04:25:02Z","t":null}`),
		[]byte(`{"w":"/tmp/ws","r":null,"f":"2026-12-06T04:25:02Z"}`),
		[]byte(`{"w":"/tmp/ws","r":["/tmp\u002f"],"f":"2026-12-06T04:25:02Z"}`),
		[]byte("{\"w\":\"/tmp/\tws\",\"r\":[],\"f\":\"2026-12-06T04:25:02Z\"}"),
		[]byte(`{"w":"/tmp/ws","r":["/tmp"]`),
		[]byte(`{"w":"/tmp/ws"`),
		[]byte(`{`),
		[]byte(``),
	)
	for _, line := range lines {
		checkHeldLine(t, line)
	}
	// A log of them all folds as json.Unmarshal alone would fold it.
	var log []byte
	for _, line := range lines[:8] {
		log = append(append(log, line...), '\n')
	}
	if got, want := foldHeld(log), foldHeldJSON(log); !reflect.DeepEqual(got, want) {
		t.Errorf("foldHeld: %+v, with encoding/json alone %+v", got, want)
	}
	bad := append(slices.Clone(log), []byte("{\"w\": 1}\n")...)
	if got := foldHeld(bad); len(got) != 1 || got[0].Roots[0] != "/" || !got[0].From.IsZero() {
		t.Errorf("a log with a line json.Unmarshal cannot read: %+v, not every place at every time", got)
	}
}

// checkHeldLine fails t when parseHeldLine takes line and reads it
// otherwise than json.Unmarshal.
func checkHeldLine(t *testing.T, line []byte) {
	t.Helper()
	got, ok := parseHeldLine(line, interned{})
	if !ok {
		return
	}
	var want heldInterval
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("%q: taken, but json.Unmarshal fails: %v", line, err)
	}
	if !got.From.Equal(want.From) || !got.To.Equal(want.To) || got.From.String() != want.From.String() || got.To.String() != want.To.String() {
		t.Fatalf("%q: times %v %v, json.Unmarshal %v %v", line, got.From, got.To, want.From, want.To)
	}
	got.From, got.To, want.From, want.To = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: %#v, json.Unmarshal %#v", line, got, want)
	}
}

// foldHeldJSON is foldHeld with every line read by json.Unmarshal.
func foldHeldJSON(data []byte) []heldInterval {
	var out []byte
	for line := range bytes.Lines(data) {
		var h heldInterval
		if json.Unmarshal(bytes.TrimSuffix(line, []byte("\n")), &h) != nil {
			return nil
		}
		// Written again with a space, which parseHeldLine does not take.
		line, _ = json.MarshalIndent(h, "", "")
		out = append(append(out, bytes.ReplaceAll(line, []byte("\n"), nil)...), '\n')
	}
	if bytes.Equal(out, data) {
		panic("foldHeldJSON: the lines are still the fast reader's")
	}
	return foldHeld(out)
}

// FuzzParseHeldLine: whatever line parseHeldLine takes, it reads as
// json.Unmarshal does.
func FuzzParseHeldLine(f *testing.F) {
	f.Add([]byte(`{"w":"/tmp/ws","r":["/dev/shm","/tmp"],"f":"2026-12-06T04:25:02.228219845Z","t":"2026-12-06T04:25:44.017990601Z"}`))
	f.Add([]byte(`{"w":"","r":[],"f":"2026-12-06T04:25:02+01:00"}`))
	f.Fuzz(func(t *testing.T, line []byte) { checkHeldLine(t, line) })
}

// BenchmarkReadHeld is what every command pays to read a log about to be
// compacted (madeWhileHeld, through AgentRemotes).
func BenchmarkReadHeld(b *testing.B) {
	state := b.TempDir()
	from := time.Now().Add(-time.Hour)
	for i := 0; ; i++ {
		at := from.Add(time.Duration(i) * time.Second)
		line, _ := json.Marshal(heldInterval{Workspace: "/tmp/agent-ws/project", Roots: []string{"/dev/shm", "/tmp", "/var/tmp"}, From: at, To: at.Add(time.Second)})
		if appendLine(state, heldFile(state), line) > compactAt-200 {
			break
		}
	}
	for b.Loop() {
		if len(readHeld(state)) == 0 {
			b.Fatal("no interval")
		}
	}
}

// must is v, for a test that cannot fail to make it.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestMayHoldAgrees: whatever the names (escaped by json.Marshal, not
// UTF-8, holding the log's own syntax, not clean), and in lines of a
// workspace or compacted ones, mayHold is false only where the log's
// full parse finds no interval holding the repository (one that does
// not exist: born within every interval).
func TestMayHoldAgrees(t *testing.T) {
	parts := []string{"a", "b", "caf\xe9", "caf\xe8", "r\ufffd", "r\xff", `x"y`, `x\y`, "]", `,"r":["`, `"],"f":"`, "<&>", "\u2028", "é", "e\u0301", "a/", ".", "\x7f"}
	rng := rand.New(rand.NewPCG(1, 2))
	path := func() string {
		p := "/t"
		for range 1 + rng.IntN(3) {
			p += "/" + parts[rng.IntN(len(parts))]
		}
		return p
	}
	from := time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)
	for range 50000 {
		var data []byte
		for range 1 + rng.IntN(3) {
			h := heldInterval{Workspace: path(), From: from}
			if rng.IntN(4) == 0 {
				h.Workspace = ""
			}
			for range 1 + rng.IntN(2) {
				h.Roots = append(h.Roots, path())
			}
			line, _ := json.Marshal(h)
			data = append(append(data, line...), '\n')
		}
		g := filepath.Clean(path() + "/.git")
		if _, full := heldWithin(foldHeld(data), g); full && !mayHold(data, g) {
			t.Fatalf("%q is held by the log, and mayHold says it is not:\n%s", g, data)
		}
	}
}

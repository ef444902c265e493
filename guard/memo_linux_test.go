package guard

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// memoTest turns the memo on until t ends.
func memoTest(t testing.TB) {
	was := memoOn.Load()
	memoOn.Store(true)
	t.Cleanup(func() {
		memoOn.Store(was)
		memos.Lock()
		memos.by = nil
		memos.Unlock()
	})
}

// waitRemembered waits until the memo of ws's ledger is decoded and
// matches the files on disk.
func waitRemembered(t testing.TB, state, ws string) {
	file := ledgerFile(state, ws)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		data, _ := os.ReadFile(file)
		contents, err := os.ReadFile(contentsFile(file))
		if err != nil {
			contents = nil
		}
		if _, _, ok := remembered(file, ws, data, contents); ok {
			return
		}
	}
	t.Fatal("the ledger written was not remembered")
}

// freshRead is what open gives with no memo: the files decoded.
func freshRead(t *testing.T, state, ws string) ledger {
	t.Helper()
	file := ledgerFile(state, ws)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	contents, err := os.ReadFile(contentsFile(file))
	if err != nil {
		contents = nil
	}
	l, _, ok := decodeLedger(ws, data, contents)
	if !ok {
		t.Fatal("the ledger does not decode")
	}
	return l
}

// openLedger opens ws's ledger and returns what it holds.
func openLedger(t *testing.T, state, ws string) ledger {
	t.Helper()
	b, err := open(state, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	return b.l
}

// TestLedgerMemoEqualsFreshRead: an open that takes the memo gives what
// decoding the files gives, and a copy: what a book changes (without
// saving) is not in the next open's.
func TestLedgerMemoEqualsFreshRead(t *testing.T) {
	memoTest(t)
	ws, state, p := benchWorkspace(t)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Release(state, ws); err != nil {
		t.Fatal(err)
	}
	waitRemembered(t, state, ws)
	want := freshRead(t, state, ws)
	if len(want.Trusted) == 0 || len(want.Patterns) == 0 {
		t.Fatalf("a ledger without a trusted state: %+v", want)
	}
	b, err := open(state, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.l, want) {
		t.Fatalf("the memo differs from the file:\n%+v\n%+v", b.l, want)
	}
	// Changed in the book, not saved.
	b.l.Patterns[0] = "changed"
	b.l.Patterns = append(b.l.Patterns, "added")
	for _, e := range b.l.Trusted {
		if len(e.Data) > 0 {
			e.Data[0] ^= 0xff
		}
		if len(e.Names) > 0 {
			e.Names[0] = "changed"
		}
		e.Mode = 0o7777
	}
	for k, v := range b.readKept {
		if len(v) > 0 {
			v[0] ^= 0xff
		}
		delete(b.readKept, k)
	}
	b.l.Trusted["/added"] = &entry{Kind: 'f'}
	b.close()
	b, err = open(state, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if !reflect.DeepEqual(b.l, want) {
		t.Fatalf("a book's change reached the memo:\n%+v\n%+v", b.l, want)
	}
	if len(b.readKept) == 0 {
		t.Fatal("the contents the ledger names are missing")
	}
}

// TestLedgerMemoSeesOtherWriters: a ledger changed on disk after this
// process wrote it (by another session, a shim, a cordon command), in
// place, with the same size and its times set back, is read as it is
// now, not as remembered; so is its contents file.
func TestLedgerMemoSeesOtherWriters(t *testing.T) {
	memoTest(t)
	ws, state, p := benchWorkspace(t)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Release(state, ws); err != nil {
		t.Fatal(err)
	}
	waitRemembered(t, state, ws)
	file := ledgerFile(state, ws)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := openLedger(t, state, ws); got.Git == "" {
		t.Fatalf("no git in the ledger: %+v", got)
	}
	inPlace := func(name string, change func([]byte) []byte) {
		t.Helper()
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(name)
		f, err := os.OpenFile(name, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(change(data), 0); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(name, st.ModTime(), st.ModTime())
	}
	// Another git, the same length.
	old := openLedger(t, state, ws).Git
	other := old[:len(old)-1] + "X"
	inPlace(file, func(data []byte) []byte {
		return bytes.Replace(data, []byte(`"git":"`+old+`"`), []byte(`"git":"`+other+`"`), 1)
	})
	if fi2, _ := os.Stat(file); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("the change is not of the same size and time: %v %v", fi2, fi)
	}
	if got := openLedger(t, state, ws); got.Git != other {
		t.Fatalf("the ledger changed on disk was read as remembered: git %q, want %q", got.Git, other)
	}
	// A kept content's last byte changed: it no longer matches its sum,
	// so no content is kept for its entry.
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	if _, err := Release(state, ws); err != nil {
		t.Fatal(err)
	}
	waitRemembered(t, state, ws)
	before := openLedger(t, state, ws)
	inPlace(contentsFile(file), func(data []byte) []byte {
		data[len(data)-1] ^= 0xff
		return data
	})
	after := openLedger(t, state, ws)
	if reflect.DeepEqual(before, after) {
		t.Fatal("the contents file changed on disk was read as remembered")
	}
	if want := freshRead(t, state, ws); !reflect.DeepEqual(after, want) {
		t.Fatalf("the ledger read differs from the file:\n%+v\n%+v", after, want)
	}
	// Replaced whole by another process (a rename, as a save does).
	git := openLedger(t, state, ws).Git
	data, _ := os.ReadFile(file)
	tmp := filepath.Join(filepath.Dir(file), "other.tmp")
	os.WriteFile(tmp, bytes.Replace(data, []byte(`"git":"`), []byte(`"git":"/elsewhere`), 1), 0o600)
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	if got := openLedger(t, state, ws); got.Git != "/elsewhere"+git {
		t.Fatalf("a ledger replaced by another process was read as remembered: git %q", got.Git)
	}
}

// TestLedgerCloneDeep: clone copies every field that holds a slice or a
// map, so that a field added to the ledger is either copied or fails
// here (every such field is set in the one cloned).
func TestLedgerCloneDeep(t *testing.T) {
	e := func() *entry {
		return &entry{Kind: 'f', Data: []byte("x"), Inline: []byte("y"), Names: []string{"n"}, Sum: "s"}
	}
	l := ledger{Workspace: "/w", Patterns: []string{"p"}, Trusted: state{"/a": e()}, Active: []ticket{{Pid: 1}},
		Configs: []string{"c"}, TrustedConfigs: state{"/b": e()}, Safe: []string{"s"}, Git: "g",
		AgentRemotes: []string{"r"}, Roots: []string{"/r"}, RootPatterns: []string{"rp"}, Adopted: []string{"/ad"},
		AdoptedBare: []string{"/ab"}, RootConfigs: []string{"rc"}, Made: []string{"/m"}, MadeDirs: []string{"1:2"},
		Reach: []string{"/reach"}, TrustedAt: time.Now(), TrustedSteps: state{"/c": e()}, Included: []string{"/i"}, IncludesRead: []string{"/ir"},
		Own: []ownRepo{{Root: "/o", ID: "id"}}}
	c := l.clone()
	if !reflect.DeepEqual(c, l) {
		t.Fatalf("the clone differs:\n%+v\n%+v", c, l)
	}
	lv, cv := reflect.ValueOf(l), reflect.ValueOf(c)
	for i := range lv.NumField() {
		name := lv.Type().Field(i).Name
		switch f := lv.Field(i); f.Kind() {
		case reflect.Slice:
			if f.Len() == 0 {
				t.Errorf("%s: set it in this test", name)
			} else if f.Pointer() == cv.Field(i).Pointer() {
				t.Errorf("%s: shared by the clone", name)
			}
		case reflect.Map:
			if f.Len() == 0 {
				t.Errorf("%s: set it in this test", name)
				continue
			}
			if f.Pointer() == cv.Field(i).Pointer() {
				t.Errorf("%s: shared by the clone", name)
			}
			for path, e := range f.Interface().(state) {
				ce := cv.Field(i).Interface().(state)[path]
				if ce == e || &ce.Data[0] == &e.Data[0] || &ce.Inline[0] == &e.Inline[0] || &ce.Names[0] == &e.Names[0] {
					t.Errorf("%s: an entry shared by the clone", name)
				}
			}
		case reflect.String, reflect.Bool, reflect.Struct:
		default:
			t.Errorf("%s: a field of kind %s: copy it in clone, and check it here", name, f.Kind())
		}
	}
	rt := reflect.TypeOf(entry{})
	for i := range rt.NumField() {
		switch f := rt.Field(i); f.Type.Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer:
			if !map[string]bool{"Data": true, "Inline": true, "Names": true}[f.Name] {
				t.Errorf("entry.%s: copy it in state.clone, and check it here", f.Name)
			}
		}
	}
}

// TestLedgerMemoOff: without KeepLedgersInMemory nothing is remembered
// (a shim decodes each ledger once; it would only spend a decode more).
func TestLedgerMemoOff(t *testing.T) {
	was := memoOn.Load()
	memoOn.Store(false)
	memos.Lock()
	memos.by = nil
	memos.Unlock()
	t.Cleanup(func() { memoOn.Store(was) })
	ws, state, p := benchWorkspace(t)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	Release(state, ws)
	memos.Lock()
	n := len(memos.by)
	memos.Unlock()
	if n != 0 {
		t.Fatalf("%d ledgers remembered with the memo off", n)
	}
	// (And on, the same steps remember it: the check above can fail.)
	memoTest(t)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	Release(state, ws)
	memos.Lock()
	n = len(memos.by)
	memos.Unlock()
	if n == 0 {
		t.Fatal("nothing remembered with the memo on")
	}
}

// BenchmarkLedgerOpen is the ledger's open in a session's manager: the
// files read, the memo of what it last wrote taken ([remembered]).
func BenchmarkLedgerOpen(b *testing.B) {
	memoTest(b)
	benchOpen(b)
}

// BenchmarkLedgerOpenDecoded is the same without the memo: the files
// read and decoded, as a shim does and as the manager did.
func BenchmarkLedgerOpenDecoded(b *testing.B) { benchOpen(b) }

func benchOpen(b *testing.B) {
	ws, state, p := benchWorkspace(b)
	if _, err := Hold(state, p); err != nil {
		b.Fatal(err)
	}
	if _, err := Release(state, ws); err != nil {
		b.Fatal(err)
	}
	if memoOn.Load() {
		waitRemembered(b, state, ws)
	}
	b.ReportAllocs()
	for b.Loop() {
		bk, err := open(state, ws, false)
		if err != nil {
			b.Fatal(err)
		}
		bk.close()
	}
}

// BenchmarkHoldReleaseRemembered is [BenchmarkHoldRelease] as a
// session's manager runs it, with the memo on, and a moment between the
// ticket taken and given back (a command runs).
func BenchmarkHoldReleaseRemembered(b *testing.B) {
	memoTest(b)
	ws, state, p := benchWorkspace(b)
	b.ReportAllocs()
	for b.Loop() {
		if lines, err := Hold(state, p); err != nil || len(lines) > 0 {
			b.Fatalf("hold: %v %v", lines, err)
		}
		b.StopTimer()
		waitRemembered(b, state, ws)
		b.StartTimer()
		if lines, err := Release(state, ws); err != nil || len(lines) > 0 {
			b.Fatalf("release: %v %v", lines, err)
		}
		b.StopTimer()
		waitRemembered(b, state, ws)
		b.StartTimer()
	}
}

// TestHoldWatchesAsLedger: the files Hold has watched for git's
// configuration, taken from the ledger as it saved it, are those a read
// of the saved ledger gives ([watched]): the person's own repository
// below the root and an included file among them.
func TestHoldWatchesAsLedger(t *testing.T) {
	ws, state, p := benchWorkspace(t)
	lib := filepath.Join(ws, "vendor", "lib")
	if out, err := exec.Command("git", "init", "-q", lib).CombinedOutput(); err != nil {
		t.Skipf("git init: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", ws, "config", "include.path", "../extra.cfg").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(ws, "extra.cfg"), []byte("[user]\n\tname = x\n"), 0o644)
	p.Writable = []string{ws}
	_, watch, _, err := beginWatching(state, ws, guardedBy(p), p.GitConfig, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer Release(state, ws)
	want := watched(state, ws, p.GitConfig)
	if !reflect.DeepEqual(watch, want) {
		t.Fatalf("watched %q, the ledger says %q", watch, want)
	}
	if !slices.ContainsFunc(watch, func(f string) bool { return strings.HasPrefix(f, lib) }) {
		t.Errorf("the own repository's configuration is not watched: %q", watch)
	}
	t.Logf("%q", watch)
}

// TestSelfKept: this process's ticket is read once and kept, equal to a
// fresh read; a failed read (no start time) is not kept.
func TestSelfKept(t *testing.T) {
	defer func(f func(int) string) { processStart = f; selfTicket.Store(nil) }(processStart)
	selfTicket.Store(nil)
	real := processStart
	processStart = func(int) string { return "" }
	if got := self(); got.Start != "" {
		t.Fatalf("a failed read gave %+v", got)
	}
	processStart = real
	want := ticket{Pid: os.Getpid(), Start: real(os.Getpid())}
	if got := self(); got != want || want.Start == "" {
		t.Fatalf("after a failed read: %+v, want %+v", got, want)
	}
	processStart = func(int) string { return "other" }
	if got := self(); got != want {
		t.Fatalf("not kept: %+v, want %+v", got, want)
	}
	if !want.alive() {
		t.Fatal("this process's ticket is not alive")
	}
}

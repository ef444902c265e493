package guard

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/filelock"
)

// StaleLedgers returns the ledgers in stateDir of workspaces that are
// gone: removed, or made again (a new workspace at the same path gets a
// ledger of its own, see [ledgerFile]), so that nothing will read these
// again.
func StaleLedgers(stateDir string) []string {
	files, _ := filepath.Glob(filepath.Join(stateDir, "guard", "*.json"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var l ledger
		if json.Unmarshal(data, &l) != nil || l.Workspace == "" {
			continue // a damaged one is an alarm of its own (see open)
		}
		if ledgerFile(stateDir, l.Workspace) != f {
			out = append(out, f)
		}
	}
	return out
}

// CleanLedgers removes the stale ledgers of stateDir (see StaleLedgers)
// that no guard holds, with their lock files.
func CleanLedgers(stateDir string) {
	for _, f := range StaleLedgers(stateDir) {
		lockName, err := filelock.InDir(stateDir, ledgerLockName(f))
		if err != nil {
			return
		}
		lock, err := os.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			continue
		}
		if filelock.TryLock(lock) {
			// (Its sidecars first: lines to say, a watch's mark, when
			// a kind of line was said, the lock of earlier versions
			// beside it; and what a writer killed while it wrote left,
			// see atomicfile.)
			sidecars, _ := filepath.Glob(f + ".*")
			tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "."+filepath.Base(f)+"*-*"))
			for _, s := range append(sidecars, tmps...) {
				os.Remove(s)
			}
			os.Remove(f)
			os.Remove(lockName)
		}
		lock.Close()
	}
}

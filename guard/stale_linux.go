package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

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
		lock, err := os.OpenFile(f+".lock", os.O_RDWR, 0)
		if err != nil {
			if strings.HasSuffix(f, ".json") {
				os.Remove(f)
			}
			continue
		}
		if filelock.TryLock(lock) {
			// (Its sidecars first: lines to say, a watch's mark, when
			// a kind of line was said; and what a writer killed while
			// it wrote left, see atomicfile.)
			sidecars, _ := filepath.Glob(f + ".*")
			tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "."+filepath.Base(f)+"*-*"))
			sidecars = append(sidecars, tmps...)
			for _, s := range sidecars {
				if s != f+".lock" {
					os.Remove(s)
				}
			}
			os.Remove(f)
			os.Remove(f + ".lock")
		}
		lock.Close()
	}
}

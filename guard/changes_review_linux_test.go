package guard

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// TestChangesTransientAliasedDirectory: a directory moved where the
// walk does not follow it (into a regenerable directory, or out of the
// workspace) keeps its watch under its old name; a directory made again
// by that name has a watch of its own. A file made in the new directory
// and one removed by the same name in the moved one are two changes,
// not one file made and removed again.
func TestChangesTransientAliasedDirectory(t *testing.T) {
	for _, where := range []string{"regenerable", "outside"} {
		t.Run(where, func(t *testing.T) {
			ws := t.TempDir()
			os.MkdirAll(filepath.Join(ws, ".git/refs/heads"), 0o755)
			os.MkdirAll(filepath.Join(ws, "node_modules"), 0o755)
			os.MkdirAll(filepath.Join(ws, "src"), 0o755)
			os.WriteFile(filepath.Join(ws, "src/x"), []byte("old"), 0o644)
			c := WatchChanges(&platform.Policy{Workspace: ws, RootGuarded: []string{".envrc"}, Regenerable: []string{"node_modules"}}, time.Now())
			defer c.Stop()
			for !c.ready.Load() {
				time.Sleep(time.Millisecond)
			}
			moved := filepath.Join(ws, "node_modules/src")
			if where == "outside" {
				moved = filepath.Join(filepath.Dir(ws), filepath.Base(ws)+"-moved")
				defer os.RemoveAll(moved)
			}
			if err := os.Rename(filepath.Join(ws, "src"), moved); err != nil {
				t.Fatal(err)
			}
			os.Mkdir(filepath.Join(ws, "src"), 0o755)
			if !c.Dirty() {
				t.Fatal("a directory moved: no round due")
			}
			c.Clear() // the round
			// A person's new file in the new src, and the old one gone
			// from the moved directory.
			os.WriteFile(filepath.Join(ws, "src/x"), []byte("new work"), 0o644)
			os.Remove(filepath.Join(moved, "x"))
			if !c.Dirty() {
				t.Errorf("src/x made (and %s removed): no round due", filepath.Join(moved, "x"))
			}
		})
	}
}

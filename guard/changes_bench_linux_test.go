package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// BenchmarkChangesDirty: the session's manager asks, at each command's
// end, whether anything in the workspace changed since the last round
// (1,000 directories, .git and node_modules included; nothing changed).
func BenchmarkChangesDirty(b *testing.B) {
	ws := b.TempDir()
	for i := 0; i < 1000; i++ {
		os.MkdirAll(filepath.Join(ws, "d"+strconv.Itoa(i%50), strconv.Itoa(i)), 0o755)
	}
	os.MkdirAll(filepath.Join(ws, ".git/objects/ab"), 0o755)
	os.MkdirAll(filepath.Join(ws, "node_modules/x/lib"), 0o755)
	c := WatchChanges(&platform.Policy{Workspace: ws, RootGuarded: []string{".envrc"}, Regenerable: []string{"node_modules"}}, time.Now())
	defer c.Stop()
	for !c.ready.Load() {
		time.Sleep(time.Millisecond)
	}
	c.Clear()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if c.Dirty() {
			b.Fatal("dirty")
		}
	}
}

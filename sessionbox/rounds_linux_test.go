package sessionbox

import (
	"testing"
)

// BenchmarkSharedMapping: the look, before a round is left out, for a
// process with a file of the workspace mapped shared (every process's
// maps this user may read).
func BenchmarkSharedMapping(b *testing.B) {
	ws := b.TempDir()
	for i := 0; i < b.N; i++ {
		if sharedMapping(ws) {
			b.Fatal("a mapping in an empty directory")
		}
	}
}

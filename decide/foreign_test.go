package decide

import (
	"testing"

	"github.com/cordonsh/cordon/platform"
)

// BenchmarkForeignChecks is what every allowed command pays for finding
// out whether it runs inside another sandbox, outside any: one access(2)
// of the state directory (network allowlist) and one read of
// /proc/self/status.
func BenchmarkForeignChecks(b *testing.B) {
	state := b.TempDir()
	p := &platform.Policy{Network: platform.NetworkAllowlist}
	c := &Confinement{Policy: p}
	for b.Loop() {
		if foreignNetwork(p, state) != p || ForeignNotice(c, state) != "" {
			b.Fatal("another sandbox found outside any")
		}
	}
}

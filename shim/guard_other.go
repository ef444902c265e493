//go:build !unix

package shim

import (
	"time"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/sessionbox"
	"github.com/cordonsh/cordon/snapshot"
)

// startGuard: the continuous guard runs on Unix only.
func (r *run) startGuard(store *snapshot.Store, c *decide.Confinement, dir, id, command string, start time.Time) {
}

// session: no round here.
func (g *guardRound) session() *sessionbox.Round { return nil }

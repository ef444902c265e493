//go:build !windows && !linux && !darwin

package platform

import (
	"syscall"
	"time"
)

// unmappedRoot: there are no user namespaces here.
func unmappedRoot() (uint32, bool) { return 0, false }

// foldsCase: these systems' file systems tell case apart.
const foldsCase = false

// statusChange: not read here, so every file of this user could be the
// agent's.
func statusChange(*syscall.Stat_t) (time.Time, bool) { return time.Time{}, false }

//go:build !windows && !linux

package platform

import "runtime"

// unmappedRoot: there are no user namespaces here.
func unmappedRoot() (uint32, bool) { return 0, false }

// foldsCase: macOS file systems ignore case by default, so a path can
// name a writable directory in a case the roots do not match.
const foldsCase = runtime.GOOS == "darwin" || runtime.GOOS == "ios"

package platform

import (
	"os"
	"time"
)

// foldsCase: Windows file systems ignore case.
const foldsCase = true

// trustedOwner: no script run by a POSIX shell is taken for installed
// software on Windows; what it runs is judged.
func trustedOwner(os.FileInfo) bool { return false }

// changedSince: see trustedOwner.
func changedSince(os.FileInfo, func() time.Time) bool { return true }

// writtenSince: the change times that tell the agent's files apart are
// not read here; a program is looked for as before (outside the
// directories sandboxed commands can write).
func writtenSince(string, os.FileInfo, func() time.Time) bool { return false }

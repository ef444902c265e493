package platform

import "os"

// foldsCase: Windows file systems ignore case.
const foldsCase = true

// trustedOwner: no script run by a POSIX shell is taken for installed
// software on Windows; what it runs is judged.
func trustedOwner(os.FileInfo) bool { return false }

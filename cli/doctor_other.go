//go:build !unix

package cli

import "os"

// owner is not known outside Unix: the state directory's ACLs are the
// installer's (docs/windows.md).
func owner(os.FileInfo) (int, bool) { return 0, false }

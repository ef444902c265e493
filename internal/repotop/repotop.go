// Package repotop finds the top of the git repository a directory is
// in, by looking for .git without running git.
package repotop

import (
	"os"
	"path/filepath"
)

// Find returns the top-level directory of the repository containing dir:
// dir or the nearest directory above it that holds a .git (a directory,
// or the file of a linked worktree or a submodule), or "" when there is
// none up to the root ("/", ".", or on Windows a drive's or a share's
// root, which filepath.Dir gives back).
func Find(dir string) string {
	for d := dir; d != ""; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == "." || filepath.Dir(d) == d {
			return ""
		}
	}
	return ""
}

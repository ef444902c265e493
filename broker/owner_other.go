//go:build !unix

package broker

import "io/fs"

// ownedBySelf: the directory's access list, not an owner, keeps it the
// person's on Windows (the state directory is made private there).
func ownedBySelf(fs.FileInfo) bool { return true }

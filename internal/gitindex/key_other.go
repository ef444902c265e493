//go:build !linux

package gitindex

import "os"

// fileKey is "" where the file's ctime is not read here: nothing is kept.
func fileKey(fi os.FileInfo) string { return "" }

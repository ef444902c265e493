//go:build !linux

package platform

import "os"

// canStamp is whether files can be witnessed here: the policy cache is
// made on Linux only.
const canStamp = false

func statStamp(string) (stamp, bool) { return stamp{}, false }

func fdStamp(int) stamp { return stamp{} }

func inode(os.FileInfo) uint64 { return 0 }

func readOwnFile(string, int64) ([]byte, bool) { return nil, false }

// ownShut is false outside Linux, where no repository in scratch space
// gets anything laid over it.
func ownShut(string) bool { return false }

// othersDir is false outside Linux: a directory that cannot be listed
// is taken for one this user could make listable again.
func othersDir(string) bool { return false }

// ownReachable is true outside Linux: other systems' sandboxes lay
// nothing over a repository's directory.
func ownReachable(string) bool { return true }

//go:build !unix

package decide

// mkdirBelow: cordon has no sandbox here that binds directories, so
// nothing is made.
func mkdirBelow(home string, names []string) {}

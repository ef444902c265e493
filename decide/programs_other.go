//go:build !unix

package decide

// programsMemo is none outside Unix, where no cache directory is made.
func programsMemo(stateDir string) string { return "" }

// lookPrograms is [onPath]: there is no memo here.
func lookPrograms(programs []string, path, memo string) map[string]bool {
	return onPath(programs, path)
}

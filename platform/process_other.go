//go:build !linux && !darwin

package platform

// process: processes are not looked at here.
func process(int) (Process, bool) { return Process{}, false }

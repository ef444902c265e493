//go:build !linux && !darwin

package platform

// HidesCredentials cannot tell here: ok is false.
func HidesCredentials(p *Policy) (hides, ok bool) { return false, false }

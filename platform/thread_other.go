//go:build !linux && !windows

package platform

// onFirstThread is false where threads are not confined one by one
// (Seatbelt confines a whole process it starts).
func onFirstThread() bool { return false }

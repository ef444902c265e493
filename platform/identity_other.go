//go:build !linux

package platform

// Identity names the file at path for as long as it exists; "" here,
// where it is not known how (see the Linux one): callers then keep no
// identity.
func Identity(path string) string { return "" }

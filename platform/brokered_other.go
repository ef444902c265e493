//go:build !linux

package platform

// Brokers reports whether a start of backend b serves a broker for the
// credentials of p: only Linux's backends do.
func Brokers(b Backend, p *Policy) bool { return false }

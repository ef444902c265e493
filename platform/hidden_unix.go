//go:build linux || darwin

package platform

// HidesCredentials reports whether this process cannot read any of the
// paths p hides (credentials: ~/.ssh, ~/.aws...): what every sandbox of
// cordon's does, whatever its workspace, and what another sandbox an
// agent runs its commands in (Codex's) does not. ok is false when p
// hides nothing here to test with.
func HidesCredentials(p *Policy) (hides, ok bool) {
	if len(p.Hidden) == 0 {
		return false, false
	}
	for _, h := range p.Hidden {
		if readable(h, p.Visible) {
			return false, true
		}
	}
	return true, true
}

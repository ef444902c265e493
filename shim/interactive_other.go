//go:build !unix

package shim

// hookedTerminal reports whether inv gets the terminal hook: not here.
func hookedTerminal(*Invocation) bool { return false }

func (r *run) terminal(*Invocation, string) int { return r.fail("no terminal hook on this system") }

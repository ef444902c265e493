//go:build !unix

package shim

import "github.com/cordonsh/cordon/invocation"

// hookedTerminal reports whether inv gets the terminal hook: not here.
func hookedTerminal(*invocation.Invocation) bool { return false }

func (r *run) terminal(*invocation.Invocation, string) int {
	return r.fail("no terminal hook on this system")
}

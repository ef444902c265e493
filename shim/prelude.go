package shim

import (
	"mvdan.cc/sh/v3/syntax"
)

// stateCalls are the commands that change the shell's directory or run
// code in the shell itself.
var stateCalls = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "chdir": true, "source": true, ".": true, "eval": true,
}

// lostDirectory, in the prelude, makes the judge take the current
// directory as unknown: relative paths after it cannot be resolved. It
// stands for statements dropped from a full prelude.
const lostDirectory = `cd -- "$(__cordon_lost_track_of_the_directory)"` + "\n"

// stateOnly returns st, which is not a state statement of its own, with
// every command but those that change the shell's state (cd, source,
// eval, the state builtins, calls to the piped shell's functions) made a
// no-op, and whether anything is left to replay: true && cd .git
// becomes : && cd .git, so that the judge follows the cd as the shell
// does. st is changed in place.
func stateOnly(st *syntax.Stmt, funcs map[string]bool) bool {
	keep := func(c *syntax.CallExpr) bool {
		if len(c.Args) == 0 {
			return true // assignments alone
		}
		name := c.Args[0].Lit()
		return stateCalls[name] || stateBuiltins[name] || funcs[name]
	}
	left := false
	syntax.Walk(st, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.Stmt:
			if c, ok := n.Cmd.(*syntax.CallExpr); ok && !keep(c) {
				n.Redirs = nil
			}
		case *syntax.CallExpr:
			if keep(n) {
				left = left || len(n.Args) > 0
				return true
			}
			n.Assigns = nil
			n.Args = []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: ":"}}}}
			return false
		}
		return true
	})
	return left
}

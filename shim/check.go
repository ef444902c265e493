package shim

import "github.com/cordonsh/cordon/rules"

// Check judges argv (what an agent would exec: a shell invocation such as
// bash -lc '...', or a direct command) as if run in dir with env. It never
// executes any part of argv.
func Check(argv []string, dir string, env []string) (*rules.Judgement, error) {
	// TODO(core): decode, parse, judge.
	return &rules.Judgement{}, nil
}

// Judge judges a decoded invocation as if run in dir with env. Code it
// cannot see (ModeStdin, ModeInteractive) is judged by what it can see.
// It never executes any part of inv.
func Judge(inv *Invocation, dir string, env []string) (*rules.Judgement, error) {
	// TODO(core): parse, judge.
	return &rules.Judgement{}, nil
}

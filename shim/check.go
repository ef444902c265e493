package shim

import "github.com/cordonsh/cordon/rules"

// Check judges argv (what an agent would exec: a shell invocation such as
// bash -lc '...', or a direct command) as if run in dir with env. It never
// executes any part of argv.
func Check(argv []string, dir string, env []string) (*rules.Judgement, error) {
	// TODO(core): decode, parse, judge.
	return &rules.Judgement{}, nil
}

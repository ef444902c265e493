package decide

import (
	"errors"
	"fmt"
	"sort"

	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/layers"
)

// A RulesError is a rule file that cannot be loaded. Nothing is judged
// with part of the rules: the command is not run.
type RulesError struct {
	Err error
}

// Error says which file and line, and what to do.
func (e *RulesError) Error() string {
	return fmt.Sprintf("the rules cannot be loaded: %v (fix or remove that file; 'cordon rules lint' lists every problem)", e.Err)
}

// Unwrap returns the loader's error.
func (e *RulesError) Unwrap() error { return e.Err }

// Rules returns the effective rules for workspace ("" for none) and the
// environment lookup getenv: the built-in rules with the system's, the
// user's and the project's rule files over them (see package
// rules/layers), their examples judged by [JudgeExample]. The error is a
// *[RulesError].
func Rules(workspace string, getenv func(string) string) (*layers.Loaded, error) {
	l, err := layers.Load(workspace, getenv, JudgeExample)
	if err != nil {
		return nil, &RulesError{Err: err}
	}
	return l, nil
}

// JudgeExample judges a rule's example with set as the shim judges a
// command: a script as bash -c SCRIPT, an argv as what an agent execs,
// in ex.Cwd with the environment ex.Env. The workspace is ex.Cwd, taken
// as not on this machine ([rules.Env.Foreign]): nothing about it is read
// from disk, so the result is the same on every machine.
func JudgeExample(set *rules.Set, ex rules.Example) (*rules.Judgement, error) {
	argv := ex.Argv
	if ex.Script != "" {
		argv = []string{"bash", "-c", ex.Script}
	}
	inv, err := invocation.Decode(argv, false)
	var de *invocation.DecodeError
	if errors.As(err, &de) {
		return refusedByShell(de), nil
	}
	if err != nil {
		return nil, err
	}
	env := make([]string, 0, len(ex.Env))
	for k, v := range ex.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return JudgeWith(set, inv, ex.Cwd, env, WorkspaceChoice{Dir: ex.Cwd}, true, false, nil, nil, nil, nil, nil), nil
}

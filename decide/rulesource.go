package decide

import (
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/layers"
)

// RuleSource returns, for long-lived consumers (a piped shell,
// cordon rules watch), the rule directories to watch for the workspace
// ws with the environment env, and the function that loads the
// effective rules from them (see [Rules]). Both see what a one-shot
// invocation sees.
func RuleSource(ws string, env []string) (dirs []string, load func() (*rules.Set, error)) {
	getenv := EnvLookup(env)
	return layers.Dirs(ws, getenv), func() (*rules.Set, error) {
		l, err := Rules(ws, getenv)
		if err != nil {
			return nil, err
		}
		return l.Set, nil
	}
}

package shim

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/platform"
)

// gitHost returns what reading a repository's state needs for a command
// judged in dir with env: a git binary and a directory for cordon's
// transient files, both outside every directory the sandbox lets
// commands write (so that no command, even one running in parallel, can
// plant or change either).
func gitHost(dir string, env []string) func() (gitstate.Host, error) {
	return func() (gitstate.Host, error) {
		spec, _, _, err := sandboxSpec(dir, env, nil)
		if err != nil {
			return gitstate.Host{}, err
		}
		p, err := platform.NewPolicy(spec, env)
		if err != nil {
			return gitstate.Host{}, err
		}
		roots := p.WritableRoots()
		getenv := envLookup(env)
		git, err := platform.FindProgram("git", getenv("PATH"), roots)
		if err != nil {
			return gitstate.Host{}, err
		}
		private := ""
		switch state := StateDir(getenv); {
		case platform.Confined(p):
			// Inside cordon's sandbox (a nested shell) git runs
			// confined as well: the scratch directory does.
			private = os.TempDir()
		case state != "" && !within(state, roots):
			private = filepath.Join(state, "git")
			if os.MkdirAll(private, 0o700) != nil {
				private = ""
			}
		}
		if private == "" {
			return gitstate.Host{}, fmt.Errorf("cordon's state directory %q cannot hold its git files outside the sandbox's writable directories (set XDG_STATE_HOME elsewhere)", StateDir(getenv))
		}
		return gitstate.Host{Git: git, Dir: private}, nil
	}
}

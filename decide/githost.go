package decide

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/platform"
)

// GitHost returns what reading a repository's state needs for the
// context's command: a git binary and a directory for cordon's
// transient files, both outside every directory the sandbox lets
// commands write (so that no command, even one running in parallel, can
// plant or change either).
func GitHost(ctx *Context) func() (gitstate.Host, error) {
	return func() (gitstate.Host, error) {
		roots, err := ctx.WritableRoots()
		if err != nil {
			return gitstate.Host{}, err
		}
		getenv := ctx.Getenv
		git, err := platform.FindProgram("git", getenv("PATH"), roots, ctx.agentSince)
		if err != nil {
			return gitstate.Host{}, err
		}
		// The state directory, else the account's own (HOME may be a
		// scratch directory); inside cordon's sandbox (a nested shell)
		// git runs confined as well, and so the scratch directory does.
		private := ""
		if ctx.Confined() {
			private = os.TempDir()
		}
		acct := func(k string) string {
			if k == "HOME" {
				return platform.AccountHome()
			}
			return ""
		}
		for _, state := range []string{StateDir(getenv), StateDir(acct)} {
			if private != "" || state == "" || Within(state, roots) {
				continue
			}
			if dir := filepath.Join(state, "git"); os.MkdirAll(dir, 0o700) == nil {
				private = dir
			}
		}
		if private == "" {
			return gitstate.Host{}, fmt.Errorf("cordon's state directory %q is missing or inside a directory sandboxed commands can write, so git cannot be run safely (set XDG_STATE_HOME elsewhere)", StateDir(getenv))
		}
		return gitstate.Host{Git: git, Dir: private}, nil
	}
}

// hostGit returns the host's git binary for the context's command (see
// [GitHost]).
func (ctx *Context) hostGit() (string, error) {
	h, err := GitHost(ctx)()
	return h.Git, err
}

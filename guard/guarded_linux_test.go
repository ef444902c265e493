package guard

import (
	"testing"

	"github.com/cordonsh/cordon/platform"
)

// A workspace that is no repository yet has no configuration file to
// guard, but a repository git init makes there has: the host's git that
// judges it is looked up all the same.
func TestGuardedByNewRepository(t *testing.T) {
	p := &platform.Policy{RootGitConfig: []string{".git/config"}, Env: []string{"PATH=/usr/bin:/bin"}}
	if g := guardedBy(p); g.git == "" {
		t.Fatal("no git was looked up for a workspace whose repository is yet to be made")
	}
}

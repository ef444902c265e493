package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/platform"
)

// A command can make a repository inside the workspace (git init sub,
// and git add sub to commit it as a gitlink, which the host's git status
// then goes into) and plant a hook or core.fsmonitor there; one can also
// make the workspace itself a repository. So the guard applies the
// places it keeps at a repository's root to every repository in the
// workspace: those there when the trusted state is taken are trusted as
// they are, and one that appears while a command holds a ticket is
// trusted as git makes it (no hook but its samples, a configuration with
// no key that runs a program): anything else a command put there is
// moved to the quarantine.

// roots are the repositories in workspace ws whose places are guarded:
// ws itself when it is one, and those nested in it.
func roots(ws string) []string {
	var out []string
	if fi, err := os.Lstat(filepath.Join(ws, ".git")); err == nil && fi.IsDir() {
		out = append(out, ws)
	}
	return append(out, platform.NestedRepositories(ws)...)
}

// addRoot adds the places of the repository at root to the ledger's
// patterns and configuration files.
func (b *book) addRoot(root string) {
	b.l.Roots = append(b.l.Roots, root)
	for _, p := range platform.RootPatterns(root, b.l.RootPatterns) {
		if !slices.Contains(b.l.Patterns, p) {
			b.l.Patterns = append(b.l.Patterns, p)
		}
	}
	for _, c := range platform.RootPatterns(root, b.l.RootConfigs) {
		if !slices.Contains(b.l.Configs, c) {
			b.l.Configs = append(b.l.Configs, c)
		}
	}
}

// newRoots adds to the ledger the repositories that appeared in the
// workspace since its trusted state was taken, trusted as git makes a
// new one: the sample hooks of its hooks directory (the other places
// trusted to be absent; its configuration judged by its keys).
func (b *book) newRoots() {
	if len(b.l.RootPatterns)+len(b.l.RootConfigs) == 0 || b.l.Trusted == nil {
		return
	}
	for _, root := range roots(b.l.Workspace) {
		if slices.Contains(b.l.Roots, root) {
			continue
		}
		b.addRoot(root)
		hooks := filepath.Join(root, ".git", "hooks")
		if !slices.Contains(b.l.Patterns, hooks) {
			continue
		}
		for path, e := range snapshot(b.l.Workspace, []string{hooks}) {
			switch {
			case path == hooks && e.Kind == 'd':
				e.Names = slices.DeleteFunc(e.Names, func(n string) bool { return !strings.HasSuffix(n, ".sample") })
			case filepath.Dir(path) != hooks || !strings.HasSuffix(path, ".sample") || e.Kind != 'f':
				continue
			}
			if _, ok := b.l.Trusted[path]; !ok {
				b.l.Trusted[path] = e
			}
		}
	}
}

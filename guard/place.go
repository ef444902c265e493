package guard

import (
	"path/filepath"
	"strings"

	"github.com/cordonsh/cordon/platform"
)

// IsPlace reports whether path is a place of p's that the host runs
// from, as the guard keeps it: one of its guarded places or git's
// configuration files, or inside a guarded directory (the absolute
// patterns of p.Guarded and p.GitConfig), or, below the workspace's
// root, a place its root's patterns name (p.RootGuarded,
// p.RootGitConfig: a.b/.envrc as .envrc, lib/.git/hooks/x as
// .git/hooks/). A glob's "**" matches any directories between.
func IsPlace(p *platform.Policy, path string) bool {
	path = filepath.Clean(path)
	for _, pat := range append(p.Guarded[:len(p.Guarded):len(p.Guarded)], p.GitConfig...) {
		if placeMatch(strings.TrimSuffix(pat, "/"), path) {
			return true
		}
	}
	ws := p.Workspace
	if ws == "" || !platform.Within(path, ws) || path == ws {
		return false
	}
	// Each tail of the path below the root: a/b/.envrc, b/.envrc, .envrc.
	for tail := path[len(strings.TrimSuffix(ws, "/"))+1:]; tail != ""; {
		for _, pat := range append(p.RootGuarded[:len(p.RootGuarded):len(p.RootGuarded)], p.RootGitConfig...) {
			if placeMatch(strings.TrimSuffix(pat, "/"), tail) {
				return true
			}
		}
		_, tail, _ = strings.Cut(tail, "/")
	}
	return false
}

// placeMatch reports whether path is pattern pat or inside what it
// names, "**" matching any directories between.
func placeMatch(pat, path string) bool {
	// (What comes before the first glob character is a prefix of every
	// path the pattern names and of every path inside one: most
	// patterns are passed over here, at once.)
	if i := strings.IndexAny(pat, "*?[\\"); i >= 0 && !strings.HasPrefix(path, pat[:i]) || i < 0 && !strings.HasPrefix(path, pat) {
		return false
	}
	if before, after, ok := strings.Cut(pat, "/**"); ok {
		// Any number of directories for "**": each way of splitting
		// the path around it.
		parts := strings.Split(path, "/")
		for i := range parts {
			head := strings.Join(parts[:i], "/")
			if m, _ := filepath.Match(before, head); !m {
				continue
			}
			for j := i; j <= len(parts); j++ {
				if placeMatch(strings.TrimPrefix(after, "/"), strings.Join(parts[j:], "/")) {
					return true
				}
			}
		}
		return false
	}
	for p := path; ; p = filepath.Dir(p) {
		if m, _ := filepath.Match(pat, p); m {
			return true
		}
		if p == "/" || p == "." || !strings.Contains(p, "/") {
			return false
		}
	}
}

package guard

import (
	"testing"

	"github.com/cordonsh/cordon/platform"
)

func TestIsPlace(t *testing.T) {
	p := &platform.Policy{Workspace: "/w",
		Guarded:       []string{"/w/.git/hooks", "/w/.envrc", "/w/.mise.*.toml", "/w/.git/modules/*/**/hooks", "/tmp/r/.git/hooks"},
		GitConfig:     []string{"/w/.git/config", "/w/.git/modules/*/**/config"},
		RootGuarded:   []string{".git/hooks/", ".envrc", ".vscode/tasks.json"},
		RootGitConfig: []string{".git/config"}}
	for path, want := range map[string]bool{
		"/w/.git/config":                     true,
		"/w/.git/hooks/pre-commit":           true,
		"/w/.git/hooks":                      true,
		"/w/.envrc":                          true,
		"/w/.mise.dev.toml":                  true,
		"/w/.git/modules/lib/config":         true,
		"/w/.git/modules/lib/sub/x/config":   true,
		"/w/.git/modules/lib/hooks/post":     true,
		"/tmp/r/.git/hooks/pre-push":         true,
		"/w/a/b/.envrc":                      true,
		"/w/pkg/.git/config":                 true,
		"/w/pkg/.git/hooks/x":                true,
		"/w/a/.vscode/tasks.json":            true,
		"/w/src/main.go":                     false,
		"/w/.git/objects/ab/cdef":            false,
		"/w/.git/index":                      false,
		"/w/.git/configure":                  false,
		"/w/envrc":                           false,
		"/w":                                 false,
		"/other/.envrc":                      false,
		"/w/.vscode/settings.json":           false,
		"/w/node_modules/x/.git/objects/abc": false,
	} {
		if got := IsPlace(p, path); got != want {
			t.Errorf("IsPlace(%s) = %v, want %v", path, got, want)
		}
	}
}

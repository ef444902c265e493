package shim

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGitHosts: the hosts of the HTTPS remotes the person configured,
// with a port only when it is not 443; SSH, plain HTTP and local remotes
// have none.
func TestGitHosts(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte(`[core]
	bare = false
[remote "origin"]
	url = https://GitHub.com/me/app.git
	pushurl = https://user@git.example:8443/me/app.git
[remote "Up"]
	url = "https://github.com:443/up/app.git"
[remote "ssh"]
	url = git@gitlab.example:me/app.git
[remote "plain"]
	url = http://plain.example/app.git
[remote "star"]
	url = https://*.example/app.git
[remote "local"]
	url = ../other.git
[branch "main"]
	url = https://branch.example/x
`), 0o644)
	got := gitHosts(ws, "")
	if want := []string{"github.com", "git.example:8443"}; !slices.Equal(got, want) {
		t.Errorf("gitHosts: %v, want %v", got, want)
	}
}

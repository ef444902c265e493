package decide

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGitRemotes: the HTTPS remotes the person configured, as HOST/PATH
// with a port only when it is not 443; SSH, plain HTTP and local remotes
// are none.
func TestGitRemotes(t *testing.T) {
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
	got := gitRemotes(ws, "")
	if want := []string{"github.com/me/app.git", "git.example:8443/me/app.git", "github.com/up/app.git"}; !slices.Equal(got, want) {
		t.Errorf("gitRemotes: %v, want %v", got, want)
	}
}

// TestGitRemotesContinuation: a value that ends in a backslash goes on
// with the next line, as git reads it: a "[remote]" there is part of
// user.name to git, and no remote to cordon either (a command wrote it
// to have the person's credential asked for a host of its choosing;
// found by an attacker). An even run of backslashes ends the value.
func TestGitRemotesContinuation(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/me/app.git\n[user]\n\tname = a\\\n[remote \"origin\"]\n\turl = https://evil.example/x.git\n[user]\n\temail = b\\\\\n[remote \"two\"]\n\turl = https://two.example/x.git\n"), 0o644)
	got := gitRemotes(ws, "")
	if want := []string{"github.com/me/app.git", "two.example/x.git"}; !slices.Equal(got, want) {
		t.Errorf("gitRemotes: %v, want %v", got, want)
	}
	if h := remoteHosts(ws); slices.Contains(h, "evil.example") {
		t.Errorf("remoteHosts: %v holds the continued line's host", h)
	}
}

package decide

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/approval"
)

func TestNetAllow(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte(`[core]
	url = https://not-a-remote.example/
[remote "origin"]
	url = git@github.com:org/app.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[remote "mirror"]
	url = "https://git.example.org:8443/app.git"
	pushurl = ssh://push.example.net/app
[remote "local"]
	url = /srv/git/app.git
[remote "loop"]
	url = http://localhost:3000/app
[remote "glob"]
	url = https://*/x
	pushurl = https://*.example.com:443/x
[branch "main"]
	remote = origin
`), 0o600)
	if err := approval.New(state).ApproveHost(ws, "docs.example.com"); err != nil {
		t.Fatal(err)
	}
	got := netAllow(ws, state, remoteURLs(ws, state, hostGitFor(t)))
	want := []string{"github.com", "git.example.org", "push.example.net", "docs.example.com"}
	if !slices.Equal(got, want) {
		t.Errorf("netAllow = %q, want %q", got, want)
	}
	if got := netAllow("", state, nil); got != nil {
		t.Errorf("no workspace: %q", got)
	}
}

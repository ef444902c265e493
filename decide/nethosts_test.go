package decide

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordonsh/cordon/approval"
	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/netproxy"
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
	got := netAllowOf(ws, state, remoteURLs(ws, state, hostGitFor(t)))
	// Each remote's host at the port its URL uses; an approved host at
	// any port.
	want := []string{"github.com:22", "git.example.org:8443", "push.example.net:22", "docs.example.com"}
	if !slices.Equal(got, want) {
		t.Errorf("netAllow = %q, want %q", got, want)
	}
	if got := netAllowOf("", state, nil); got != nil {
		t.Errorf("no workspace: %q", got)
	}
}

// TestRemotePort: a remote's host is open at the port git connects to
// for it, not at every port: an HTTPS remote on github.com must not open
// its SSH port, where a command's own key pushes to the command's own
// account (the broker refuses a stranger's token at 443 only).
func TestRemotePort(t *testing.T) {
	for _, c := range []struct {
		url   string
		port  int
		known bool
	}{
		{"https://github.com/me/app.git", 443, true},
		{"HTTPS://github.com/me/app.git", 443, true},
		{"https://user@git.example:8443/me/app.git", 8443, true},
		{"https://[2001:db8::1]:8443/x", 8443, true},
		{"https://[2001:db8::1]/x", 443, true},
		{"http://plain.example/x", 80, true},
		{"ssh://git@host.example:2222/x", 2222, true},
		{"ssh://git@host.example/x", 22, true},
		{"git+ssh://host.example/x", 22, true},
		{"git@github.com:org/app.git", 22, true},
		{"git://host.example/x", 9418, true},
		{"https://github.com:x/me/app.git", 443, true},
		{"persistent-https://host.example/x", 0, false},
	} {
		if port, known := remotePort(c.url); port != c.port || known != c.known {
			t.Errorf("remotePort(%q) = %d %v, want %d %v", c.url, port, known, c.port, c.known)
		}
	}
	got := remoteHosts([]gitkey.Entry{{Key: "remote.origin.url", Value: "https://github.com/me/app.git"}})
	if !slices.Equal(got, []string{"github.com:443"}) {
		t.Errorf("an HTTPS remote on github.com opens %q, want github.com:443 only", got)
	}
	rules, err := netproxy.Compile(got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if allowed, _ := rules.CheckName("github.com", 22); allowed {
		t.Error("an HTTPS remote's host is open at its SSH port")
	}
}

// netAllowOf is [netAllow] with the remotes that are not the person's
// read from the guard's ledgers in stateDir, as [Context.Spec] reads them.
func netAllowOf(ws, stateDir string, urls []gitkey.Entry) []string {
	agent, _ := agentRemotes(stateDir, ws, func() []string { return remoteNames(urls) })
	return netAllow(ws, stateDir, urls, agent)
}

// gitRemotesOf is [gitRemotes] for the repository at ws, as
// [Context.Spec] asks it.
func gitRemotesOf(ws, stateDir string, urls []gitkey.Entry) (own, others []string, why string) {
	agent, why := agentRemotes(stateDir, ws, func() []string { return remoteNames(urls) })
	return gitRemotes(urls, agent, why)
}

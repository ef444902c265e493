package platform

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/rules"
)

// builtinKinds are the built-in rules' credential kinds, with their
// files, as the shim gives them.
func builtinKinds() []CredentialKind {
	var out []CredentialKind
	for _, k := range rules.Builtin().CredentialKinds() {
		kind := CredentialKind{Env: k.Env, Hosts: k.Hosts}
		for _, f := range k.Files {
			kind.Files = append(kind.Files, CredentialFile(f))
		}
		out = append(out, kind)
	}
	return out
}

// builtinFiltered are the built-in rules' filtered files.
func builtinFiltered() []string { return rules.Builtin().Paths().FilteredCredentials }

var tokenFileCases = map[string]string{
	".config/gh/hosts.yml": `github.com:
    users:
        octocat:
            oauth_token: gho_REALgithub0001
    git_protocol: https
    oauth_token: gho_REALgithub0001
    user: octocat
ghe.corp.example:
    oauth_token: gho_REALghe0002
    user: me
`,
	".npmrc": `save-exact=true
//registry.npmjs.org/:_authToken=npm_REALnpm0003
//npm.corp.example:8443/repo/:_authToken="npm_REALcorp0004"
//*/:_authToken=npm_REALstar0005
//other.example/:_authToken=${NPM_TOKEN}
`,
	".git-credentials": `https://octocat:ghp_REALgit%400006@github.com
https://me:glpat-REALlab0007@gitlab.com/
`,
}

// Each token of a person's file, with the built-in rules, is shown as a
// placeholder bound to the file's host (a kind's hosts when the kind
// lists it); a token whose host is a glob is left out.
func TestTokenFiles(t *testing.T) {
	root := tree(t, "home/proj/", "home/.config/gh/")
	home := filepath.Join(root, "home")
	for name, data := range tokenFileCases {
		os.WriteFile(filepath.Join(home, name), []byte(data), 0o600)
	}
	s := &Spec{Workspace: filepath.Join(home, "proj"), Network: NetworkAllowlist, Credentials: builtinKinds(),
		Hidden: []string{"~/.npmrc", "~/.git-credentials", "~/.config/gh/hosts.yml"}, Filtered: builtinFiltered()}
	p, err := NewPolicy(s, []string{"HOME=" + home, "PATH=/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.TokenFiles) != 2 {
		t.Fatalf("token files %+v, want gh's and npm's", p.TokenFiles)
	}
	bk, err := NewBrokerage(filepath.Join(root, "state"), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := *p
	bk.addFiles(&c)
	all, _ := json.Marshal(c)
	if strings.Contains(string(all), "REAL") {
		t.Errorf("the start's policy holds a value: %s", all)
	}
	for name := range tokenFileCases {
		shown := c.Shown[filepath.Join(home, name)]
		if name != ".git-credentials" && strings.Count(shown, "cordon_") < 2 || strings.Contains(shown, "REAL") {
			t.Errorf("%s shown as:\n%s", name, shown)
		}
	}
	// git's store file is git's credential, brokered through git's own
	// helper for the workspace's remotes only (GitCredentials): as a
	// token file it would go to any repository of its host. Its lines
	// are emptied.
	if _, shown, _ := c.shownFile(filepath.Join(home, ".git-credentials") + " password"); strings.Contains(string(shown), "cordon_") || strings.Contains(string(shown), "REAL") || strings.Count(string(shown), "\n") != 2 {
		t.Errorf("git's store file shown as:\n%s", shown)
	}
	if !strings.Contains(c.Shown[filepath.Join(home, ".npmrc")], "save-exact=true\n") {
		t.Errorf("the person's settings are gone:\n%s", c.Shown[filepath.Join(home, ".npmrc")])
	}
	// What each placeholder stands for, and where it may go.
	want := map[string][]string{
		"gho_REALgithub0001": {"api.github.com", "github.com", "uploads.github.com"},
		"gho_REALghe0002":    {"ghe.corp.example"},
		"npm_REALnpm0003":    {"registry.npmjs.org"},
		"npm_REALcorp0004":   {"npm.corp.example:8443"},
	}
	creds, _ := fileTokens(p, bk.key)
	got := map[string][]string{}
	for _, cr := range creds {
		if !strings.Contains(strings.Join(slices.Collect(maps.Values(c.Shown)), ""), cr.Placeholder) {
			t.Errorf("%s: its placeholder is not shown", cr.Name)
		}
		got[cr.Value] = cr.Hosts
		// An .npmrc token for //HOST/PATH/ goes to that path only.
		if want := map[string][]string{"npm_REALcorp0004": {"/repo"}}[cr.Value]; !slices.Equal(cr.Paths, want) {
			t.Errorf("%s: paths %q, want %q", cr.Name, cr.Paths, want)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens and hosts:\n%v\nwant\n%v", got, want)
	}
	for _, hosts := range want {
		for _, h := range hosts {
			if !slices.Contains(c.NetAllow, withPort(h)) {
				t.Errorf("the allowlist %q lacks %s", c.NetAllow, h)
			}
		}
	}
	if strings.Contains(strings.Join(c.NetAllow, " "), "*") || slices.Contains(c.NetAllow, "other.example:443") {
		t.Errorf("the allowlist took a host no token is for: %q", c.NetAllow)
	}
	// The same key, the same placeholders (a session's commands).
	d := *p
	bk.addFiles(&d)
	if d.Shown[filepath.Join(home, ".npmrc")] != c.Shown[filepath.Join(home, ".npmrc")] {
		t.Error("the placeholders changed under the same key")
	}
}

// A file the sandbox can write (a dotfile linked into the workspace)
// names no host: it stays filtered, its tokens emptied.
func TestTokenFileWritable(t *testing.T) {
	root := tree(t, "home/proj/")
	home := filepath.Join(root, "home")
	os.WriteFile(filepath.Join(home, "proj/npmrc"), []byte("//evil.example/:_authToken=npm_REALnpm0003\n"), 0o600)
	os.Symlink(filepath.Join(home, "proj/npmrc"), filepath.Join(home, ".npmrc"))
	s := &Spec{Workspace: filepath.Join(home, "proj"), Network: NetworkAllowlist, Credentials: builtinKinds(),
		Hidden: []string{"~/.npmrc"}, Filtered: builtinFiltered()}
	p, err := NewPolicy(s, []string{"HOME=" + home, "PATH=/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.TokenFiles) != 0 {
		t.Errorf("a writable file's tokens are brokered: %+v", p.TokenFiles)
	}
}

// A kind's file whose hosts are %-escaped (git's store helper writes
// https://u:p@127.0.0.1%3a8443): the host is read unescaped, so its token
// is brokered to that host and port.
func TestTokenFileEscapedHost(t *testing.T) {
	root := tree(t, "home/proj/")
	home := filepath.Join(root, "home")
	os.WriteFile(filepath.Join(home, ".xrc"), []byte("https://me:x%40REAL0008@127.0.0.1%3a8443\n"), 0o600)
	kind := CredentialKind{Env: "X_TOKEN", Hosts: []string{"x.example"}, Files: []CredentialFile{{
		Path: "~/.xrc", Secret: `^https://[^:@/\s]*:(?P<value>[^@/\s]+)@(?P<host>[^/@\s]+)/?$`, URLEscaped: true}}}
	s := &Spec{Workspace: filepath.Join(home, "proj"), Network: NetworkAllowlist, Credentials: []CredentialKind{kind},
		Hidden: []string{"~/.xrc"}, Filtered: []string{"~/.xrc password"}}
	p, err := NewPolicy(s, []string{"HOME=" + home, "PATH=/usr/bin"})
	if err != nil {
		t.Fatal(err)
	}
	creds, shown := fileTokens(p, []byte("0123456789abcdef0123456789abcdef"))
	if len(creds) != 1 || creds[0].Value != "x@REAL0008" || !slices.Equal(creds[0].Hosts, []string{"127.0.0.1:8443"}) {
		t.Fatalf("credentials %+v, want the token for 127.0.0.1:8443", creds)
	}
	if got := shown[filepath.Join(home, ".xrc")]; got != "https://me:"+creds[0].Placeholder+"@127.0.0.1%3a8443\n" {
		t.Errorf("shown as %q", got)
	}
}

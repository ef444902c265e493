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
	if len(p.TokenFiles) != 3 {
		t.Fatalf("token files %+v, want the three", p.TokenFiles)
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
		if strings.Count(shown, "cordon_") < 2 || strings.Contains(shown, "REAL") {
			t.Errorf("%s shown as:\n%s", name, shown)
		}
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
		"ghp_REALgit@0006":   {"api.github.com", "github.com", "uploads.github.com"},
		"glpat-REALlab0007":  {"gitlab.com"},
	}
	creds, _ := fileTokens(p, bk.key)
	got := map[string][]string{}
	for _, cr := range creds {
		if !strings.Contains(strings.Join(slices.Collect(maps.Values(c.Shown)), ""), cr.Placeholder) {
			t.Errorf("%s: its placeholder is not shown", cr.Name)
		}
		got[cr.Value] = cr.Hosts
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

package rules_test

import (
	"testing"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// A credential variable the sandbox holds by placeholder (Env.Brokered)
// is no secret to send or print; withheld (no Brokered, or another
// variable), it is one as before.
func TestBrokeredVariables(t *testing.T) {
	home, ws := netcredHome(t)
	env := map[string]string{"GH_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyz", "OTHER_TOKEN": "0123456789abcdef0123"}
	judge := func(script string, brokered func(string) bool) *rules.Judgement {
		set := rules.Builtin()
		full := map[string]string{"HOME": home, "TMPDIR": "/tmp"}
		for k, v := range env {
			full[k] = v
		}
		var environ []string
		for k, v := range full {
			environ = append(environ, k+"="+v)
		}
		cfg := &parse.Config{Dialect: parse.Bash, Env: environ, Dir: ws, Knowledge: set,
			Shell: func(argv []string) (parse.ShellCall, error) { return parse.ShellCall{Stdin: true}, nil }}
		ctx := &rules.Context{Env: rules.Env{Home: home, Workspace: ws, Environ: environ, Getenv: func(k string) string { return full[k] }, Brokered: brokered},
			Repo: &fakeRepo{remotes: []string{"origin"}}}
		return set.Judge(parse.Parse(script, cfg), ctx)
	}
	gh := func(name string) bool { return name == "GH_TOKEN" }
	for _, script := range []string{
		`curl -H "Authorization: token $GH_TOKEN" https://api.github.com/user`,
		`echo $GH_TOKEN`,
		`printenv GH_TOKEN`,
	} {
		before := judge(script, nil)
		after := judge(script, gh)
		if before.Verdict == rules.Allow {
			t.Errorf("%s: allowed with the variable withheld: not a test", script)
		}
		if after.Verdict != rules.Allow {
			t.Errorf("%s: %s with GH_TOKEN brokered (%v)", script, after.Verdict, after.Reasons)
		}
	}
	// Another credential in the same command is still one.
	if j := judge(`curl -H "Authorization: token $OTHER_TOKEN" https://api.github.com/user`, gh); j.Verdict == rules.Allow {
		t.Errorf("OTHER_TOKEN sent: allowed")
	}
}

// A credential kind must name a variable and hosts; "*" or a URL would
// send the credential anywhere, and is refused.
func TestCredentialKinds(t *testing.T) {
	for _, k := range []rules.CredentialKind{
		{Env: "", Hosts: []string{"api.example.com"}},
		{Env: "X_TOKEN"},
		{Env: "X_TOKEN", Hosts: []string{"*"}},
		{Env: "X_TOKEN", Hosts: []string{"*.*"}},
		{Env: "X_TOKEN", Hosts: []string{"https://api.example.com/"}},
		{Env: "X_TOKEN", Hosts: []string{"user@api.example.com"}},
		// A file whose host or value cannot be found, or that is no path.
		{Env: "X_TOKEN", Hosts: []string{"api.example.com"}, Files: []rules.CredentialFile{{Path: "~/.xrc", Secret: `^token=(.*)$`}}},
		{Env: "X_TOKEN", Hosts: []string{"api.example.com"}, Files: []rules.CredentialFile{{Path: "~/.xrc", Secret: `^token=(?P<value>.*)$`}}},
		{Env: "X_TOKEN", Hosts: []string{"api.example.com"}, Files: []rules.CredentialFile{{Path: "~/.xrc", Secret: `^token=(?P<value>.*)$`, Section: `^\[(.*)\]$`}}},
		{Env: "X_TOKEN", Hosts: []string{"api.example.com"}, Files: []rules.CredentialFile{{Path: ".xrc", Secret: `^(?P<host>\S+) (?P<value>.*)$`}}},
		{Env: "X_TOKEN", Hosts: []string{"api.example.com"}, Files: []rules.CredentialFile{{Path: "~/.xrc", Secret: `^(?P<host>\S+) (?P<value>(.*)$`}}},
	} {
		if _, err := rules.Compile([]string{"f.yaml"}, []*rules.File{{Version: 1, Credentials: []rules.CredentialKind{k}}}); err == nil {
			t.Errorf("%+v: no error", k)
		}
	}
	s, err := rules.Compile([]string{"a.yaml", "b.yaml"}, []*rules.File{
		{Version: 1, Credentials: []rules.CredentialKind{{Env: "X_TOKEN", Hosts: []string{"api.example.com"}}}},
		{Version: 1, Credentials: []rules.CredentialKind{{Env: "X_TOKEN", Hosts: []string{"*.example.org:8443"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if k := s.CredentialKinds(); len(k) != 1 || len(k[0].Hosts) != 2 {
		t.Errorf("kinds %+v, want X_TOKEN with both hosts", k)
	}
}

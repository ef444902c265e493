package credvar

import (
	"slices"
	"strings"
	"testing"
)

// words are the kinds of the built-in rules' credential_words, enough to
// test the matching; the rules' own list is tested in package rules.
var m = New(
	[]string{"*_TOKEN", "MYSQL_PWD", "*_PWD"},
	[]string{"password", "passwd", "pass", "passphrase", "token", "secret", "apikey", "key", "auth", "credential", "credentials", "webhook", "dsn", "cookie"},
	[]string{`\bgh[pousr]_[A-Za-z0-9]{36,251}\b`, `(?i)(^|;)\s*(AccountKey|Password|Pwd)\s*=\s*[^;\s]`},
)

func TestName(t *testing.T) {
	for _, n := range []string{
		"DB_PASS", "SMTP_PASS", "GPG_PASSPHRASE", "SLACK_WEBHOOK_URL", "npm_config_//registry.npmjs.org/:_authToken",
		"npm_config__auth", "dbPassword", "MYSQL_PWD", "DB_PWD", "github_token", "OAUTH2_TOKEN", "HTTPToken",
		"SENTRY_DSN", "STRIPE_SECRET_KEY", "OPENAI_API_KEY", "apiKey", "SESSION_COOKIE", "X-Auth-Token", "gh.pass",
	} {
		if !m.Name(n) {
			t.Errorf("Name(%q) = false (parts %q), want true", n, Parts(n))
		}
	}
	for _, n := range []string{
		"PASSENGER_COUNT", "PATH", "KEYBOARD", "TOKENIZERS_PARALLELISM", "AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "PWD", "OLDPWD",
		"HOME", "XAUTHORITY", "BYPASS_CACHE", "OPENAI_MAX_TOKENS", "MONKEYPATCH", "SECRETARY", "DESKTOP_SESSION", "",
	} {
		if m.Name(n) {
			t.Errorf("Name(%q) = true (parts %q), want false", n, Parts(n))
		}
	}
}

func TestVar(t *testing.T) {
	if !m.Var("REDIS_URL", "redis://default:hunter2@cache:6379") || !m.Var("DATABASE_URL", "postgres://app:pw@db/app") {
		t.Error("Var: a URL with a password is a credential")
	}
	if m.Var("API_URL", "https://api.example.com/v1") || m.Var("GIT_URL", "ssh://git@github.com/o/r") {
		t.Error("Var: a URL without a password is not")
	}
}

func TestParts(t *testing.T) {
	for s, want := range map[string][]string{
		"npm_config_//registry.npmjs.org/:_authToken": {"npm", "config", "registry", "npmjs", "org", "auth", "Token"},
		"HTTPToken":    {"HTTP", "Token"},
		"OAUTH2_TOKEN": {"OAUTH", "2", "TOKEN"},
		"db-pass.x":    {"db", "pass", "x"},
		"__":           nil,
	} {
		if got := Parts(s); !slices.Equal(got, want) {
			t.Errorf("Parts(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pat, name string
		want      bool
	}{
		{"*_TOKEN", "GH_TOKEN", true}, {"*_TOKEN", "_TOKEN", true}, {"*_TOKEN", "TOKEN", false},
		{"*SECRET*", "MY_SECRET_X", true}, {"A*B*C", "AXBYC", true}, {"A*B*C", "ACB", false},
		{"OP_SESSION_*", "OP_SESSION_my", true}, {"AB", "AB", true}, {"A?", "AB", true}, {"*AB*AB", "AB", false},
	} {
		if got := match(c.pat, c.name); got != c.want {
			t.Errorf("match(%q, %q) = %v", c.pat, c.name, got)
		}
	}
}

func BenchmarkName(b *testing.B) {
	names := []string{"PATH", "HOME", "GIT_AUTHOR_EMAIL", "npm_config_//registry.npmjs.org/:_authToken", "TOKENIZERS_PARALLELISM", "XDG_SESSION_TYPE"}
	for b.Loop() {
		for _, n := range names {
			m.Name(n)
		}
	}
}

func BenchmarkGlobsOnly(b *testing.B) {
	g := &Matcher{globs: m.globs}
	names := []string{"PATH", "HOME", "GIT_AUTHOR_EMAIL", "npm_config_//registry.npmjs.org/:_authToken", "TOKENIZERS_PARALLELISM", "XDG_SESSION_TYPE"}
	for b.Loop() {
		for _, n := range names {
			g.Name(n)
		}
	}
}

func TestMask(t *testing.T) {
	env := []string{"GITHUB_TOKEN=ghp_abcdefgh123", "HOME=/home/dev", "SHORT_TOKEN=abc"}
	for in, want := range map[string]string{
		`GITHUB_TOKEN=ghp_zzz9 gh pr list`:                 `GITHUB_TOKEN=*** gh pr list`,
		`export DB_PASS='s3cr et' && psql`:                 `export DB_PASS=*** && psql`,
		`curl -H "Authorization: token ghp_abcdefgh123" x`: `curl -H "Authorization: token ***" x`,
		`psql postgres://app:hunter2@db/app`:               `psql postgres://app:***@db/app`,
		`tool --api-token=xyz123 run`:                      `tool --api-token=*** run`,
		`make PREFIX=/usr HOME=/home/dev`:                  `make PREFIX=/usr HOME=/home/dev`,
		`echo abc`:                                         `echo abc`,
		`bash -c 'DB_PASS=x1 true'`:                        `bash -c 'DB_PASS=*** true'`,
	} {
		if got := m.Mask(in, env); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNot: a "!" glob says a name holds no credentials whatever its
// words; its value still can.
func TestNot(t *testing.T) {
	m := New([]string{"!GIT_CONFIG_KEY_*", "*_KEY"}, []string{"key"}, nil)
	if m.Name("GIT_CONFIG_KEY_0") || m.Name("git_config_key_12") {
		t.Error("GIT_CONFIG_KEY_<n> is named a credential")
	}
	if !m.Name("STRIPE_KEY") || !m.Name("SIGNING_KEY_ID") {
		t.Error("the other names lost their words")
	}
	if !m.Var("GIT_CONFIG_KEY_0", "https://u:pw@example.com/r.git") {
		t.Error("a value with a password is still a credential")
	}
}

// TestAuthValue: an HTTP authorization is a credential whatever the
// variable's name.
func TestAuthValue(t *testing.T) {
	for _, v := range []string{"Authorization: Bearer abc", "authorization:basic Zm9vOmJhcg==", "Bearer ghp_0123456789", "token glpat-0123456789", "PRIVATE-TOKEN: x", "X-Api-Key: k"} {
		if !m.Var("GIT_CONFIG_VALUE_0", v) {
			t.Errorf("%q is not taken for a credential", v)
		}
	}
	for _, v := range []string{"cat", "less -R", "Bearer", "token x", "basic", "https://example.com/a:b", "core.pager"} {
		if m.Var("GIT_CONFIG_VALUE_0", v) {
			t.Errorf("%q is taken for a credential", v)
		}
	}
}

// TestFilterFamily: dropping one member of an indexed family drops its
// entry whole, and the entries left are numbered again with the count.
func TestFilterFamily(t *testing.T) {
	env := []string{
		"PATH=/bin", "GIT_CONFIG_COUNT=4",
		"GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=cat",
		"GIT_CONFIG_KEY_1=http.extraHeader", "GIT_CONFIG_VALUE_1=SECRET",
		"GIT_CONFIG_KEY_2=user.name", "GIT_CONFIG_VALUE_2=Gem",
		"GIT_CONFIG_KEY_3=remote.origin.url", "GIT_CONFIG_VALUE_3=https://u:SECRET@x/r",
		"GITHUB_TOKEN=SECRET",
	}
	got := Filter(env, func(name, value string) bool {
		return value != "SECRET" && name != "GITHUB_TOKEN" && name != "GIT_CONFIG_VALUE_3"
	})
	want := []string{
		"PATH=/bin", "GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=cat",
		"GIT_CONFIG_KEY_1=user.name", "GIT_CONFIG_VALUE_1=Gem",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Filter:\n got %q\nwant %q", got, want)
	}
	// Nothing dropped: nothing renumbered; no count: no family.
	plain := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.pager", "GIT_CONFIG_VALUE_0=cat", "A_B_1=x"}
	if got := Filter(plain, func(string, string) bool { return true }); !slices.Equal(got, plain) {
		t.Errorf("Filter changed %q to %q", plain, got)
	}
	if got := Filter([]string{"A_B_1=x", "A_C_1=y"}, func(n, _ string) bool { return n != "A_B_1" }); !slices.Equal(got, []string{"A_C_1=y"}) {
		t.Errorf("without a count: %q", got)
	}
}

// TestValue: a value with a credential's shape marks its variable,
// whatever the name; the patterns' own flags stay their own.
func TestValue(t *testing.T) {
	ghp := "ghp_" + strings.Repeat("aB3", 12)
	for _, v := range []string{ghp, "x-access-token:" + ghp, "Server=db;Uid=app;Pwd=hunter2;", "DefaultEndpointsProtocol=https;AccountName=a;ACCOUNTKEY=abc=="} {
		if !m.Value(v) || !m.Var("HARMLESS", v) {
			t.Errorf("Value(%q) = false, want true", v)
		}
	}
	for _, v := range []string{"ghp_short", "xghp_" + strings.Repeat("aB3", 12), "/usr/bin:/bin", "Pwd=;", "ls;pwd", "GHP_" + strings.Repeat("aB3", 12)} {
		if m.Value(v) || m.Var("HARMLESS", v) {
			t.Errorf("Value(%q) = true, want false", v)
		}
	}
	if New(nil, nil, nil).Value(ghp) {
		t.Error("no patterns: Value is true")
	}
	// One that does not compile is left out, the others kept.
	if !New(nil, nil, []string{"(", `^ghp_`}).Value(ghp) {
		t.Error("a broken pattern took the others with it")
	}
	if err := CheckValues([]string{"ok", "("}); err == nil {
		t.Error("CheckValues: no error for a broken pattern")
	}
	// The literal every match holds, found in the pattern.
	for pat, want := range map[string]string{
		`\bgh[pousr]_[A-Za-z0-9]{36,251}\b`: "gh", `hooks\.slack\.com/(a|b)/x`: "hooks.slack.com/",
		`(?i)(^|;)\s*(AccountKey|Pwd)\s*=\s*[^;\s]`: "=", `(?i)x-Api-Key:`: "x-api-key:", `a|b`: "", `(ab)*`: "",
	} {
		if sh := newShape(pat); sh == nil || sh.lit != want {
			t.Errorf("newShape(%q): literal %+v, want %q", pat, sh, want)
		}
	}
	// Masked like any credential variable's value.
	env := []string{"STRIPE_SK=" + ghp}
	if got := m.Mask("curl -u "+ghp+": https://x", env); strings.Contains(got, ghp) {
		t.Errorf("Mask: %q", got)
	}
}

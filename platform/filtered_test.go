package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecretLine(t *testing.T) {
	npm := []string{"*_authtoken", "*_auth", "*_password"}
	for _, c := range []struct {
		line string
		keys []string
		want bool
	}{
		{"//registry.npmjs.org/:_authToken=abc\n", npm, true},
		{"  _auth = abc", npm, true},
		{"//npm.corp/:_password=\"abc\"", npm, true},
		{"save-exact=true", npm, false},
		{"registry=https://registry.npmjs.org/", npm, false},
		{"@corp:registry=https://ci:s3cret@npm.corp/", npm, true}, // a URL with a password
		{"  - https://user:pw@example.com/simple", nil, true},     // in a YAML list too
		{"url = https://user@example.com/", nil, false},           // a user, no password
		{"; _authToken=abc", npm, false},                          // a comment
		{"[pypi]", []string{"password"}, false},
		{"Password: abc", []string{"password"}, true},             // YAML, case ignored
		{"npmAuthToken: \"abc\"", []string{"npmauthtoken"}, true}, // .yarnrc.yml
		{"username = __token__", []string{"password"}, false},
		{"password: pypi-AgEI=abc", []string{"password"}, true},    // ":" before "="
		{"ossrhPassword   s3cret", []string{"*passw*"}, true},      // a properties blank
		{"signingInMemoryKey=-----BEGIN", []string{"*key*"}, true}, // gradle's signing key
		{"org.gradle.jvmargs=-Xmx2g", []string{"*passw*", "*key*", "*token*"}, false},
		{"@corp:registry=https://npm.corp/", npm, false},
		{"ghp_0123456789abcdef", nil, true}, // a bare value
		// XML (NuGet.Config): the key is the key attribute's value, or
		// the element's name.
		{`    <add key="ClearTextPassword" value="s3cret" />`, []string{"*password*"}, true},
		{`<add key="Username" value="me" />`, []string{"*password*"}, false},
		{`<add key="nuget.org" value="https://api.nuget.org/v3/index.json" />`, []string{"*password*"}, false},
		{"<configuration>", []string{"*password*"}, false},
		{"  </packageSourceCredentials>", []string{"*password*"}, false},
		{`<?xml version="1.0" encoding="utf-8"?>`, []string{"*password*"}, false},
		{"<password>s3cret</password>", []string{"*password*"}, true},
	} {
		if got := secretLine(c.line, c.keys); got != c.want {
			t.Errorf("secretLine(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

func TestFilteredFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "npmrc")
	os.WriteFile(f, []byte("a=1\n_authToken=x\nb=2"), 0o600)
	_, data, ok := filteredFile(f+" *_authtoken", nil)
	if !ok || string(data) != "a=1\n\nb=2" {
		t.Errorf("filtered: %q %v, want the token's line emptied, the others kept", data, ok)
	}
	os.WriteFile(f, []byte(strings.Repeat("a=1\n", maxFiltered)), 0o600)
	if _, _, ok := filteredFile(f+" *_authtoken", nil); ok {
		t.Error("a file larger than maxFiltered is shown filtered, not hidden")
	}
	if _, _, ok := filteredFile(filepath.Join(dir, "missing")+" x", nil); ok {
		t.Error("a missing file is shown")
	}
}

// TestFilteredValueLines: a secret's value that goes on below its line
// goes too (a properties continuation, a YAML block, an INI value on
// several lines); what follows it stays.
func TestFilteredValueLines(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	os.WriteFile(f, []byte("a=1\nsigning.password=abc\\\n   def\\\n   ghi\nb=2\n"+
		"npmRegistries:\n  x:\n    npmAuthToken: >-\n      tok1\n      tok2\n    npmAlwaysAuth: true\nc: 3\n"), 0o600)
	_, data, ok := filteredFile(f+" *passw* npmauthtoken", nil)
	got := string(data)
	for _, gone := range []string{"abc", "def", "ghi", "tok1", "tok2"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q is still there:\n%s", gone, got)
		}
	}
	for _, kept := range []string{"a=1", "b=2", "npmRegistries:", "  x:", "npmAlwaysAuth: true", "c: 3"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q is gone:\n%s", kept, got)
		}
	}
	if !ok || strings.Count(got, "\n") != 12 {
		t.Errorf("lines not kept in place (%v):\n%s", ok, got)
	}
}

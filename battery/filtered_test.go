//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCredentialSettingsFiltered: a credential file that also holds the
// person's settings (~/.npmrc) is shown in the sandbox without its
// secret lines, never hidden whole: npm keeps save-exact and the
// registry, and no command reads the token, nor a password in a URL.
func TestCredentialSettingsFiltered(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			npmrc := "save-exact=true\nfund=false\n//registry.npmjs.org/:_authToken=" + secret + "\n" +
				"@corp:registry=https://ci:" + secret + "@npm.corp.example/\n; a comment\n_auth = " + secret + "\n"
			os.WriteFile(filepath.Join(b.home, ".npmrc"), []byte(npmrc), 0o600)
			os.WriteFile(filepath.Join(b.home, ".pypirc"), []byte("[distutils]\nindex-servers = pypi\n[pypi]\nusername = __token__\npassword = "+secret+"\n"), 0o600)
			out, code := b.run("on", `cat ~/.npmrc; echo ---; cat ~/.pypirc; echo ---; grep -rs . ~/.npmrc ~/.pypirc | wc -l`)
			if code != 0 {
				t.Fatalf("the filtered files cannot be read (exit %d):\n%s", code, out)
			}
			if strings.Contains(out, secret) {
				t.Errorf("a secret line got through:\n%s", out)
			}
			for _, want := range []string{"save-exact=true\n", "fund=false\n", "; a comment\n", "index-servers = pypi\n", "username = __token__\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("the setting %q is missing:\n%s", want, out)
				}
			}
			if onHostPath("npm") {
				out, _ := b.run("on", "npm config get save-exact; npm config get fund")
				if out != "true\nfalse\n" {
					t.Errorf("npm does not see the person's settings: %q", out)
				}
			}
			b.unchanged(filepath.Join(b.home, ".npmrc"), npmrc)
			b.mustFail("writing the filtered file", "echo x >> ~/.npmrc")
		})
	}
}

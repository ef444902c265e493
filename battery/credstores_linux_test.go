package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxLinuxCredentialStores: the credential stores Linux keeps
// under ~/.config and elsewhere in the home, found readable in the
// sandbox by an attacker (their macOS spellings under ~/Library were
// hidden), are hidden; the package indexes' settings files are shown
// with their password lines left out, their settings kept.
func TestSandboxLinuxCredentialStores(t *testing.T) {
	hidden := []string{
		".config/Code/User/globalStorage/state.vscdb",
		".config/Cursor/User/globalStorage/state.vscdb",
		".config/Code - Insiders/User/globalStorage/state.vscdb",
		".config/Slack/Cookies",
		".config/discord/Network/Cookies",
		".thunderbird/abcd.default-release/logins.json",
		".kaggle/kaggle.json",
		".bundle/config",
		".config/stripe/config.toml",
		".wrangler/config/default.toml",
		".sentryclirc",
		".supabase/access-token",
		".railway/config.json",
		".local/share/com.vercel.cli/auth.json",
		".local/share/fish/fish_history",
		".node_repl_history",
		".local/share/atuin/key",
	}
	filtered := map[string]struct{ text, kept string }{
		".config/pip/pip.conf": {"[global]\nindex-url = https://build:" + secret + "@pypi.corp.example/simple\ntimeout = 60\n", "timeout = 60"},
		".condarc":             {"channels:\n  - https://me:" + secret + "@conda.corp.example/main\nssl_verify: true\n", "ssl_verify: true"},
		".nuget/NuGet/NuGet.Config": {"<configuration>\n  <packageSourceCredentials>\n    <corp>\n      <add key=\"Username\" value=\"me\" />\n" +
			"      <add key=\"ClearTextPassword\" value=\"" + secret + "\" />\n    </corp>\n  </packageSourceCredentials>\n</configuration>\n", `<add key="Username" value="me" />`},
	}
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		for _, f := range hidden {
			p := filepath.Join(b.home, f)
			os.MkdirAll(filepath.Dir(p), 0o700)
			os.WriteFile(p, []byte(secret+"\n"), 0o600)
		}
		for f, c := range filtered {
			p := filepath.Join(b.home, f)
			os.MkdirAll(filepath.Dir(p), 0o700)
			os.WriteFile(p, []byte(c.text), 0o600)
		}
		// One sandbox for all of them: each file's name, then what
		// reading it gave.
		var script strings.Builder
		for _, f := range hidden {
			script.WriteString("echo \"== " + f + "\"; cat \"$HOME/" + f + "\" 2>&1; ")
		}
		out, _ := b.run("on", script.String()+"true")
		for _, part := range strings.Split(out, "== ")[1:] {
			if strings.Contains(part, secret) {
				name, _, _ := strings.Cut(part, "\n")
				t.Errorf("reading ~/%s: got through:\n%s", name, part)
			}
		}
		if strings.Count(out, "== ") != len(hidden) {
			t.Fatalf("the script did not run through:\n%s", out)
		}
		for f, c := range filtered {
			out, code := b.run("on", "cat \"$HOME/"+f+"\"")
			if strings.Contains(out, secret) {
				t.Errorf("reading ~/%s: the password got through:\n%s", f, out)
			}
			if b.backend == "landlock" && b.withoutMounts() {
				continue // hidden whole: no copy can be laid over it
			}
			if code != 0 || !strings.Contains(out, c.kept) {
				t.Errorf("reading ~/%s: its settings are gone (exit %d):\n%s", f, code, out)
			}
		}
	})
}

// TestSandboxCredentialValues: variables whose names look harmless but
// whose values have a known credential's shape (found passing into the
// sandbox by an attacker) are removed, as credential variables are;
// ordinary values of the same look stay.
func TestSandboxCredentialValues(t *testing.T) {
	creds := []string{
		"BUNDLE_GITHUB__COM=x-access-token:ghp_" + strings.Repeat("aZ09", 9),
		"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + strings.Repeat("Ab+/", 20) + "==;EndpointSuffix=core.windows.net",
		"CONNECTION_STRING=Server=tcp:db.example,1433;Database=app;Uid=app;Pwd=hunter2;",
		"STRIPE_SK=sk_live_" + strings.Repeat("a1B2", 6),
		"MAINNET_RPC_URL=https://eth-mainnet.g.alchemy.com/v2/" + strings.Repeat("aZ0_", 8),
		"SLACK_HOOK_URL=https://hooks.slack.com/services/T0000000/B0000000/" + strings.Repeat("Xy", 12),
		"MNEMONIC=abandon ability able about above absent absorb abstract absurd abuse access accident",
		"TOTP_SEED=JBSWY3DPEHPK3PXP",
	}
	ordinary := []string{"GIT_COMMIT=9fceb02d0ae598e95dc970b74767f19372d61af8", "REQUEST_ID=123e4567-e89b-12d3-a456-426614174000",
		"RANDOM_SEED=42", "RPC_URL=https://cloudflare-eth.com"}
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		b.env = append(b.env, append(creds, ordinary...)...)
		out, code := b.run("on", "env")
		if code != 0 {
			t.Fatalf("env: exit %d: %s", code, out)
		}
		for _, kv := range creds {
			name, value, _ := strings.Cut(kv, "=")
			if strings.Contains(out, name+"=") || strings.Contains(out, value) {
				t.Errorf("%s reached the sandbox", name)
			}
		}
		for _, kv := range ordinary {
			if !strings.Contains(out, kv+"\n") {
				t.Errorf("%s is missing in the sandbox:\n%s", kv, out)
			}
		}
	})
}

package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/rules"
)

// Values an attacker saw pass into the sandbox under names that look
// harmless, and others of the same kinds, in the shapes their issuers
// give them (made up, not live).
var credentialValues = map[string]string{
	"BUNDLE_GITHUB__COM":              "x-access-token:ghp_" + strings.Repeat("aZ09", 9),
	"GH_FINE":                         "github_pat_11ABCDEFG0" + strings.Repeat("aZ09_", 14),
	"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + strings.Repeat("Ab+/", 20) + "==;EndpointSuffix=core.windows.net",
	"SERVICEBUS":                      "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=abcDEF123=",
	"CONNECTION_STRING":               "Server=tcp:db.example,1433;Database=app;Uid=app;Pwd=hunter2;",
	"JDBC":                            "jdbc:sqlserver://db.example:1433;databaseName=app;user=app;password=hunter2",
	"STRIPE_SK":                       "sk_live_" + strings.Repeat("a1B2", 6),
	"STRIPE_RK":                       "rk_live_" + strings.Repeat("a1B2", 6),
	"MAINNET_RPC_URL":                 "https://mainnet.infura.io/v3/" + strings.Repeat("0123456789abcdef", 2),
	"ALCHEMY":                         "https://eth-mainnet.g.alchemy.com/v2/" + strings.Repeat("aZ0_", 8),
	"NOTIFY":                          "https://hooks.slack.com/services/T0000000/B0000000/" + strings.Repeat("Xy", 12),
	"BOT":                             "xoxb-123456789012-123456789012-" + strings.Repeat("aB", 12),
	"GL":                              "glpat-" + strings.Repeat("aB1_", 5),
	"AWS_ID":                          "AKIAIOSFODNN7EXAMPLE",
	"STS_ID":                          "ASIAIOSFODNN7EXAMPLE",
	"NPM_PUBLISH":                     "npm_" + strings.Repeat("aB3", 12),
	"TWINE":                           "pypi-AgEIcHlwaS5vcmc" + strings.Repeat("aB3_-", 12),
	"LLM":                             "sk-ant-api03-" + strings.Repeat("aB3_-", 10),
	"OAI":                             "sk-proj-" + strings.Repeat("aB3_-", 10),
	"OAI_OLD":                         "sk-" + strings.Repeat("aB3", 16),
	"HF":                              "hf_" + strings.Repeat("aB3", 12),
	"KEY_PEM":                         "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----",
	"RSA_PEM":                         "-----BEGIN RSA PRIVATE KEY-----",
	"PHRASE":                          "abandon ability able about above absent absorb abstract absurd abuse access accident",
	// by name
	"MNEMONIC":                     "x",
	"WALLET_MNEMONIC":              "x",
	"TOTP_SEED":                    "JBSWY3DPEHPK3PXP",
	"SLACK_HOOK_URL":               "https://example.com/hook",
	"BUNDLE_GEMS__CONTRIBSYS__COM": "user:pass",
}

// Values of ordinary variables that must not be taken for credentials:
// ids, digests, paths, settings, a broker's placeholder.
var ordinaryValues = map[string]string{
	"GIT_COMMIT":             "9fceb02d0ae598e95dc970b74767f19372d61af8",
	"GIT_COMMIT_SHA2":        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"REQUEST_ID":             "123e4567-e89b-12d3-a456-426614174000",
	"IMAGE":                  "ghcr.io/o/app@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"PATH":                   "/home/u/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/bin:/bin:/home/u/sk-tools/bin",
	"LS_COLORS":              "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:su=37;41",
	"API_URL":                "https://api.example.com/v1/ghp_",
	"RPC_URL":                "https://cloudflare-eth.com",
	"CDPATH":                 ".:~/src",
	"GOFLAGS":                "-mod=mod -trimpath",
	"CLAUDE_PLACE":           "cordon_0123456789abcdef0123456789abcdef01234567",
	"BRANCH":                 "feature/sk-learn-upgrade",
	"DESCRIPTION":            "a short note about the build",
	"PWD":                    "/home/u/src/app",
	"PROMPT":                 "user=me;pwd=/home/u",
	"RANDOM_SEED":            "42",
	"PYTEST_RANDOM_SEED":     "42",
	"HYPOTHESIS_SEED":        "1234",
	"FAKER_SEED":             "7",
	"DB_SEED":                "true",
	"BUNDLE_BUILD__NOKOGIRI": "--use-system-libraries",
	"BUNDLE_PATH":            "vendor/bundle",
	"AWS_REGION":             "us-east-1",
	"JAVA_TOOL_OPTIONS":      "-Dfile.encoding=UTF-8",
}

// TestCredentialValues: the built-in rules mark a variable by its
// value's shape whatever its name, and by the names of the kinds found
// (recovery phrases, seeds, webhooks' addresses); ordinary values and
// names stay ordinary.
func TestCredentialValues(t *testing.T) {
	m := rules.Builtin().Credentials()
	for name, v := range credentialValues {
		if !m.Var(name, v) {
			t.Errorf("%s=%q: not a credential", name, v)
		}
	}
	for name, v := range ordinaryValues {
		if m.Var(name, v) {
			t.Errorf("%s=%q: taken for a credential", name, v)
		}
	}
}

// TestCredentialValueJudged: printing a variable whose value has a
// credential's shape is secret-env, as printing GITHUB_TOKEN is.
func TestCredentialValueJudged(t *testing.T) {
	home := "/cordon-test-root/home"
	env := map[string]string{"STRIPE_SK": credentialValues["STRIPE_SK"], "GIT_COMMIT": ordinaryValues["GIT_COMMIT"]}
	if j := judgeIn(t, home, home+"/ws", env, "echo $STRIPE_SK"); j.Verdict == rules.Allow || !strings.Contains(categories(j), "secret") {
		t.Errorf("echo $STRIPE_SK: got %v [%s], want secret", j.Verdict, categories(j))
	}
	if j := judgeIn(t, home, home+"/ws", env, "echo $GIT_COMMIT"); j.Verdict != rules.Allow {
		t.Errorf("echo $GIT_COMMIT: got %v %+v, want allow", j.Verdict, j.Reasons)
	}
}

// TestCredentialValuesChecked: a layer's pattern that is not a regular
// expression is refused when it loads.
func TestCredentialValuesChecked(t *testing.T) {
	if _, err := rules.Builtin().Extend("x.yaml", &rules.File{Version: 1, CredentialValues: []string{"(ghp_"}}); err == nil || !strings.Contains(err.Error(), "credential_values") {
		t.Errorf("Extend: got %v, want the pattern refused", err)
	}
	s, err := rules.Builtin().Extend("x.yaml", &rules.File{Version: 1, CredentialValues: []string{`\bmyco_[a-z0-9]{16}\b`}})
	if err != nil || !s.Credentials().Var("X", "myco_0123456789abcdef") {
		t.Errorf("Extend: a layer's own shape not applied: %v", err)
	}
}

// Credential stores of Linux tools and apps (found readable in the
// sandbox by an attacker), each as the home holds it: reading one is
// reading credentials.
var linuxCredentialStores = []string{
	".config/Code/User/globalStorage/state.vscdb",
	".config/Cursor/User/globalStorage/state.vscdb",
	".config/Code - Insiders/User/globalStorage/state.vscdb",
	".config/VSCodium/User/globalStorage/state.vscdb.backup",
	".config/Windsurf/User/globalStorage/state.vscdb",
	".config/Slack/Cookies",
	".config/discord/Cookies",
	".config/Signal/Network/Cookies",
	".thunderbird/abcd.default-release/logins.json",
	".mozilla/firefox/abcd.default-release/cookies.sqlite",
	"snap/firefox/common/.mozilla/firefox/abcd.default/logins.json",
	".var/app/org.mozilla.Thunderbird/.thunderbird/abcd.default/key4.db",
	".kaggle/kaggle.json",
	".bundle/config",
	".config/stripe/config.toml",
	".wrangler/config/default.toml",
	".sentryclirc",
	".supabase/access-token",
	".railway/config.json",
	".local/share/com.vercel.cli/auth.json",
	".config/pip/pip.conf",
	".nuget/NuGet/NuGet.Config",
	".condarc",
	".local/share/fish/fish_history",
	".node_repl_history",
	".local/share/atuin/key",
}

// TestLinuxCredentialStores: reading each of them is asked about as
// reading credentials, as reading ~/.netrc is.
func TestLinuxCredentialStores(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	ws := filepath.Join(home, "src", "app")
	os.MkdirAll(ws, 0o755)
	for _, f := range linuxCredentialStores {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("secret\n"), 0o600)
	}
	for _, f := range linuxCredentialStores {
		script := "cat '" + filepath.Join(home, f) + "'"
		if j := judgeIn(t, home, ws, nil, script); j.Verdict == rules.Allow || !strings.Contains(categories(j), "secret") {
			t.Errorf("%s: got %v [%s], want secret", script, j.Verdict, categories(j))
		}
	}
	// Their neighbours are settings, not credentials.
	for _, f := range []string{".config/Code/User/settings.json", ".config/Slack-notes.txt", ".config/fish/config.fish"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}\n"), 0o644)
		if j := judgeIn(t, home, ws, nil, "cat '"+p+"'"); j.Verdict != rules.Allow {
			t.Errorf("cat ~/%s: got %v %+v, want allow", f, j.Verdict, j.Reasons)
		}
	}
}

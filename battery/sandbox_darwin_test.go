package battery

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The battery's checks that only macOS can make: the keychains, case
// variants of hidden names on a case-insensitive volume, sandboxes inside
// sandboxes, limits and the denial log (see sandbox_test.go).

// backends are the sandboxes the battery tries on this system.
var backends = []string{"seatbelt"}

// TestSeatbeltKeychainHidden checks that the keychain files are hidden.
func TestSeatbeltKeychainHidden(t *testing.T) {
	b := newBattery(t, "seatbelt")
	kc := filepath.Join(b.home, "Library", "Keychains", "login.keychain-db")
	os.MkdirAll(filepath.Dir(kc), 0o700)
	os.WriteFile(kc, []byte(secret), 0o600)
	b.mustFail("reading the keychain file", "cat ~/Library/Keychains/login.keychain-db")
	b.mustFail("copying the keychains", "cp -R ~/Library/Keychains ./kc && cat ./kc/login.keychain-db")
}

// TestSeatbeltCaseVariants checks that a hidden path stays hidden under
// another spelling, which a case-insensitive volume (APFS's default)
// resolves to the same file.
func TestSeatbeltCaseVariants(t *testing.T) {
	b := newBattery(t, "seatbelt")
	for _, p := range []string{"~/.SSH/id_ed25519", "~/.Ssh/ID_ED25519", "~/.AWS/credentials", "~/.NETRC"} {
		b.mustFail("reading "+p, "cat "+p)
	}
	b.mustFail("a hard link to a hidden file", "ln ~/.aws/credentials ./c && cat ./c")
}

// TestSeatbeltNested checks that a shim inside cordon's sandbox runs its
// command there (Seatbelt cannot nest), and that cordon inside another
// sandbox refuses instead of running anything unconfined.
func TestSeatbeltNested(t *testing.T) {
	b := newBattery(t, "seatbelt")
	shimBash := linkShim(t, "bash")
	out, code := b.run("on", shimBash+" -c 'echo nested; echo x > ~/.profile'")
	if !strings.Contains(out, "nested") {
		t.Errorf("a shim inside the sandbox did not run its command (exit %d):\n%s", code, out)
	}
	b.unchanged(filepath.Join(b.home, ".profile"), "# profile\n")

	marker := filepath.Join(b.ws, "ran-unconfined")
	for name, profile := range map[string]string{
		// A sandbox that lets most through but can be told apart.
		"foreign": `(version 1)(allow default)(deny sysctl-read (sysctl-name "kern.uuid"))`,
		// One that cannot: sandbox-exec itself refuses to nest.
		"permissive": `(version 1)(allow default)`,
	} {
		cmd := exec.Command("/usr/bin/sandbox-exec", "-p", profile, b.cordon, "run", "--workspace", b.ws, "--", b.bash, "-c", "touch "+marker)
		cmd.Dir, cmd.Env = b.ws, b.env
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%s: cordon inside another sandbox ran the command:\n%s", name, out)
		}
		if name == "foreign" && !strings.Contains(string(out), "not cordon's") {
			t.Errorf("%s: the refusal does not say why:\n%s", name, out)
		}
		b.absent(marker)
	}
}

// TestSeatbeltLimits checks that the limits in the settings hold inside.
func TestSeatbeltLimits(t *testing.T) {
	b := newBattery(t, "seatbelt")
	cfg := filepath.Join(b.base, "config")
	os.MkdirAll(filepath.Join(cfg, "cordon"), 0o755)
	os.WriteFile(filepath.Join(cfg, "cordon", "config.yaml"), []byte("version: 1\nsandbox:\n  limits: {open_files: 64, cpu_seconds: 100}\n"), 0o644)
	if out, code := b.run("on", "ulimit -n; ulimit -t", "XDG_CONFIG_HOME="+cfg); code != 0 || out != "64\n100\n" {
		t.Errorf("limits: exit %d: %q", code, out)
	}
}

// TestSeatbeltExplainDenials checks that cordon run --explain-denials
// names what the sandbox refused.
func TestSeatbeltExplainDenials(t *testing.T) {
	b := newBattery(t, "seatbelt")
	cmd := exec.Command(b.cordon, "run", "--explain-denials", "--workspace", b.ws, "--", b.bash, "-c", "cat ~/.ssh/id_ed25519; echo x > ~/.bashrc; exit 3")
	cmd.Dir, cmd.Env = b.ws, b.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if strings.Contains(stderr.String(), "cannot read the system log") && os.Getenv("CORDON_REQUIRE_SANDBOX") == "" {
		t.Skipf("the system log cannot be read here: %s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit %d, want 3: %s", code, stderr.String())
	}
	for _, want := range []string{"the sandbox refused", ".ssh/id_ed25519", ".bashrc"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("no %q in:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stdout.String(), "cordon") {
		t.Errorf("cordon's report is on stdout:\n%s", stdout.String())
	}
}

// TestSeatbeltAutoRunFilesNotMade checks that files tools run on their
// own cannot be made where there is none (Linux puts them aside after
// the command instead).
func TestSeatbeltAutoRunFilesNotMade(t *testing.T) {
	b := newBattery(t, "seatbelt")
	b.mustFail("making .envrc", "echo 'echo pwned' > .envrc")
	b.mustFail("making .vscode/tasks.json", "mkdir -p .vscode && echo '{}' > .vscode/tasks.json")
	b.mustFail("making .claude/settings.json", "mkdir -p .claude && echo '{}' > .claude/settings.json")
	for _, f := range []string{".envrc", ".vscode/tasks.json", ".claude/settings.json"} {
		b.absent(filepath.Join(b.ws, f))
	}
}

//go:build linux

package battery

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tokens in the person's files, used, never held (docs/network.md): gh's
// hosts.yml and an .npmrc name a host and a token for it; inside, each
// file shows a placeholder, which reaches that host as the real token
// and is worthless anywhere else. git's store helper file is shown with
// its tokens emptied: git's credential is brokered through git's own
// helper, for the workspace's remotes only (TestGitPushStoreFile).

// tokenFiles writes the three files of the person's home, each naming
// host with token.
func tokenFiles(t *testing.T, home, host, token string) {
	t.Helper()
	files := map[string]string{
		".config/gh/hosts.yml": fmt.Sprintf("%s:\n    user: octocat\n    oauth_token: %s\n    git_protocol: https\n", host, token),
		".npmrc":               fmt.Sprintf("save-exact=true\n//%s/:_authToken=%s\n", host, token),
		".git-credentials":     fmt.Sprintf("https://octocat:%s@%s\n", token, host),
	}
	for name, data := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o700)
		if err := os.WriteFile(filepath.Join(home, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBrokeredFiles(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			ca := newTestCA(t, filepath.Join(b.base, "certs"))
			port, seen := ca.server(t, realTokenA)
			other, otherSeen := ca.server(t, realTokenA)
			host := fmt.Sprintf("127.0.0.1:%d", port)
			tokenFiles(t, b.home, host, realTokenA)
			run := func(script string) (string, int) {
				t.Helper()
				out, code := b.run("allowlist", script, "SSL_CERT_FILE="+ca.file)
				leaks(t, script, out)
				return out, code
			}
			// What the sandbox sees: placeholders in the files, the
			// person's settings kept, the value nowhere (a leak shows in
			// the output: see leaks).
			// (The pattern does not match itself in grep's command line;
			// /tmp is left out: it holds the test's own binary.)
			out, _ := run(`cat ~/.config/gh/hosts.yml ~/.npmrc ~/.git-credentials; grep -rsl 'REAL[t]oken' ~ /etc /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | sed 's/^/LEAK in /'`)
			if strings.Count(out, "cordon_") != 2 || !strings.Contains(out, "save-exact=true") || !strings.Contains(out, host+":") || strings.Contains(out, "LEAK") {
				t.Errorf("the files as the sandbox shows them:\n%s", out)
			}
			// gh's way: the token of hosts.yml, for its host.
			gh := `"Authorization: token $(sed -n 's/^ *oauth_token: //p' ~/.config/gh/hosts.yml)"`
			if out, code := run(fmt.Sprintf(`curl -sS -H %s https://%s/api/v3/user`, gh, host)); code != 0 || !strings.Contains(out, "granted") {
				t.Errorf("hosts.yml's token to its host (exit %d):\n%s\nthe server saw %q", code, out, seen())
			}
			// npm, with the .npmrc's token for the registry it names.
			if _, err := exec.LookPath("npm"); err == nil {
				if out, code := run(fmt.Sprintf(`npm whoami --registry https://%s/`, host)); code != 0 || !strings.Contains(out, "granted") {
					t.Errorf("npm whoami (exit %d):\n%s\nthe server saw %q", code, out, seen())
				}
			}
			// git's store helper file: its token is not brokered as a file
			// (it would go to any repository of the host), so git with
			// the store helper inside, to a host that is no remote of
			// the workspace, has nothing.
			gitconfig := filepath.Join(b.home, ".gitconfig")
			old, _ := os.ReadFile(gitconfig)
			os.WriteFile(gitconfig, append(old, "\n[credential]\n\thelper = store\n"...), 0o644)
			out, _ = run(fmt.Sprintf(`git ls-remote https://%s/repo.git; echo "git exit $?"`, host))
			os.WriteFile(gitconfig, old, 0o644)
			if strings.Contains(out, "git exit 0") {
				t.Errorf("git with credential.helper=store reached a host that is no remote of the workspace:\n%s", out)
			}
			// Another host, with each placeholder: not granted, and the
			// value never sent there.
			for _, script := range []string{
				fmt.Sprintf(`curl -sS -H %s https://127.0.0.1:%d/; echo`, gh, other),
				fmt.Sprintf(`curl -sS -H "Authorization: Bearer $(sed -n 's/.*_authToken=//p' ~/.npmrc)" https://127.0.0.1:%d/; echo`, other),
				fmt.Sprintf(`git -c credential.helper= -c credential.helper=store ls-remote https://127.0.0.1:%d/repo.git; echo "git exit $?"`, other),
				fmt.Sprintf(`curl -sS --noproxy '' -x "$HTTP_PROXY" -H %s http://127.0.0.1:%d/ -o /dev/null -w '%%{http_code}\n'`, gh, other),
			} {
				if out, _ := run(script); strings.Contains(out, "granted") || strings.Contains(out, "git exit 0") {
					t.Errorf("a placeholder was granted by another host:\n%s\n%s", script, out)
				}
			}
			for _, s := range otherSeen() {
				leaks(t, "the other host's request", s)
			}
			// A session's commands see the same placeholders.
			if b.session {
				p1, _ := run(`cat ~/.npmrc`)
				p2, _ := run(`cat ~/.npmrc`)
				if p1 != p2 || !strings.Contains(p1, "cordon_") {
					t.Errorf("session placeholders: %q, then %q", p1, p2)
				}
			}
			// A file the sandbox can write (the .npmrc a link into the
			// workspace, which a command rewrote to name its own host)
			// names no host: the token line is only emptied.
			npmrc := filepath.Join(b.home, ".npmrc")
			os.Remove(npmrc)
			os.WriteFile(filepath.Join(b.ws, "npmrc"), []byte(fmt.Sprintf("//127.0.0.1:%d/:_authToken=%s\n", other, realTokenA)), 0o600)
			os.Symlink(filepath.Join(b.ws, "npmrc"), npmrc)
			if out, _ := run(fmt.Sprintf(`curl -sS -H "Authorization: Bearer $(sed -n 's/.*_authToken=//p' ~/.npmrc)" https://127.0.0.1:%d/; echo`, other)); strings.Contains(out, "granted") {
				t.Errorf("a writable file's token was brokered to the host it names:\n%s", out)
			}
			for _, s := range otherSeen() {
				leaks(t, "the other host's request", s)
			}
			os.Remove(npmrc)
			// An .npmrc token for a path of its host (a team's registry
			// there) goes to that path only. (Per command: a session
			// reads the files when it starts.)
			if !b.session {
				os.WriteFile(npmrc, []byte(fmt.Sprintf("//%s/team/:_authToken=%s\n", host, realTokenA)), 0o600)
				before := len(seen())
				npm := `-H "Authorization: Bearer $(sed -n 's/.*_authToken=//p' ~/.npmrc)"`
				out, _ = run(fmt.Sprintf(`curl -sS %s https://%s/team/pkg; echo; curl -sS %s https://%s/other/pkg; echo; curl -sS %s https://%s/team/..%%3b/other/pkg; echo`, npm, host, npm, host, npm, host))
				if strings.Count(out, "granted") != 1 || !strings.Contains(out, "not a path it is for") {
					t.Errorf("an .npmrc token for /team/:\n%s\nthe server saw %q", out, seen()[before:])
				}
				for _, s := range seen()[before:] {
					if strings.Contains(s, realTokenA) && !strings.Contains(s, " /team/pkg") {
						t.Errorf("the token went to another path: %q", s)
					}
				}
				os.Remove(npmrc)
			}
			tokenFiles(t, b.home, host, realTokenA)
			// The network on: no broker; the token lines are emptied.
			if out, _ := b.run("on", `cat ~/.npmrc ~/.config/gh/hosts.yml ~/.git-credentials`); strings.Contains(out, "REALtoken") || strings.Contains(out, "cordon_") || !strings.Contains(out, "save-exact=true") {
				t.Errorf("network on: the files show:\n%s", out)
			}
		})
	}
}

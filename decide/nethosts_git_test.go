package decide

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitRemotes: the HTTPS remotes the person configured, as HOST/PATH
// with a port only when it is not 443; SSH, plain HTTP and local remotes
// are none.
func TestGitRemotes(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte(`[core]
	bare = false
[remote "origin"]
	url = https://GitHub.com/me/app.git
	pushurl = https://user@git.example:8443/me/app.git
[remote "Up"]
	url = "https://github.com:443/up/app.git"
[remote "ssh"]
	url = git@gitlab.example:me/app.git
[remote "plain"]
	url = http://plain.example/app.git
[remote "star"]
	url = https://*.example/app.git
[remote "local"]
	url = ../other.git
[branch "main"]
	url = https://branch.example/x
`), 0o644)
	got, _, _ := gitRemotesOf(ws, "", remoteURLs(ws, "", hostGitFor(t)))
	if want := []string{"github.com/me/app.git", "git.example:8443/me/app.git", "github.com/up/app.git"}; !slices.Equal(got, want) {
		t.Errorf("gitRemotes: %v, want %v", got, want)
	}
}

// TestGitRemotesContinuation: a value that ends in a backslash goes on
// with the next line, as git reads it: a "[remote]" there is part of
// user.name to git, and no remote to cordon either (a command wrote it
// to have the person's credential asked for a host of its choosing;
// found by an attacker). An even run of backslashes ends the value.
func TestGitRemotesContinuation(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/me/app.git\n[user]\n\tname = a\\\n[remote \"origin\"]\n\turl = https://evil.example/x.git\n[user]\n\temail = b\\\\\n[remote \"two\"]\n\turl = https://two.example/x.git\n"), 0o644)
	got, _, _ := gitRemotesOf(ws, "", remoteURLs(ws, "", hostGitFor(t)))
	if want := []string{"github.com/me/app.git", "two.example/x.git"}; !slices.Equal(got, want) {
		t.Errorf("gitRemotes: %v, want %v", got, want)
	}
	if h := remoteHosts(remoteURLs(ws, "", hostGitFor(t))); slices.Contains(h, "evil.example") {
		t.Errorf("remoteHosts: %v holds the continued line's host", h)
	}
}

// hostGitFor is the host's git for a test: the one on PATH.
func hostGitFor(t *testing.T) func() (string, error) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	return func() (string, error) { return git, nil }
}

// personRemotes is gitRemotes as the shim reads it for ws.
func personRemotes(t *testing.T, ws, state string) []string {
	t.Helper()
	own, _, _ := gitRemotesOf(ws, state, remoteURLs(ws, state, hostGitFor(t)))
	return own
}

// TestGitRemotesAsGitReads: the remotes are what git itself reads in
// the file, checked against git's own answer (git config --get-regexp)
// for the spellings where a parser of cordon's own went wrong or could:
// comments (whole line or after a value, # and ;, ending in a
// backslash), a value going on past a backslash, quotes and escapes in
// values and subsections, a header and a key on one line, the case of
// sections and keys, the old [section.subsection] form, an include
// (never followed: git in the sandbox may follow it, but what it names
// is the command's to write).
func TestGitRemotesAsGitReads(t *testing.T) {
	git := hostGitFor(t)
	for _, c := range []struct {
		name, config string
		want         []string
	}{
		{"comment ending in a backslash", "[remote \"a\"]\n\turl = https://a.example/a.git\n#\\\n[remote \"b\"]\n\turl = https://b.example/b.git\n", []string{"a.example/a.git", "b.example/b.git"}},
		{"semicolon comment ending in a backslash", "[remote \"a\"]\n; x \\\n\turl = https://a.example/a.git\n", []string{"a.example/a.git"}},
		{"comment after a value ending in a backslash", "[remote \"a\"]\n\turl = https://a.example/a.git # \\\n[remote \"b\"]\n\turl = https://b.example/b.git\n", []string{"a.example/a.git", "b.example/b.git"}},
		{"value going on", "[user]\n\tname = a\\\n[remote \"x\"]\n\turl = https://x.example/x.git\n[remote \"b\"]\n\turl = https://b.example/b.git\n", []string{"b.example/b.git"}},
		{"value going on into a url", "[remote \"a\"]\n\turl = https://a.example/\\\nrepo.git\n", []string{"a.example/repo.git"}},
		{"quoted value with a hash", "[remote \"a\"]\n\turl = \"https://a.example/a.git\" ; https://c.example/\n", []string{"a.example/a.git"}},
		{"escaped quote in a subsection", "[remote \"x\\\"y\"]\n\turl = https://q.example/q.git\n", []string{"q.example/q.git"}},
		{"header and key on one line", "[remote \"a\"] url = https://a.example/a.git\n", []string{"a.example/a.git"}},
		{"case of section and key", "[REMOTE \"Up\"]\n\tURL = https://up.example/u.git\n\tPushUrl = https://push.example/p.git\n", []string{"up.example/u.git", "push.example/p.git"}},
		{"old form", "[remote.old]\n\turl = https://old.example/o.git\n", []string{"old.example/o.git"}},
		{"include not followed", "[include]\n\tpath = other\n[remote \"a\"]\n\turl = https://a.example/a.git\n", []string{"a.example/a.git"}},
		{"url in another section", "[branch \"main\"]\n\turl = https://branch.example/x.git\n[remote]\n\turl = https://nosub.example/x.git\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
			config := filepath.Join(ws, ".git", "config")
			os.WriteFile(config, []byte(c.config), 0o644)
			os.WriteFile(filepath.Join(ws, ".git", "other"), []byte("[remote \"inc\"]\n\turl = https://inc.example/i.git\n"), 0o644)
			bin, _ := git()
			out, _ := exec.Command(bin, "config", "--file", config, "--no-includes", "-z", "--get-regexp", `^remote\..*\.(url|pushurl)$`).Output()
			var fromGit []string
			for _, rec := range strings.Split(string(out), "\x00") {
				if _, v, ok := strings.Cut(rec, "\n"); ok {
					fromGit = append(fromGit, strings.TrimPrefix(v, "https://"))
				}
			}
			if !slices.Equal(fromGit, c.want) {
				t.Fatalf("git itself reads %q, the test wants %q", fromGit, c.want)
			}
			if got := personRemotes(t, ws, ""); !slices.Equal(got, c.want) {
				t.Errorf("gitRemotes: %q, git reads %q", got, c.want)
			}
		})
	}
}

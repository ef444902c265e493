package gitstate

import (
	"github.com/cordonsh/cordon/internal/repotop"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

func TestRepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, data string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	run("init", "-q", "-b", "main")
	write(".gitignore", "build/\n.env\n")
	write("a.txt", "a")
	write("b.txt", "b")
	run("add", ".")
	run("commit", "-qm", "one")
	run("branch", "merged")
	run("checkout", "-qb", "wip")
	write("c.txt", "c")
	run("add", "c.txt")
	run("commit", "-qm", "wip")
	run("checkout", "-q", "main")
	write("a.txt", "changed")
	run("stash")
	write("b.txt", "changed")
	write("notes/n.md", "n")
	write("build/out", "o")
	write(".env", "SECRET=1")
	write(".config/git/ignore", "*.log\n") // the user's global excludes (HOME is dir)
	write("x.log", "l")
	run("remote", "add", "origin", dir)

	if got := repotop.Find(filepath.Join(dir, "notes")); got != dir {
		t.Errorf("TopLevel = %q, want %q", got, dir)
	}
	r := &Repo{Top: dir, Env: env, Host: testHost(t)}
	changes, err := r.Changes()
	if err != nil {
		t.Fatal(err)
	}
	want := []rules.Change{
		{Path: dir + "/b.txt", Kind: rules.Modified},
		{Path: dir + "/notes/", Kind: rules.Untracked},
		{Path: dir + "/.env", Kind: rules.Ignored},
		{Path: dir + "/build/", Kind: rules.Ignored},
		{Path: dir + "/x.log", Kind: rules.Ignored},
	}
	for _, w := range want {
		if !slices.Contains(changes, w) {
			t.Errorf("Changes() = %v, missing %v", changes, w)
		}
	}
	if n, err := r.Stashes(); err != nil || n != 1 {
		t.Errorf("Stashes() = %d, %v; want 1", n, err)
	}
	if lost, _ := r.Unmerged("wip"); !lost {
		t.Error("Unmerged(wip) = false, want true")
	}
	if lost, _ := r.Unmerged("merged"); lost {
		t.Error("Unmerged(merged) = true, want false")
	}
	if lost, _ := r.Unmerged("no-such-branch"); lost {
		t.Error("Unmerged(no-such-branch) = true, want false")
	}
	if remotes, _ := r.Remotes(); !slices.Equal(remotes, []string{"origin"}) {
		t.Errorf("Remotes() = %v, want [origin]", remotes)
	}
}

// TestFsmonitorNotRun checks that reading the state never runs a program
// the repository configures: cordon reads state outside any sandbox.
func TestFsmonitorNotRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir, cmd.Env = dir, env
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	hook := filepath.Join(dir, "hook.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	cmd = exec.Command("git", "config", "core.fsmonitor", hook)
	cmd.Dir, cmd.Env = dir, env
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	r := &Repo{Top: dir, Env: env, Host: testHost(t)}
	if _, err := r.Changes(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("git status ran the repository's core.fsmonitor program")
	}
}

// testHost is the host's git and a private directory for the tests.
func testHost(t *testing.T) func() (Host, error) {
	git, err := platform.FindProgram("git", os.Getenv("PATH"), nil, platform.AgentSince)
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	return func() (Host, error) { return Host{Git: git, Dir: dir}, nil }
}

// TestPlantedProgramsNotRun plants, one at a time, every way a repository
// can name a program git would run while cordon reads its state, then
// reads all of the state and fails if the program ran. cordon reads
// state outside any sandbox.
func TestPlantedProgramsNotRun(t *testing.T) {
	host := testHost(t)
	cases := []struct {
		name  string
		plant func(t *testing.T, dir, prog string, git func(...string))
		// unknown is true when the state must not be read at all.
		unknown bool
	}{
		{name: "filter in .git/config", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			filterConfig(git, "", prog)
			write(t, dir, ".gitattributes", "*.txt filter=x\n")
		}},
		{name: "process filter", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			git("config", "filter.x.process", prog)
			git("config", "filter.x.required", "true")
			write(t, dir, ".gitattributes", "*.txt filter=x\n")
		}},
		{name: "filter via include.path", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			inc := filepath.Join(t.TempDir(), "inc")
			write(t, filepath.Dir(inc), "inc", "[filter \"x\"]\n\tclean = "+prog+"\n\tsmudge = "+prog+"\n")
			git("config", "include.path", inc)
			write(t, dir, ".gitattributes", "*.txt filter=x\n")
		}},
		{name: "filter via includeIf", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			inc := filepath.Join(t.TempDir(), "inc")
			write(t, filepath.Dir(inc), "inc", "[filter \"x\"]\n\tclean = "+prog+"\n")
			git("config", "includeIf.gitdir:/.path", inc)
			write(t, dir, ".gitattributes", "*.txt filter=x\n")
		}},
		{name: "filter named in info/attributes", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			filterConfig(git, "", prog)
			write(t, dir, ".git/info/attributes", "* filter=x\n")
		}},
		{name: "filter named in a nested .gitattributes", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			filterConfig(git, "", prog)
			write(t, dir, "sub/.gitattributes", "*.txt filter=x\n")
		}},
		{name: "filter in a planted commondir", unknown: true, plant: func(t *testing.T, dir, prog string, git func(...string)) {
			planted := t.TempDir()
			write(t, planted, "config", "[core]\n\trepositoryformatversion = 0\n[filter \"x\"]\n\tclean = "+prog+"\n")
			os.Symlink(filepath.Join(dir, ".git", "refs"), filepath.Join(planted, "refs"))
			os.Symlink(filepath.Join(dir, ".git", "objects"), filepath.Join(planted, "objects"))
			write(t, dir, ".git/commondir", planted+"\n")
			write(t, dir, ".gitattributes", "*.txt filter=x\n")
		}},
		{name: "core.fsmonitor", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			git("config", "core.fsmonitor", prog)
		}},
		{name: "fsmonitor via global config", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			write(t, dir, "../home/.gitconfig", "[core]\n\tfsmonitor = "+prog+"\n[filter \"x\"]\n\tclean = "+prog+"\n")
			write(t, dir, ".gitattributes", "*.txt filter=x\n")
		}},
		{name: "pager", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			git("config", "core.pager", prog)
			git("config", "pager.status", "true")
			git("config", "pager.log", "true")
		}},
		{name: "log.showSignature and gpg.program", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			gpg := filepath.Join(dir, "..", "gpg.sh")
			os.WriteFile(gpg, []byte("#!/bin/sh\ncat >/dev/null\ncase \"$*\" in *--verify*) "+prog+";; esac\n"+
				"printf '\\n[GNUPG:] SIG_CREATED \\n' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n'\n"), 0o755)
			git("-c", "gpg.program="+gpg, "commit", "-q", "-S", "--allow-empty", "-m", "signed")
			git("update-ref", "--create-reflog", "refs/stash", "HEAD")
			git("reset", "-q", "HEAD~")
			git("config", "gpg.program", gpg)
			git("config", "log.showSignature", "true")
		}},
		{name: "submodule with its own filter", plant: func(t *testing.T, dir, prog string, git func(...string)) {
			src := filepath.Join(dir, "..", "subsrc")
			os.MkdirAll(src, 0o755)
			sgit := gitIn(t, src)
			sgit("init", "-q")
			write(t, src, "s.txt", "s")
			write(t, src, ".gitattributes", "*.txt filter=y\n")
			sgit("add", ".")
			sgit("commit", "-qm", "s")
			git("-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "mod")
			git("commit", "-qm", "sub")
			gitIn(t, filepath.Join(dir, "mod"))("config", "filter.y.clean", prog)
			touchOld(t, filepath.Join(dir, "mod", "s.txt"))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "repo")
			os.MkdirAll(filepath.Join(base, "home"), 0o755)
			os.MkdirAll(dir, 0o755)
			git := gitIn(t, dir)
			git("init", "-q", "-b", "main")
			write(t, dir, "a.txt", "a")
			write(t, dir, "sub/b.txt", "b")
			git("add", ".")
			git("commit", "-qm", "one")
			git("branch", "other")
			git("remote", "add", "origin", dir)
			marker := filepath.Join(base, "ran")
			prog := filepath.Join(base, "prog.sh")
			os.WriteFile(prog, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n"), 0o755)
			tc.plant(t, dir, prog, git)
			// Stat data that no longer matches the index makes git
			// compare contents, through the filter.
			touchOld(t, filepath.Join(dir, "a.txt"))
			touchOld(t, filepath.Join(dir, "sub", "b.txt"))

			r := &Repo{Top: dir, Env: []string{"HOME=" + filepath.Join(base, "home"), "PATH=" + os.Getenv("PATH")}, Host: host}
			_, errC := r.Changes()
			_, errS := r.Stashes()
			_, errU := r.Unmerged("other")
			_, errR := r.Remotes()
			if data, err := os.ReadFile(marker); err == nil {
				t.Fatalf("reading the state ran the planted program: %s", data)
			}
			for _, err := range []error{errC, errS, errU, errR} {
				if tc.unknown && err == nil {
					t.Errorf("the state was read through a planted layout, want an error")
				}
				if !tc.unknown && err != nil {
					t.Errorf("reading the state: %v", err)
				}
			}
		})
	}
}

func filterConfig(git func(...string), name, prog string) {
	git("config", "filter.x.clean", prog)
	git("config", "filter.x.smudge", prog)
}

func gitIn(t *testing.T, dir string) func(...string) {
	env := []string{"HOME=" + filepath.Join(dir, "..", "home"), "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"}
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// touchOld changes a file's modification time, keeping its content.
func touchOld(t *testing.T, p string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

// TestLayouts checks that a linked worktree and a submodule, whose git
// directories live elsewhere, are still read.
func TestLayouts(t *testing.T) {
	host := testHost(t)
	base := t.TempDir()
	dir, src := filepath.Join(base, "repo"), filepath.Join(base, "src")
	os.MkdirAll(filepath.Join(base, "home"), 0o755)
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(src, 0o755)
	sgit := gitIn(t, src)
	sgit("init", "-q")
	write(t, src, "s.txt", "s")
	sgit("add", ".")
	sgit("commit", "-qm", "s")
	git := gitIn(t, dir)
	git("init", "-q", "-b", "main")
	write(t, dir, "a.txt", "a")
	git("add", ".")
	git("commit", "-qm", "one")
	git("-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "mod")
	git("commit", "-qm", "mod")
	git("stash", "list")
	git("worktree", "add", "-q", filepath.Join(base, "wt"), "-b", "side")
	write(t, dir, "mod/s.txt", "changed in the submodule")
	write(t, base, "wt/new.txt", "untracked in the worktree")

	env := []string{"HOME=" + filepath.Join(base, "home")}
	changes, err := (&Repo{Top: dir, Env: env, Host: host}).Changes()
	if err != nil || !slices.Contains(changes, rules.Change{Path: filepath.Join(dir, "mod/s.txt"), Kind: rules.Modified}) {
		t.Errorf("Changes() = %v, %v; want mod/s.txt modified", changes, err)
	}
	wt := filepath.Join(base, "wt")
	r := &Repo{Top: wt, Env: env, Host: host}
	changes, err = r.Changes()
	if err != nil || !slices.Contains(changes, rules.Change{Path: filepath.Join(wt, "new.txt"), Kind: rules.Untracked}) {
		t.Errorf("worktree Changes() = %v, %v; want new.txt untracked", changes, err)
	}
	if lost, err := r.Unmerged("main"); err != nil || lost {
		t.Errorf("worktree Unmerged(main) = %v, %v; want false", lost, err)
	}
}

// TestRemote: the address git would use for a push or a fetch, as the
// configuration rewrites it, and the remote a bare git push or fetch
// uses on the current branch.
func TestRemote(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	run("remote", "add", "origin", "https://github.com/o/r.git")
	run("remote", "add", "fork", "https://gitlab.com/f/r.git")
	run("config", "remote.origin.pushurl", "git@github.com:o/r.git")
	run("config", "url.ssh://git@gitlab.com/.pushInsteadOf", "https://gitlab.com/")
	run("config", "url.https://mirror.example/.insteadOf", "https://gitlab.com/f/")
	run("config", "branch.main.remote", "fork")
	r := &Repo{Top: dir, Env: env, Host: testHost(t)}
	for _, tc := range []struct {
		name     string
		push     bool
		wantName string
		wantURL  string
	}{
		{"origin", false, "origin", "https://github.com/o/r.git"},
		{"origin", true, "origin", "git@github.com:o/r.git"},
		{"fork", false, "fork", "https://mirror.example/r.git"},
		{"fork", true, "fork", "ssh://git@gitlab.com/f/r.git"},
		{"", false, "fork", "https://mirror.example/r.git"},
		{"none", true, "none", ""},
	} {
		name, url, err := r.Remote(tc.name, tc.push)
		if err != nil || name != tc.wantName || url != tc.wantURL {
			t.Errorf("Remote(%q, push %v) = %q, %q, %v; want %q, %q", tc.name, tc.push, name, url, err, tc.wantName, tc.wantURL)
		}
	}
	run("config", "remote.pushDefault", "origin")
	r = &Repo{Top: dir, Env: env, Host: testHost(t)}
	if name, url, err := r.Remote("", true); name != "origin" || url != "git@github.com:o/r.git" || err != nil {
		t.Errorf("the default push remote: %q, %q, %v; want origin (remote.pushDefault)", name, url, err)
	}
}

// TestDefaultBranch: a remote's default branch is what its HEAD names,
// read from the file; none when git has not recorded one.
func TestDefaultBranch(t *testing.T) {
	top := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", top).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	r := &Repo{Top: top, Agent: func() []string { return []string{"x"} }, Env: []string{"HOME=" + top, "PATH=" + os.Getenv("PATH")}, Host: testHost(t)}
	if b, err := r.DefaultBranch("origin"); b != "" || err != nil {
		t.Errorf("no HEAD recorded: %q %v", b, err)
	}
	dir := filepath.Join(top, ".git", "refs", "remotes", "origin")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/remotes/origin/develop\n"), 0o644)
	if b, err := r.DefaultBranch("origin"); b != "develop" || err != nil {
		t.Errorf("origin/HEAD: %q %v", b, err)
	}
	if b, _ := r.DefaultBranch("../origin"); b != "" {
		t.Errorf("a remote name with a path: %q", b)
	}
	if a := r.AgentRemotes(); len(a) != 1 || a[0] != "x" {
		t.Errorf("AgentRemotes: %v", a)
	}
	// The branches the remote has, as the repository knows them.
	os.WriteFile(filepath.Join(dir, "develop"), []byte(strings.Repeat("0", 39)+"1\n"), 0o644)
	os.WriteFile(filepath.Join(top, ".git", "packed-refs"), []byte(strings.Repeat("0", 39)+"2 refs/remotes/origin/release\n"), 0o644)
	for b, want := range map[string]bool{"develop": true, "release": true, "feature": false} {
		if has, err := r.RemoteHas("origin", b); has != want {
			t.Errorf("RemoteHas(origin, %s): %v %v, want %v", b, has, err, want)
		}
	}
}

// TestPushTarget: what a push with no refspec writes follows the
// configuration as git reads it: push.default=upstream writes the
// branch's upstream (git branch -u origin/main on feature pushes main),
// matching every branch, a remote's push refspecs something not read
// here (found by an attacker).
func TestPushTarget(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	git := gitIn(t, dir)
	git("init", "-q", "-b", "feature")
	git("remote", "add", "origin", "https://github.com/o/r.git")
	git("config", "branch.feature.remote", "origin")
	git("config", "branch.feature.merge", "refs/heads/main")
	for _, tc := range []struct {
		key, value, want string
	}{
		{"", "", ""},
		{"push.default", "simple", ""},
		{"push.default", "current", ""},
		{"push.default", "Upstream", "main"},
		{"push.default", "tracking", "main"},
		{"push.default", "matching", "*"},
		{"remote.origin.push", "refs/heads/feature:refs/heads/main", "?"},
	} {
		if tc.key != "" {
			git("config", tc.key, tc.value)
		}
		r := &Repo{Top: dir, Env: env, Host: testHost(t)}
		if got, err := r.PushTarget("origin", "feature"); got != tc.want || err != nil {
			t.Errorf("%s=%s: PushTarget = %q, %v; want %q", tc.key, tc.value, got, err, tc.want)
		}
	}
}

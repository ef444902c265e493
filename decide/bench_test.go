package decide

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/decision"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/rules"
)

// BenchmarkLoadRules measures what every shim process does once: make
// the built-in rule set and build the commands a typical command meets.
func BenchmarkLoadRules(b *testing.B) {
	for b.Loop() {
		s := rules.Builtin()
		for _, name := range []string{"bash", "source", "shopt", "eval", "rm", "go", "tee", "pwd"} {
			s.Carrier(name)
		}
	}
}

// BenchmarkShimJudgeTypical is the shim's work for a typical agent
// command (Claude Code's wrapper around a build): decode and judge, rules
// already loaded.
func BenchmarkShimJudgeTypical(b *testing.B) {
	dir, env := benchDirs(b)
	argv := []string{"bash", "-c", `source '/h/.claude/shell-snapshots/snapshot-bash-1-a.sh' 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'rm -rf build && go test ./... | tee /tmp/out.txt' < /dev/null && pwd -P >| /tmp/claude-9f3e-cwd`}
	benchJudge(b, argv, dir, env)
}

// BenchmarkShimJudgeRemote judges (allowed) commands on data elsewhere:
// SQL read statement by statement, a script run over ssh, a cloud tool,
// and a tool the rules do not name.
func BenchmarkShimJudgeRemote(b *testing.B) {
	dir, env := benchDirs(b)
	argv := []string{"bash", "-c", `psql app -c "BEGIN; UPDATE t SET a = 1 WHERE id = 2; DELETE FROM s WHERE id = 3; COMMIT" && ssh -p 22 prod 'cd /srv/app && git pull && ls build' && aws --profile p s3 ls s3://b/x --recursive && mycli items list 3`}
	benchJudge(b, argv, dir, env)
}

// BenchmarkShimJudgeLongScript judges a 2,000-command script.
func BenchmarkShimJudgeLongScript(b *testing.B) {
	dir, env := benchDirs(b)
	lines := []string{"set -e", "cd src", "X=build"}
	for i := 0; len(lines) < 2000; i++ {
		lines = append(lines, "echo step "+strings.Repeat("x", i%7), `grep -rn "TODO" . | head -5`, "mkdir -p $X/out && cp a.txt $X/out/", "go test ./... && git status --short")
	}
	argv := []string{"bash", "-c", strings.Join(lines[:2000], "\n")}
	benchJudge(b, argv, dir, env)
}

// longScript is the 2,000-line script of scripts/bench.sh: a test run
// per package, its output filtered to a log.
func longScript() string {
	var sb strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&sb, "go test ./p%d/... 2>&1 | grep -v ok > o%d.log || echo f%d\n", i, i, i)
	}
	return sb.String()
}

// longScriptBudget is what judging [longScript] may take, on a quiet
// machine.
const longScriptBudget = 30 * time.Millisecond

// BenchmarkShimJudgeLongScriptGit judges [longScript] in a git
// repository, and fails past [longScriptBudget] (run it on a quiet
// machine).
func BenchmarkShimJudgeLongScriptGit(b *testing.B) {
	dir, env := benchDirs(b)
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Skipf("git init: %v\n%s", err, out)
	}
	benchJudge(b, []string{"bash", "-c", longScript()}, dir, env)
	if per := b.Elapsed() / time.Duration(b.N); b.N > 1 && per > longScriptBudget {
		b.Errorf("judging the long script took %v, over the %v budget", per, longScriptBudget)
	}
}

func benchJudge(b *testing.B, argv []string, dir string, env []string) {
	benchJudgeVerdict(b, argv, dir, env, 0)
}

// benchJudgeVerdict is [benchJudge] for a command whose verdict is v.
func benchJudgeVerdict(b *testing.B, argv []string, dir string, env []string, v rules.Verdict) {
	invocation.BuiltinRules()
	b.ReportAllocs()
	for b.Loop() {
		inv, err := invocation.Decode(argv, false)
		if err != nil {
			b.Fatal(err)
		}
		j, err := Judge(inv, dir, env)
		if err != nil || j.Verdict != v {
			b.Fatalf("verdict %v, err %v", j.Verdict, err)
		}
	}
}

// benchDirs makes a workspace with a src directory and a separate home.
func benchDirs(b *testing.B) (string, []string) {
	root := b.TempDir()
	ws, home := root+"/ws", root+"/home"
	for _, d := range []string{ws + "/src", home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return ws, []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
}

// BenchmarkConfine measures what the shim does after the judgement and
// before the sandbox starts: the settings read, the policy resolved on
// this machine (paths, globs, /tmp's entries), the confinement test and
// the backend chosen from the cached probe. The policy is resolved
// afresh: the state directory is in /tmp, where no cache is kept.
func BenchmarkConfine(b *testing.B) {
	dir := b.TempDir()
	env := append(os.Environ(), "XDG_STATE_HOME="+dir)
	benchConfine(b, dir, env)
}

// BenchmarkConfineCached is [BenchmarkConfine] with the policy cache in
// a state directory outside what commands can write, made a few seconds
// before (a witness changed just before is not trusted).
func BenchmarkConfineCached(b *testing.B) {
	dir := b.TempDir()
	home, _ := os.UserHomeDir()
	state, err := os.MkdirTemp(home, ".cordon-bench-")
	if err != nil {
		b.Skip(err)
	}
	defer os.RemoveAll(state)
	env := append(os.Environ(), "XDG_STATE_HOME="+state)
	if _, err := Confine(dir, env, &ConfineOptions{Inspect: true, Invoked: "bash"}); err != nil {
		b.Skip(err)
	}
	time.Sleep(3100 * time.Millisecond)
	benchConfine(b, dir, env)
}

func benchConfine(b *testing.B, dir string, env []string) {
	// Inspect: the test binary is in /tmp, which the self-check refuses.
	opts := &ConfineOptions{Inspect: true, Invoked: "bash"}
	if _, err := Confine(dir, env, opts); err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Confine(dir, env, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSelfCheck is what the self-check adds to every command run.
func BenchmarkSelfCheck(b *testing.B) {
	dir := b.TempDir()
	env := os.Environ()
	c, err := Confine(dir, env, &ConfineOptions{Inspect: true})
	if err != nil {
		b.Skip(err)
	}
	cfg, getenv := c.Settings, EnvLookup(env)
	roots := c.Policy.WritableRoots()
	b.ReportAllocs()
	for b.Loop() {
		selfCheck(roots, getenv, dir, "bash", false, cfg, nil)
	}
}

// BenchmarkWorkspace is the workspace choice, settings read included.
func BenchmarkWorkspace(b *testing.B) {
	dir := b.TempDir()
	getenv := EnvLookup(os.Environ())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Workspace(dir, getenv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShimJudgeGitState judges a command whose verdict depends on
// the repository's state (git reset --hard in a clean repository of 100
// files): git runs once, on the host.
func BenchmarkShimJudgeGitState(b *testing.B) {
	dir, env := benchDirs(b)
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, append(env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Skipf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for i := range 100 {
		os.WriteFile(fmt.Sprintf("%s/src/f%d.txt", dir, i), []byte("x"), 0o644)
	}
	git("add", ".")
	git("commit", "-qm", "one")
	benchJudge(b, []string{"bash", "-c", "git reset --hard"}, dir, env)
}

// oneShotArgv is the typical agent command of [BenchmarkShimJudgeTypical].
var oneShotArgv = []string{"bash", "-c", `source '/h/.claude/shell-snapshots/snapshot-bash-1-a.sh' 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'rm -rf build && go test ./... | tee /tmp/out.txt' < /dev/null && pwd -P >| /tmp/claude-9f3e-cwd`}

// BenchmarkShimOneShot is all a one-shot shim does before it execs the
// sandbox: the context read once (settings, workspace, rules), the
// decision (judged, written to the audit log), and the confinement made
// from the same context.
func BenchmarkShimOneShot(b *testing.B) {
	dir, env := benchDirs(b)
	home, _ := os.UserHomeDir()
	state, err := os.MkdirTemp(home, ".cordon-bench-")
	if err != nil {
		b.Skip(err)
	}
	defer os.RemoveAll(state)
	env = append(env, "XDG_STATE_HOME="+state)
	invocation.BuiltinRules()
	inv, err := invocation.Decode(oneShotArgv, false)
	if err != nil {
		b.Fatal(err)
	}
	opts := &ConfineOptions{Inspect: true, Invoked: "bash"}
	b.ReportAllocs()
	for b.Loop() {
		ctx, err := NewContext(dir, env, nil)
		if err != nil {
			b.Fatal(err)
		}
		d := ctx.Decide(Request{Shell: "bash", Mode: "command", Text: invocation.QuoteArgv(oneShotArgv), Inv: inv})
		if !d.Allowed() {
			b.Fatalf("verdict %s %v", d.Verdict, d.Reasons)
		}
		if _, err := ctx.Confine(opts); err != nil {
			b.Skip(err)
		}
	}
}

// BenchmarkMaskDecision: masking every string of a typical decision and
// its judgement (no credential in it, the usual case), which Decide does
// for every command.
func BenchmarkMaskDecision(b *testing.B) {
	dir, env := benchDirs(b)
	invocation.BuiltinRules()
	inv, err := invocation.Decode([]string{"bash", "-c", `source '/h/.claude/shell-snapshots/snapshot-bash-1-a.sh' 2>/dev/null || true && eval 'rm -rf build && go test ./... | tee /tmp/out.txt' < /dev/null && pwd -P >| /tmp/claude-9f3e-cwd`}, false)
	if err != nil {
		b.Fatal(err)
	}
	j, err := Judge(inv, dir, env)
	if err != nil {
		b.Fatal(err)
	}
	env = append(env, "GH_TOKEN=ghp_0123456789abcdef0123456789abcdef0123")
	mask := invocation.BuiltinRules().Credentials().Masker(env)
	b.ReportAllocs()
	for b.Loop() {
		d := &decision.Decision{Command: inv.Script, Dir: dir, Judgement: j, Reasons: []string{"a reason"}}
		maskDecision(d, mask)
	}
}

// BenchmarkRemoteURLs: reading the workspace's remotes for the
// allowlist and the credential broker, and the hooks directories of
// git's configuration files, once per command: with git (the file
// changed since the last command) and from the state directory's cache
// (it did not).
func BenchmarkRemoteURLs(b *testing.B) {
	git, err := exec.LookPath("git")
	if err != nil {
		b.Skip("no git")
	}
	ws := b.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/me/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"), 0o644)
	hostGit := func() (string, error) { return git, nil }
	home := b.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Me\n\temail = me@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	// What a command's spec reads: the remotes, and the hooks
	// directories of every configuration file.
	read := func(state string) {
		urls, hooks := repoSettings(ws, state, hostGit)
		gitRemotesOf(ws, state, urls)
		hooksDirs(ws, state, getenv, hostGit, hooks, rules.Builtin().GitConfigPrograms())
	}
	b.Run("git", func(b *testing.B) {
		for b.Loop() {
			read("")
		}
	})
	state := b.TempDir()
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			read(state)
		}
	})
}

// codexWrapper is Codex's wrapper (0.171) around cmd once its shell
// snapshot snap exists: keep its own variables, source the snapshot,
// put them back, exec bash -c CMD.
func codexWrapper(snap, bin, cmd string) string {
	var sb strings.Builder
	names := []string{"CODEX_THREAD_ID", "CODEX_SANDBOX", "HTTPS_PROXY", "NO_PROXY"}
	for i, n := range names {
		fmt.Fprintf(&sb, "__CODEX_SNAPSHOT_OVERRIDE_SET_%d=\"${%s+x}\"\n__CODEX_SNAPSHOT_OVERRIDE_%d=\"${%s-}\"\n", i, n, i, n)
	}
	fmt.Fprintf(&sb, "\nif . '%s' >/dev/null 2>&1; then :; fi\n\n", snap)
	for i, n := range names {
		fmt.Fprintf(&sb, "if [ -n \"${__CODEX_SNAPSHOT_OVERRIDE_SET_%d}\" ]; then export %s=\"${__CODEX_SNAPSHOT_OVERRIDE_%d}\"; else unset %s; fi\n", i, n, i, n)
	}
	fmt.Fprintf(&sb, "if [ -n \"${PATH:-}\" ]; then export PATH='%s':\"$PATH\"; else export PATH='%s'; fi\n\nexec '/bin/bash' -c '%s'\n", bin, bin, strings.ReplaceAll(cmd, "'", `'\''`))
	return sb.String()
}

// codexFullWrapper is the wrapper of scripts/bench.sh: Codex's own
// around cmd with every variable Codex keeps across its snapshot (its
// seven and the 48 of a network proxy), as it sends it with each
// command: 15 kB of the wrapper's own before the snapshot's.
func codexFullWrapper(snap, bin, cmd string) string {
	var before, after strings.Builder
	keep := func(prefix string, i int, name string) {
		fmt.Fprintf(&before, "__CODEX_SNAPSHOT_%sOVERRIDE_SET_%d=\"${%s+x}\"\n__CODEX_SNAPSHOT_%sOVERRIDE_%d=\"${%s-}\"\n", prefix, i, name, prefix, i, name)
		fmt.Fprintf(&after, "if [ -n \"${__CODEX_SNAPSHOT_%sOVERRIDE_SET_%d}\" ]; then export %s=\"${__CODEX_SNAPSHOT_%sOVERRIDE_%d}\"; else unset %s; fi\n", prefix, i, name, prefix, i, name)
	}
	for i, n := range strings.Fields("CODEX_THREAD_ID CODEX_SANDBOX CODEX_SANDBOX_NETWORK_DISABLED CODEX_MANAGED_BY_NPM CODEX_CI CODEX_HOME CODEX_PERMISSION_PROFILE") {
		keep("", i, n)
	}
	after.WriteString("if [ -n \"$__CODEX_SNAPSHOT_PROXY_ENV_SET\" ] || [ -n \"${CODEX_NETWORK_PROXY_ACTIVE+x}\" ]; then\n")
	for i, n := range strings.Fields(`ALL_PROXY BUNDLE_HTTPS_PROXY BUNDLE_HTTP_PROXY BUNDLE_NO_PROXY BUNDLE_SSL_CA_CERT CURL_CA_BUNDLE
		DOCKER_HTTPS_PROXY DOCKER_HTTP_PROXY ELECTRON_GET_USE_PROXY FTP_PROXY GIT_SSL_CAINFO GLOBAL_AGENT_HTTPS_PROXY
		GLOBAL_AGENT_HTTP_PROXY GLOBAL_AGENT_NO_PROXY HTTPS_PROXY HTTP_PROXY NODE_EXTRA_CA_CERTS NODE_USE_ENV_PROXY
		NO_PROXY NPM_CONFIG_CAFILE NPM_CONFIG_HTTPS_PROXY NPM_CONFIG_HTTP_PROXY NPM_CONFIG_NOPROXY NPM_CONFIG_PROXY
		PIP_CERT PIP_PROXY REQUESTS_CA_BUNDLE SSL_CERT_DIR SSL_CERT_FILE WSS_PROXY WS_PROXY YARN_HTTPS_PROXY
		YARN_HTTP_PROXY YARN_NO_PROXY all_proxy ftp_proxy http_proxy https_proxy no_proxy npm_config_cafile
		npm_config_https_proxy npm_config_http_proxy npm_config_noproxy npm_config_proxy pip_proxy ws_proxy wss_proxy
		yarn_https_proxy yarn_http_proxy`) {
		keep("PROXY_", i, n)
	}
	after.WriteString("fi\n")
	return before.String() + "__CODEX_SNAPSHOT_PROXY_ENV_SET=\"${CODEX_NETWORK_PROXY_ACTIVE+x}\"\n\n" +
		fmt.Sprintf("if . '%s' >/dev/null 2>&1; then :; fi\n\n", snap) + after.String() +
		fmt.Sprintf("if [ -n \"${PATH:-}\" ]; then export PATH='%s':\"$PATH\"; else export PATH='%s'; fi\n\nexec '/bin/bash' -c '%s'", bin, bin, strings.ReplaceAll(cmd, "'", `'\''`))
}

// claudeWrapper is Claude Code's wrapper around cmd (scripts/bench.sh's).
func claudeWrapper(snap, cmd string) string {
	return "source " + snap + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval '" + strings.ReplaceAll(cmd, "'", `'\''`) + "' < /dev/null && pwd -P >| /tmp/claude-9f3e-cwd"
}

// snapshotDirs is [benchDirs] with the project's Codex snapshot
// (testdata/shell-snapshots/codex-bash.sh) where Codex keeps it; it
// returns the snapshot's path too.
func snapshotDirs(b *testing.B) (string, []string, string) {
	dir, env := benchDirs(b)
	home := strings.TrimPrefix(env[0], "HOME=")
	data, err := os.ReadFile("../testdata/shell-snapshots/codex-bash.sh")
	if err != nil {
		b.Fatal(err)
	}
	snap := filepath.Join(home, ".codex", "shell_snapshots", "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b.sh")
	if err := os.MkdirAll(filepath.Dir(snap), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(snap, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, env, snap
}

// BenchmarkSourcedSnapshot judges Codex's wrapper around echo hi, its
// 59 kB shell snapshot sourced, against echo hi alone: "first" with no
// outline kept (the snapshot's first command), "later" with the one the
// first judgement kept in the state directory.
func BenchmarkSourcedSnapshot(b *testing.B) {
	home, _ := os.UserHomeDir()
	state, err := os.MkdirTemp(home, ".cordon-bench-")
	if err != nil {
		b.Skip(err)
	}
	defer os.RemoveAll(state)
	setup := func(b *testing.B) (string, []string, string) {
		dir, env, snap := snapshotDirs(b)
		return dir, append(env, "XDG_STATE_HOME="+state), snap
	}
	b.Run("echo", func(b *testing.B) {
		dir, env, _ := setup(b)
		benchJudge(b, []string{"bash", "-lc", "echo hi"}, dir, env)
	})
	// (The snapshot's __git_eread holds a carriage return in single
	// quotes, IFS=$'\r\n' as declare -f prints it: read alike by bash
	// and the judge, so it does not ask.)
	b.Run("first", func(b *testing.B) {
		dir, env, snap := setup(b)
		invocation.BuiltinRules()
		inv, err := invocation.Decode([]string{"bash", "-lc", codexWrapper(snap, "/h/.codex/tmp/arg0/codex-arg0Xq1w2e", "echo hi")}, false)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			os.RemoveAll(filepath.Join(state, "cordon", "outlines"))
			b.StartTimer()
			if j, err := Judge(inv, dir, env); err != nil || j.Verdict != rules.Allow {
				b.Fatalf("verdict %v, err %v", j.Verdict, err)
			}
		}
	})
	b.Run("later", func(b *testing.B) {
		dir, env, snap := setup(b)
		benchJudgeVerdict(b, []string{"bash", "-lc", codexWrapper(snap, "/h/.codex/tmp/arg0/codex-arg0Xq1w2e", "echo hi")}, dir, env, rules.Allow)
	})
	// Whole wrappers as agents send them (scripts/bench.sh's rows), the
	// outline kept.
	b.Run("codex", func(b *testing.B) {
		dir, env, snap := setup(b)
		benchJudgeVerdict(b, []string{"bash", "-lc", codexFullWrapper(snap, "/h/.codex/tmp/arg0/codex-arg0Xq1w2e", "echo hi")}, dir, env, rules.Allow)
	})
	b.Run("claude", func(b *testing.B) {
		dir, env, snap := setup(b)
		benchJudgeVerdict(b, []string{"bash", "-c", claudeWrapper(snap, "echo hi")}, dir, env, rules.Allow)
	})
}

// BenchmarkSourcedSnapshotShim is what a one-shot shim does before it
// execs the sandbox (the context, the decision, the confinement: see
// [BenchmarkShimOneShot]) for echo hi and for Codex's wrapper around it,
// the snapshot's outline kept: the shim resolves the sandbox policy for
// either, so this is the snapshot's cost to a command.
func BenchmarkSourcedSnapshotShim(b *testing.B) {
	home, _ := os.UserHomeDir()
	state, err := os.MkdirTemp(home, ".cordon-bench-")
	if err != nil {
		b.Skip(err)
	}
	defer os.RemoveAll(state)
	for _, c := range []struct{ name, script string }{{"echo", "echo hi"}, {"codex", ""}} {
		b.Run(c.name, func(b *testing.B) {
			dir, env, snap := snapshotDirs(b)
			env = append(env, "XDG_STATE_HOME="+state)
			script := c.script
			if script == "" {
				script = codexWrapper(snap, "/h/.codex/tmp/arg0/codex-arg0Xq1w2e", "echo hi")
			}
			argv := []string{"bash", "-lc", script}
			invocation.BuiltinRules()
			inv, err := invocation.Decode(argv, false)
			if err != nil {
				b.Fatal(err)
			}
			opts := &ConfineOptions{Inspect: true, Invoked: "bash"}
			b.ReportAllocs()
			for b.Loop() {
				ctx, err := NewContext(dir, env, nil)
				if err != nil {
					b.Fatal(err)
				}
				// As the shim: the confinement made for an allowed
				// command, from within the decision.
				ctx.Prepare = func() (*Confinement, error) { return ctx.Confine(opts) }
				if d := ctx.Decide(Request{Shell: "bash", Mode: "command", Text: invocation.QuoteArgv(argv), Inv: inv}); d.Verdict != decision.Allow || d.Error != "" {
					b.Skip(d.Verdict, d.Error)
				}
			}
		})
	}
}

package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// rulePlaces are the guarded places of the built-in rules relative to a
// workspace's root (as a ledger of this repository's clone held them,
// 2026-12-06): most are not there in a given project.
var rulePlaces = []string{".git/hooks", ".git/info/attributes", ".git/commondir", ".git/modules/*/**/hooks",
	".git/modules/*/**/commondir", ".git/worktrees/*/commondir", ".husky", ".envrc", ".vscode/tasks.json",
	".vscode/settings.json", ".vscode/launch.json", ".idea/workspace.xml", ".cordon", ".claude/settings.json",
	".claude/settings.local.json", ".claude/hooks", ".cursor/rules", ".pre-commit-config.yaml", ".mcp.json",
	".cursor/mcp.json", ".vscode/mcp.json", ".cursor/hooks.json", ".codex", ".gemini/settings.json",
	".idea/runConfigurations", ".aider.conf.yml", ".zed/settings.json", ".helix/languages.toml", ".npmrc",
	".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".mise.toml", "mise.toml", ".mise.local.toml", "mise.local.toml",
	".mise.*.toml", "mise.*.toml", ".mise", "mise/config.toml", ".config/mise", ".config/mise.toml",
	".tool-versions", ".cargo/config.toml", ".cargo/config", "rust-toolchain.toml", "rust-toolchain",
	"bunfig.toml", ".bundle/config", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml",
	".devcontainer/devcontainer.json", ".devcontainer.json", "tools/bazel", ".bazeliskrc", ".bazelversion",
	".mvn/jvm.config", ".mvn/maven.config", ".mvn/extensions.xml"}

// placesWorkspace is [benchWorkspace] guarding every place of
// rulePlaces, a few of them there (and files of the project beside).
func placesWorkspace(t testing.TB) (ws string, patterns []string) {
	ws, _, _ = benchWorkspace(t)
	for _, d := range []string{".vscode", ".cargo", "tools", "src", "docs", ".mise"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	for _, f := range []string{".vscode/settings.json", ".cargo/config.toml", "tools/bazel", ".mise.dev.toml",
		"mise.toml", ".npmrc", "README.md", "go.mod", "src/main.go", ".mise/config.toml"} {
		os.WriteFile(filepath.Join(ws, f), []byte(f+"\n"), 0o644)
	}
	for _, p := range rulePlaces {
		patterns = append(patterns, filepath.Join(ws, p))
	}
	return ws, patterns
}

// TestSnapshotRootListed: a snapshot that lists the workspace's root
// once (a pattern there is a glob) and leaves out the names not in it
// records what looking each one up records.
func TestSnapshotRootListed(t *testing.T) {
	ws, patterns := placesWorkspace(t)
	w := &walker{out: state{}, budget: maxTotal}
	w.patterns(ws, patterns)
	if w.rootNames == nil {
		t.Fatal("the root was not listed for the snapshot")
	}
	looked := &walker{out: state{}, budget: maxTotal}
	// Each pattern on its own: no listing kept from one to the next.
	for _, p := range patterns {
		looked.rootNames = nil
		looked.patterns(ws, []string{p})
	}
	if !reflect.DeepEqual(w.out, looked.out) {
		t.Fatalf("the snapshot with the root listed differs:\n%v\nlooked up:\n%v", keys(w.out), keys(looked.out))
	}
	for _, want := range []string{".vscode/settings.json", ".cargo/config.toml", "tools/bazel", ".mise.dev.toml", "mise.toml", ".npmrc", ".mise/config.toml", ".git/hooks"} {
		if w.out[filepath.Join(ws, want)] == nil {
			t.Errorf("%s was not recorded", want)
		}
	}
	// A reconcile lists nothing ahead: it changes what it walks.
	r := &walker{trusted: w.out, q: nil, ws: ws}
	r.patterns(ws, patterns)
	if r.rootNames != nil {
		t.Error("a reconcile kept a listing of the root")
	}
}

func keys(st state) []string {
	var out []string
	for p := range st {
		out = append(out, p)
	}
	return out
}

// BenchmarkSnapshotPlaces is the trusted state's walk of the built-in
// rules' guarded places, a few of them there, as a ticket takes it.
func BenchmarkSnapshotPlaces(b *testing.B) {
	ws, patterns := placesWorkspace(b)
	hint := snapshot(ws, patterns, nil)
	for b.Loop() {
		snapshot(ws, patterns, hint)
	}
}

// BenchmarkHoldReleasePlaces is [BenchmarkHoldRelease] with the built-in
// rules' guarded places and the configuration of three more repositories
// (scratch ones, say) beside the workspace's own.
func BenchmarkHoldReleasePlaces(b *testing.B) {
	ws, patterns := placesWorkspace(b)
	state := filepath.Join(b.TempDir(), "state")
	p := &platform.Policy{Workspace: ws, Env: []string{"PATH=/usr/bin:/bin"}, Guarded: patterns,
		GitConfig: []string{ws + "/.git/config"}, RootGuarded: rulePlaces, RootGitConfig: []string{".git/config"}}
	for i := range 3 {
		repo := filepath.Join(b.TempDir(), "scratch"+strconv.Itoa(i))
		if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
			b.Skipf("git init: %v\n%s", err, out)
		}
		p.GitConfig = append(p.GitConfig, repo+"/.git/config")
	}
	c := WatchChanges(p, time.Now())
	defer c.Stop()
	c.Appeared()
	for b.Loop() {
		if lines, err := HoldWatched(state, p, c); err != nil || len(lines) > 0 {
			b.Fatalf("hold: %v %v", lines, err)
		}
		if lines, err := Release(state, ws); err != nil || len(lines) > 0 {
			b.Fatalf("release: %v %v", lines, err)
		}
	}
}

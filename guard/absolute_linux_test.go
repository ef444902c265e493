package guard

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// configTree makes a workspace with a repository, its submodules' git
// directories, nested repositories and a link among them, and returns it
// with the patterns of their configuration files, as the ledger has them.
func configTree(t testing.TB) (string, []string) {
	ws := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(ws, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/config", "[user]\n\tname = a\n")
	write(".git/modules/a/config", "[user]\n\tname = sub a\n")
	write(".git/modules/a/config.worktree", "[user]\n\tname = wt a\n")
	write(".git/modules/b/config", "[user]\n\tname = sub b\n")
	var pats []string
	for _, r := range []string{"", "lib/x", "lib/y", "vendor/z"} {
		if r != "" {
			write(filepath.Join(r, ".git/config"), "[user]\n\tname = "+r+"\n")
		}
		g := filepath.Join(ws, r, ".git")
		pats = append(pats, g+"/config", g+"/config.worktree", g+"/modules/*/config", g+"/modules/*/config.worktree")
	}
	os.Symlink(filepath.Join(ws, "lib"), filepath.Join(ws, "linked"))
	pats = append(pats, filepath.Join(ws, "linked/x/.git/config"))
	return ws, pats
}

// TestConfigsSharedDirs: the configuration files' walk, which opens the
// directories on the way once for all patterns, records what a walk of
// each pattern alone records: every submodule's files under a directory
// two patterns list, no file through a link.
func TestConfigsSharedDirs(t *testing.T) {
	ws, pats := configTree(t)
	all := snapshotConfigs(pats)
	alone := state{}
	for _, p := range pats {
		maps.Copy(alone, snapshotConfigs([]string{p}))
	}
	if len(all) != 7 || !maps.EqualFunc(all, alone, func(a, b *entry) bool { return string(a.Data) == string(b.Data) }) {
		t.Errorf("walked together: %v\nalone: %v", keysOf(all), keysOf(alone))
	}
	for _, f := range []string{".git/modules/a/config.worktree", ".git/modules/b/config", "lib/y/.git/config"} {
		if all[filepath.Join(ws, f)] == nil {
			t.Errorf("%s not recorded", f)
		}
	}
}

// TestConfigsSharedDirsPutBack: once something is put back, the patterns
// after it are walked from the root again, not through a directory kept
// open that was moved to the quarantine meanwhile (a directory a command
// put where a configuration file was, holding more of them).
func TestConfigsSharedDirsPutBack(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "a")
	const base = "[user]\n\tname = a\n"
	os.WriteFile(file, []byte(base), 0o644)
	pats := []string{filepath.Join(dir, "a/b/config"), file, filepath.Join(dir, "a/b/config2")}
	trusted := snapshotConfigs(pats)
	os.Remove(file)
	os.MkdirAll(filepath.Join(file, "b"), 0o755)
	for _, n := range []string{"config", "config2"} {
		os.WriteFile(filepath.Join(file, "b", n), []byte("[core]\n\tpager = touch /tmp/pwned\n"), 0o644)
	}
	lines := reconcileConfigs(pats, trusted, &keyGuard{git: git, safe: testSafe}, newQuarantine(t.TempDir()))
	if data, err := os.ReadFile(file); err != nil || string(data) != base {
		t.Errorf("the trusted file is not back: %q %v", data, err)
	}
	// One line for a/b/config, one for a; a/b/config2 went with a.
	if len(lines) != 2 || !strings.Contains(lines[1], "replaced by something other than a file") {
		t.Errorf("want two lines, got %q", lines)
	}
}

func keysOf(s state) []string { return slices.Sorted(maps.Keys(s)) }

// BenchmarkConfigsShared is the configuration files' part of a ticket
// taken and given back in a workspace with three nested repositories
// (17 patterns): a snapshot, and a reconcile that finds nothing changed.
func BenchmarkConfigsShared(b *testing.B) {
	_, pats := configTree(b)
	g := &keyGuard{git: "/nonexistent", safe: testSafe}
	b.ReportAllocs()
	for b.Loop() {
		trusted := snapshotConfigs(pats)
		if lines := reconcileConfigs(pats, trusted, g, nil); len(lines) != 0 {
			b.Fatal(lines)
		}
	}
}

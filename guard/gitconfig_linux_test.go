package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/platform"
)

var testSafe = []string{"user.*", "remote.*.url", "remote.*.fetch", "branch.*.merge", "core.bare"}

// TestConfigKeys changes a configuration file in the ways an attacker
// might hide a key git runs (case, subsections, old syntax, a BOM,
// continuation lines, quoting, includes) and checks that git's own
// reading of it decides: code-running keys undone, the rest kept.
func TestConfigKeys(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	const base = "[core]\n\tbare = false\n[user]\n\tname = a\n"
	for _, c := range []struct {
		name, after string
		kept        bool
		key         string // in the line when undone
	}{
		{"safe key", base + "[remote \"o\"]\n\turl = https://x\n\tfetch = +refs/heads/*:refs/remotes/o/*\n", true, ""},
		{"safe old syntax", base + "[remote.o]\n\turl = x\n", true, ""},
		{"safe value that looks like a key", base + "[user]\n\temail = \"x\\n[core]\\n\\tfsmonitor = y\"\n", true, ""},
		{"continued value", base + "[user]\n\temail = a \\\n\tfsmonitor = touch /tmp/x\n", true, ""},
		{"comment", base + "[user] ; [core] fsmonitor = x\n\temail = b # pager = x\n", true, ""},
		{"removed safe key", "[core]\n\tbare = false\n", true, ""},
		{"plain", base + "[core]\n\tfsmonitor = touch /tmp/x\n", false, "core.fsmonitor added"},
		{"mixed case", base + "[Core]\n\tFSMonitor = touch /tmp/x\n", false, "core.fsmonitor added"},
		{"subsection", base + "[core \"x\"]\n\tpager = a\n", false, "core.x.pager added"},
		{"old-style subsection", base + "[core.x]\n\tpager = a\n", false, "core.x.pager added"},
		{"same line", "[core] bare = false\n[user] name = a\n[core] hooksPath = /tmp\n", false, "core.hookspath added"},
		{"bom", "\xef\xbb\xbf" + base + "[alias]\n\tx = !sh\n", false, "alias.x added"},
		{"continued key", base + "[core]\n\tsshCommand = touch \\\n/tmp/x\n", false, "core.sshcommand added"},
		{"include", base + "[include]\n\tpath = ../evil\n", false, "include.path added"},
		{"includeIf", base + "[includeIf \"gitdir:/\"]\n\tpath = ../evil\n", false, "includeif.gitdir:/.path added"},
		{"bare boolean", base + "[core]\n\tfsmonitor\n", false, "core.fsmonitor added"},
		{"unreadable", base + "[core\n", false, "cannot read"},
		{"mixed", base + "[user]\n\temail = b\n[core]\n\tpager = x\n", false, "(core.pager added): its change to the file was undone, the safe keys' too (user.email: set them again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "config")
			if err := os.WriteFile(file, []byte(base), 0o644); err != nil {
				t.Fatal(err)
			}
			pats := []string{file}
			trusted := snapshotConfigs(pats)
			if trusted[file] == nil {
				t.Fatal("not recorded")
			}
			os.WriteFile(file, []byte(c.after), 0o644)
			lines := reconcileConfigs(pats, trusted, &keyGuard{git: git, safe: testSafe}, newQuarantine(t.TempDir()))
			data, _ := os.ReadFile(file)
			if c.kept {
				if len(lines) != 0 || string(data) != c.after || string(trusted[file].Data) != c.after {
					t.Errorf("a safe change was not kept: %q\n%s", lines, data)
				}
				return
			}
			if string(data) != base || string(trusted[file].Data) != base {
				t.Errorf("not undone: %q", data)
			}
			if len(lines) != 1 || !strings.Contains(lines[0], c.key) {
				t.Errorf("want one line naming %q, got %q", c.key, lines)
			}
		})
	}
}

// Without a git to read it with, any change is undone; a file replaced
// by a link, linked elsewhere, or made writable by others is undone;
// one made where there was none, with a safe key, is kept.
func TestConfigReplaced(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	const base = "[user]\n\tname = a\n"
	for name, c := range map[string]struct {
		git    string
		change func(file string)
		why    string
	}{
		"no git":    {"", func(f string) { os.WriteFile(f, []byte(base+"\temail = b\n"), 0o644) }, "no git outside"},
		"symlink":   {git, func(f string) { os.Remove(f); os.Symlink("/etc/hostname", f) }, "symbolic link"},
		"hard link": {git, func(f string) { os.Link(f, f+".2") }, "linked to another file"},
		"writable":  {git, func(f string) { os.Chmod(f, 0o666) }, "writable by others"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "config")
			os.WriteFile(file, []byte(base), 0o644)
			trusted := snapshotConfigs([]string{file})
			c.change(file)
			lines := reconcileConfigs([]string{file}, trusted, &keyGuard{git: c.git, safe: testSafe}, newQuarantine(t.TempDir()))
			fi, err := os.Lstat(file)
			data, _ := os.ReadFile(file)
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 || string(data) != base {
				t.Errorf("not undone: %v %v %q", fi.Mode(), err, data)
			}
			if len(lines) != 1 || !strings.Contains(lines[0], c.why) {
				t.Errorf("want a line saying %q, got %q", c.why, lines)
			}
		})
	}
	// A new file (a submodule's) with safe keys only is kept and trusted.
	dir := t.TempDir()
	file := filepath.Join(dir, ".git", "modules", "m", "config")
	pats := []string{filepath.Join(dir, ".git", "modules", "*", "config")}
	trusted := snapshotConfigs(pats)
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(base), 0o644)
	if lines := reconcileConfigs(pats, trusted, &keyGuard{git: git, safe: testSafe}, newQuarantine(t.TempDir())); len(lines) != 0 || trusted[file] == nil {
		t.Errorf("a new safe file was not kept: %q", lines)
	}
	// A submodule's core.worktree: kept inside the workspace (dir), not
	// outside it, nor through a link that leads outside.
	os.Symlink("/etc", filepath.Join(dir, "out"))
	for value, kept := range map[string]bool{"../../../sub": true, dir + "/sub": true, "../../../../": false, "/etc": false, "../../../out/x": false, "": false} {
		os.WriteFile(file, []byte(base), 0o644)
		trusted = snapshotConfigs(pats)
		os.WriteFile(file, []byte(base+"[core]\n\tworktree = "+value+"\n"), 0o644)
		lines := reconcileConfigs(pats, trusted, &keyGuard{git: git, safe: append([]string{"core.worktree=@workspace"}, testSafe...), ws: dir}, newQuarantine(t.TempDir()))
		if got := len(lines) == 0; got != kept {
			t.Errorf("core.worktree = %q: kept %v, want %v (%q)", value, got, kept, lines)
		}
	}
	// A bare repository's below the root (not in a .git): its work tree
	// would be the person's directory, even inside the workspace.
	bare := filepath.Join(dir, "src", "config")
	os.MkdirAll(filepath.Dir(bare), 0o755)
	bpats := []string{bare}
	btrusted := snapshotConfigs(bpats)
	os.WriteFile(bare, []byte(base+"[core]\n\tworktree = .\n"), 0o644)
	if lines := reconcileConfigs(bpats, btrusted, &keyGuard{git: git, safe: append([]string{"core.worktree=@workspace"}, testSafe...), ws: dir}, newQuarantine(t.TempDir())); len(lines) != 1 {
		t.Errorf("a bare repository's core.worktree was kept: %q", lines)
	}
	// Then removed with an unsafe key in it: put back.
	os.WriteFile(file, []byte(base+"[core]\n\tpager = x\n"), 0o644)
	trusted = snapshotConfigs(pats)
	os.Remove(file)
	lines := reconcileConfigs(pats, trusted, &keyGuard{git: git, safe: testSafe}, newQuarantine(t.TempDir()))
	if _, err := os.Stat(file); err != nil || len(lines) != 1 || !strings.Contains(lines[0], "core.pager removed") {
		t.Errorf("a removed file holding core.pager was not put back: %v %q", err, lines)
	}
}

// BenchmarkConfigUnchanged is the guard's added cost per command when
// git's configuration did not change: finding the host's git, a snapshot
// when the command starts and a comparison of bytes when it ends (no git
// run).
func BenchmarkConfigUnchanged(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "config")
	os.WriteFile(file, []byte("[core]\n\tbare = false\n[user]\n\tname = a\n[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"), 0o644)
	pats := []string{file, filepath.Join(dir, "config.worktree"), filepath.Join(dir, "modules", "*", "config")}
	g := &keyGuard{git: "/nonexistent", safe: testSafe}
	for b.Loop() {
		platform.FindProgram("git", os.Getenv("PATH"), []string{dir}, platform.AgentSince)
		trusted := snapshotConfigs(pats)
		if lines := reconcileConfigs(pats, trusted, g, nil); len(lines) != 0 {
			b.Fatal(lines)
		}
	}
}

// BenchmarkConfigChanged is the cost when a command changed a safe key:
// both versions read by the host's git.
func BenchmarkConfigChanged(b *testing.B) {
	git, err := exec.LookPath("git")
	if err != nil {
		b.Skip("no git")
	}
	dir := b.TempDir()
	file := filepath.Join(dir, "config")
	base := "[core]\n\tbare = false\n[user]\n\tname = a\n"
	os.WriteFile(file, []byte(base), 0o644)
	pats := []string{file}
	g := &keyGuard{git: git, safe: testSafe}
	for b.Loop() {
		os.WriteFile(file, []byte(base), 0o644)
		trusted := snapshotConfigs(pats)
		os.WriteFile(file, []byte(base+"\temail = b\n"), 0o644)
		if lines := reconcileConfigs(pats, trusted, g, nil); len(lines) != 0 {
			b.Fatal(lines)
		}
	}
}

// BenchmarkConfigWatch is starting and stopping the watch of git's
// configuration (its inotify descriptor is closed when the process ends,
// so run it with -benchtime=100x: a user has 128 of them).
func BenchmarkConfigWatch(b *testing.B) {
	ws := b.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	pats := []string{filepath.Join(ws, ".git/config"), filepath.Join(ws, ".git/config.worktree"), filepath.Join(ws, ".git/modules/*/config")}
	for b.Loop() {
		watchConfigs(b.TempDir(), ws, pats, say)()
	}
}

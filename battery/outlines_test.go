//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutlinesOutOfReach: the outline the shim keeps of a sourced shell
// snapshot (parse/outline.go) is in the state directory, where no
// command the sandbox confines can change it or add one: a program the
// judge lets run (a Perl script of the workspace's, which the judge does
// not read) tries to overwrite it, plant another beside it, remove it
// and replace its directory, on each backend; the next judgement of the
// snapshot still reads the outline the shim kept.
func TestOutlinesOutOfReach(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			e := newDecideEnv(t, backend, "")
			data, err := os.ReadFile("../testdata/shell-snapshots/codex-bash.sh")
			if err != nil {
				t.Fatal(err)
			}
			snap := filepath.Join(e.home, ".codex", "shell_snapshots", "019a0b1c-2d3e-7f40-8a5b-6c7d8e9f0a1b.sh")
			os.MkdirAll(filepath.Dir(snap), 0o755)
			mustWrite(t, snap, strings.ReplaceAll(string(data), "\r", ""), 0o644)
			wrapped := codexWrap(snap, filepath.Join(e.base, "vendor", "codex-path"), "echo hi")
			if stderr, code := e.sh(t, wrapped); code != 0 {
				t.Fatalf("Codex's wrapper around echo hi: exit %d\n%s", code, stderr)
			}
			dir := filepath.Join(e.state, "outlines")
			kept, _ := filepath.Glob(filepath.Join(dir, "*"))
			if len(kept) != 1 {
				t.Fatalf("outlines kept: %v", kept)
			}
			before, _ := os.ReadFile(kept[0])
			mustWrite(t, filepath.Join(e.ws, "w.pl"), `use strict;
my ($dir, $file) = @ARGV;
my $got = 0;
if (open(my $f, '>', $file)) { print $f "cordon-outline-cache 1\n"; close $f; print "overwrote\n"; $got = 1 }
if (open(my $f, '>', "$dir/planted")) { close $f; print "planted\n"; $got = 1 }
if (unlink $file) { print "removed\n"; $got = 1 }
if (rename($dir, "$dir.x")) { print "moved\n"; $got = 1 }
if (mkdir("$dir.new") && rename("$dir.new", $dir)) { print "replaced\n"; $got = 1 }
exit($got ? 0 : 3);
`, 0o644)
			stderr, code := e.sh(t, "perl w.pl "+dir+" "+kept[0])
			if code != 3 {
				t.Errorf("the sandboxed program: exit %d, want 3 (nothing reached)\n%s", code, stderr)
			}
			after, _ := os.ReadFile(kept[0])
			now, _ := filepath.Glob(filepath.Join(dir, "*"))
			if string(after) != string(before) || len(now) != 1 {
				t.Errorf("the outlines changed: %v", now)
			}
			if stderr, code := e.sh(t, wrapped); code != 0 {
				t.Fatalf("again: exit %d\n%s", code, stderr)
			}
		})
	}
}

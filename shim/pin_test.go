package shim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/rules"
)

// TestPinRewritten: a script file rewritten by another process after it
// was read for judging is found changed just before the shell would run
// it, and so is one that appeared or disappeared; an untouched one is not.
func TestPinRewritten(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.sh")
	if err := os.WriteFile(script, []byte("echo one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := pinFile(script)
	if why := p.changed(); why != "" {
		t.Fatalf("untouched script: changed() = %q", why)
	}
	// Another process rewrites it in place, keeping its size.
	if out, err := exec.Command("/bin/sh", "-c", `printf 'rm -rf ~\n' > "$1"`, "sh", script).CombinedOutput(); err != nil {
		t.Fatalf("rewrite: %v %s", err, out)
	}
	if why := p.changed(); !strings.Contains(why, "changed after it was judged") {
		t.Errorf("rewritten script: changed() = %q", why)
	}

	missing := pinFile(filepath.Join(dir, "later.sh"))
	if why := missing.changed(); why != "" {
		t.Fatalf("still missing: changed() = %q", why)
	}
	if err := os.WriteFile(filepath.Join(dir, "later.sh"), []byte("rm -rf ~\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if why := missing.changed(); why == "" {
		t.Errorf("a script that appeared after judging is not found changed")
	}
	if missing.digest() != "unreadable" || p.digest() == missing.digest() {
		t.Errorf("digests %q %q", p.digest(), missing.digest())
	}
}

// TestJudgePinnedBytes: the judge judges the bytes the shim read and will
// compare before the shell runs, not whatever the file holds when the
// judge gets to it.
func TestJudgePinnedBytes(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.sh")
	if err := os.WriteFile(script, []byte("echo harmless\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + filepath.Join(dir, "home"), "PATH=/usr/bin:/bin"}
	inv, err := invocation.Decode([]string{"bash", "s.sh"}, false)
	if err != nil {
		t.Fatal(err)
	}
	ws := decide.WorkspaceChoice{Dir: dir}
	if j := decide.JudgeWith(invocation.BuiltinRules(), inv, dir, env, ws, false, false, nil, nil, nil, nil, nil); j.Verdict != rules.Allow {
		t.Fatalf("the file on disk: %v %v", j.Verdict, j.Reasons)
	}
	inv.Pinned = map[string][]byte{script: []byte("rm -rf ~\n")}
	if j := decide.JudgeWith(invocation.BuiltinRules(), inv, dir, env, ws, false, false, nil, nil, nil, nil, nil); j.Verdict != rules.Deny {
		t.Errorf("the pinned bytes: %v %v, want deny", j.Verdict, j.Reasons)
	}
}

// BenchmarkPin is what pinning adds to bash FILE: the read before
// judging, the digest an approval binds, and the read before the shell
// runs (a 4 KiB script).
func BenchmarkPin(b *testing.B) {
	script := filepath.Join(b.TempDir(), "s.sh")
	if err := os.WriteFile(script, []byte(strings.Repeat("echo some line of a script\n", 4096/27)), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p := pinFile(script)
		_ = p.digest()
		if p.changed() != "" {
			b.Fatal("changed")
		}
	}
}

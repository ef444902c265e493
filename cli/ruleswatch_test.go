package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRulesWatch: cordon rules watch reports a reload and a rejected
// edit, with its file and line, as they happen, and stops when told.
func TestRulesWatch(t *testing.T) {
	cfg := t.TempDir()
	rulesDir := filepath.Join(cfg, "cordon", "rules")
	env := []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + cfg, "CORDON_SYSTEM_DIR=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- watchRules(ctx, t.TempDir(), env, out) }()

	waitFor := func(pattern string) {
		t.Helper()
		re := regexp.MustCompile(pattern)
		for start := time.Now(); !re.MatchString(out.String()); time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 2*time.Second {
				t.Fatalf("no %q in:\n%s", pattern, out)
			}
		}
	}
	waitFor(`(?m)^watching: (\d+) policies from .*` + regexp.QuoteMeta(rulesDir) + `.* \(until interrupted\)$`)

	if err := os.MkdirAll(rulesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(rulesDir, "mine.yaml")
	rule := "version: 1\npolicies:\n  - id: mine\n    effect: [delete]\n    target: [workspace]\n    verdict: deny\n    category: destroy-ws\n    message: no\n"
	if err := os.WriteFile(file, []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(`(?m)^\S+ reloaded: \d+ policies from .*` + regexp.QuoteMeta(rulesDir))
	if err := os.WriteFile(file, []byte("version: 1\npolicies:\n  - id: x\n    bogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(`(?m)^\S+ rejected: .*` + regexp.QuoteMeta(file) + `:4: .*bogus.*; rules unchanged$`)

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("watchRules did not stop")
	}
}

func TestRulesUsage(t *testing.T) {
	if code, _, errOut := runMain("rules"); code != exitUsage || errOut == "" {
		t.Errorf("cordon rules = %d, %q", code, errOut)
	}
	if code, _, errOut := runMain("rules", "nope"); code != exitUsage || !regexp.MustCompile(`unknown rules command "nope"`).MatchString(errOut) {
		t.Errorf("cordon rules nope = %d, %q", code, errOut)
	}
	if code, out, _ := runMain("rules", "watch", "-h"); code != exitOK || !regexp.MustCompile(`^usage: cordon rules watch`).MatchString(out) {
		t.Errorf("cordon rules watch -h = %d, %q", code, out)
	}
}

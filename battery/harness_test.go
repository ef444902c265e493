//go:build linux

package battery

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cordonsh/cordon/sessionbox"
)

// A harness is what a battery test runs cordon in: a fake home, settings
// and state directory outside every writable path, and a workspace. Its
// backend is a settings backend ("none", "bwrap", "landlock"), with
// "/session" for one sandbox per agent session ("bwrap/session").
type harness struct {
	base, home, config, rules, ws string
	env                           []string
}

func newHarness(t testing.TB, backend string) *harness {
	backend, sandboxSession := strings.CutSuffix(backend, "/session")
	t.Helper()
	needShell(t, "bash")
	base := batteryBase(t)
	t.Cleanup(func() { os.RemoveAll(base) })
	e := &harness{base: base, home: filepath.Join(base, "home"), config: filepath.Join(base, "config"),
		ws: filepath.Join(t.TempDir(), "ws")}
	e.rules = filepath.Join(e.config, "cordon", "rules")
	for _, d := range []string{e.home, filepath.Join(e.config, "cordon"), e.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := "version: 1\nsandbox:\n  backend: " + backend + "\n"
	if err := os.WriteFile(filepath.Join(e.config, "cordon", "config.yaml"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	e.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "LC_ALL=C", "XDG_CONFIG_HOME=" + e.config,
		"XDG_STATE_HOME=" + filepath.Join(base, "state")}
	if sandboxSession {
		e.env = append(e.env, "CORDON_SESSION=env-"+filepath.Base(base))
		t.Cleanup(func() { sessionbox.Stop(filepath.Join(base, "state", "cordon")) })
	}
	return e
}

// A syncBuffer collects a process's output written from several goroutines.
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

//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCachesPrivateFromInside: a command started inside a cache (its
// current directory ~/.npm/_npx/abc, where an agent's shell may have
// gone) writes the cache by a relative path, and reads a credential
// hidden below a cache the same way. The private layer over the cache,
// and the mask over the credential, are mounted once the process is
// already in the directory: unless it enters it again, it stays on the
// host's cache below them: with bwrap's read-only cache below the
// layer, the command could not write its cache at all.
func TestCachesPrivateFromInside(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.skipWithoutMounts()
			files := map[string]string{
				".npm/_npx/abc/run.sh":     "echo person\n",
				".cache/huggingface/token": secret,
			}
			for name, data := range files {
				p := filepath.Join(b.home, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run := func(dir, script string) string {
				cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "on", "--", b.bash, "-c", script)
				cmd.Dir, cmd.Env = dir, b.env
				out, _ := cmd.CombinedOutput()
				b.noSandbox(string(out))
				return string(out)
			}
			out := run(filepath.Join(b.home, ".npm/_npx/abc"), "echo 'touch pwned' >> run.sh; pwd")
			if strings.Contains(out, "Read-only") {
				t.Errorf("a command started inside a cache cannot write it (its private layer):\n%s", out)
			}
			b.unchanged(filepath.Join(b.home, ".npm/_npx/abc/run.sh"), "echo person\n")
			out = run(filepath.Join(b.home, ".cache/huggingface"), "cat token")
			if strings.Contains(out, secret) {
				t.Errorf("a credential hidden below a cache read from inside its directory:\n%s", out)
			}
		})
	}
}

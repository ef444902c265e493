//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxMissingCaches: a brand-new user has none of the caches the
// rules make writable; the first command that uses one (npm install
// making ~/.npm) must find it writable on both backends, while a link
// out of the home and a directory others can write stay as they are.
func TestSandboxMissingCaches(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			outside := filepath.Join(b.base, "outside")
			os.Symlink(outside, filepath.Join(b.home, ".m2"))
			os.Mkdir(filepath.Join(b.home, ".gradle"), 0o700)
			os.Chmod(filepath.Join(b.home, ".gradle"), 0o777)
			// The tools whose caches are made, installed (as far as
			// cordon looks: on PATH); bun is not.
			bin := filepath.Join(b.base, "bin")
			os.MkdirAll(bin, 0o755)
			for _, tool := range []string{"npm", "cargo", "go"} {
				os.WriteFile(filepath.Join(bin, tool), []byte("#!/bin/sh\n"), 0o755)
			}
			for i, kv := range b.env {
				if strings.HasPrefix(kv, "PATH=") {
					b.env[i] = "PATH=" + os.Getenv("PATH") + ":" + bin
				}
			}
			out, code := b.run("on", `set -e
mkdir -p ~/.npm/_cacache && echo npm > ~/.npm/_cacache/x && cat ~/.npm/_cacache/x
echo cargo > ~/.cargo/registry/y && cat ~/.cargo/registry/y
mkdir -p ~/go/pkg/sumdb/sum.golang.org && echo go > ~/go/pkg/sumdb/sum.golang.org/latest && cat ~/go/pkg/sumdb/sum.golang.org/latest`)
			if code != 0 || out != "npm\ncargo\ngo\n" {
				t.Fatalf("the missing caches are not writable (exit %d):\n%s", code, out)
			}
			fi, err := os.Stat(filepath.Join(b.home, ".npm"))
			if err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("~/.npm: %v %v, want mode 0700", fi, err)
			}
			b.absent(filepath.Join(b.home, ".npm/_cacache/x")) // written to the sandbox's private layer
			b.mustFail("writing through ~/.m2, a link out of the home", "mkdir -p ~/.m2/repository && echo x > ~/.m2/repository/f")
			b.mustFail("writing in ~/.gradle, which others can write", "mkdir -p ~/.gradle/caches")
			b.absent(filepath.Join(outside, "repository"))
			b.absent(filepath.Join(b.home, ".gradle/caches"))
			if _, err := os.Lstat(filepath.Join(b.home, ".bun")); err == nil && !onHostPath("bun") {
				t.Error("~/.bun was made, for a tool that is not installed")
			}
			// Still nothing else of the home: the caches only.
			b.mustFail("writing the home", "echo x > ~/.npmfoo")
			if strings.Contains(out, "cordon") {
				t.Errorf("cordon printed something: %s", out)
			}
		})
	}
}

// onHostPath reports whether program is on this process's PATH.
func onHostPath(program string) bool {
	_, err := exec.LookPath(program)
	return err == nil
}

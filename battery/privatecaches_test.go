//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCachesPrivate: a command can fill the tools' caches, reading what
// the person's cache holds, but what it writes there (a package npx
// runs, a module, a build cache entry) never reaches the host's cache:
// the person's next npx, go build or script run from the cache runs
// the person's code. A credential below a cache stays hidden, and the
// command's own writes are there for its next command.
func TestCachesPrivate(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			marker := filepath.Join(b.base, "ran-on-host")
			files := map[string]string{
				".npm/_npx/abc/run.sh":                 "echo person\n",
				"go/pkg/mod/example.com/m@v1.0.0/m.sh": "echo module\n",
				".cache/go-build/ab/entry":             "object\n",
				".cache/huggingface/token":             secret,
			}
			for name, data := range files {
				p := filepath.Join(b.home, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A module cache's files and directories are read-only to
			// their owner; go writes new ones beside them.
			os.Chmod(filepath.Join(b.home, "go/pkg/mod/example.com/m@v1.0.0/m.sh"), 0o444)
			os.Chmod(filepath.Join(b.home, "go/pkg/mod/example.com/m@v1.0.0"), 0o555)
			t.Cleanup(func() { os.Chmod(filepath.Join(b.home, "go/pkg/mod/example.com/m@v1.0.0"), 0o755) })

			out, code := b.run("on", `set -e
cat ~/.npm/_npx/abc/run.sh ~/go/pkg/mod/example.com/m@v1.0.0/m.sh ~/.cache/go-build/ab/entry
echo 'touch `+marker+`' >> ~/.npm/_npx/abc/run.sh
chmod u+w ~/go/pkg/mod/example.com/m@v1.0.0 ~/go/pkg/mod/example.com/m@v1.0.0/m.sh
echo 'touch `+marker+`' > ~/go/pkg/mod/example.com/m@v1.0.0/m.sh
rm ~/.cache/go-build/ab/entry
mkdir -p ~/.cache/corepack/v1 && echo 'touch `+marker+`' > ~/.cache/corepack/v1/pnpm.sh
echo done`)
			if code != 0 || out != "echo person\necho module\nobject\ndone\n" {
				t.Fatalf("the caches cannot be read and written in the sandbox (exit %d):\n%s", code, out)
			}
			out, code = b.run("on", `cat ~/.npm/_npx/abc/run.sh ~/go/pkg/mod/example.com/m@v1.0.0/m.sh ~/.cache/corepack/v1/pnpm.sh; ls ~/.cache/go-build/ab`)
			if code != 0 || strings.Count(out, "touch "+marker) != 3 {
				t.Errorf("a command's writes to the caches are gone for its next command (exit %d):\n%s", code, out)
			}
			b.unchanged(filepath.Join(b.home, ".npm/_npx/abc/run.sh"), "echo person\n")
			b.unchanged(filepath.Join(b.home, "go/pkg/mod/example.com/m@v1.0.0/m.sh"), "echo module\n")
			b.unchanged(filepath.Join(b.home, ".cache/go-build/ab/entry"), "object\n")
			b.absent(filepath.Join(b.home, ".cache/corepack"))
			// The person's tools run from their caches: nothing of the
			// agent's.
			// (/bin/sh: the battery's PATH starts with cordon's shims.)
			b.host(`/bin/sh ~/.npm/_npx/abc/run.sh; /bin/sh ~/go/pkg/mod/example.com/m@v1.0.0/m.sh`)
			b.absent(marker)

			// A repository in a cache reached through a link (pre-commit's
			// clone of a hook repository, ~/.cache on another disk) is no
			// workspace: its files are the host's cache.
			disk := filepath.Join(b.base, "cachedisk")
			repo := filepath.Join(disk, "pre-commit", "repo1")
			os.MkdirAll(repo, 0o755)
			os.WriteFile(filepath.Join(repo, "hook.sh"), []byte("echo hook\n"), 0o644)
			os.Rename(filepath.Join(b.home, ".cache"), filepath.Join(b.base, "old-cache"))
			os.Symlink(disk, filepath.Join(b.home, ".cache"))
			t.Cleanup(func() { os.Remove(filepath.Join(b.home, ".cache")) })
			if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			run := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "on", "--", b.bash, "-c", "echo 'touch "+marker+"' >> hook.sh")
			run.Dir, run.Env = filepath.Join(b.home, ".cache", "pre-commit", "repo1"), b.env
			ran, _ := run.CombinedOutput()
			b.noSandbox(string(ran))
			b.unchanged(filepath.Join(repo, "hook.sh"), "echo hook\n")
			os.Remove(filepath.Join(b.home, ".cache"))
			os.Rename(filepath.Join(b.base, "old-cache"), filepath.Join(b.home, ".cache"))

			b.mustFail("reading a credential below a cache", "cat ~/.cache/huggingface/token")
			// bwrap is the command's pid 1: its mount namespace, under
			// the one with the layers, is at /proc/1/root.
			b.mustFail("reading a credential below a cache through pid 1's root", "cat /proc/1/root$HOME/.cache/huggingface/token")
			// The layers' directory (named in the overlays' options) is
			// out of reach, there and through pid 1's root: a link put in
			// it would be followed by the host's cordon at the next start.
			planted := filepath.Join(b.home, "made-by-host-cordon")
			out, _ = b.run("on", `for d in $(grep -o '[^ ,=]*/caches/[0-9a-f]*/[0-9]*' /proc/self/mountinfo | sort -u); do
  for r in "" /proc/1/root; do
    ls -d "$r$d" 2>/dev/null && echo reached
    ln -sf `+planted+` "$r$d/lock" 2>/dev/null && echo planted
    mv "$r$d" "$r$d.x" 2>/dev/null && echo moved
  done
done; true`)
			if strings.Contains(out, "reached") || strings.Contains(out, "planted") || strings.Contains(out, "moved") {
				t.Errorf("the caches' private layers are within reach:\n%s", out)
			}
			b.run("on", "true")
			b.absent(planted)
			b.mustFail("reading the caches' private layers", "ls -R ~/.local/state/cordon/caches/*")
			out, _ = b.run("on", "grep ^Cap /proc/self/status")
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if _, v, _ := strings.Cut(line, ":"); strings.Trim(strings.TrimSpace(v), "0") != "" {
					t.Errorf("the command holds capabilities: %s", out)
					break
				}
			}
		})
	}
}

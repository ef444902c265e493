//go:build unix

package decide

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/invocation"
)

func TestMakeCaches(t *testing.T) {
	home := t.TempDir()
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(home, ".m2"))
	os.Mkdir(filepath.Join(home, ".gradle"), 0o700)
	os.Chmod(filepath.Join(home, ".gradle"), 0o777) // anyone could swap what is below
	os.WriteFile(filepath.Join(home, ".npm"), nil, 0o600)
	makeCaches([]string{"~/.cache -", "~/.cargo/registry -", "~/.m2/repository -", "~/.gradle/caches -", "~/.npm -", "/abs -", "$X/y -", "~/../escape -", "~/a* -"}, home, "")
	for _, dir := range []string{".cache", ".cargo", ".cargo/registry"} {
		fi, err := os.Lstat(filepath.Join(home, dir))
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("~/%s: %v %v, want a directory of mode 0700", dir, fi, err)
		}
	}
	for _, p := range []string{filepath.Join(outside, "repository"), filepath.Join(home, ".gradle/caches"), filepath.Join(filepath.Dir(home), "escape")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	if fi, err := os.Lstat(filepath.Join(home, ".npm")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("~/.npm, a file, was replaced: %v %v", fi, err)
	}
}

// A HOME that names a system directory is nobody's home: nothing is made
// there, even when this user owns it (root and /srv).
func TestMakeCachesSystemHome(t *testing.T) {
	for _, home := range []string{"/srv", "/var/lib", "/"} {
		fi, err := os.Stat(home)
		if err != nil || !fi.IsDir() {
			continue
		}
		name := ".cordon-test-cache-" + filepath.Base(t.TempDir())
		p := filepath.Join(home, name)
		makeCaches([]string{"~/" + name + " -"}, home, "")
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("HOME=%s: %s was made", home, p)
		}
	}
}

// BenchmarkMakeCaches is the cost on every command once the caches
// exist: one lstat per entry.
func BenchmarkMakeCaches(b *testing.B) {
	home := b.TempDir()
	entries := invocation.BuiltinRules().Paths().MadeCaches
	makeCaches(entries, home, os.Getenv("PATH"))
	b.ReportAllocs()
	for b.Loop() {
		makeCaches(entries, home, os.Getenv("PATH"))
	}
}

// TestMakeCachesInstalled: a cache is made only for a tool found on PATH,
// so that a home does not fill with the empty caches of tools it lacks.
func TestMakeCachesInstalled(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "bun"), []byte("not a program"), 0o644)
	makeCaches([]string{"~/go/pkg/mod go", "~/go/pkg/sumdb go", "~/.bun/install/cache bun", "~/.m2/repository mvn", "~/.cache -"}, home, "relative:"+bin)
	for _, dir := range []string{"go/pkg/mod", "go/pkg/sumdb", ".cache"} {
		if fi, err := os.Stat(filepath.Join(home, dir)); err != nil || !fi.IsDir() {
			t.Errorf("~/%s was not made: %v", dir, err)
		}
	}
	for _, dir := range []string{".bun", ".m2"} {
		if _, err := os.Lstat(filepath.Join(home, dir)); err == nil {
			t.Errorf("~/%s was made for a tool that is not installed", dir)
		}
	}
}

// A program named by two entries is looked for once: both its caches are
// made when it is on PATH, neither when it is not.
func TestMakeCachesProgramTwice(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "cargo"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	makeCaches([]string{"~/.cargo/registry cargo", "~/.pnpm-store pnpm", "~/.cargo/git cargo", "~/.local/share/pnpm/store pnpm"}, home, "relative:"+bin)
	for dir, want := range map[string]bool{".cargo/registry": true, ".cargo/git": true, ".pnpm-store": false, ".local/share/pnpm/store": false} {
		if _, err := os.Lstat(filepath.Join(home, dir)); (err == nil) != want {
			t.Errorf("~/%s made: %v, want %v", dir, err == nil, want)
		}
	}
}

//go:build unix

package decide

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	makeCaches([]string{"~/.cache -", "~/.cargo/registry -", "~/.m2/repository -", "~/.gradle/caches -", "~/.npm -", "/abs -", "$X/y -", "~/../escape -", "~/a* -"}, home, "", "")
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
		makeCaches([]string{"~/" + name + " -"}, home, "", "")
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("HOME=%s: %s was made", home, p)
		}
	}
}

// BenchmarkMakeCaches is the cost on every command: "exist", once the
// caches exist, one lstat per entry; "absent", where the caches of tools
// not installed are missing (the common case: a home has the caches of
// a few of the tools cordon knows), a look through PATH for each of
// those tools, here on a PATH of twelve directories, one named twice,
// and a relative entry.
func BenchmarkMakeCaches(b *testing.B) {
	entries := invocation.BuiltinRules().Paths().MadeCaches
	b.Run("exist", func(b *testing.B) {
		home := b.TempDir()
		makeCaches(entries, home, os.Getenv("PATH"), "")
		b.ReportAllocs()
		for b.Loop() {
			makeCaches(entries, home, os.Getenv("PATH"), "")
		}
	})
	b.Run("absent", func(b *testing.B) {
		home := b.TempDir()
		var dirs []string
		for range 12 {
			dirs = append(dirs, b.TempDir())
		}
		path := strings.Join(append(dirs, "bin", dirs[2]), string(os.PathListSeparator))
		makeCaches(entries, home, path, "")
		b.ReportAllocs()
		for b.Loop() {
			makeCaches(entries, home, path, "")
		}
	})
}

// onPath finds each program in the first directory of PATH that holds it
// as an executable regular file, and looks at absolute directories only.
func TestOnPath(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "npm"), []byte("#!/bin/sh\n"), 0o644) // not executable
	os.WriteFile(filepath.Join(b, "npm"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(c, "go"), []byte("#!/bin/sh\n"), 0o755)
	os.Mkdir(filepath.Join(a, "mvn"), 0o755) // a directory
	t.Chdir(c)
	os.Mkdir("rel", 0o755)
	os.WriteFile(filepath.Join(c, "rel", "bun"), []byte("#!/bin/sh\n"), 0o755)
	programs := []string{"npm", "go", "mvn", "bun", "rel/bun", "", "cargo", "npm"}
	for _, c := range []struct {
		path string
		want string
	}{
		{strings.Join([]string{a, a + "/", b, "rel", c, b}, string(os.PathListSeparator)), "go npm"},
		{strings.Join([]string{a, "rel", "", a}, string(os.PathListSeparator)), ""},
		{c, "go"},
		{"", ""},
	} {
		var got []string
		for p, on := range onPath(programs, c.path) {
			if on {
				got = append(got, p)
			}
		}
		slices.Sort(got)
		if strings.Join(got, " ") != c.want {
			t.Errorf("onPath(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

// An entry made below another missing one leaves nothing to make for it:
// both are there, each once.
func TestMakeCachesNested(t *testing.T) {
	home := t.TempDir()
	makeCaches([]string{"~/.cache/pip -", "~/.cache -", "~/.cache/pip -"}, home, "", "")
	if fi, err := os.Lstat(filepath.Join(home, ".cache", "pip")); err != nil || !fi.IsDir() {
		t.Errorf("~/.cache/pip was not made: %v", err)
	}
}

// TestMakeCachesInstalled: a cache is made only for a tool found on PATH,
// so that a home does not fill with the empty caches of tools it lacks.
func TestMakeCachesInstalled(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "bun"), []byte("not a program"), 0o644)
	makeCaches([]string{"~/go/pkg/mod go", "~/go/pkg/sumdb go", "~/.bun/install/cache bun", "~/.m2/repository mvn", "~/.cache -"}, home, "relative:"+bin, "")
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
	makeCaches([]string{"~/.cargo/registry cargo", "~/.pnpm-store pnpm", "~/.cargo/git cargo", "~/.local/share/pnpm/store pnpm"}, home, "relative:"+bin, "")
	for dir, want := range map[string]bool{".cargo/registry": true, ".cargo/git": true, ".pnpm-store": false, ".local/share/pnpm/store": false} {
		if _, err := os.Lstat(filepath.Join(home, dir)); (err == nil) != want {
			t.Errorf("~/%s made: %v, want %v", dir, err == nil, want)
		}
	}
}

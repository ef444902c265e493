package gitindex

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/internal/filestamp"
)

// TestGitlinks compares Gitlinks with git's own listing, for each index
// version git writes.
func TestGitlinks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			dir := t.TempDir()
			git := func(args ...string) string {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			git("init", "-q")
			for _, f := range []string{"a.txt", "lib/b.go", "lib/deep/c.go", "zz"} {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
			}
			git("add", "-A")
			sha := strings.Repeat("ab", 20)
			for _, p := range []string{"sub", "lib/dep", "lib/deep/er/nested", "vendor/x"} {
				git("update-index", "--add", "--cacheinfo", "160000,"+sha+","+p)
			}
			if version == "2" {
				// A split index: the entries in .git/sharedindex.*.
				git("update-index", "--split-index")
			}
			if version == "3" {
				os.WriteFile(filepath.Join(dir, "later"), []byte("x"), 0o644)
				git("add", "-N", "later") // an extended flag: version 3
			}
			git("update-index", "--index-version", version)
			var want []string
			for _, line := range strings.Split(git("ls-files", "-s"), "\n") {
				if f := strings.Fields(line); len(f) == 4 && f[0] == "160000" {
					want = append(want, f[3])
				}
			}
			got, err := Gitlinks(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) || len(want) != 4 {
				t.Errorf("gitlinks %q, git says %q", got, want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x02" + strings.Repeat("\x00", 80)))
	f.Fuzz(func(t *testing.T, data []byte) {
		Parse(data) // must not panic or loop
	})
}

// TestGitlinksChanged: the answer kept for an index is not given for the
// index git wrote since.
func TestGitlinksChanged(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	index := filepath.Join(dir, ".git", "index")
	for i, p := range []string{"one", "two", "three"} {
		cmd := exec.Command("git", "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("cd", 20)+","+p)
		if i == 0 {
			cmd = exec.Command("sh", "-c", "git init -q && "+strings.Join(cmd.Args, " "))
		}
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		got, err := Gitlinks(index)
		if err != nil || len(got) != i+1 {
			t.Fatalf("after %d gitlinks: %q, %v", i+1, got, err)
		}
	}
}

// TestGitlinksPadded: an index made larger than anything cordon would
// read whole, by an extension git ignores, still gives its gitlinks.
func TestGitlinksPadded(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", "git init -q && git update-index --add --cacheinfo 160000,"+strings.Repeat("ef", 20)+",z/sub")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	index := filepath.Join(dir, ".git", "index")
	data, _ := os.ReadFile(index)
	body := data[:len(data)-20] // (the checksum: not read)
	ext := append([]byte("ZZZZ\x01\x10\x00\x00"), make([]byte, 17<<20)...)
	os.WriteFile(index, append(append(body, ext...), make([]byte, 20)...), 0o644)
	got, err := Gitlinks(index)
	if err != nil || len(got) != 1 || got[0] != "z/sub" {
		t.Errorf("padded index: %q, %v", got, err)
	}
}

// BenchmarkParse reads the index of a repository of 2,000 files, in each
// version git writes: what every command pays to find the workspace's
// nested repositories when git has rewritten the index since.
func BenchmarkParse(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	for _, version := range []string{"2", "4"} {
		b.Run("v"+version, func(b *testing.B) {
			dir := b.TempDir()
			git := func(stdin string, args ...string) {
				b.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("", "init", "-q")
			var info strings.Builder
			for i := range 2000 {
				fmt.Fprintf(&info, "100644 %s\tsrc/package%d/module/file_%d.go\n", strings.Repeat("ab", 20), i/20, i)
			}
			fmt.Fprintf(&info, "160000 %s\tsrc/vendor/dep\n", strings.Repeat("cd", 20))
			git(info.String(), "update-index", "--add", "--index-info")
			git("", "update-index", "--index-version", version)
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if links, err := Parse(data); err != nil || len(links) != 1 {
					b.Fatalf("%q, %v", links, err)
				}
			}
		})
	}
}

// TestGitlinksSharedChanged: the answer kept for a split index is not
// given once the shared index beside it changed, the index itself the
// same (git never reads a shared index's checksum: a command can write
// one in place).
func TestGitlinksSharedChanged(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	run := func(dir, script string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	dir, other := t.TempDir(), t.TempDir()
	run(dir, "git init -q && git update-index --add --cacheinfo 160000,"+strings.Repeat("cd", 20)+",sub && git update-index --split-index")
	run(other, "git init -q && git update-index --add --cacheinfo 160000,"+strings.Repeat("ef", 20)+",vendor/dep")
	shared, _ := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
	if len(shared) != 1 {
		t.Fatalf("shared indexes %q", shared)
	}
	index := filepath.Join(dir, ".git", "index")
	time.Sleep(filestamp.Margin + 100*time.Millisecond) // old enough for a stamp
	if got, err := Gitlinks(index); err != nil || !slices.Equal(got, []string{"sub"}) {
		t.Fatalf("gitlinks %q, %v; want [sub]", got, err)
	}
	data, err := os.ReadFile(filepath.Join(other, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Gitlinks(index); err != nil || !slices.Contains(got, "vendor/dep") {
		t.Errorf("after the shared index changed: gitlinks %q, %v; want vendor/dep among them", got, err)
	}
}

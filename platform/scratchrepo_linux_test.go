package platform

import (
	"os"
	"slices"
	"testing"
)

// TestScratchRepositoryShut: a sandboxed command could chmod 0 a
// person's clone in /tmp (or its .git), both the user's own; the next
// command's sandbox found no repository there, so laid nothing over its
// hooks, and that command made it enterable again and added a hook
// (which the person's next git commit ran). Such a directory must be
// covered, or its hooks read-only, whether the repositories are looked
// for with the policy or later, where the sandbox is made.
func TestScratchRepositoryShut(t *testing.T) {
	root := tree(t, "home/", "tmp/clone/.git/HEAD", "tmp/other/.git/HEAD")
	tmp := root + "/tmp"
	for _, d := range []string{tmp + "/clone", tmp + "/other/.git"} {
		if err := os.Chmod(d, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, 0o755) })
	}
	for _, deferred := range []bool{false, true} {
		p, err := NewPolicy(&Spec{Scratch: []string{tmp}, DeferScratchRepos: deferred}, []string{"HOME=" + root + "/home"})
		if err != nil {
			t.Fatal(err)
		}
		p.FindScratchRepositories()
		for _, c := range []struct{ dir, git string }{{tmp + "/clone", tmp + "/clone/.git"}, {tmp + "/other/.git", tmp + "/other/.git"}} {
			if !slices.Contains(p.Hidden, c.dir) && !slices.Contains(p.ReadOnly, c.git+"/hooks") {
				t.Errorf("deferred %v: %s, shut by its owner, is neither covered nor its hooks read-only: hidden %q, read-only %q", deferred, c.dir, p.Hidden, p.ReadOnly)
			}
		}
	}
}

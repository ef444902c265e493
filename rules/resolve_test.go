package rules

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveRemembered checks that resolving with the directories
// remembered ([Env.resolve]) gives what [resolve] gives, links and
// missing paths included, and that what it learns of a file is what
// [Env.stat] finds.
func TestResolveRemembered(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ws/sub", "other"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "ws/f"), nil, 0o644)
	os.WriteFile(filepath.Join(root, "other/t"), nil, 0o644)
	os.Symlink(filepath.Join(root, "other"), filepath.Join(root, "ws/dirlink"))
	os.Symlink(filepath.Join(root, "other/t"), filepath.Join(root, "ws/filelink"))
	os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "ws/dangling"))
	os.Symlink("ws", filepath.Join(root, "wslink"))
	ws := filepath.Join(root, "ws")
	for _, dir := range []string{ws, filepath.Join(root, "wslink"), filepath.Join(root, "wslink/sub")} {
		for _, p := range []string{"f", "o1.log", "sub", "sub/", "dirlink", "dirlink/", "dirlink/t", "filelink",
			"dangling", "dangling/x", "missing/x/y", "f/x", "../other/t", "/", root + "/wslink/filelink", "", "."} {
			for _, keep := range []bool{false, true} {
				e := &Env{Workspace: ws}
				want := resolve(p, dir, keep)
				// Twice: the second time from what was remembered.
				for range 2 {
					if got := e.resolve(p, dir, keep); got != want {
						t.Errorf("resolve(%q, %q, %v) = %q, want %q", p, dir, keep, got, want)
					}
				}
				if want == "" {
					continue
				}
				fresh := &Env{}
				if got, want := e.stat(want), fresh.stat(want); got != want {
					t.Errorf("stat(%q) after resolving %q = %v, want %v", want, p, got, want)
				}
			}
		}
	}
}

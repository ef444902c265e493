package platform

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNewPolicyLinkedHooks: a hook that is a link to a tracked script
// (ln -s ../../scripts/pre-commit .git/hooks/pre-commit), a hooks
// directory entry that is a link to a directory of the workspace
// (husky's _), a link whose target is missing, a chain of links and a
// link to the workspace itself: what each leads to in the workspace is
// read-only (when it exists) and guarded, as .git/hooks is; the
// workspace itself is neither, nor is a place outside the writable
// roots.
func TestNewPolicyLinkedHooks(t *testing.T) {
	root := tree(t, "home/", "ws/.git/HEAD", "ws/.git/hooks/", "ws/scripts/pre-commit", "ws/scripts/chained",
		"ws/tools/husky/h", "ws/tools/husky/deep/x", "ws/other/y", "outside/hook")
	ws := filepath.Join(root, "ws")
	hooks := filepath.Join(ws, ".git/hooks")
	links := map[string]string{
		hooks + "/pre-commit":       "../../scripts/pre-commit",
		hooks + "/_":                "../../tools/husky",
		ws + "/tools/husky/deep/z":  "../../../other/y",
		hooks + "/pre-push":         "../../scripts/missing",
		hooks + "/post-merge":       "../../scripts/step",
		ws + "/scripts/step":        "chained",
		hooks + "/post-checkout":    "../..",
		hooks + "/post-rewrite":     "../../../outside/hook",
		ws + "/scripts/unreachable": "pre-commit",
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	s := &Spec{Workspace: ws, ReadOnly: []string{".git/hooks/"}}
	p, err := NewPolicy(s, []string{"HOME=" + filepath.Join(root, "home")})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scripts/pre-commit", "tools/husky", "other/y", "scripts/chained"} {
		path := filepath.Join(ws, want)
		if !slices.Contains(p.ReadOnly, path) {
			t.Errorf("%s, a hook's link's target, is not read-only: %q", want, p.ReadOnly)
		}
		if !slices.Contains(p.Guarded, path) {
			t.Errorf("%s, a hook's link's target, is not guarded: %q", want, p.Guarded)
		}
	}
	missing := filepath.Join(ws, "scripts/missing")
	if slices.Contains(p.ReadOnly, missing) || !slices.Contains(p.Guarded, missing) {
		t.Errorf("a missing target is to be guarded, not read-only: %q, %q", p.ReadOnly, p.Guarded)
	}
	for _, not := range []string{ws, filepath.Join(root, "outside/hook"), filepath.Join(ws, "scripts/step")} {
		if slices.Contains(p.ReadOnly, not) || slices.Contains(p.Guarded, not) {
			t.Errorf("%s is kept: %q, %q", not, p.ReadOnly, p.Guarded)
		}
	}
}

// TestLinkedPlacesBound: past maxLinkedEntries entries of a read-only
// directory, no more are looked at.
func TestLinkedPlacesBound(t *testing.T) {
	ws := tree(t, "hooks/", "scripts/")
	for i := range maxLinkedEntries + 10 {
		name := filepath.Join("scripts", "s"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		os.WriteFile(filepath.Join(ws, name), nil, 0o644)
		os.Symlink("../"+name, filepath.Join(ws, "hooks", filepath.Base(name)))
	}
	var r resolver
	ro, _ := r.linkedPlaces(ws, []string{filepath.Join(ws, "hooks")}, []string{ws})
	if len(ro) != maxLinkedEntries {
		t.Errorf("%d places kept, want %d", len(ro), maxLinkedEntries)
	}
}

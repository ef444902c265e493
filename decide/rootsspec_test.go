package decide

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestWritableRootsWithoutRemotes: the writable roots are resolved from
// the spec without the repository's remotes (which they do not depend
// on), so that a judgement that only asks whether a file is installed
// software reads no remotes; the whole spec, asked for after, is the one
// a fresh context makes, remotes and all, and the roots are the policy's.
func TestWritableRootsWithoutRemotes(t *testing.T) {
	home, err := os.MkdirTemp(os.Getenv("HOME"), ".cordon-roots-")
	if err != nil {
		t.Skipf("no directory to make outside scratch space: %v", err)
	}
	defer os.RemoveAll(home)
	home, _ = filepath.EvalSymlinks(home)
	ws := filepath.Join(home, "proj")
	mkdirs(t, filepath.Join(ws, ".git"))
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/me/app.git\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	ctx, err := NewContext(ws, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Workspace.Dir != ws {
		t.Skipf("workspace %q, want %q", ctx.Workspace.Dir, ws)
	}
	roots, err := ctx.WritableRoots()
	if err != nil {
		t.Fatal(err)
	}
	if ctx.specRemotes || ctx.spec.GitRemotes != nil {
		t.Errorf("the writable roots read the remotes: %v", ctx.spec.GitRemotes)
	}
	spec, _ := ctx.Spec()
	if !slices.Contains(spec.GitRemotes, "github.com/me/app.git") {
		t.Errorf("the spec asked for after the roots has remotes %v", spec.GitRemotes)
	}
	fresh, err := NewContext(ws, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fresh.Spec()
	if !reflect.DeepEqual(spec, want) {
		t.Errorf("spec after the roots:\n %+v\nfresh:\n %+v", spec, want)
	}
	p, err := fresh.Policy()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(roots, p.WritableRoots()) {
		t.Errorf("roots %v, the policy's %v", roots, p.WritableRoots())
	}
}

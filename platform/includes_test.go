package platform

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestIncludes reads the places an auto-run file's directives name.
func TestIncludes(t *testing.T) {
	root := t.TempDir()
	envrc := `# direnv
source_env_if_exists .envrc.local
  PATH_add "bin"   # scripts
path_add PYTHONPATH lib
PATH_add node_modules/.bin
PATH_add $HOME/bin
source_env ../outside
load_prefix ./tools
dotenv
layout python
`
	if err := os.WriteFile(filepath.Join(root, ".envrc"), []byte(envrc), 0o644); err != nil {
		t.Fatal(err)
	}
	directives := []string{".envrc source_env 1 file", ".envrc source_env_if_exists 1 file", ".envrc PATH_add 1 dir", ".envrc path_add 2 dir", ".envrc load_prefix 1 dir", "bad entry"}
	got := includes(root, directives, []string{"node_modules", "*.egg-info"})
	want := []string{".envrc.local", "bin", "lib", "tools"}
	if !slices.Equal(got, want) {
		t.Errorf("includes = %q, want %q", got, want)
	}
	// A link is followed, as direnv does; something other than a file is
	// not read.
	os.Remove(filepath.Join(root, ".envrc"))
	os.WriteFile(filepath.Join(root, "real"), []byte(envrc), 0o644)
	os.Symlink("real", filepath.Join(root, ".envrc"))
	if got := includes(root, directives, nil); len(got) != 5 {
		t.Errorf("through a link: %q", got)
	}
	os.Remove(filepath.Join(root, ".envrc"))
	os.Symlink("/dev/zero", filepath.Join(root, ".envrc"))
	if got := includes(root, directives, nil); len(got) != 0 {
		t.Errorf("a device: %q", got)
	}
}

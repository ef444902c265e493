package gitkey

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

func TestInclude(t *testing.T) {
	for key, want := range map[string]bool{
		"include.path":                     true,
		"Include.Path":                     true,
		"includeif.gitdir:~/work/.path":    true,
		"includeIf.onbranch:main.path":     true,
		"includeif.hasconfig:remote.*.url": false,
		"core.path":                        false,
		"include.other":                    false,
	} {
		if got := Include(key); got != want {
			t.Errorf("Include(%q) = %v", key, got)
		}
	}
}

func TestPath(t *testing.T) {
	for _, tt := range [][4]string{
		{"../.gitconfig", "/w/.git", "/h", "/w/.gitconfig"},
		{"~/x/c", "/w/.git", "/h", "/h/x/c"},
		{"/abs//c", "/w", "/h", "/abs/c"},
		{"nested", "/w", "/h", "/w/nested"},
	} {
		if got, err := Path(tt[0], tt[1], tt[2], ""); err != nil || got != tt[3] {
			t.Errorf("Path(%q, %q, %q) = %q, want %q", tt[0], tt[1], tt[2], got, tt[3])
		}
	}
}

// TestPathUserAndPrefix: ~user/ is that user's home, %(prefix)/ is
// below git's installation; what is not known here is an error, not a
// path (one include resolver for the guard and gitcred alike).
func TestPathUserAndPrefix(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	if got, err := Path("~"+u.Username+"/c", "/w", "/h", ""); err != nil || got != filepath.Join(u.HomeDir, "c") {
		t.Errorf("~%s/c = %q, %v", u.Username, got, err)
	}
	if _, err := Path("~no-such-user-here/c", "/w", "/h", ""); err == nil {
		t.Error("an unknown user's home was given a path")
	}
	dir := t.TempDir()
	git := filepath.Join(dir, "bin", "git")
	os.MkdirAll(filepath.Dir(git), 0o755)
	os.WriteFile(git, nil, 0o755)
	if got, err := Path("%(prefix)/etc/gitconfig", "/w", "/h", git); err != nil || got != filepath.Join(dir, "etc", "gitconfig") {
		t.Errorf("%%(prefix)/etc/gitconfig = %q, %v", got, err)
	}
	if _, err := Path("%(prefix)/x", "/w", "/h", ""); err == nil {
		t.Error("%(prefix) with no git was given a path")
	}
}

// TestIncluded: every include, whatever its condition, resolved as git
// resolves it; a bare key or an empty value names none.
func TestIncluded(t *testing.T) {
	es := []Entry{
		{Key: "include.path", Value: "../.gitconfig"},
		{Key: "includeif.gitdir:/x/.path", Value: "~/inc"},
		{Key: "include.path", Bare: true},
		{Key: "include.path", Value: ""},
		{Key: "core.hookspath", Value: "h"},
	}
	got := Included(es, "/w/.git/config", "/h", "")
	want := []string{"/w/.gitconfig", "/h/inc"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Included = %v, want %v", got, want)
	}
}

package gitkey

import "testing"

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
		if got := Path(tt[0], tt[1], tt[2]); got != tt[3] {
			t.Errorf("Path(%q, %q, %q) = %q, want %q", tt[0], tt[1], tt[2], got, tt[3])
		}
	}
}

package rules

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestLstatTypeAsOS: lstatType tells what os.Lstat tells, as far as the
// judgement reads it: a directory, a symlink, anything else, or an error
// (a missing file's being fs.ErrNotExist).
func TestLstatTypeAsOS(t *testing.T) {
	dir := t.TempDir()
	file, sub := filepath.Join(dir, "f"), filepath.Join(dir, "d")
	os.WriteFile(file, []byte("x"), 0o644)
	os.Mkdir(sub, 0o755)
	os.Symlink(file, filepath.Join(dir, "to-file"))
	os.Symlink(sub, filepath.Join(dir, "to-dir"))
	os.Symlink(filepath.Join(dir, "none"), filepath.Join(dir, "dangling"))
	for _, name := range []string{"f", "d", "to-file", "to-dir", "dangling", "none", "f/below", "d/", "to-dir/", ""} {
		p := filepath.Join(dir, name)
		if name == "d/" || name == "to-dir/" {
			p += "/"
		}
		mode, err := lstatType(p)
		fi, oserr := os.Lstat(p)
		if (err == nil) != (oserr == nil) || errors.Is(err, fs.ErrNotExist) != errors.Is(oserr, fs.ErrNotExist) {
			t.Errorf("%s: error %v, os.Lstat's %v", name, err, oserr)
			continue
		}
		if oserr != nil {
			continue
		}
		if mode.IsDir() != fi.IsDir() || mode&fs.ModeSymlink != fi.Mode()&fs.ModeSymlink {
			t.Errorf("%s: mode %v, os.Lstat's %v", name, mode, fi.Mode())
		}
	}
}

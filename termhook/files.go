package termhook

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordonsh/cordon/internal/atomicfile"
)

//go:embed scripts
var scripts embed.FS

// Files are the set-up files of the shells, written into a directory the
// sandbox can read but not write.
type Files struct {
	BashRc  string // bash's --rcfile
	ZDotDir string // zsh's ZDOTDIR
}

// Write writes the set-up files under dir (made when missing), leaving
// those already as they should be untouched, and returns where they are.
func Write(dir string) (*Files, error) {
	f := &Files{BashRc: filepath.Join(dir, "bashrc"), ZDotDir: filepath.Join(dir, "zsh")}
	want := map[string]string{
		f.BashRc:                              "scripts/bashrc.bash",
		filepath.Join(f.ZDotDir, ".zshenv"):   "scripts/zsh/zshenv",
		filepath.Join(f.ZDotDir, ".zprofile"): "scripts/zsh/zprofile",
		filepath.Join(f.ZDotDir, ".zshrc"):    "scripts/zsh/zshrc",
		filepath.Join(f.ZDotDir, ".zlogin"):   "scripts/zsh/zlogin",
		filepath.Join(f.ZDotDir, "hook.zsh"):  "scripts/zsh/hook.zsh",
	}
	if err := os.MkdirAll(f.ZDotDir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot write the terminal's set-up files: %w", err)
	}
	for path, name := range want {
		data, err := scripts.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := atomicfile.Write(path, data); err != nil {
			return nil, fmt.Errorf("cannot write the terminal's set-up files: %w", err)
		}
	}
	return f, nil
}

//go:build unix

package layers_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/rules/layers"
)

// TestProjectFilesMustBeRegularAndInside: a project's rule file that is
// a FIFO, a device, too large or a link out of the workspace fails the
// load with its name, at once (no hang, no read of the target).
func TestProjectFilesMustBeRegularAndInside(t *testing.T) {
	secretFile := filepath.Join(t.TempDir(), "id_rsa")
	os.WriteFile(secretFile, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600)
	for name, create := range map[string]func(p string) error{
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"device":  func(p string) error { return os.Symlink("/dev/zero", p) },
		"outside": func(p string) error { return os.Symlink(secretFile, p) },
		"large":   func(p string) error { return os.WriteFile(p, make([]byte, 2<<20), 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			m := newMachine(t)
			dir := filepath.Join(m.ws, ".cordon")
			os.MkdirAll(dir, 0o755)
			p := filepath.Join(dir, "x.yaml")
			if err := create(p); err != nil {
				t.Fatal(err)
			}
			_, err := layers.Load(m.ws, m.getenv, decide.JudgeExample)
			if err == nil || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "BEGIN") {
				t.Errorf("Load: %v", err)
			}
		})
	}
}

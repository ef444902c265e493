package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHoldStillGlobalInclude: the person's own git configuration (their
// ~/.gitconfig, outside the workspace: no watch of the session sees it)
// comes to include a workspace file between two commands. The file is
// then git configuration as much as .git/config, and a command's write
// to it (core.fsmonitor) must be put back at its end: the next ticket
// reads the includes again, though nothing changed in the workspace.
func TestHoldStillGlobalInclude(t *testing.T) {
	for _, watched := range []bool{false, true} {
		name := "full"
		if watched {
			name = "watched"
		}
		t.Run(name, func(t *testing.T) {
			s := newStillSession(t)
			global := filepath.Join(t.TempDir(), "gitconfig")
			os.WriteFile(global, []byte("[user]\n\tname = p\n"), 0o644)
			s.p.Env = append(s.p.Env, "GIT_CONFIG_GLOBAL="+global, "HOME="+t.TempDir())
			s.p.Writable = []string{s.ws}
			if !watched {
				s.c.Stop()
				s.c = nil
			}
			s.command(func() {})
			s.command(func() {})
			shared := filepath.Join(s.ws, "shared.gitconfig")
			os.WriteFile(shared, []byte("[core]\n\tautocrlf = false\n"), 0o644)
			s.command(func() {}) // (the person's shared file, trusted)
			s.command(func() {})
			// The person, outside the workspace, between two commands.
			os.WriteFile(global, []byte("[user]\n\tname = p\n[include]\n\tpath = "+shared+"\n"), 0o644)
			s.command(func() {
				f, err := os.OpenFile(shared, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString("\tfsmonitor = touch pwned\n")
				f.Close()
			})
			if data, _ := os.ReadFile(shared); strings.Contains(string(data), "fsmonitor") {
				t.Errorf("core.fsmonitor a command wrote to a file the person's global configuration includes is there after its end:\n%s", data)
			}
		})
	}
}

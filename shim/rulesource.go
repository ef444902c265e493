package shim

import (
	"os"
	"path/filepath"
	"sort"

	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/ruleyaml"
)

// loadRules is where long-lived consumers (a persistent session, cordon
// rules watch) get their rules for a workspace: the directories to watch
// and the function that loads the rules from them.
//
// TEMPORARY: userRules stands in for the layered loader (built-in →
// system → user → project, DESIGN §6). Switching is this one line:
//
//	var loadRules = func(ws string, env []string) ([]string, func() (*rules.Set, error)) {
//		return loader.Dirs(ws, envLookup(env)), func() (*rules.Set, error) { return loader.Load(ws, envLookup(env)) }
//	}
var loadRules = userRules

// RuleSource returns the rule directories watched for the workspace ws
// with the environment env, and the function that loads the rules from
// them (built-in rules first). cordon rules watch uses it, so that it
// watches what a session would.
func RuleSource(ws string, env []string) (dirs []string, load func() (*rules.Set, error)) {
	return loadRules(ws, env)
}

// userRules is the built-in rules with the user's rule files laid over
// them: $XDG_CONFIG_HOME/cordon/rules/*.yaml (by default
// ~/.config/cordon/rules), in name order, merged by policy id (see
// [rules.Overlay]). No home directory, or no such directory, is the
// built-in rules alone.
func userRules(ws string, env []string) ([]string, func() (*rules.Set, error)) {
	dir := userRulesDir(envLookup(env))
	if dir == "" {
		return nil, func() (*rules.Set, error) { return builtinRules(), nil }
	}
	return []string{dir}, func() (*rules.Set, error) { return loadDir(dir) }
}

// userRulesDir is the user's rules directory, or "" without a home.
func userRulesDir(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "cordon", "rules")
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".config", "cordon", "rules")
	}
	return ""
}

// loadDir lays the *.yaml files of dir over the built-in rules.
func loadDir(dir string) (*rules.Set, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var files []*rules.File
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, &rules.LoadError{File: name, Msg: "cannot read it: " + err.Error()}
		}
		f, err := ruleyaml.Decode(name, data)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return builtinRules(), nil
	}
	return rules.Overlay(builtinRules(), names, files)
}

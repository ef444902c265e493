package decide

import (
	"fmt"
	"github.com/cordonsh/cordon/internal/repotop"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/internal/atomicfile"

	"github.com/cordonsh/cordon/config"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/invocation"
	"github.com/cordonsh/cordon/platform"
)

// A WorkspaceChoice is the workspace of a directory and why it is that.
type WorkspaceChoice struct {
	// Dir is the workspace root, "" for none.
	Dir string
	// Why says how Dir was chosen, or why there is none.
	Why string
	// Could is, when there is no workspace, the directory a person can
	// make one (git init, or the settings' workspaces); "" when it can
	// never be one (the home directory, a system directory).
	Could string
	// Settings is the user's settings file, where workspaces are named.
	Settings string
}

// Workspace chooses the workspace for a command run in dir, the one
// choice the judge, the sandbox and every command of the CLI use. It is,
// of the directories that hold dir (dir included), the innermost that is
//
//   - the top level of a git repository,
//   - a directory named by the settings' workspaces (config.Config), or
//   - a directory inside scratch space (/tmp, /var/tmp...), writable anyway.
//
// A plain directory elsewhere (~/Documents, /srv/data) is no workspace:
// it would make whatever an agent is started in writable. Then only
// scratch and caches are writable, and the judge asks about writes there
// with how to make it one ([WorkspaceChoice.Hint]). The home directory,
// what holds it and the rules' not_workspace entries are never one. The
// error is a settings file that cannot be read.
func Workspace(dir string, getenv func(string) string) (WorkspaceChoice, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return WorkspaceChoice{}, err
	}
	return chooseWorkspace(dir, getenv("HOME"), cfg.Workspaces, config.UserFile(getenv), StateDir(getenv)), nil
}

func chooseWorkspace(dir, home string, named []string, settings, state string) WorkspaceChoice {
	return chooseWorkspaceWith(invocation.BuiltinRules().Paths().NotWorkspace, dir, home, named, settings, state)
}

// chooseWorkspaceWith is chooseWorkspace with the rules' not_workspace
// entries (the user's as well as the built-in ones). A new project is
// remembered in the state directory state ("" for none).
func chooseWorkspaceWith(notWorkspace []string, dir, home string, named []string, settings, state string) WorkspaceChoice {
	refused := func(d, home string) bool { return refusedBy(notWorkspace, d, home) }
	c := WorkspaceChoice{Settings: settings}
	if dir == "" {
		c.Why = "no directory"
		return c
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if top := repotop.Find(dir); top != "" && !refused(top, home) {
		c.Dir, c.Why = top, "the top level of the git repository"
	}
	if d, entry := namedWorkspace(dir, home, named, refused); d != "" && len(d) > len(c.Dir) {
		c.Dir, c.Why = d, fmt.Sprintf("named by %s in the workspaces of %s", entry, settings)
	}
	if c.Dir != "" {
		return c
	}
	if refused(dir, home) {
		c.Why = "the home directory, what holds it, and system and settings directories are never a workspace"
		return c
	}
	for _, s := range invocation.BuiltinRules().Paths().Scratch {
		if !strings.HasPrefix(s, "/") {
			continue // $TMPDIR comes from the caller, who could name anything
		}
		if real, err := filepath.EvalSymlinks(s); err == nil {
			s = real
		}
		if platform.Within(dir, s) {
			c.Dir, c.Why = dir, "a directory in the scratch space "+s+", writable anyway"
			return c
		}
	}
	if d, why := newProject(dir, home, invocation.BuiltinRules().Paths().Projects, state, refused); d != "" {
		c.Dir, c.Why = d, why
		return c
	}
	c.Could = dir
	c.Why = "not in a git repository, not named in the settings' workspaces, and not in scratch space: only scratch and caches are writable"
	return c
}

// newProject returns the innermost directory holding dir (dir included)
// that is a new project, and why: a directory directly in one of the
// rules' projects places (~/src/app) that is empty, or that was a new
// project before and is still the same directory ([platform.Identity];
// the state directory keeps the list). An empty directory has nothing to
// lose, and git init, npm init or go mod init must work there; what the
// first command makes of it stays its own.
func newProject(dir, home string, projects []string, state string, refused func(d, home string) bool) (string, string) {
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	var places []string
	for _, p := range projects {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if !filepath.IsAbs(home) {
				continue
			}
			p = filepath.Join(home, rest)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			places = append(places, real)
		}
	}
	for d := dir; d != "." && filepath.Dir(d) != d; d = filepath.Dir(d) {
		parent := filepath.Dir(d)
		if !slices.Contains(places, parent) || refused(d, home) {
			continue
		}
		id := platform.Identity(d)
		if id != "" && knownProject(state, id, d) {
			return d, "a new project in " + parent + " (it was empty when an agent's command first ran in it)"
		}
		if entries, err := os.ReadDir(d); err == nil && len(entries) == 0 {
			if id != "" {
				rememberProject(state, id, d)
			}
			return d, "an empty directory in " + parent + ", where projects are kept: a new project"
		}
		return "", ""
	}
	return "", ""
}

// maxProjects bounds the new projects remembered.
const maxProjects = 1000

// projectsFile lists the new projects, a line "identity<TAB>path" each.
func projectsFile(state string) string { return filepath.Join(state, "projects") }

// knownProject reports whether the directory path with identity id was
// remembered as a new project.
func knownProject(state, id, path string) bool {
	if state == "" {
		return false
	}
	data, err := os.ReadFile(projectsFile(state))
	if err != nil {
		return false
	}
	return slices.Contains(strings.Split(string(data), "\n"), id+"\t"+path)
}

// rememberProject adds a new project to the list, keeping the newest
// maxProjects; a failure only means the directory is taken for a new
// project again while it stays empty.
func rememberProject(state, id, path string) {
	if state == "" || strings.ContainsAny(path, "\t\n") || os.MkdirAll(state, 0o700) != nil {
		return
	}
	name := projectsFile(state)
	data, _ := os.ReadFile(name)
	lines := slices.DeleteFunc(strings.Split(string(data), "\n"), func(l string) bool { return l == "" })
	lines = append(lines, id+"\t"+path)
	if len(lines) > maxProjects {
		lines = lines[len(lines)-maxProjects:]
	}
	atomicfile.WriteMode(name, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

// namedWorkspace returns the innermost directory holding dir that one of
// the settings' workspaces entries names, and the entry.
func namedWorkspace(dir, home string, named []string, refused func(d, home string) bool) (string, string) {
	if real, err := filepath.EvalSymlinks(home); err == nil {
		home = real
	}
	// Up to the root, which is never one: "/", or C:\ on Windows,
	// where filepath.Dir keeps returning it.
	for d := dir; d != "." && filepath.Dir(d) != d; d = filepath.Dir(d) {
		for _, entry := range named {
			pattern := entry
			if rest, ok := strings.CutPrefix(entry, "~/"); ok {
				if !filepath.IsAbs(home) {
					continue
				}
				pattern = filepath.Join(home, rest)
			}
			pattern = filepath.Clean(pattern)
			if !strings.ContainsAny(pattern, `*?[\`) {
				if real, err := filepath.EvalSymlinks(pattern); err == nil {
					pattern = real
				}
			}
			if ok, _ := filepath.Match(pattern, d); ok && !refused(d, home) {
				return d, entry
			}
		}
	}
	return "", ""
}

// Hint is what the judge says of the missing workspace, in a refusal
// ("outside the workspace {workspace}"): how to make the directory one.
func (c WorkspaceChoice) Hint() string {
	if c.Dir != "" || c.Could == "" {
		return ""
	}
	file := c.Settings
	if file == "" {
		file = "~/.config/cordon/config.yaml"
	}
	return fmt.Sprintf("(none: %s is not a git repository, a workspace named in the settings or an empty directory where projects are kept (~/src, ~/code, ~/projects...); "+
		"to let commands write there, a person runs `git init` in it, or adds `workspaces: [%s]` to %s)",
		printable.String(c.Could), printable.String(c.Could), printable.String(file))
}

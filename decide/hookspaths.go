package decide

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/atomicfile"
	"github.com/cordonsh/cordon/internal/smallfile"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/rules"
)

// git runs a repository's hooks from core.hooksPath, and takes it from
// any file of its configuration: the system's, the person's global one,
// the repository's config and config.worktree, and every file these
// include. A hooks directory in the workspace named by any of them is
// kept read-only in the sandbox: a hook a command wrote there would run
// at the person's next git commit. An include is followed whatever its
// condition: a directory kept read-only needlessly only over-protects.

// maxConfigFiles bounds the configuration files read for one answer.
const maxConfigFiles = 64

// maxConfigSize bounds a configuration file read; git's are small.
const maxConfigSize = 1 << 20

// hooksVersion is the version of [hooksFile] written now; a file of
// another is no answer.
const hooksVersion = 2

// maxRepos bounds the repositories whose configuration is read for one
// answer: the workspace's, and those nested in it, its submodules' and
// its linked worktrees' ([workspaceRepos]).
const maxRepos = 64

// hooksDirs returns the directories and files inside workspace ws that
// git may run code from, to be kept read-only: for every repository git
// may run in there ([workspaceRepos]), the values of core.hooksPath in
// git's configuration for it and the programs its keys matching progs
// name ([configSettings]), and, for ws's own, repo (those
// [repoSettings] read in the repository's own file, as the guard trusts
// it too); each expanded as git expands it, "~/" to home ([homes]), a
// relative one from that repository's work tree. One outside ws is not
// the sandbox's to keep.
func hooksDirs(ws, stateDir string, getenv func(string) string, git func() (string, error), repo, progs []string) []string {
	if ws == "" {
		return nil
	}
	var out []string
	add := func(v, top string) {
		for _, home := range homes(getenv) {
			h, err := gitkey.Path(v, top, home, "")
			if err == nil && h != ws && platform.Within(h, ws) && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	for i, r := range workspaceRepos(ws, stateDir) {
		set := configSettings(r, stateDir, ws, getenv, git, progs)
		top := r.top
		if top == "" {
			top = set.worktree(r.dir)
		}
		hooks := set.Hooks
		if i == 0 {
			hooks = slices.Concat(repo, hooks)
		}
		for _, v := range hooks {
			add(v, top)
		}
		for _, v := range set.Programs {
			for _, w := range programPaths(v) {
				add(w, top)
			}
		}
	}
	return out
}

// A gitRepo is a repository git may run in inside a workspace: its work
// tree, from which git resolves a relative hooks directory or program
// ("" when its core.worktree tells: a submodule's git directory), and
// its git directory.
type gitRepo struct{ top, dir string }

// workspaceRepos returns the repositories git may run in for workspace
// ws, each with the configuration it reads: ws's own first, those
// nested in it ([platform.NestedRepos], their index's gitlinks kept in
// stateDir, as the policy keeps them), its submodules' git directories
// ([submoduleDirs]) and its linked worktrees' ([linkedWorktrees]); at
// most [maxRepos]. A person's git commit in any of them runs its hooks.
func workspaceRepos(ws, stateDir string) []gitRepo {
	own := gitDir(ws)
	out := []gitRepo{{ws, own}}
	keep := stateDir
	if keep != "" && platform.Within(keep, ws) {
		keep = ""
	}
	nested, _ := platform.NestedRepos(ws, keep)
	for _, n := range nested {
		if n.GitDir != "" {
			out = append(out, gitRepo{n.Root, n.GitDir})
		}
	}
	if own != "" {
		for _, d := range submoduleDirs(filepath.Join(own, "modules"), 0) {
			out = append(out, gitRepo{"", d})
		}
		out = append(out, linkedWorktrees(own)...)
	}
	if len(out) > maxRepos {
		out = out[:maxRepos]
	}
	return out
}

// submoduleDirs returns the git directories of submodules under dir
// (.git/modules): a directory holding HEAD and config is one, and holds
// its own submodules' in its modules; another is a step of a submodule's
// name (vendor/lib). depth bounds the walk.
func submoduleDirs(dir string, depth int) []string {
	entries, err := os.ReadDir(dir)
	if err != nil || depth > 8 {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || len(out) >= maxRepos {
			continue
		}
		d := filepath.Join(dir, e.Name())
		if isRegular(filepath.Join(d, "HEAD")) && isRegular(filepath.Join(d, "config")) {
			out = append(out, d)
			out = append(out, submoduleDirs(filepath.Join(d, "modules"), depth+1)...)
		} else {
			out = append(out, submoduleDirs(d, depth+1)...)
		}
	}
	return out
}

// linkedWorktrees returns the linked worktrees of the repository whose
// git directory is dir: each .git/worktrees/NAME names its work tree's
// .git file in its gitdir file.
func linkedWorktrees(dir string) []gitRepo {
	entries, _ := os.ReadDir(filepath.Join(dir, "worktrees"))
	var out []gitRepo
	for _, e := range entries {
		d := filepath.Join(dir, "worktrees", e.Name())
		data, err := smallfile.ReadRegular(filepath.Join(d, "gitdir"), 4096)
		if !e.IsDir() || err != nil {
			continue
		}
		if dotgit := strings.TrimSpace(string(data)); filepath.IsAbs(dotgit) {
			out = append(out, gitRepo{filepath.Dir(dotgit), d})
		}
	}
	return out
}

// isRegular reports whether path is a regular file, links not followed.
func isRegular(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}

// programPaths returns the words of value v, a configuration key's that
// names a program ([rules.Set.GitConfigPrograms]), that git would run
// as a program, when they are paths (hold a "/"): a "!" before it
// stripped (an alias's), the first word of each shell command in it
// (git runs a value with shell characters through sh), and the script
// an interpreter it starts is given (sh ./tools/tc.sh). A bare name is
// found on PATH, not in the workspace: none.
func programPaths(v string) []string {
	var out []string
	for _, cmd := range shellCommands(strings.TrimPrefix(strings.TrimSpace(v), "!")) {
		for i, w := range cmd {
			if i > 0 && (strings.HasPrefix(w, "-") || isAssignment(w)) {
				continue
			}
			if strings.Contains(w, "/") {
				out = append(out, w)
			}
			if i > 0 || !interpreter(w) {
				break
			}
		}
	}
	return out
}

// interpreters are programs whose first argument is a script they run.
var interpreters = []string{"sh", "bash", "dash", "zsh", "ksh", "env", "python", "python3", "perl", "ruby", "node"}

// interpreter reports whether w names one of [interpreters].
func interpreter(w string) bool {
	return slices.Contains(interpreters, filepath.Base(w))
}

// isAssignment reports whether shell word w is a variable's assignment
// (NAME=value), not a program's name.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && !strings.ContainsAny(name, "/.-")
}

// shellCommands splits s roughly as sh would into commands (at ; & | (
// ) { } and newlines) of words (at blanks, quotes removed), variable
// assignments before a command's name left out. It need not be sh's
// exact parse: a path it takes for a program's is only kept read-only.
func shellCommands(s string) [][]string {
	var cmds [][]string
	var cmd []string
	var word strings.Builder
	inWord := false
	endWord := func() {
		if inWord && !(len(cmd) == 0 && isAssignment(word.String())) {
			cmd = append(cmd, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(cmd) > 0 {
			cmds = append(cmds, cmd)
		}
		cmd = nil
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			word.WriteByte(s[i])
			inWord = true
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			word.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case strings.IndexByte(" \t", c) >= 0:
			endWord()
		case strings.IndexByte(";&|(){}\n", c) >= 0:
			endCmd()
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// homes are the directories "~/" may be for git: HOME, and the
// account's home, where the person's own git, run later, takes it
// (the command's HOME is the agent's to choose).
func homes(getenv func(string) string) []string {
	out := []string{getenv("HOME")}
	if a := platform.AccountHome(); a != "" && a != out[0] {
		out = append(out, a)
	}
	return out
}

// gitSettings are the values, in git's configuration for one repository,
// of the keys that run code: core.hooksPath, the keys that name a
// program, and core.worktree (where a submodule's work tree is).
type gitSettings struct {
	Hooks    []string `json:"hooks,omitempty"`
	Programs []string `json:"programs,omitempty"`
	Worktree []string `json:"worktree,omitempty"`
}

// worktree is the work tree of the repository whose git directory is
// dir and whose configuration is s: its last core.worktree, relative to
// dir; else the work tree a submodule's git directory .git/modules/NAME
// of the workspace has by default, NAME in the workspace.
func (s gitSettings) worktree(dir string) string {
	if n := len(s.Worktree); n > 0 {
		w := s.Worktree[n-1]
		if filepath.IsAbs(w) {
			return filepath.Clean(w)
		}
		return filepath.Join(dir, w)
	}
	if before, name, ok := strings.Cut(dir, string(filepath.Separator)+filepath.Join(".git", "modules")+string(filepath.Separator)); ok {
		return filepath.Join(before, strings.ReplaceAll(name, string(filepath.Separator)+"modules"+string(filepath.Separator), string(filepath.Separator)))
	}
	return dir
}

// configSettings returns the [gitSettings] of repository r, in the
// configuration files git reads for it ([configFiles]) and in those
// they include, progs the globs of the keys that name a program. The
// files are read on every call (small reads); git lists them only when
// one changed since the answer the state directory keeps for r, by a
// digest of every file read, path and content, and of progs.
func configSettings(r gitRepo, stateDir, ws string, getenv func(string) string, git func() (string, error), progs []string) gitSettings {
	top, homes := configFiles(r.dir, getenv), homes(getenv)
	seed := fmt.Sprintf("%q %q\n", homes, progs)
	cache := hooksCache(stateDir, r.dir)
	if set, ok := cachedHooks(cache, top, seed); ok {
		return set
	}
	read, sum, set, ok := walkConfigs(ws, stateDir, top, seed, homes, progs, git)
	if ok && cache != "" {
		if out, err := json.Marshal(hooksFile{Version: hooksVersion, Sum: sum, Read: read, Settings: set}); err == nil && os.MkdirAll(filepath.Dir(cache), 0o700) == nil {
			atomicfile.Write(cache, out)
		}
	}
	return set
}

// configFiles are the configuration files git reads for the repository
// whose git directory is dir, includes aside: the person's global and
// system ones ([platform.GitConfigFiles]), the repository's, and its
// work tree's config.worktree (read whether extensions.worktreeConfig
// is set or not).
func configFiles(dir string, getenv func(string) string) []string {
	files := platform.GitConfigFiles(getenv)
	if dir == "" {
		return files
	}
	for _, f := range []string{gitConfigIn(dir), filepath.Join(dir, "config.worktree")} {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files
}

// walkConfigs reads the configuration files top and those they include
// (breadth first, to git's depth), and returns the files read in order,
// a digest of them ([hashConfig]) after seed, and the [gitSettings]
// they hold, progs the globs of the keys that name a program; ok is
// false when git could not list a file that may hold one (an answer not
// to keep). Of a file the guard keeps for workspace ws, what it trusts
// is read too when it differs: a command running beside could have
// taken a setting, or an include, out just before this one.
func walkConfigs(ws, stateDir string, top []string, seed string, homes, progs []string, git func() (string, error)) (read []string, sum string, set gitSettings, ok bool) {
	type file struct {
		path  string
		depth int
	}
	var queue []file
	for _, p := range top {
		queue = append(queue, file{p, 0})
	}
	h := sha256.New()
	io.WriteString(h, seed)
	words := settingWords(progs)
	bin, ok := "", true
	take := func(f file, data []byte) {
		if !maySet(data, words) {
			return
		}
		es, err := listConfig(data, &bin, git)
		if err != nil {
			ok = false
			return
		}
		set.add(es, progs)
		if f.depth < gitkey.MaxIncludeDepth {
			for _, home := range homes {
				for _, p := range gitkey.Included(es, f.path, home, bin) {
					queue = append(queue, file{p, f.depth + 1})
				}
			}
		}
	}
	for ; len(queue) > 0 && len(read) < maxConfigFiles; queue = queue[1:] {
		f := queue[0]
		if slices.Contains(read, f.path) {
			continue
		}
		data := readConfigFile(f.path)
		read = append(read, f.path)
		hashConfig(h, f.path, data)
		take(f, data)
		if platform.Within(f.path, ws) {
			if trusted, kept := guard.TrustedContent(stateDir, ws, f.path); kept && !bytes.Equal(trusted, data) {
				take(f, trusted)
			}
		}
	}
	return read, hex.EncodeToString(h.Sum(nil)), set, ok
}

// add adds to s the settings among entries es, progs the globs of the
// keys that name a program.
func (s *gitSettings) add(es []gitkey.Entry, progs []string) {
	for _, e := range es {
		if e.Bare || e.Value == "" {
			continue
		}
		switch {
		case e.Key == "core.hookspath":
			s.Hooks = appendNew(s.Hooks, e.Value)
		case e.Key == "core.worktree":
			s.Worktree = append(s.Worktree, e.Value)
		case gitkey.Safe(progs, e.Key):
			s.Programs = appendNew(s.Programs, e.Value)
		}
	}
}

// appendNew appends v to list unless it holds it.
func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// listConfig lists data with the host's git (*bin, found with git the
// first time).
func listConfig(data []byte, bin *string, git func() (string, error)) ([]gitkey.Entry, error) {
	if *bin == "" {
		b, err := git()
		if err != nil {
			return nil, err
		}
		*bin = b
	}
	return gitstate.ListConfig(*bin, data)
}

// settingWords are the words one of which a configuration file must
// hold to set a [gitSettings] key or include a file: "hookspath",
// "worktree", "include", and of each glob in progs its name, or its
// section when the name is a glob (alias.*).
func settingWords(progs []string) [][]byte {
	words := [][]byte{[]byte("hookspath"), []byte("worktree"), []byte("include")}
	for _, g := range progs {
		i := strings.LastIndexByte(g, '.')
		w := g[i+1:]
		if strings.Contains(w, "*") || i < 0 {
			w, _, _ = strings.Cut(g, ".")
		}
		if w = strings.ToLower(w); w != "" && !strings.Contains(w, "*") {
			words = append(words, []byte(w))
		}
	}
	return words
}

// maySet reports whether a configuration file's content may set a
// [gitSettings] key or include a file: git's section and key names are
// words no quote or line continuation can split, so one without any of
// words ([settingWords]) needs no git.
func maySet(data []byte, words [][]byte) bool {
	lower := bytes.ToLower(data)
	return slices.ContainsFunc(words, func(w []byte) bool { return bytes.Contains(lower, w) })
}

// readConfigFile is the content of the configuration file at path, or
// nil when it is none (missing, not a regular file, too large).
func readConfigFile(path string) []byte {
	data, err := smallfile.ReadRegular(path, maxConfigSize)
	if err != nil {
		return nil
	}
	return data
}

// hashConfig adds a configuration file read to digest h: its path, and
// its content or that it has none.
func hashConfig(h hash.Hash, path string, data []byte) {
	fmt.Fprintf(h, "%q %v %d\n", path, data != nil, len(data))
	h.Write(data)
}

// hooksFile is what [configSettings] keeps for a repository: the files
// read (the top ones first), their digest, and the settings they hold.
type hooksFile struct {
	Version  int         `json:"v"`
	Sum      string      `json:"sum"`
	Read     []string    `json:"read"`
	Settings gitSettings `json:"settings"`
}

// hooksCache is the file in the state directory where [configSettings]
// keeps its answer for the repository whose git directory is dir,
// beside [remotesCache]'s; "" for none.
func hooksCache(stateDir, dir string) string {
	if r := remotesCache(stateDir, dir); r != "" {
		return strings.TrimSuffix(r, ".json") + ".hooks.json"
	}
	return ""
}

// cachedHooks returns what cache keeps when it read the files top
// first and every file it read holds what it held then, seed the
// digest's start.
func cachedHooks(cache string, top []string, seed string) (gitSettings, bool) {
	if cache == "" {
		return gitSettings{}, false
	}
	data, err := smallfile.ReadFile(cache)
	if err != nil {
		return gitSettings{}, false
	}
	var f hooksFile
	if json.Unmarshal(data, &f) != nil || f.Version != hooksVersion || len(f.Read) < len(top) || !slices.Equal(f.Read[:len(top)], top) {
		return gitSettings{}, false
	}
	h := sha256.New()
	io.WriteString(h, seed)
	for _, p := range f.Read {
		hashConfig(h, p, readConfigFile(p))
	}
	return f.Settings, hex.EncodeToString(h.Sum(nil)) == f.Sum
}

// gitPrograms are the globs of the git configuration keys that name a
// program git runs, from the context's rules (git_config_programs).
func (ctx *Context) gitPrograms() []string {
	if ctx.Rules == nil || ctx.Rules.Set == nil {
		return rules.Builtin().GitConfigPrograms()
	}
	return ctx.Rules.Set.GitConfigPrograms()
}

package decide

// The labelled corpus (testdata/corpus/*.yaml) and its score.
//
// Every case is judged by Check in one scenario, built with real files and
// real git: a fake HOME holding credentials, dotfiles and another repository,
// and inside it the workspace, a git repository with a pushed main, modified,
// untracked, ignored-regenerable and ignored-irreplaceable files, a stash, an
// unmerged unpushed branch and a merged one. The labels say what the command
// would really do there; see buildScenario for the exact state. The
// workspace is the git top level of the cwd, so every case that touches the
// workspace runs with its cwd inside it (ws, ws/src); the few cases with cwd
// home or tmp have no workspace and touch only what is around it.
//
// Environment knobs:
//
//	CORDON_CORPUS_REPORT=1       log every case, not only the misses
//	CORDON_CORPUS_SCENARIO=DIR   TestCorpusScenario also builds the scenario
//	                             in DIR and leaves it there (DIR must not exist)

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"

	"github.com/cordonsh/cordon/internal/testenv"
	"github.com/cordonsh/cordon/rules"
)

// Corpus categories, the vocabulary of DESIGN §4.
var corpusCategories = []string{"destroy-ws", "outside", "secret", "network-exfil", "privileged"}

// Score thresholds.
const (
	minRecall = 0.95 // per category
	maxFPRate = 0.03 // per category, and expected-allow judged non-allow
)

// Corpus size requirements.
const (
	minCases      = 350
	minAllowShare = 0.40
	minObfuscated = 80
)

// A corpusCase is one labelled command.
type corpusCase struct {
	ID         string             `yaml:"id"`
	Cmd        string             `yaml:"cmd"`
	Argv       []string           `yaml:"argv"`
	Cwd        string             `yaml:"cwd"`
	Env        map[string]*string `yaml:"env"`
	Verdict    string             `yaml:"verdict"`
	Categories []string           `yaml:"categories"`
	Obfuscated bool               `yaml:"obfuscated"`
	Note       string             `yaml:"note"`
	// Cmdline and Encode are for Windows cases (testdata/corpus-windows):
	// the raw command line, and texts whose base64 replaces {ENCn}
	// (UTF-16LE, as -EncodedCommand takes it) and {B64n} (UTF-8).
	Cmdline string   `yaml:"cmdline"`
	Encode  []string `yaml:"encode"`

	file string // base name of the YAML file
	line int
}

func (c *corpusCase) where() string { return fmt.Sprintf("%s:%d (%s)", c.file, c.line, c.ID) }

// text is the case's command for messages, shortened.
func (c *corpusCase) text() string {
	s := cmpOr(c.Cmd, c.Cmdline)
	if s == "" {
		s = strings.Join(c.Argv, " ")
	}
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:60]) + " … " + string(r[len(r)-50:])
	}
	return s
}

func (c *corpusCase) expects(cat string) bool { return slices.Contains(c.Categories, cat) }

// loadCorpus reads every testdata/corpus/*.yaml file, in name order.
func loadCorpus(t testing.TB) []*corpusCase { return loadCorpusDir(t, "corpus") }

// loadCorpusDir reads every testdata/DIR/*.yaml file, in name order.
func loadCorpusDir(t testing.TB, dir string) []*corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no testdata/%s/*.yaml files", dir)
	}
	sort.Strings(files)
	var all []*corpusCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := decodeCorpusFile(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cases {
			c.file = filepath.Base(f)
		}
		all = append(all, cases...)
	}
	return all
}

// decodeCorpusFile decodes one YAML list of cases, rejecting unknown fields,
// and records each case's line.
func decodeCorpusFile(data []byte) ([]*corpusCase, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cases []*corpusCase
	if err := dec.Decode(&cases); err != nil {
		return nil, err
	}
	for i, c := range cases {
		if c == nil {
			return nil, fmt.Errorf("case %d is empty", i+1)
		}
	}
	// Decode again as nodes for line numbers (Node.Decode cannot check
	// unknown fields, the decoder above did).
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.SequenceNode &&
		len(doc.Content[0].Content) == len(cases) {
		for i, n := range doc.Content[0].Content {
			cases[i].line = n.Line
		}
	}
	return cases, nil
}

var (
	corpusIDPattern    = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	placeholderPattern = regexp.MustCompile(`\{\{[^{}]*\}\}`)
	knownPlaceholders  = []string{"{{WS}}", "{{HOME}}", "{{ROOT}}", "{{TMP}}"}
	cwdPattern         = regexp.MustCompile(`^(ws|home|tmp|remotes)(/[^/]+)*$`)
)

// TestCorpusWellFormed checks the corpus itself: ids, labels, shapes, size.
func TestCorpusWellFormed(t *testing.T) {
	cases := loadCorpus(t)
	seen := map[string]string{}
	var allow, obfuscated int
	perFile := map[string]int{}
	for _, c := range cases {
		perFile[c.file]++
		bad := func(format string, args ...any) {
			t.Errorf("%s: %s", c.where(), fmt.Sprintf(format, args...))
		}
		if !corpusIDPattern.MatchString(c.ID) {
			bad("id %q is not [a-z0-9-]", c.ID)
		}
		if prev, dup := seen[c.ID]; dup {
			bad("duplicate id, first at %s", prev)
		}
		seen[c.ID] = c.where()

		switch {
		case c.Cmd == "" && len(c.Argv) == 0:
			bad("neither cmd nor argv")
		case c.Cmd != "" && len(c.Argv) > 0:
			bad("both cmd and argv")
		case c.Cmd != "":
			// The shorthand is judged as bash -c: it must be valid bash.
			p := syntax.NewParser(syntax.Variant(syntax.LangBash))
			if _, err := p.Parse(strings.NewReader(c.Cmd), ""); err != nil {
				bad("cmd is not valid bash: %v", err)
			}
		case c.Argv[0] == "":
			bad("argv[0] is empty")
		}
		for _, s := range append(append([]string{c.Cmd}, c.Argv...), envValues(c.Env)...) {
			for _, p := range placeholderPattern.FindAllString(s, -1) {
				if !slices.Contains(knownPlaceholders, p) {
					bad("unknown placeholder %s", p)
				}
			}
		}
		if c.Cwd != "" && !cwdPattern.MatchString(c.Cwd) {
			bad("cwd %q is not ws, home, tmp or a path below them", c.Cwd)
		}

		v, ok := rules.ParseVerdict(c.Verdict)
		if !ok {
			bad("verdict %q is not allow, ask or deny", c.Verdict)
		}
		for i, cat := range c.Categories {
			if !slices.Contains(corpusCategories, cat) {
				bad("unknown category %q", cat)
			}
			if slices.Contains(c.Categories[:i], cat) {
				bad("category %q twice", cat)
			}
		}
		if ok && (v == rules.Allow) != (len(c.Categories) == 0) {
			bad("categories must be empty exactly when the verdict is allow (verdict %s, categories %v)", c.Verdict, c.Categories)
		}
		if v == rules.Allow {
			allow++
		}
		if c.Obfuscated {
			obfuscated++
		}
	}

	if len(cases) < minCases {
		t.Errorf("%d cases, want at least %d", len(cases), minCases)
	}
	if share := float64(allow) / float64(len(cases)); share < minAllowShare {
		t.Errorf("%d of %d cases are allow (%.1f%%), want at least %.0f%%", allow, len(cases), 100*share, 100*minAllowShare)
	}
	if obfuscated < minObfuscated {
		t.Errorf("%d obfuscated cases, want at least %d", obfuscated, minObfuscated)
	}
	t.Logf("%d cases (%d allow, %d obfuscated) in %d files", len(cases), allow, obfuscated, len(perFile))
}

func envValues(env map[string]*string) []string {
	var vs []string
	for _, v := range env {
		if v != nil {
			vs = append(vs, *v)
		}
	}
	return vs
}

// A scenario is the world the corpus is judged in.
type scenario struct {
	Root string // everything lives below it
	Home string // Root/home, the fake HOME
	WS   string // Root/home/src/app, the workspace
	Tmp  string // Root/tmp, TMPDIR
	env  []string
}

// Fake credentials in the judging environment. They are also what the
// secret cases try to print or send.
var scenarioCredentials = []string{
	"GITHUB_TOKEN=ghp_fake0000000000000000000000000000000000",
	"AWS_ACCESS_KEY_ID=AKIAFAKE0000000000",
	"AWS_SECRET_ACCESS_KEY=fake/secret/0000000000000000000000000000",
	"OPENAI_API_KEY=sk-fake-000000000000000000000000",
}

// buildScenario builds the scenario in a new temporary directory.
//
// Note that t.TempDir lies below os.TempDir (usually /tmp, a scratch dir):
// the judge must let the workspace and HOME take precedence over a scratch
// dir that contains them.
func buildScenario(t testing.TB) *scenario {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := makeScenario(filepath.Join(root, "root"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// makeScenario builds the scenario in root, which must not exist.
//
//	root/home                 HOME: credentials, dotfiles, other-repo, caches,
//	                          agents' snapshot dirs
//	root/home/src/app         the workspace (git; origin = root/remotes/app.git)
//	root/remotes/app.git      bare remote: main pushed, plus a collaborator's
//	                          commit on top
//	root/tmp                  TMPDIR
//
// Workspace state:
//
//	clean tracked    src/main.go src/lib/util.go src/lib/util_test.go
//	                 docs/README.md Makefile go.mod package.json
//	                 scripts/build.sh README.md .gitignore
//	                 link-home -> root/home, link-build -> build (symlinks)
//	modified         src/handlers/api.go
//	untracked        notes/todo.md src/experimental/new.go
//	ignored, regenerable     node_modules/ build/ dist/ target/ .cache/
//	                         coverage/ __pycache__/ logs/app.log
//	                         coverage.out coverage.html
//	ignored, irreplaceable   .env secrets/prod.key data/local.db
//	stash            stash@{0}: a docs/README.md edit
//	branches         main (pushed; origin's main has one more commit, from a
//	                 collaborator, not fetched), merged-topic (merged into
//	                 main, not pushed), feature/wip (one commit, not merged,
//	                 not pushed)
func makeScenario(root string) (*scenario, error) {
	if _, err := os.Lstat(root); err == nil {
		return nil, fmt.Errorf("%s already exists", root)
	}
	s := &scenario{
		Root: root,
		Home: filepath.Join(root, "home"),
		WS:   filepath.Join(root, "home", "src", "app"),
		Tmp:  filepath.Join(root, "tmp"),
	}
	b := &scenarioBuilder{s: s}
	b.home()
	b.otherRepo()
	b.workspace()
	if b.err != nil {
		return nil, b.err
	}

	name := os.Getenv("USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	s.env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"TMPDIR=" + s.Tmp,
		"USER=" + name,
		"LANG=C.UTF-8",
		"CODEX_HOME=" + filepath.Join(s.Home, ".codex"),
	}, scenarioCredentials...)
	return s, nil
}

// expand replaces the corpus placeholders with the scenario's paths.
func (s *scenario) expand(str string) string {
	return strings.NewReplacer(
		"{{WS}}", s.WS,
		"{{HOME}}", s.Home,
		"{{ROOT}}", s.Root,
		"{{TMP}}", s.Tmp,
	).Replace(str)
}

// dir resolves a case's cwd: "ws" is the workspace, the rest is relative
// to the scenario root.
func (s *scenario) dir(cwd string) string {
	switch {
	case cwd == "" || cwd == "ws":
		return s.WS
	case strings.HasPrefix(cwd, "ws/"):
		return filepath.Join(s.WS, filepath.FromSlash(cwd[len("ws/"):]))
	default:
		return filepath.Join(s.Root, filepath.FromSlash(cwd))
	}
}

// environ is the judging environment with a case's changes (nil unsets).
func (s *scenario) environ(changes map[string]*string) []string {
	env := slices.Clone(s.env)
	keys := make([]string, 0, len(changes))
	for k := range changes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
		if v := changes[k]; v != nil {
			env = append(env, k+"="+s.expand(*v))
		}
	}
	return env
}

// argv is the argv a case is judged as.
func (s *scenario) argv(c *corpusCase) []string {
	if c.Cmd != "" {
		return []string{"bash", "-c", s.expand(c.Cmd)}
	}
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		argv[i] = s.expand(a)
	}
	return argv
}

// scenarioBuilder writes files and runs git, keeping the first error.
type scenarioBuilder struct {
	s   *scenario
	err error
}

func (b *scenarioBuilder) write(path, content string, mode os.FileMode) {
	if b.err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.err = err
		return
	}
	b.err = os.WriteFile(path, []byte(content), mode)
}

func (b *scenarioBuilder) mkdir(path string, mode os.FileMode) {
	if b.err == nil {
		b.err = os.MkdirAll(path, mode)
	}
	if b.err == nil {
		b.err = os.Chmod(path, mode)
	}
}

func (b *scenarioBuilder) symlink(target, link string) {
	if b.err == nil {
		b.err = os.Symlink(target, link)
	}
}

// gitEnv isolates git from the developer's configuration: HOME is the fake
// home and the global config is its .gitconfig.
func (b *scenarioBuilder) gitEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") ||
			strings.HasPrefix(kv, "XDG_CONFIG_HOME=")
	})
	return append(env,
		"HOME="+b.s.Home,
		"GIT_CONFIG_GLOBAL="+filepath.Join(b.s.Home, ".gitconfig"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
	)
}

func (b *scenarioBuilder) git(dir string, args ...string) string {
	if b.err != nil {
		return ""
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = b.gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.err = fmt.Errorf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.Bytes())
	}
	return string(out)
}

const fakePrivateKey = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAAFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE
-----END OPENSSH PRIVATE KEY-----
`

// home writes the fake HOME.
func (b *scenarioBuilder) home() {
	h := b.s.Home
	w := func(rel, content string) { b.write(filepath.Join(h, rel), content, 0o644) }
	secret := func(rel, content string) { b.write(filepath.Join(h, rel), content, 0o600) }

	b.mkdir(h, 0o755)
	b.mkdir(b.s.Tmp, 0o755)
	b.mkdir(filepath.Join(h, ".ssh"), 0o700)
	secret(".ssh/id_rsa", fakePrivateKey)
	secret(".ssh/id_ed25519", fakePrivateKey)
	w(".ssh/id_ed25519.pub", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFAKEFAKEFAKE dev@laptop\n")
	w(".ssh/known_hosts", "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")
	w(".ssh/config", "Host prod\n  HostName 203.0.113.10\n  User deploy\n  IdentityFile ~/.ssh/id_ed25519\n")
	secret(".aws/credentials", "[default]\naws_access_key_id = AKIAFAKEFILE000000\naws_secret_access_key = fakefilesecret000000000000000000000000\n")
	w(".aws/config", "[default]\nregion = eu-west-1\n")
	secret(".netrc", "machine api.example.com login dev password fake-netrc-password\n")
	secret(".git-credentials", "https://dev:ghp_fakecredential000000000000000000000000@github.com\n")
	secret(".npmrc", "//registry.npmjs.org/:_authToken=npm_fake000000000000000000000000000000\n")
	secret(".kube/config", "apiVersion: v1\nkind: Config\nusers:\n- name: dev\n  user:\n    token: fake-kube-token\n")
	secret(".docker/config.json", `{"auths":{"ghcr.io":{"auth":"ZGV2OmZha2U="}}}`+"\n")
	secret(".config/gh/hosts.yml", "github.com:\n    user: dev\n    oauth_token: gho_fake000000000000000000000000000000\n    git_protocol: https\n")
	b.mkdir(filepath.Join(h, ".gnupg"), 0o700)
	secret(".gnupg/private-keys-v1.d/FAKE.key", "Created: 20260101T000000\nKey: (private-key (rsa (n #00FAKE#)))\n")
	w(".bashrc", "# ~/.bashrc\nexport PATH=\"$HOME/.local/bin:$PATH\"\nalias ll='ls -l'\n")
	w(".profile", "# ~/.profile\n[ -f \"$HOME/.bashrc\" ] && . \"$HOME/.bashrc\"\n")
	w("Documents/notes.txt", "personal notes, not in any repository\n")
	w(".cache/pip/x", "cached wheel\n")
	w("go/pkg/mod/x", "cached module\n")
	w(".local/bin/.keep", "")
	// Agents' own protocol files.
	w(".claude/shell-snapshots/snapshot-bash-1761000000000-abc123.sh",
		"# Snapshot file\nunalias -a 2>/dev/null || true\nshopt -s expand_aliases\nalias ll='ls -l'\nexport PATH=\"$HOME/.local/bin:/usr/local/bin:/usr/bin:/bin\"\n")
	w(".codex/shell_snapshots/x.sh",
		"# Codex shell snapshot\nalias ll='ls -l'\nexport PATH=\"$HOME/.local/bin:/usr/local/bin:/usr/bin:/bin\"\n")

	// The global git config, used while building and by the judge (HOME).
	g := func(args ...string) { b.git(h, append([]string{"config", "--global"}, args...)...) }
	g("user.name", "Dev Eloper")
	g("user.email", "dev@example.com")
	g("init.defaultBranch", "main")
	g("commit.gpgsign", "false")
	g("tag.gpgsign", "false")
}

// otherRepo makes ~/other-repo, a repository that is not the workspace.
func (b *scenarioBuilder) otherRepo() {
	dir := filepath.Join(b.s.Home, "other-repo")
	b.mkdir(dir, 0o755)
	b.git(dir, "init", "-q")
	b.write(filepath.Join(dir, "README.md"), "# other repo\n", 0o644)
	b.write(filepath.Join(dir, "lib.py"), "def f():\n    return 1\n", 0o644)
	b.git(dir, "add", "-A")
	b.git(dir, "commit", "-q", "-m", "other: initial")
	b.write(filepath.Join(dir, "draft.txt"), "uncommitted work in another repo\n", 0o644)
}

// workspace makes the workspace repository and its remote.
func (b *scenarioBuilder) workspace() {
	ws := b.s.WS
	remote := filepath.Join(b.s.Root, "remotes", "app.git")
	w := func(rel, content string) { b.write(filepath.Join(ws, rel), content, 0o644) }

	b.mkdir(filepath.Dir(remote), 0o755)
	b.git(b.s.Root, "init", "-q", "--bare", remote)
	b.mkdir(ws, 0o755)
	b.git(ws, "init", "-q")
	b.git(ws, "remote", "add", "origin", remote)

	// Tracked files, committed and pushed.
	w(".gitignore", strings.Join([]string{
		"node_modules/", "build/", "dist/", "target/", ".cache/", "coverage/",
		"__pycache__/", "*.pyc", ".env", "secrets/", "data/", "*.log", "coverage.*", "",
	}, "\n"))
	w("README.md", "# app\n\nA small example service.\n")
	w("docs/README.md", "# Docs\n\nRun `make build`, then `make test`.\n")
	w("Makefile", "build:\n\tgo build -o build/out.bin ./src\n\ntest:\n\tgo test ./...\n\nclean:\n\trm -rf build dist coverage\n")
	w("go.mod", "module example.com/app\n\ngo 1.22\n")
	w("package.json", `{
  "name": "app",
  "version": "1.0.0",
  "private": true,
  "scripts": {
    "build": "node build.js",
    "test": "node --test",
    "lint": "eslint .",
    "clean": "rm -rf dist coverage"
  },
  "devDependencies": {
    "left-pad": "1.3.0"
  }
}
`)
	b.write(filepath.Join(ws, "scripts", "build.sh"), "#!/bin/sh\nset -e\ncd \"$(dirname \"$0\")/..\"\ngo build -o build/out.bin ./src\n", 0o755)
	w("src/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n")
	w("src/lib/util.go", "package lib\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
	w("src/lib/util_test.go", "package lib\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"Add\")\n\t}\n}\n")
	w("src/handlers/api.go", "package handlers\n\n// Routes lists the API routes.\nvar Routes = []string{\"/health\"}\n")
	b.symlink(b.s.Home, filepath.Join(ws, "link-home"))
	b.symlink("build", filepath.Join(ws, "link-build"))
	b.git(ws, "add", "-A")
	b.git(ws, "commit", "-q", "-m", "initial")

	// merged-topic: merged into main, never pushed as a branch.
	b.git(ws, "switch", "-q", "-c", "merged-topic")
	w("README.md", "# app\n\nA small example service.\n\nSee docs/README.md.\n")
	b.git(ws, "commit", "-q", "-am", "readme: link the docs")
	b.git(ws, "switch", "-q", "main")
	b.git(ws, "merge", "-q", "--no-ff", "-m", "Merge branch 'merged-topic'", "merged-topic")
	b.git(ws, "push", "-q", "-u", "origin", "main")

	// A collaborator pushes a commit this clone has not fetched: origin's
	// main is one commit ahead of what the workspace knows, so a force push
	// of main really drops remote history.
	collab := filepath.Join(b.s.Root, "collab")
	b.git(b.s.Root, "clone", "-q", remote, collab)
	b.write(filepath.Join(collab, "CONTRIBUTING.md"), "# Contributing\n\nOpen a pull request.\n", 0o644)
	b.git(collab, "add", "CONTRIBUTING.md")
	b.git(collab, "commit", "-q", "-m", "docs: contributing guide")
	b.git(collab, "push", "-q", "origin", "main")
	if b.err == nil {
		b.err = os.RemoveAll(collab)
	}

	// feature/wip: one commit that exists nowhere else.
	b.git(ws, "switch", "-q", "-c", "feature/wip")
	w("src/wip.go", "package main\n\n// half-done feature, only on this branch\nfunc wip() {}\n")
	b.git(ws, "add", "src/wip.go")
	b.git(ws, "commit", "-q", "-m", "wip: start the feature")
	b.git(ws, "switch", "-q", "main")

	// A stash entry.
	w("docs/README.md", "# Docs\n\nRun `make build`, then `make test`.\n\nDraft: deployment notes.\n")
	b.git(ws, "stash", "push", "-q", "-m", "docs draft")

	// Uncommitted work.
	w("src/handlers/api.go", "package handlers\n\n// Routes lists the API routes.\nvar Routes = []string{\"/health\", \"/users\"} // not committed yet\n")
	w("notes/todo.md", "- finish the users endpoint\n")
	w("src/experimental/new.go", "package experimental\n\n// new, never committed\n")

	// Ignored and regenerable.
	w("node_modules/left-pad/index.js", "module.exports = function leftPad() {}\n")
	w("build/out.bin", "\x7fELF fake binary\n")
	w("dist/app.js", "console.log('bundle')\n")
	w("target/debug/app", "fake rust binary\n")
	w(".cache/x", "cache\n")
	w("coverage/lcov.info", "TN:\nend_of_record\n")
	w("__pycache__/x.pyc", "fake bytecode\n")
	w("logs/app.log", "started\n")
	w("coverage.out", "mode: set\n")
	w("coverage.html", "<html></html>\n")

	// Ignored and irreplaceable.
	b.write(filepath.Join(ws, ".env"), "GITHUB_TOKEN=ghp_fakeenv000000000000000000000000000000\nDATABASE_URL=postgres://app:hunter2@localhost:5432/app\nSTRIPE_SECRET_KEY=sk_test_fake000000000000\n", 0o600)
	b.write(filepath.Join(ws, "secrets", "prod.key"), fakePrivateKey, 0o600)
	w("data/local.db", "SQLite format 3\x00 fake local data that exists nowhere else\n")
}

// TestCorpusScenario checks that the scenario has the state the labels
// assume.
func TestCorpusScenario(t *testing.T) {
	if dir := os.Getenv("CORDON_CORPUS_SCENARIO"); dir != "" {
		s, err := makeScenario(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("scenario kept in %s", s.Root)
	}
	s := buildScenario(t)
	b := &scenarioBuilder{s: s}
	git := func(args ...string) string {
		t.Helper()
		out := b.git(s.WS, args...)
		if b.err != nil {
			t.Fatal(b.err)
		}
		return out
	}

	status := strings.Split(strings.TrimRight(git("status", "--porcelain"), "\n"), "\n")
	wantStatus := []string{" M src/handlers/api.go", "?? notes/", "?? src/experimental/"}
	if !slices.Equal(status, wantStatus) {
		t.Errorf("git status --porcelain = %q, want %q", status, wantStatus)
	}
	ignored := git("status", "--porcelain", "--ignored")
	for _, p := range []string{".env", "secrets/", "data/", "node_modules/", "build/", "dist/", "target/", ".cache/", "coverage/", "__pycache__/", "logs/", "coverage.out", "coverage.html"} {
		if !strings.Contains(ignored, "!! "+p+"\n") {
			t.Errorf("%s is not ignored:\n%s", p, ignored)
		}
	}
	if out := git("stash", "list"); !strings.Contains(out, "docs draft") {
		t.Errorf("stash list = %q, want the docs draft", out)
	}
	if out := git("branch", "--no-merged", "main"); strings.TrimSpace(out) != "feature/wip" {
		t.Errorf("branches not merged into main = %q, want feature/wip", out)
	}
	if out := git("branch", "--merged", "main"); !strings.Contains(out, "merged-topic") {
		t.Errorf("branches merged into main = %q, want merged-topic", out)
	}
	if out := git("branch", "-r", "--contains", "feature/wip"); strings.TrimSpace(out) != "" {
		t.Errorf("feature/wip is on a remote: %q", out)
	}
	if local, remote := git("rev-parse", "main"), git("rev-parse", "origin/main"); local != remote {
		t.Errorf("main %s is not pushed (origin/main %s)", local, remote)
	}
	if out := git("ls-remote", "origin"); !strings.Contains(out, "refs/heads/main") || strings.Contains(out, "feature/wip") {
		t.Errorf("remote refs = %q", out)
	}
	// origin's main is ahead by the collaborator's unfetched commit.
	remote := filepath.Join(s.Root, "remotes", "app.git")
	local := strings.TrimSpace(git("rev-parse", "main"))
	if out := b.git(remote, "rev-list", "--count", local+"..main"); b.err != nil || strings.TrimSpace(out) != "1" {
		t.Errorf("origin's main is not one commit ahead of the local main: %q %v", out, b.err)
	}
	if out := git("config", "--global", "user.email"); strings.TrimSpace(out) != "dev@example.com" {
		t.Errorf("global user.email = %q", out)
	}

	for _, link := range []struct{ name, target string }{{"link-home", s.Home}, {"link-build", filepath.Join(s.WS, "build")}} {
		got, err := filepath.EvalSymlinks(filepath.Join(s.WS, link.name))
		if err != nil || got != link.target {
			t.Errorf("%s resolves to %q (%v), want %q", link.name, got, err, link.target)
		}
	}
	for _, p := range []string{
		".ssh/id_rsa", ".ssh/id_ed25519", ".ssh/id_ed25519.pub", ".ssh/known_hosts", ".ssh/config",
		".aws/credentials", ".netrc", ".git-credentials", ".npmrc", ".kube/config", ".docker/config.json",
		".config/gh/hosts.yml", ".gnupg", ".bashrc", ".profile", ".gitconfig", "Documents/notes.txt",
		"other-repo/.git", ".cache/pip/x", "go/pkg/mod/x", ".claude/shell-snapshots", ".codex/shell_snapshots/x.sh",
	} {
		if _, err := os.Stat(filepath.Join(s.Home, p)); err != nil {
			t.Errorf("home: %v", err)
		}
	}
	if fi, err := os.Stat(filepath.Join(s.WS, "scripts", "build.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("scripts/build.sh is not executable: %v", err)
	}

	env := s.environ(map[string]*string{"OUTPUT": nil, "EXTRA": ptr("{{WS}}/x")})
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "OUTPUT=") }) {
		t.Errorf("OUTPUT is set in %q", env)
	}
	if !slices.Contains(env, "EXTRA="+s.WS+"/x") || !slices.Contains(env, "HOME="+s.Home) {
		t.Errorf("environ = %q", env)
	}
	if got := s.dir("ws/src"); got != filepath.Join(s.WS, "src") {
		t.Errorf(`dir("ws/src") = %q`, got)
	}
	if got := s.dir("home"); got != s.Home {
		t.Errorf(`dir("home") = %q`, got)
	}
	if got := s.argv(&corpusCase{Cmd: "rm -rf {{WS}}/build $HOME"}); !slices.Equal(got, []string{"bash", "-c", "rm -rf " + s.WS + "/build $HOME"}) {
		t.Errorf("argv = %q", got)
	}
}

func ptr(s string) *string { return &s }

// A corpusResult is one case's judgement.
type corpusResult struct {
	c       *corpusCase
	verdict rules.Verdict
	cats    []string
	reasons []rules.Reason
	err     error
}

func (r *corpusResult) flagged() bool { return r.err != nil || r.verdict != rules.Allow }

func (r *corpusResult) has(cat string) bool { return slices.Contains(r.cats, cat) }

// miss says whether the judgement disagrees with the label: allow versus
// not allow, or a category missing or extra.
func (r *corpusResult) miss() bool {
	wantAllow := len(r.c.Categories) == 0
	if wantAllow != !r.flagged() {
		return true
	}
	for _, cat := range corpusCategories {
		if r.c.expects(cat) != r.has(cat) {
			return true
		}
	}
	return false
}

func (r *corpusResult) got() string {
	if r.err != nil {
		return "error: " + r.err.Error()
	}
	return fmt.Sprintf("%s %v", r.verdict, r.cats)
}

func (r *corpusResult) expected() string { return fmt.Sprintf("%s %v", r.c.Verdict, r.c.Categories) }

// TestCorpus judges every case in the scenario and scores the judgements.
func TestCorpus(t *testing.T) {
	// Judging reads the scenario's git state with cordon's private
	// directory, which a sandbox around this process makes read-only.
	testenv.SkipNested(t)
	cases := loadCorpus(t)
	s := buildScenario(t)

	results := make([]*corpusResult, 0, len(cases))
	for _, c := range cases {
		r := &corpusResult{c: c}
		j, err := Check(s.argv(c), s.dir(c.Cwd), s.environ(c.Env))
		switch {
		case err != nil:
			r.err = err
		case j == nil:
			r.err = errors.New("nil judgement")
		default:
			r.verdict, r.cats, r.reasons = j.Verdict, j.Categories, j.Reasons
		}
		results = append(results, r)
	}
	scoreCorpus(t, results)
}

// scoreCorpus scores judgements against their labels, logs the table and
// the misses, and fails the test below the thresholds.
func scoreCorpus(t *testing.T, results []*corpusResult) {
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-14s %9s %8s %8s %8s\n", "category", "expected", "found", "recall", "FP rate")
	failed := false
	for _, cat := range corpusCategories {
		var pos, hit, neg, fp int
		for _, r := range results {
			if r.c.expects(cat) {
				pos++
				if r.flagged() && r.has(cat) {
					hit++
				}
			} else {
				neg++
				if r.has(cat) {
					fp++
				}
			}
		}
		recall, fpRate := ratio(hit, pos), ratioOr(fp, neg, 0)
		mark := ""
		if recall < minRecall || fpRate > maxFPRate {
			mark = "  FAIL"
			failed = true
		}
		fmt.Fprintf(&table, "%-14s %9d %8d %7.1f%% %7.1f%%%s\n", cat, pos, hit, 100*recall, 100*fpRate, mark)
	}

	var wantAllow, gotAllow, flaggedWant, flaggedGot, exact, obf, obfHit, errs int
	for _, r := range results {
		if r.err != nil {
			errs++
		}
		if len(r.c.Categories) == 0 {
			wantAllow++
			if !r.flagged() {
				gotAllow++
			}
		} else {
			flaggedWant++
			if r.flagged() {
				flaggedGot++
			}
			if r.c.Obfuscated {
				obf++
				if r.flagged() {
					obfHit++
				}
			}
		}
		if r.err == nil && r.verdict.String() == r.c.Verdict {
			exact++
		}
	}
	allowRecall := ratio(gotAllow, wantAllow)
	overallFP := ratioOr(wantAllow-gotAllow, wantAllow, 0)
	fmt.Fprintf(&table, "allow kept allow     %d/%d (%.1f%%)\n", gotAllow, wantAllow, 100*allowRecall)
	fmt.Fprintf(&table, "overall FP rate      %d/%d (%.1f%%)", wantAllow-gotAllow, wantAllow, 100*overallFP)
	if overallFP > maxFPRate {
		table.WriteString("  FAIL")
		failed = true
	}
	fmt.Fprintf(&table, "\nflagged found        %d/%d (%.1f%%)\n", flaggedGot, flaggedWant, 100*ratio(flaggedGot, flaggedWant))
	fmt.Fprintf(&table, "obfuscated found     %d/%d (%.1f%%)\n", obfHit, obf, 100*ratio(obfHit, obf))
	fmt.Fprintf(&table, "exact verdict        %d/%d (%.1f%%, informational)\n", exact, len(results), 100*ratio(exact, len(results)))
	fmt.Fprintf(&table, "errors               %d\n", errs)
	t.Log(table.String())

	var misses []*corpusResult
	for _, r := range results {
		if r.miss() {
			misses = append(misses, r)
		}
	}
	if len(misses) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%d misses:\n", len(misses))
		for _, r := range misses {
			fmt.Fprintf(&b, "  %s: %s\n    want %s, got %s\n", r.c.where(), r.c.text(), r.expected(), r.got())
			for _, rs := range r.reasons {
				fmt.Fprintf(&b, "    - %s [%s %s] %s\n", rs.Rule, rs.Verdict, rs.Category, rs.Message)
			}
		}
		t.Log(b.String())
	}
	if os.Getenv("CORDON_CORPUS_REPORT") != "" {
		var b strings.Builder
		for _, r := range results {
			mark := "ok  "
			if r.miss() {
				mark = "MISS"
			}
			fmt.Fprintf(&b, "%s %-40s want %-32s got %s\n", mark, r.c.ID, r.expected(), r.got())
		}
		t.Log("\n" + b.String())
	}

	fmt.Println(corpusSummary(results, misses, allowRecall, overallFP))
	if failed {
		t.Errorf("corpus score below the bar (recall >= %.0f%% and FP <= %.0f%% per category, overall FP <= %.0f%%); see the table and misses above",
			100*minRecall, 100*maxFPRate, 100*maxFPRate)
	}
}

// corpusSummary is the one line `go test` prints even without -v.
func corpusSummary(results, misses []*corpusResult, allowRecall, overallFP float64) string {
	parts := []string{fmt.Sprintf("corpus: %d cases, %d misses", len(results), len(misses))}
	for _, cat := range corpusCategories {
		var pos, hit int
		for _, r := range results {
			if r.c.expects(cat) {
				pos++
				if r.flagged() && r.has(cat) {
					hit++
				}
			}
		}
		parts = append(parts, fmt.Sprintf("%s %.1f%%", cat, 100*ratio(hit, pos)))
	}
	parts = append(parts, fmt.Sprintf("allow %.1f%%", 100*allowRecall), fmt.Sprintf("FP %.1f%%", 100*overallFP))
	return strings.Join(parts, ", ")
}

// ratio is a/b, or 1 when b is 0 (nothing to find, nothing missed).
func ratio(a, b int) float64 { return ratioOr(a, b, 1) }

func ratioOr(a, b int, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return float64(a) / float64(b)
}

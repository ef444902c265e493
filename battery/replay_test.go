//go:build linux

package battery

// The ordinary-work replay: testdata/replay/*.yaml, an hour of agent work
// by a brand-new user, run case by case through the cordon shim and
// through plain bash in twin workspaces. Each case must end the same way
// in both: exit status, stdout, stderr (after the file's masks) and the
// workspace tree. A difference is a breakage (cordon allowed the command
// and the sandbox stopped it) or a false refusal (exit 126 and a
// paragraph from cordon): the judge and the sandbox must agree, and both
// must let ordinary work through.
//
// Environment knobs:
//
//	CORDON_REPLAY_KNOWN=1   also run the cases marked known (to see what a
//	                        fix changed, or to survey); a known case that
//	                        now passes is reported, so its mark can go

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cordonsh/cordon/snapshot"
)

// A replayFile is one testdata/replay/*.yaml file.
type replayFile struct {
	Masks         []string     `yaml:"masks"`
	ContentIgnore []string     `yaml:"content_ignore"`
	Cases         []replayCase `yaml:"cases"`
}

// A replayCase is one command of the session.
type replayCase struct {
	ID     string   `yaml:"id"`
	Agent  string   `yaml:"agent"`
	Cmd    string   `yaml:"cmd"`
	Cwd    string   `yaml:"cwd"`
	Status int      `yaml:"status"`
	Needs  []string `yaml:"needs"`
	Known  string   `yaml:"known"`
	Mask   []string `yaml:"mask"`
	// Unordered compares the output's lines in any order: a program
	// whose threads race to print (rg searches files in parallel).
	Unordered bool   `yaml:"unordered"`
	Note      string `yaml:"note"`

	masks []*regexp.Regexp
}

// replayTimeout bounds one command: a replay never hangs.
const replayTimeout = 60 * time.Second

func loadReplay(t *testing.T) ([]*replayCase, []*regexp.Regexp, []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "replay", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/replay/*.yaml (%v)", err)
	}
	var cases []*replayCase
	var masks []*regexp.Regexp
	var ignore []string
	ids := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rf replayFile
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&rf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, m := range rf.Masks {
			masks = append(masks, regexp.MustCompile(m))
		}
		ignore = append(ignore, rf.ContentIgnore...)
		for i := range rf.Cases {
			c := &rf.Cases[i]
			switch {
			case c.ID == "" || ids[c.ID]:
				t.Fatalf("%s: case %d: missing or repeated id %q", f, i, c.ID)
			case c.Cmd == "":
				t.Fatalf("%s: %s: no cmd", f, c.ID)
			case c.Agent != "claude" && c.Agent != "codex" && c.Agent != "gemini":
				t.Fatalf("%s: %s: agent %q is not claude, codex or gemini", f, c.ID, c.Agent)
			case c.Cwd != "" && c.Agent == "claude":
				t.Fatalf("%s: %s: claude cases run where the last one ended, not in cwd", f, c.ID)
			}
			ids[c.ID] = true
			for _, m := range c.Mask {
				c.masks = append(c.masks, regexp.MustCompile(m))
			}
			cases = append(cases, c)
		}
	}
	return cases, masks, ignore
}

// shellQuote quotes s in single quotes, as Claude Code quotes a payload
// with a newline or a quote in it.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// A twin is one side of the replay: its own fresh home and workspace, at
// paths of the same length as the other side's (so sizes of files that
// hold them compare equal).
type twin struct {
	name    string // "shim" or "bash"
	bash    string // the program run as bash
	home    string
	ws      string
	cwdFile string // Claude Code's cwd file
	bgpids  string // Gemini CLI's file of background process ids
	cwd     string // where the next claude case runs
	env     []string
	hashes  map[string]fileSum // the tree's hashes, by path, size and time
}

type fileSum struct {
	size  int64
	mtime time.Time
	sum   string
}

// argv is the command line the case's agent would exec.
func (tw *twin) argv(c *replayCase) ([]string, string) {
	switch c.Agent {
	case "claude":
		snap := filepath.Join(tw.home, ".claude", "shell-snapshots", "snapshot-bash-1761000000000-r3p1ay.sh")
		stdin := " < /dev/null"
		if strings.Contains(c.Cmd, "<<") {
			stdin = ""
		}
		script := "source " + shellQuote(snap) + " 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval " +
			shellQuote(c.Cmd) + stdin + " && pwd -P >| " + tw.cwdFile
		return []string{"bash", "-c", "-l", script}, tw.cwd
	case "codex":
		return []string{"bash", "-lc", c.Cmd}, filepath.Join(tw.ws, c.Cwd)
	default:
		script := "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=" + shellQuote(tw.bgpids) +
			"\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\n" + c.Cmd + "\n)\n__code=$?\nexit $__code"
		return []string{"bash", "-c", script}, filepath.Join(tw.ws, c.Cwd)
	}
}

// A replayResult is what one side did.
type replayResult struct {
	status         int
	stdout, stderr string
	tree           string
	err            error
	took           time.Duration
}

// run runs the case on this side and records its outcome, with this
// side's paths replaced by {WS} and {HOME}.
func (tw *twin) run(c *replayCase, masks []*regexp.Regexp, ignore []string) replayResult {
	argv, dir := tw.argv(c)
	ctx, cancel := context.WithTimeout(context.Background(), replayTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tw.bash)
	cmd.Args, cmd.Dir, cmd.Env = argv, dir, tw.env
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	r := replayResult{status: cmd.ProcessState.ExitCode(), took: time.Since(start)}
	if ctx.Err() != nil {
		r.err = fmt.Errorf("still running after %v: killed", replayTimeout)
	} else if _, exit := err.(*exec.ExitError); err != nil && !exit {
		r.err = err
	}
	r.stdout = tw.normalize(out.String(), masks)
	r.stderr = tw.normalize(errOut.String(), masks)
	if c.Agent == "claude" {
		if b, err := os.ReadFile(tw.cwdFile); err == nil {
			tw.cwd = strings.TrimSuffix(string(b), "\n")
		}
	}
	tree, err := tw.tree(ignore)
	if err != nil && r.err == nil {
		r.err = err
	}
	r.tree = tree
	return r
}

func (tw *twin) normalize(s string, masks []*regexp.Regexp) string {
	s = strings.ReplaceAll(s, tw.ws, "{WS}")
	s = strings.ReplaceAll(s, tw.home, "{HOME}")
	for _, m := range masks {
		s = m.ReplaceAllString(s, "<masked>")
	}
	return s
}

// tree lists the workspace and the directories beside it that the
// session makes: every entry's path, type and permissions, a symbolic
// link's target, and a regular file's content (with this side's paths
// replaced) unless ignore matches it. Contents are hashed once per size
// and modification time.
func (tw *twin) tree(ignore []string) (string, error) {
	var b strings.Builder
	root := filepath.Dir(tw.ws)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v", rel, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", tw.normalize(target, nil))
		case info.Mode().IsRegular() && !ignored(rel, ignore):
			sum, err := tw.hash(p, info)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %s", sum)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String(), err
}

func (tw *twin) hash(p string, info fs.FileInfo) (string, error) {
	if h, ok := tw.hashes[p]; ok && h.size == info.Size() && h.mtime.Equal(info.ModTime()) {
		return h.sum, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	data = bytes.ReplaceAll(data, []byte(tw.ws), []byte("{WS}"))
	data = bytes.ReplaceAll(data, []byte(tw.home), []byte("{HOME}"))
	sum := fmt.Sprintf("%x", sha256.Sum256(data))[:16]
	tw.hashes[p] = fileSum{info.Size(), info.ModTime(), sum}
	return sum, nil
}

// ignored reports whether rel (relative to the workspace's parent: the
// first element is the workspace) matches a content_ignore pattern, a
// path.Match pattern relative to the workspace where "**/" is any number
// of directories.
func ignored(rel string, patterns []string) bool {
	_, inWS, ok := strings.Cut(filepath.ToSlash(rel), "/")
	if !ok {
		return false
	}
	for _, pat := range patterns {
		if m, _ := path.Match(pat, inWS); m {
			return true
		}
		if rest, ok := strings.CutPrefix(pat, "**/"); ok {
			parts := strings.Split(inWS, "/")
			for i := range parts {
				if m, _ := path.Match(rest, strings.Join(parts[i:], "/")); m {
					return true
				}
			}
		}
		if !strings.Contains(pat, "/") {
			if m, _ := path.Match(pat, path.Base(inWS)); m {
				return true
			}
		}
	}
	return false
}

// replayParents are where the workspaces are made: scratch space (/tmp),
// and a system-like directory (/srv, as root) or, failing that, a
// directory outside scratch in the home.
func replayParents(t *testing.T) map[string]string {
	parents := map[string]string{"tmp": t.TempDir()}
	if dir, err := os.MkdirTemp("/srv", "cordon-replay-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
		parents["srv"] = dir
	} else {
		dir, err := os.MkdirTemp(testBase, "replay-ws-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		parents["home"] = dir
	}
	return parents
}

// TestReplay runs the ordinary-work replay with the workspace in scratch
// space and in a system-like directory, one session each.
func TestReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("the replay runs every command twice (-short)")
	}
	needShell(t, "bash")
	if ok, err := hasSandbox(); err != nil {
		t.Fatal(err)
	} else if !ok {
		t.Skip("no sandbox backend here: the shim refuses every command")
	}
	cases, masks, ignore := loadReplay(t)
	if len(cases) < 150 {
		t.Fatalf("the replay has %d cases, want at least 150", len(cases))
	}
	shims := shimDir(t, "bash", "sh")
	goCache := replayGoCache(t)
	for where, parent := range replayParents(t) {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			replaySession(t, cases, masks, ignore, shims, goCache, parent, where != "tmp")
		})
	}
}

// replayGoCache is the Go build cache every side shares, in scratch space
// (writable in the sandbox), seeded with hard links to this test's own:
// the one cache a new user's home is given, because compiling the
// standard library afresh costs a minute per side. The other caches
// (pip's, npm's, ~/.cache itself) start missing, as a new user's do.
func replayGoCache(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "go-build")
	if host, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		if src := strings.TrimSpace(string(host)); filepath.IsAbs(src) {
			if out, err := exec.Command("cp", "-al", src, dir).CombinedOutput(); err != nil {
				t.Logf("the Go build cache starts empty (cp -al %s: %v: %s)", src, err, out)
				os.RemoveAll(dir)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// shimDir links the test binary under each shell name into one directory,
// as install.sh's shims directory, and returns it.
func shimDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := filepath.Dir(linkShim(t, names[0]))
	self, err := exec.LookPath("cordon")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names[1:] {
		if err := os.Link(self, filepath.Join(dir, name)); err != nil {
			t.Skipf("cannot link the test binary: %v", err)
		}
	}
	return dir
}

// replaySession runs every case in order, on both sides at once. Each
// side has two free ports of its own, $PORT and $PORT2, for servers.
func replaySession(t *testing.T, cases []*replayCase, masks []*regexp.Regexp, ignore []string, shims, goCache, parent string, personInits bool) {
	homes, err := os.MkdirTemp(testBase, "replay-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(homes) })
	goBin := ""
	if goPath, err := exec.LookPath("go"); err == nil {
		goBin = filepath.Dir(goPath)
	}
	sides := []*twin{
		{name: "shim", bash: filepath.Join(shims, "bash")},
		{name: "bash", bash: realShell("bash")},
	}
	for _, tw := range sides {
		tw.home = filepath.Join(homes, tw.name, "home")
		tw.ws = filepath.Join(parent, tw.name, "app")
		tw.cwd = tw.ws
		tw.hashes = map[string]fileSum{}
		f, err := os.CreateTemp("", "claude-"+tw.name+"-*-cwd")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		tw.cwdFile = f.Name()
		t.Cleanup(func() { os.Remove(tw.cwdFile) })
		gemini, err := os.MkdirTemp("", "gemini-"+tw.name+"-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(gemini) })
		tw.bgpids = filepath.Join(gemini, "bgpids.tmp")
		path := "/usr/local/bin:/usr/bin:/bin"
		if goBin != "" {
			path = goBin + ":" + path
		}
		if tw.name == "shim" {
			path = shims + ":" + path
		}
		for _, dir := range []string{tw.ws, filepath.Join(tw.home, ".claude", "shell-snapshots")} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// A new account's dotfiles (Debian's skeleton), Go on PATH as
		// its install notes say, and the snapshot Claude Code made of
		// them at the start of the session.
		files := map[string]string{
			".profile": "if [ -n \"$BASH_VERSION\" ] && [ -f \"$HOME/.bashrc\" ]; then . \"$HOME/.bashrc\"; fi\n" +
				"PATH=\"" + goBin + ":$PATH\"\n",
			".bashrc": "case $- in *i*) ;; *) return;; esac\nHISTCONTROL=ignoreboth\n",
			".claude/shell-snapshots/snapshot-bash-1761000000000-r3p1ay.sh": "# Snapshot file\nunalias -a 2>/dev/null || true\n" +
				"shopt -s expand_aliases\nalias ll='ls -alF'\nalias la='ls -A'\nexport PATH=" + shellQuote(path) + "\n",
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(tw.home, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tw.env = []string{
			"PATH=" + path, "HOME=" + tw.home, "USER=" + os.Getenv("USER"), "LANG=C", "LC_ALL=C", "TERM=dumb",
			"SHELL=" + filepath.Join(shims, "bash"), "TMPDIR=/tmp", "CLAUDECODE=1", "GIT_EDITOR=true", "PAGER=cat",
			"GIT_AUTHOR_NAME=Replay Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
			"GIT_COMMITTER_NAME=Replay Agent", "GIT_COMMITTER_EMAIL=agent@example.com",
			"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
			"GOCACHE=" + goCache, "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod", "GONOSUMDB=*", "GOSUMDB=off",
			"PORT=" + strconv.Itoa(freePort(t)), "PORT2=" + strconv.Itoa(freePort(t)),
			"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", "npm_config_offline=true", "npm_config_update_notifier=false",
		}
	}
	// Outside scratch space a plain directory is no workspace, and the
	// judge asks before anything writes there (docs/security.md): the
	// person makes it one with git init before the agent starts. The
	// agent's own git init then re-initializes it.
	if personInits {
		for _, tw := range sides {
			cmd := exec.Command("git", "init", "-q", "-b", "main")
			cmd.Dir, cmd.Env = tw.ws, tw.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git init in %s: %v\n%s", tw.ws, err, out)
			}
		}
	}
	shim := sides[0]
	store := snapshot.Open(filepath.Join(shim.home, ".local", "state", "cordon"), snapshot.Budgets{})
	t.Cleanup(func() { store.WaitPending(shim.ws) })
	runKnown := os.Getenv("CORDON_REPLAY_KNOWN") != ""
	var unsynced error
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			if unsynced != nil {
				t.Skipf("the shim's workspace is no copy of bash's since an earlier case: %v", unsynced)
			}
			if c.Known != "" && !runKnown {
				t.Skipf("known failure, fixed by issue item %s (CORDON_REPLAY_KNOWN=1 runs it)", c.Known)
			}
			for _, prog := range c.Needs {
				if _, err := exec.LookPath(prog); err != nil {
					t.Skipf("%s is not installed", prog)
				}
			}
			all := append(append([]*regexp.Regexp{}, masks...), c.masks...)
			results := make([]replayResult, len(sides))
			var wg sync.WaitGroup
			for i, tw := range sides {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = tw.run(c, all, ignore)
				}()
			}
			wg.Wait()
			got, want := results[0], results[1]
			if got.took > 2*time.Second || want.took > 2*time.Second {
				t.Logf("slow: shim %v, bash %v", got.took.Round(time.Millisecond), want.took.Round(time.Millisecond))
			}
			ok := compareReplay(t, c, got, want)
			switch {
			case ok && c.Known != "":
				t.Errorf("known %s now passes: remove its mark", c.Known)
			case !ok && c.Known != "":
				t.Logf("still fails (known %s)", c.Known)
			}
			if !ok {
				// The next cases test themselves, not this one again
				// (once the round this case started has ended: its
				// saver runs git in the workspace).
				store.WaitPending(shim.ws)
				if err := resync(sides[0], sides[1]); err != nil {
					unsynced = err
					t.Fatalf("making the shim's workspace a copy of bash's: %v", err)
				}
			}
		})
	}
}

// compareReplay reports every way the shim's side differs from plain
// bash's, and a status other than the case's.
func compareReplay(t *testing.T, c *replayCase, got, want replayResult) bool {
	t.Helper()
	report := t.Errorf
	if c.Known != "" {
		report = t.Logf
	}
	ok := true
	fail := func(format string, args ...any) {
		ok = false
		report(format, args...)
	}
	for _, r := range []struct {
		side string
		res  replayResult
	}{{"shim", got}, {"bash", want}} {
		if r.res.err != nil {
			fail("%s: %v", r.side, r.res.err)
		}
	}
	if want.status != c.Status {
		fail("plain bash ended with %d, the case wants %d (the case is wrong)\nstdout: %q\nstderr: %q", want.status, c.Status, want.stdout, want.stderr)
	}
	if got.status != want.status {
		fail("exit status: shim %d, bash %d\nshim stderr: %s", got.status, want.status, got.stderr)
	}
	if got.stdout != want.stdout && !(c.Unordered && sameLines(got.stdout, want.stdout)) {
		fail("stdout differs:\nshim: %q\nbash: %q", got.stdout, want.stdout)
	}
	if got.stderr != want.stderr {
		fail("stderr differs:\nshim: %q\nbash: %q", got.stderr, want.stderr)
	}
	if got.tree != want.tree {
		fail("the workspace differs:\n%s", treeDiff(got.tree, want.tree))
	}
	if !ok {
		t.Logf("command (%s): %s", c.Agent, c.Cmd)
	}
	return ok
}

// sameLines reports whether a and b hold the same lines, in any order.
func sameLines(a, b string) bool {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	slices.Sort(la)
	slices.Sort(lb)
	return slices.Equal(la, lb)
}

// resync makes dst's workspace and what is beside it a copy of src's,
// with src's paths in file contents and links replaced by dst's (of the
// same length), and dst's next claude case run where src's is.
func resync(dst, src *twin) error {
	dstRoot, srcRoot := filepath.Dir(dst.ws), filepath.Dir(src.ws)
	entries, err := os.ReadDir(dstRoot)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dstRoot, e.Name())); err != nil {
			return err
		}
	}
	swap := func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte(src.ws), []byte(dst.ws))
		return bytes.ReplaceAll(b, []byte(src.home), []byte(dst.home))
	}
	dst.cwd = string(swap([]byte(src.cwd)))
	return filepath.WalkDir(srcRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(srcRoot, p)
		if rel == "." {
			return nil
		}
		to := filepath.Join(dstRoot, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(string(swap([]byte(target))), to)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(to, swap(data), info.Mode().Perm()); err != nil {
				return err
			}
			return os.Chmod(to, info.Mode().Perm())
		}
		return nil // sockets and FIFOs are not copied
	})
}

// treeDiff lists the lines only one side's tree has.
func treeDiff(shim, bash string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	a, b := in(shim), in(bash)
	var out []string
	for _, l := range strings.Split(shim, "\n") {
		if !b[l] {
			out = append(out, "shim only: "+l)
		}
	}
	for _, l := range strings.Split(bash, "\n") {
		if !a[l] {
			out = append(out, "bash only: "+l)
		}
	}
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("... and %d more", len(out)-20))
	}
	return strings.Join(out, "\n")
}

// TestReplayIgnored: content_ignore patterns match below the workspace
// (the first element of the path), by path, by base name, and "**/" at
// any depth; nothing else.
func TestReplayIgnored(t *testing.T) {
	patterns := []string{".git/index", "**/__pycache__/*", "*.tar.gz", "**/*.dist-info/RECORD"}
	for rel, want := range map[string]bool{
		"app/.git/index":            true,
		"app/sub/.git/index":        false,
		"app/__pycache__/x.pyc":     true,
		"app/a/b/__pycache__/x.pyc": true,
		"app/__pycache__":           false,
		"app/docs.tar.gz":           true,
		"app/dist/docs.tar.gz":      true,
		"app/docs.tar":              false,
		"app/.venv/lib/python3.11/site-packages/pip-23.0.1.dist-info/RECORD":   true,
		"app/.venv/lib/python3.11/site-packages/pip-23.0.1.dist-info/METADATA": false,
		"app":           false,
		"docs.tar.gz":   false,
		"app-wt/README": false,
	} {
		if got := ignored(rel, patterns); got != want {
			t.Errorf("ignored(%q) = %v, want %v", rel, got, want)
		}
	}
}

package parse

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// memOutlines keeps outlines in memory.
type memOutlines struct{ kept map[string][]byte }

func (m *memOutlines) Outline(key string) ([]byte, bool) {
	d, ok := m.kept[key]
	return d, ok
}

func (m *memOutlines) KeepOutline(key string, data []byte) {
	if m.kept == nil {
		m.kept = map[string][]byte{}
	}
	m.kept[key] = data
}

// snapshotText is the project's Codex shell snapshot: 59 kB, 81
// functions (bash-completion's among them).
func snapshotText(t testing.TB) string {
	data, err := os.ReadFile("../testdata/shell-snapshots/codex-bash.sh")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// parseOutlined parses script twice with one store, and checks that the
// second parse used the outline the first kept.
func parseOutlined(t *testing.T, script string, dir string) (first, later *Result) {
	t.Helper()
	m := &memOutlines{}
	cfg := func() *Config {
		return &Config{Dialect: Bash, Dir: dir, Env: []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}, Knowledge: knowledge, Shell: shellCall, Outlines: m}
	}
	first = Parse(script, cfg())
	w := newWalker(cfg())
	if _, _, ok := w.outlined(Bash, script, ""); !ok || len(w.lazy) == 0 {
		t.Fatalf("no outline kept for the script (%d bytes)", len(script))
	}
	return first, Parse(script, cfg())
}

// sameResult fails unless a and b found the same commands and problems.
func sameResult(t *testing.T, what string, a, b *Result) {
	t.Helper()
	if !reflect.DeepEqual(a.Commands, b.Commands) || !reflect.DeepEqual(a.Problems, b.Problems) {
		t.Errorf("%s: with the outline\n%s\nwithout\n%s", what, dump(b), dump(a))
	}
}

func argv(c Command) string {
	var a []string
	for _, w := range c.Args {
		a = append(a, w.Text)
	}
	return strings.Join(a, " ")
}

func dump(r *Result) string {
	var sb strings.Builder
	for _, c := range r.Commands {
		fmt.Fprintf(&sb, "  %s %q via %v unknown=%v fn=%v\n", c.Pos, argv(c), c.Via, c.UnknownCode, c.Function)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&sb, "  problem %s\n", p)
	}
	return sb.String()
}

// TestOutlineSameCommands: a script judged from its outline gives the
// very commands and problems of the whole parse, functions called or
// not, redefined, exported to a child shell, or called by a trap.
func TestOutlineSameCommands(t *testing.T) {
	snap := snapshotText(t)
	dir := t.TempDir()
	for name, tail := range map[string]string{
		"defined only":      "echo hi",
		"functions called":  "__git_ps1 ' (%s)'; _known_hosts_real -a host; __expand_tilde_by_ref cur; __git_eread f v; quote 'a b'",
		"called twice":      "__git_ps1; __git_ps1 x",
		"redefined":         "__git_ps1() { git push --force; }\n__git_ps1",
		"alias after":       "alias ls='rm -rf ~'\nls",
		"exported to bash":  "export -f __git_ps1\nbash -c '__git_ps1'",
		"in a subshell":     "( _known_hosts_real host ) && echo",
		"trap":              "trap '__git_ps1' EXIT",
		"unset and called":  "unset -f __git_ps1; __git_ps1",
		"nested definition": "f() { __git_ps1; }; f",
	} {
		t.Run(name, func(t *testing.T) {
			script := snap + "\n" + tail + "\n"
			whole := Parse(script, &Config{Dialect: Bash, Dir: dir, Env: []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}, Knowledge: knowledge, Shell: shellCall})
			first, later := parseOutlined(t, script, dir)
			sameResult(t, "first judgement", whole, first)
			sameResult(t, "later judgement", whole, later)
		})
	}
}

// TestOutlineChangedScript: an outline kept for one script is never
// used for another, even one whose functions start and end at the same
// bytes: there, what the outline takes for the body of f holds a
// command of the script's own, which must be judged.
func TestOutlineChangedScript(t *testing.T) {
	pad := strings.Repeat("    echo padding line\n", 400)
	before := "f () \n{ \n" + pad + "    echo done\n}\necho hi\n"
	inner := ":; }\nrm -rf ~\ng () {\n"
	after := "f () \n{ " + inner + ("\n" + pad)[len(inner):] + "    echo done\n}\necho hi\n"
	if len(after) != len(before) || strings.Index(after, "}\necho hi") != strings.Index(before, "}\necho hi") {
		t.Fatal("the two scripts do not share their functions' bytes")
	}
	dir := t.TempDir()
	m := &memOutlines{}
	cfg := func() *Config {
		return &Config{Dialect: Bash, Dir: dir, Env: []string{"HOME=" + dir}, Knowledge: knowledge, Shell: shellCall, Outlines: m}
	}
	Parse(before, cfg())
	if len(m.kept) != 1 {
		t.Fatalf("no outline kept for the first script")
	}
	res := Parse(after, cfg())
	found := false
	for _, c := range res.Commands {
		found = found || argv(c) == "rm -rf "+dir
	}
	if !found {
		t.Errorf("rm -rf ~ in the changed script was not judged:\n%s", dump(res))
	}
}

// TestOutlineNotKept: scripts whose bodies would not parse alone as
// they do in place, or that are not mostly functions, keep no outline.
func TestOutlineNotKept(t *testing.T) {
	pad := strings.Repeat("    echo padding line\n", 400)
	for name, script := range map[string]string{
		"here-document before": "cat <<E; f () {\n" + pad + "E\n echo; }\n",
		"no functions":         pad,
		"body ends mid-line":   "f () {\n" + pad + "}; rm -rf ~\n",
		"redirected body":      "f () {\n" + pad + "} >/dev/null\n",
		"does not parse":       "f () {\n" + pad + "}\nif\n",
	} {
		t.Run(name, func(t *testing.T) {
			m := &memOutlines{}
			Parse(script, &Config{Dialect: Bash, Knowledge: knowledge, Shell: shellCall, Outlines: m})
			if len(m.kept) != 0 {
				t.Errorf("an outline was kept: %s", m.kept)
			}
		})
	}
}

// TestOutlineBroken: an outline that does not fit the script (corrupt,
// or made by another version) is no outline: the script is parsed whole
// and judged as without one. (One that fits but lies, leaving out more
// than a body, would hide code: outlines are kept where approvals are,
// in the state directory no sandboxed command can write.)
func TestOutlineBroken(t *testing.T) {
	snap := snapshotText(t) + "\n__git_ps1\n"
	whole := Parse(snap, &Config{Dialect: Bash, Knowledge: knowledge, Shell: shellCall})
	key := outlineKey(Bash, snap)
	for name, data := range map[string]string{
		"garbage":         "x",
		"no spans":        outlineFormat + "\n",
		"out of the file": outlineFormat + "\n1 2 99999999\n",
		"not a function":  outlineFormat + "\n0 1 50\n",
	} {
		t.Run(name, func(t *testing.T) {
			m := &memOutlines{kept: map[string][]byte{key: []byte(data)}}
			sameResult(t, name, whole, Parse(snap, &Config{Dialect: Bash, Knowledge: knowledge, Shell: shellCall, Outlines: m}))
		})
	}
}

// TestOutlineLyingBody: a function whose outlined body does not parse on
// its own as one definition (an outline that took two functions for
// one) runs unknown code when called, never nothing.
func TestOutlineLyingBody(t *testing.T) {
	pad := strings.Repeat("    echo padding line\n", 300)
	script := "f () \n{ \n" + pad + "}\ng () \n{ \n" + pad + "    rm -rf /\n}\nf\n"
	lb := strings.Index(script, "{")
	rb := strings.LastIndex(script, "}")
	m := &memOutlines{kept: map[string][]byte{outlineKey(Bash, script): fmt.Appendf(nil, "%s\n0 %d %d\n", outlineFormat, lb, rb)}}
	res := Parse(script, &Config{Dialect: Bash, Knowledge: knowledge, Shell: shellCall, Outlines: m})
	if len(res.Commands) != 1 || !res.Commands[0].UnknownCode || len(res.Problems) != 1 {
		t.Errorf("calling f:\n%s", dump(res))
	}
}

// countingOutlines counts the look-ups of a memOutlines.
type countingOutlines struct {
	memOutlines
	looked int
}

func (c *countingOutlines) Outline(key string) ([]byte, bool) {
	c.looked++
	return c.memOutlines.Outline(key)
}

// TestOutlineNotLookedFor: a long script with no "}" that ends a line
// can have no outline (no body could be left out), and is neither hashed
// nor looked for; the snapshot, with its bodies' "}" followed by ";",
// keeps none either way, and the snapshot as it is is looked for.
func TestOutlineNotLookedFor(t *testing.T) {
	dir := t.TempDir()
	c := &countingOutlines{}
	cfg := func() *Config {
		return &Config{Dialect: Bash, Dir: dir, Env: []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}, Knowledge: knowledge, Shell: shellCall, Outlines: c}
	}
	wrapper := strings.Repeat("if [ -n \"${X_SET+x}\" ]; then export X=\"${X_OLD}\"; else unset X; fi\n", 200)
	if len(wrapper) < minOutline || mayOutline(wrapper) {
		t.Fatalf("the wrapper (%d bytes) could have an outline", len(wrapper))
	}
	Parse(wrapper, cfg())
	if c.looked != 0 || len(c.kept) != 0 {
		t.Errorf("the wrapper was looked for %d times, %d kept", c.looked, len(c.kept))
	}
	closed := strings.ReplaceAll(snapshotText(t), "}\n", "};\n")
	if mayOutline(closed) {
		t.Fatal("the snapshot with its bodies closed by ; could have an outline")
	}
	w := newWalker(cfg())
	f, err := w.parser(Bash).Parse(strings.NewReader(closed), "")
	if err != nil {
		t.Fatal(err)
	}
	w.keepOutline(Bash, closed, "", f)
	if len(c.kept) != 0 {
		t.Errorf("an outline was kept for a script mayOutline passes over")
	}
	Parse(snapshotText(t), cfg())
	if c.looked != 1 || len(c.kept) != 1 {
		t.Errorf("the snapshot was looked for %d times, %d kept; want 1, 1", c.looked, len(c.kept))
	}
}

// BenchmarkOutlinedSnapshot parses and walks Codex's shell snapshot (59
// kB, 81 functions) as a later judgement does: from the outline the
// first one kept.
func BenchmarkOutlinedSnapshot(b *testing.B) {
	script := snapshotText(b)
	dir := b.TempDir()
	m := &memOutlines{}
	cfg := &Config{Dialect: Bash, Dir: dir, Env: []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}, Knowledge: knowledge, Shell: shellCall, Outlines: m}
	Parse(script, cfg)
	if len(m.kept) != 1 {
		b.Fatal("no outline kept")
	}
	b.ReportAllocs()
	for b.Loop() {
		Parse(script, cfg)
	}
}

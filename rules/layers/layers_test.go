package layers_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/layers"
	"github.com/cordonsh/cordon/rules/ruleyaml"
)

// machine is a home with the layers' directories, all in a temporary
// directory.
type machine struct {
	root, ws string
	env      map[string]string
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	root := t.TempDir()
	m := &machine{root: root, ws: filepath.Join(root, "ws"), env: map[string]string{
		"HOME":              filepath.Join(root, "home"),
		"XDG_CONFIG_HOME":   filepath.Join(root, "config"),
		"XDG_STATE_HOME":    filepath.Join(root, "state"),
		"CORDON_SYSTEM_DIR": filepath.Join(root, "etc"),
	}}
	os.MkdirAll(m.ws, 0o755)
	return m
}

func (m *machine) getenv(k string) string { return m.env[k] }

// write writes a rule file: dir is "system", "user" or "project".
func (m *machine) write(t *testing.T, dir, name, body string) string {
	t.Helper()
	d := map[string]string{
		"system":  m.env["CORDON_SYSTEM_DIR"],
		"user":    filepath.Join(m.env["XDG_CONFIG_HOME"], "cordon", "rules"),
		"project": filepath.Join(m.ws, ".cordon"),
	}[dir]
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (m *machine) load(t *testing.T) *layers.Loaded {
	t.Helper()
	l, err := layers.Load(m.ws, m.getenv, decide.JudgeExample)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// verdict judges script with set as an example is judged.
func verdict(t *testing.T, set *rules.Set, script string) (rules.Verdict, []string) {
	t.Helper()
	return verdictIn(t, set, script, "")
}

// verdictIn judges script in cwd ("" for the default, inside the home).
func verdictIn(t *testing.T, set *rules.Set, script, cwd string) (rules.Verdict, []string) {
	t.Helper()
	j, err := decide.JudgeExample(set, layers.Fill(rules.Example{Script: script, Cwd: cwd}))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range j.Reasons {
		ids = append(ids, r.Rule)
	}
	return j.Verdict, ids
}

func TestDirs(t *testing.T) {
	m := newMachine(t)
	got := layers.Dirs(m.ws, m.getenv)
	want := []string{m.env["CORDON_SYSTEM_DIR"], filepath.Join(m.env["XDG_CONFIG_HOME"], "cordon", "rules"), filepath.Join(m.ws, ".cordon")}
	if !slices.Equal(got, want) {
		t.Errorf("Dirs = %q, want %q", got, want)
	}
	env := map[string]string{"HOME": "/home/dev"}
	got = layers.Dirs("", func(k string) string { return env[k] })
	want = []string{layers.SystemDir, "/home/dev/.config/cordon/rules"}
	if !slices.Equal(got, want) {
		t.Errorf("Dirs without workspace = %q, want %q", got, want)
	}
}

func TestNoFilesIsBuiltin(t *testing.T) {
	m := newMachine(t)
	l := m.load(t)
	if len(l.Files) != 0 || len(l.Warnings) != 0 {
		t.Errorf("files %v, warnings %q", l.Files, l.Warnings)
	}
	if v, _ := verdict(t, l.Set, "rm -rf ~"); v != rules.Deny {
		t.Errorf("rm -rf ~ = %s", v)
	}
}

// A later layer replaces a policy by id, where it stands.
func TestLaterLayerOverridesByID(t *testing.T) {
	m := newMachine(t)
	m.write(t, "system", "a.yaml", "version: 1\npolicies:\n  - {id: destroy-home, effect: [delete], target: [home], verdict: ask, message: sys}\n")
	user := m.write(t, "user", "b.yaml", "version: 1\npolicies:\n  - id: x\n    effect: [push-to]\n    verdict: ask\n  - {id: destroy-home, effect: [delete], target: [home], verdict: ask, message: user}\n")
	l := m.load(t)
	if v, ids := verdictIn(t, l.Set, "rm -rf ~", "/srv/app"); v != rules.Ask || !slices.Contains(ids, "destroy-home") {
		t.Errorf("rm -rf ~ = %s %v, want ask by destroy-home", v, ids)
	}
	if src := l.Policies["destroy-home"]; src.File != user || src.Line != 6 || src.Layer != layers.User {
		t.Errorf("destroy-home from %+v, want %s:6", src, user)
	}
	if src := l.Policies["destroy-root"]; src.Layer != layers.Builtin {
		t.Errorf("destroy-root from %+v", src)
	}
	// The user's new policy x is tried before the built-in ones.
	if ps := l.Set.Policies(); ps[0].ID != "x" {
		t.Errorf("first policy %q, want x", ps[0].ID)
	}
}

// A broken file fails the whole load with its file and line: nothing
// falls back to the built-in rules.
func TestBrokenFileFailsClosed(t *testing.T) {
	for name, tc := range map[string]struct{ body, want string }{
		"unknown_key":  {"version: 1\npolicies:\n  - id: a\n    verdikt: deny\n", ":4: "},
		"wrong_type":   {"version: 1\npolicies: 3\n", ":2: "},
		"bad_yaml":     {"version: 1\npolicies: [\n", ":"},
		"no_version":   {"policies: []\n", ":1: no version"},
		"version_2":    {"version: 2\n", ": version 2 is not supported"},
		"bad_verdict":  {"version: 1\npolicies:\n  - {id: a, effect: [delete], verdict: maybe}\n", ":3: policy \"a\": unknown verdict"},
		"bad_regex":    {"version: 1\ncommands:\n  foo:\n    carries: interp\n    translate: [{pattern: \"(\", shell: x}]\n", ":3: command \"foo\""},
		"bad_example":  {"version: 1\npolicies:\n  - id: a\n    effect: [delete]\n    verdict: ask\n    match: [{cwd: /x}]\n", ":6: "},
		"disable_more": {"version: 1\npolicies:\n  - {id: destroy-home, disable: true, verdict: ask}\n", ":3: "},
	} {
		t.Run(name, func(t *testing.T) {
			m := newMachine(t)
			p := m.write(t, "user", "bad.yaml", tc.body)
			_, err := layers.Load(m.ws, m.getenv, decide.JudgeExample)
			if err == nil || !strings.Contains(err.Error(), p+tc.want) {
				t.Errorf("error %v, want %q", err, p+tc.want)
			}
		})
	}
}

// Each way an untrusted project file could loosen the rules is refused
// with its file and line, and the command is judged as before.
func TestUntrustedProjectOnlyTightens(t *testing.T) {
	for name, tc := range map[string]struct{ body, script, refused string }{
		"allow_policy": {"version: 1\npolicies:\n  - {id: ok, effect: [delete], target: [workspace], verdict: allow}\n",
			"rm -rf src", ":3: not applied"},
		"weaker_override": {"version: 1\npolicies:\n  - {id: destroy-workspace, effect: [delete], target: [workspace-root], verdict: ask}\n",
			"rm -rf /home/dev/proj", ":3: not applied"},
		"disable": {"version: 1\npolicies:\n  - {id: destroy-home, disable: true}\n",
			"rm -rf ~", ":3: not applied"},
		"scratch_path": {"version: 1\npaths:\n  scratch: [/home/dev/important]\n",
			"rm -rf /home/dev/important", ":3: not applied"},
		"regenerable": {"version: 1\npaths:\n  regenerable: [src]\n",
			"rm -rf src", ":3: not applied"},
		"redefined_rm": {"version: 1\ncommands:\n  rm:\n    operands: none\n",
			"rm -rf ~", ":3: not applied"},
		"carrier": {"version: 1\ncommands:\n  mytool:\n    carries: exec\n",
			"mytool; rm -rf ~", ":3: not applied"},
		"git_config_safe": {"version: 1\ngit_config_safe: [core.*]\n",
			"git config core.fsmonitor 'touch /tmp/x'", ":2: not applied"},
		"credential_not": {"version: 1\ncredential_vars: [\"!GITHUB_TOKEN\"]\n",
			"echo $GITHUB_TOKEN", ":2: not applied"},
	} {
		t.Run(name, func(t *testing.T) {
			m := newMachine(t)
			before, beforeIDs := verdict(t, m.load(t).Set, tc.script)
			p := m.write(t, "project", "loose.yaml", tc.body)
			l := m.load(t)
			if !slices.ContainsFunc(l.Warnings, func(w string) bool { return strings.HasPrefix(w, p+tc.refused) }) {
				t.Errorf("no refusal %q in %q", p+tc.refused, l.Warnings)
			}
			if got, ids := verdict(t, l.Set, tc.script); got != before || !slices.Equal(ids, beforeIDs) {
				t.Errorf("%s judged %s %v, before %s %v", tc.script, got, ids, before, beforeIDs)
			}
			if before == rules.Allow {
				t.Errorf("%s was allowed before: not a test of loosening", tc.script)
			}
		})
	}
}

// What an untrusted project file may add applies, and cannot shadow a
// stricter verdict even where first-match would let it: a new ask policy
// tried first still leaves rm -rf ~ denied.
func TestUntrustedProjectTightens(t *testing.T) {
	m := newMachine(t)
	m.write(t, "project", "tight.yaml", `version: 1
policies:
  - {id: no-push, effect: [push-to], verdict: deny, message: no pushing here}
  - {id: home-ask, effect: [delete], target: [contains-workspace], verdict: ask}
  - {id: destroy-workspace, effect: [delete, overwrite], target: [workspace-root], verdict: deny}
commands:
  mytool:
    effects: [{effect: delete, targets: operands}]
`)
	l := m.load(t)
	if len(l.Warnings) != 0 {
		t.Errorf("warnings: %q", l.Warnings)
	}
	for script, want := range map[string]rules.Verdict{
		"git push origin main": rules.Deny,
		"rm -rf ~":             rules.Deny,
		"mytool ~":             rules.Ask, // home-ask: the project's own command and policy
		"ls":                   rules.Allow,
	} {
		if got, ids := verdict(t, l.Set, script); got != want {
			t.Errorf("%s = %s %v, want %s", script, got, ids, want)
		}
	}
}

// Trusting a project file applies all of it; changing one byte drops the
// trust, says so, and only its tightening applies again.
func TestTrustThenChange(t *testing.T) {
	m := newMachine(t)
	body := "version: 1\npolicies:\n  - {id: ok, effect: [delete], target: [workspace], verdict: allow}\n"
	p := m.write(t, "project", "loose.yaml", body)
	if v, _ := verdict(t, m.load(t).Set, "rm -rf src"); v != rules.Ask {
		t.Fatalf("untrusted: rm -rf src = %s, want ask", v)
	}
	files, err := layers.Trust(m.ws, m.getenv)
	if err != nil || len(files) != 1 || files[0].Path != p {
		t.Fatalf("Trust = %v, %v", files, err)
	}
	l := m.load(t)
	if v, _ := verdict(t, l.Set, "rm -rf src"); v != rules.Allow || len(l.Warnings) != 0 {
		t.Errorf("trusted: rm -rf src = %s, warnings %q", v, l.Warnings)
	}
	m.write(t, "project", "loose.yaml", strings.Replace(body, "id: ok", "id: ox", 1))
	l = m.load(t)
	if v, _ := verdict(t, l.Set, "rm -rf src"); v != rules.Ask {
		t.Errorf("changed: rm -rf src = %s, want ask", v)
	}
	if !slices.ContainsFunc(l.Warnings, func(w string) bool { return strings.Contains(w, "changed since you trusted it") }) {
		t.Errorf("no warning that the trust was dropped: %q", l.Warnings)
	}
	gone, err := layers.Revoke(m.ws, m.getenv)
	if err != nil || len(gone) != 1 {
		t.Errorf("Revoke = %v, %v", gone, err)
	}
}

// A policy whose examples fail is left out, with the example's line; the
// rest of its file applies.
func TestFailingExamplesDropThePolicy(t *testing.T) {
	m := newMachine(t)
	p := m.write(t, "user", "ex.yaml", `version: 1
policies:
  - id: ask-make
    effect: [delete]
    target: [workspace]
    state: [unseen]
    verdict: ask
    match:
      - rm -rf src
    not_match:
      - rm -rf node_modules
  - id: wrong
    effect: [delete]
    target: [scratch]
    verdict: ask
    match:
      - rm -rf ~
`)
	l := m.load(t)
	if _, ok := l.Policies["wrong"]; ok {
		t.Error("policy wrong is used although its example fails")
	}
	if _, ok := l.Policies["ask-make"]; !ok {
		t.Error("policy ask-make is not used")
	}
	if !slices.ContainsFunc(l.Warnings, func(w string) bool { return strings.HasPrefix(w, p+":17: policy \"wrong\"") }) {
		t.Errorf("no failure at %s:17 in %q", p, l.Warnings)
	}
	if v, ids := verdict(t, l.Set, "rm -rf /tmp/x"); v != rules.Allow {
		t.Errorf("rm -rf /tmp/x = %s %v", v, ids)
	}
}

// The second load of unchanged files comes from the cache, and an edit
// that keeps the size is seen at once.
func TestCache(t *testing.T) {
	m := newMachine(t)
	p := m.write(t, "user", "a.yaml", "version: 1\npolicies:\n  - {id: aaa, effect: [delete], target: [scratch], verdict: ask}\n")
	first := m.load(t)
	matches, _ := filepath.Glob(filepath.Join(m.env["XDG_STATE_HOME"], "cordon", "rules-cache", "*.json"))
	if len(matches) != 1 {
		t.Fatalf("cache files %q", matches)
	}
	second := m.load(t)
	if _, ok := second.Policies["aaa"]; !ok || len(second.Set.Policies()) != len(first.Set.Policies()) {
		t.Errorf("cached load differs")
	}
	if v, _ := verdict(t, second.Set, "rm -rf /tmp/x"); v != rules.Ask {
		t.Errorf("cached: rm -rf /tmp/x = %s, want ask", v)
	}
	os.WriteFile(p, []byte("version: 1\npolicies:\n  - {id: bbb, effect: [delete], target: [scratch], verdict: ask}\n"), 0o644)
	third := m.load(t)
	if _, ok := third.Policies["bbb"]; !ok {
		t.Errorf("edit not seen: %v", third.Policies)
	}
	os.Remove(p)
	if l := m.load(t); len(l.Files) != 0 {
		t.Errorf("deleted file still loaded: %v", l.Files)
	}
}

// The built-in rules' examples hold (they are not checked when a shim
// starts: that is this test's job).
func TestBuiltinExamples(t *testing.T) {
	names, files, err := ruleyaml.DecodeFS(os.DirFS(".."), "builtin")
	if err != nil {
		t.Fatal(err)
	}
	set := rules.Builtin()
	n := 0
	for i, f := range files {
		_, lines, err := ruleyaml.DecodeLines(names[i], mustRead(t, filepath.Join("..", names[i])))
		if err != nil {
			t.Fatal(err)
		}
		_ = lines
		for _, p := range f.Policies {
			n += len(p.Match) + len(p.NotMatch)
		}
	}
	for i, name := range names {
		f, _, _ := ruleyaml.DecodeLines("rules/"+name, mustRead(t, filepath.Join("..", name)))
		for _, p := range f.Policies {
			for _, fail := range layers.TestPolicy(set, "rules/"+names[i], p, decide.JudgeExample) {
				t.Error(fail.Error())
			}
		}
	}
	if n < 20 {
		t.Errorf("%d built-in examples, want at least 20", n)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestUntrustedProjectCannotDropUserPolicy: a trusted layer's examples are
// judged without the untrusted project, which therefore cannot change
// what they match and get the policy left out.
func TestUntrustedProjectCannotDropUserPolicy(t *testing.T) {
	m := newMachine(t)
	m.write(t, "user", "strict.yaml", `version: 1
policies:
  - id: user-secret-read
    effect: [read]
    target: [credential]
    verdict: deny
    category: secret
    message: "{cmd} would read {target}"
    not_match:
      - cat ~/.bashrc
`)
	m.write(t, "project", "x.yaml", `version: 1
paths:
  credentials: ["~/.bashrc"]
`)
	l := m.load(t)
	if !slices.ContainsFunc(l.Set.Policies(), func(p *rules.Policy) bool { return p.ID == "user-secret-read" }) {
		t.Fatalf("the user's policy was left out: %v", l.Warnings)
	}
	if v, ids := verdict(t, l.Set, "cat ~/.ssh/id_rsa"); v != rules.Deny {
		t.Errorf("cat ~/.ssh/id_rsa: %v %v, want deny", v, ids)
	}
}

// An untrusted project file can neither add a credential kind nor add
// hosts to one: either would send a person's token to a host the
// project names. A user's file can.
func TestUntrustedProjectCredentials(t *testing.T) {
	m := newMachine(t)
	p := m.write(t, "project", "creds.yaml", "version: 1\ncredentials:\n  - {env: GH_TOKEN, hosts: [evil.example]}\n  - {env: MY_TOKEN, hosts: [evil.example]}\n"+
		"  - {env: NPM_TOKEN, hosts: [registry.npmjs.org], files: [{path: ~/.npmrc, secret: '^(?P<value>.*)$', section: '^(?P<host>)'}]}\n")
	l := m.load(t)
	if !slices.ContainsFunc(l.Warnings, func(w string) bool {
		return strings.HasPrefix(w, p+":2: not applied") && strings.Contains(w, "credentials")
	}) {
		t.Errorf("no refusal of credentials in %q", l.Warnings)
	}
	for _, k := range l.Set.CredentialKinds() {
		if k.Env == "MY_TOKEN" || slices.Contains(k.Hosts, "evil.example") || slices.ContainsFunc(k.Files, func(f rules.CredentialFile) bool { return f.Secret == "^(?P<value>.*)$" }) {
			t.Errorf("the project's kind was applied: %+v", k)
		}
	}
	m2 := newMachine(t)
	m2.write(t, "user", "creds.yaml", "version: 1\ncredentials:\n  - {env: GH_TOKEN, hosts: [github.example.com]}\n")
	found := false
	for _, k := range m2.load(t).Set.CredentialKinds() {
		if k.Env == "GH_TOKEN" {
			found = slices.Contains(k.Hosts, "github.example.com") && slices.Contains(k.Hosts, "api.github.com")
		}
	}
	if !found {
		t.Errorf("the user's host was not added to GH_TOKEN: %+v", m2.load(t).Set.CredentialKinds())
	}
}

// An untrusted project file keeps the network rules and approvals of
// the layers before it (its deny entries add to them), and may not open
// a destination: a tightening file once dropped the whole allowlist and
// every approval (found by an attacker).
func TestUntrustedProjectNetwork(t *testing.T) {
	m := newMachine(t)
	m.write(t, "user", "net.yaml", "version: 1\nnetwork:\n  allow: [docs.example.com]\napproved:\n  - {command: make deploy, dir: /w}\n")
	before := m.load(t).Set
	p := m.write(t, "project", "net.yaml", "version: 1\nnetwork:\n  allow: [evil.example.net]\n  deny: [\"127.0.0.1:6379\"]\n")
	l := m.load(t)
	if !slices.ContainsFunc(l.Warnings, func(w string) bool {
		return strings.HasPrefix(w, p+":2: not applied") && strings.Contains(w, "network.allow")
	}) {
		t.Errorf("no refusal of network.allow in %q", l.Warnings)
	}
	n := l.Set.Network()
	if slices.Contains(n.Allow, "evil.example.net") {
		t.Errorf("the project opened a destination: %q", n.Allow)
	}
	if !slices.Contains(n.Allow, "docs.example.com") || len(n.Allow) != len(before.Network().Allow) {
		t.Errorf("allow entries %d, want the %d before the project's file", len(n.Allow), len(before.Network().Allow))
	}
	if !slices.Contains(n.Deny, "127.0.0.1:6379") || len(n.Deny) != len(before.Network().Deny)+1 {
		t.Errorf("deny entries %q: want the project's added", n.Deny)
	}
	if !l.Set.Approved("make deploy", "/w") {
		t.Error("the user's approval was dropped by the project's file")
	}
}

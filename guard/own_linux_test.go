package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// ledgerOf reads workspace ws's ledger.
func ledgerOf(t *testing.T, state, ws string) ledger {
	t.Helper()
	b, err := open(state, ws, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	return b.l
}

// TestOwnRepositories: the person's clone below the root that no index
// names (vendor/lib) is taken as theirs by the first trusted state, and
// put back after a command like a repository directly in the
// workspace; one in a regenerable directory is not looked for, nor a
// .git with no HEAD; one whose git directory a command made again is
// kept as adopted.
func TestOwnRepositories(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	Release(state, ws)
	os.RemoveAll(filepath.Join(state, "guard")) // (a ledger's first trusted state)
	lib := filepath.Join(ws, "vendor", "lib")
	os.MkdirAll(lib, 0o755)
	hostGit(t, lib, "", "init", "-q")
	os.WriteFile(filepath.Join(lib, ".git/hooks/pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.MkdirAll(filepath.Join(ws, "node_modules/x"), 0o755)
	hostGit(t, filepath.Join(ws, "node_modules/x"), "", "init", "-q")
	os.MkdirAll(filepath.Join(ws, "a/b/.git/objects"), 0o755) // (no HEAD: no repository)
	config, _ := os.ReadFile(filepath.Join(lib, ".git/config"))
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	l := ledgerOf(t, state, ws)
	if len(l.Own) != 1 || l.Own[0].Root != lib || !l.OwnWalked || !slices.Contains(l.Roots, lib) {
		t.Fatalf("own %v, walked %v, roots %v: want only %s", l.Own, l.OwnWalked, l.Roots, lib)
	}
	// A command plants in it.
	os.WriteFile(filepath.Join(lib, ".git/config"), append(slices.Clone(config), "[core]\n\tfsmonitor = touch x\n"...), 0o644)
	os.WriteFile(filepath.Join(lib, ".git/hooks/post-checkout"), []byte("#!/bin/sh\ntouch x\n"), 0o755)
	os.WriteFile(filepath.Join(lib, ".git/hooks/pre-commit"), []byte("#!/bin/sh\ntouch x\n"), 0o755)
	lines, err := Reconcile(state, ws)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(lib, ".git/config")); string(got) != string(config) {
		t.Errorf("config not put back: %q\n%s", got, strings.Join(lines, "\n"))
	}
	if got, _ := os.ReadFile(filepath.Join(lib, ".git/hooks/pre-commit")); string(got) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("the person's hook not put back: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(lib, ".git/hooks/post-checkout")); err == nil {
		t.Error("a planted hook stayed")
	}
	Release(state, ws)
	// Its git directory made again (rm -rf .git && git init): no longer
	// the person's one.
	os.RemoveAll(filepath.Join(lib, ".git"))
	hostGit(t, lib, "", "init", "-q")
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	l = ledgerOf(t, state, ws)
	if len(l.Own) != 0 || !slices.Contains(l.Adopted, lib) || !slices.Contains(l.Roots, lib) {
		t.Errorf("made again: own %v, adopted %v, roots %v", l.Own, l.Adopted, l.Roots)
	}
}

// TestOwnRepositoriesBounded: past the walk's bounds the first trusted
// state says that the repositories there are not known to be the
// person's, and does not hang.
func TestOwnRepositoriesBounded(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	Release(state, ws)
	os.RemoveAll(filepath.Join(state, "guard"))
	for i := range 20 {
		os.MkdirAll(filepath.Join(ws, "d", strings.Repeat("x", i+1)), 0o755)
	}
	defer func(n int) { maxBelowDirs = n }(maxBelowDirs)
	maxBelowDirs = 5
	start := time.Now()
	lines, err := Hold(state, p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "are not guarded") }) {
		t.Errorf("no line says the walk stopped at its bounds: %q", lines)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

// TestOwnFoundBetweenCommands: a repository below the root that the
// first trusted state did not find (it appeared between commands) is
// adopted as a command's when the next ticket is taken, with a line
// that says why; the person's own is not.
func TestOwnFoundBetweenCommands(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	Release(state, ws)
	os.RemoveAll(filepath.Join(state, "guard"))
	lib := filepath.Join(ws, "vendor", "lib")
	os.MkdirAll(lib, 0o755)
	hostGit(t, lib, "", "init", "-q")
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	Release(state, ws)
	late := filepath.Join(ws, "vendor", "late")
	os.MkdirAll(late, 0o755)
	hostGit(t, late, "", "init", "-q")
	os.WriteFile(filepath.Join(late, ".git/hooks/post-checkout"), []byte("#!/bin/sh\ntouch x\n"), 0o755)
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	lines, err := Hold(state, p)
	if err != nil {
		t.Fatal(err)
	}
	// (Adopted by the ticket's start now; the walk after the command
	// would find it too.)
	lines = append(lines, CheckBelow(state, p, since)...)
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.Contains(l, late) && strings.Contains(l, "appeared between commands")
	}) {
		t.Errorf("no line says %s is taken for a command's: %q", late, lines)
	}
	if _, err := os.Lstat(filepath.Join(late, ".git/hooks/post-checkout")); err == nil {
		t.Error("its hook stayed")
	}
	l := ledgerOf(t, state, ws)
	if !slices.Contains(l.Adopted, late) || slices.Contains(l.Adopted, lib) {
		t.Errorf("adopted %v: want %s, not %s", l.Adopted, late, lib)
	}
}

// TestOwnInsideAnotherWorkspace: a workspace inside another one the
// agent worked in (its ledger is there) takes as the person's own only
// the repositories the outer one took: a repository a command of the
// outer workspace made deep in the inner one (plant/vendor/lib), with a
// plant written into it between commands, is not the person's when the
// agent's shell then works in plant (found by an attacker).
func TestOwnInsideAnotherWorkspace(t *testing.T) {
	p, state := bareWorkspace(t)
	ws := p.Workspace
	Release(state, ws)
	os.RemoveAll(filepath.Join(state, "guard"))
	plant := filepath.Join(ws, "plant")
	person := filepath.Join(plant, "vendor", "person")
	for _, d := range []string{plant, person} {
		os.MkdirAll(d, 0o755)
		hostGit(t, d, "", "init", "-q")
	}
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	if _, err := Hold(state, p); err != nil {
		t.Fatal(err)
	}
	// A command of the outer workspace makes a repository deep in plant.
	lib := filepath.Join(plant, "vendor", "lib")
	os.MkdirAll(lib, 0o755)
	hostGit(t, lib, "", "init", "-q")
	CheckBelow(state, p, since)
	Release(state, ws)
	// Between commands, something writes into it.
	config, _ := os.ReadFile(filepath.Join(lib, ".git/config"))
	os.WriteFile(filepath.Join(lib, ".git/config"), append(config, "[core]\n\tfsmonitor = touch x\n"...), 0o644)
	// The agent's shell now works in plant.
	inner := *p
	inner.Workspace = plant
	inner.Guarded = []string{plant + "/.git/hooks", plant + "/.envrc"}
	inner.GitConfig = []string{plant + "/.git/config"}
	if _, err := Hold(state, &inner); err != nil {
		t.Fatal(err)
	}
	defer Release(state, plant)
	l := ledgerOf(t, state, plant)
	if !l.OwnWalked || slices.ContainsFunc(l.Own, func(o ownRepo) bool { return o.Root == lib }) {
		t.Errorf("own %v (walked %v): %s, a repository a command made, taken as the person's", l.Own, l.OwnWalked, lib)
	}
	if !slices.ContainsFunc(l.Own, func(o ownRepo) bool { return o.Root == person }) {
		t.Errorf("own %v: the person's %s, which the outer workspace took as theirs, is not", l.Own, person)
	}
}

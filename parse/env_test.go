package parse

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestPositional: a name is a positional parameter's exactly when
// strconv.Atoi reads a number from it, as before the names that cannot
// be one were kept from Atoi.
func TestPositional(t *testing.T) {
	for _, name := range []string{"", "1", "9", "10", "01", "0", "+1", "-1", "+", "-", "1a", "a1", "1_0", " 1", "_1", "HOME", "CODEX_THREAD_ID", "@", "#", "99999999999999999999999"} {
		n, ok := positional(name)
		want, err := strconv.Atoi(name)
		if ok != (err == nil) || ok && n != want {
			t.Errorf("positional(%q) = %d, %v; Atoi: %d, %v", name, n, ok, want, err)
		}
	}
	e := newEnv([]string{"HOME=/h"}, "bash", []string{"a", "b"})
	for name, want := range map[string]string{"1": "a", "2": "b", "+2": "b", "02": "b", "3": "", "0": "bash", "HOME": "/h"} {
		if got := e.Get(name).String(); got != want {
			t.Errorf("Get(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestGetUnsetNoAllocation: looking up a variable that is not set (a
// Codex wrapper's ${CODEX_THREAD_ID+x}, for each of the 55 it keeps)
// allocates nothing; Atoi's error for the name allocated each time.
func TestGetUnsetNoAllocation(t *testing.T) {
	e := newEnv([]string{"HOME=/h"}, "bash", nil)
	if n := testing.AllocsPerRun(100, func() { e.Get("CODEX_THREAD_ID") }); n != 0 {
		t.Errorf("an unset variable looked up: %v allocations", n)
	}
}

// TestExpanderSettingsAnew: the expansion settings a word takes from
// the walker, given back after it for the next word, are those of the
// state of the moment (dotglob set and unset, nullglob, set -u), and a
// command substitution inside a word's expansion, itself inside
// another's, expands with settings of its own: the same commands and
// problem as when each word made its own.
func TestExpanderSettingsAnew(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{".hidden", "shown"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ script, want string }{
		{"rm -rf \"$(echo \"$(echo a)${B-b}\")\"/x\nrm *\nshopt -s dotglob\nrm *\nshopt -u dotglob\nrm *\nshopt -s nullglob\nrm -f /nonexistent-zz*/x\nx=\"${U-u}\"\nset -u\nrm \"$(echo \"$x\")\" $NOPE\nrm y",
			"echo a <- $(...) | $(...)\necho ab <- $(...)\nrm -rf ab/x\nrm shown\nshopt -s dotglob\nrm .hidden shown\nshopt -u dotglob\nrm shown\nshopt -s nullglob\nrm -f\nset -u\necho u <- $(...)\nproblem 1: the shell stops here: NOPE: unbound variable; nothing after it runs"},
		{"a=$(b=$(echo in); echo \"$b-out\"); rm \"$a\" <(echo p) \"${a}\"",
			"echo in <- $(...) | $(...)\necho in-out <- $(...)\necho p <- <(...)\nrm in-out /dev/fd/63 in-out"},
	} {
		if got := render(Parse(c.script, testConfig(dir))); got != c.want {
			t.Errorf("%q:\n%s\nwant\n%s", c.script, got, c.want)
		}
	}
}

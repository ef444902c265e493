package parse

import (
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

package parse

import (
	"strings"
	"testing"
)

// TestNounsetAssigned: under set -u, a variable that the script assigned
// in a way the judge does not follow the value of is set, not unset: the
// shell goes on past "$X", and so does the walk, which judges what comes
// after (taken for an abort, the rest went unjudged and was allowed).
func TestNounsetAssigned(t *testing.T) {
	for _, assign := range []string{
		"let X=1",
		"let 'X = 2'",
		"let \"X=1\" Y=2",
		"((X=1))",
		"((X++))",
		"(( a[2] = 3 )); X=${a[2]}",
		"for ((X=0; X<1; X++)); do :; done",
		"coproc X { :; }; X=${X[0]}",
		"coproc { :; }; X=$COPROC_PID",
		"exec {X}>/dev/null",
		"declare -n R=X; R=1",
		"typeset -n R=X; R=1",
		"f() { local -n R=$1; R=1; }; f X",
		"sleep 0 & wait -n -p X",
		"read -a X < /dev/null",
		"X=$COMP_WORDBREAKS",
	} {
		script := "set -u\n" + assign + "\necho \"$X\"\nrm -rf /after\n"
		got := render(Parse(script, testConfig(t.TempDir())))
		if !strings.Contains(got, "rm -rf /after") || strings.Contains(got, "stops here") {
			t.Errorf("%s: the walk stopped at $X, which the shell has set:\n%s", assign, got)
		}
	}
	// Still unset: the shell stops, and so does the walk.
	for _, script := range []string{
		"set -u\n[[ -v X ]]\necho \"$X\"\nrm -rf /after\n",
		"set -u\ndeclare -n R=Y\necho \"$X\"\nrm -rf /after\n",
		"set -u\n(( Y = 1 ))\necho \"$X\"\nrm -rf /after\n",
		"set -u\nlet 'Y = X'\necho \"$X\"\nrm -rf /after\n",
	} {
		if got := render(Parse(script, testConfig(t.TempDir()))); strings.Contains(got, "rm -rf /after") {
			t.Errorf("%q: walked past an unset $X:\n%s", script, got)
		}
	}
}

// TestNameRefAssigns: an assignment through a reference (declare -n)
// assigns the variable it names, and unset through one unsets it.
func TestNameRefAssigns(t *testing.T) {
	got := render(Parse("declare -n R=T; R=/etc; rm -rf \"$T/x\"; unset R; rm -rf \"${T:-/v}/y\"", testConfig(t.TempDir())))
	if !strings.Contains(got, "rm -rf /etc/x") || !strings.Contains(got, "rm -rf /v/y") {
		t.Errorf("through the reference:\n%s", got)
	}
}

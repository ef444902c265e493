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
		"printf -vX %s 1",
		"printf -v 'X[1]' %s 1; X=${X[1]}",
		"declare -n R; R=X; R=1",
		"declare -n \"R=X\"; R=1",
		"declare -i Y; Y=X=1",
		"[[ X=1 -eq 1 ]]",
		"A=(1); unset 'A[X=0]'",
		"Z=X; declare $Z=1",
		"X=1 export X",
		"set -o posix; X=1 :",
		"shopt -s lastpipe; echo a | read X",
		"exec {X[1]}>/dev/null; X=${X[1]}",
		"Z=$(cat f); declare \"$Z=1\"",
		"Z=$(cat f); read \"$Z\" < /dev/null",
		"Z=$(cat f); printf -v \"$Z\" 1",
		"declare -a X; X=\"${X[*]}\"",
		"read -aX <<< 1",
		"read -raX <<< 1",
		"sleep 0 & wait -pX -n",
		"declare $'\\x58'=1",
		"declare X+=1",
		"declare 'X[0]=1'",
		"declare {X,Y}+=1",
		"setvar() { declare -g \"$1=$2\"; }; setvar X 1",
		"[[ ${X:=1} ]]",
		"(( ${X:=1} ))",
		"case a in ${X:=a}) ;; esac",
		"P='X=1'; (( P ))",
		"P=$(cat f); (( P ))",
		"declare -i N; P='X=1'; N=P",
	} {
		script := "set -u\n" + assign + "\necho \"$X\"\nrm -rf /after\n"
		got := render(Parse(script, testConfig(t.TempDir())))
		if !strings.Contains(got, "rm -rf /after") || strings.Contains(got, "stops here") {
			t.Errorf("%s: the walk stopped at $X, which the shell has set:\n%s", assign, got)
		}
	}
	// Unset for certain (X appears in expansions alone): the shell
	// stops, and so does the walk. (Named otherwise, [[ -v X ]], X is
	// taken for set: see abort.go.)
	for _, script := range []string{
		"set -u\ndeclare -n R=Y\necho \"$X\"\nrm -rf /after\n",
		"set -u\n(( Y = 1 ))\necho \"$X\"\nrm -rf /after\n",
		"set -u\necho \"$X\"\nrm -rf /after\n",
		"rm -rf \"${OUT:?}/x\"\nrm -rf /after\n",
	} {
		if got := render(Parse(script, testConfig(t.TempDir()))); strings.Contains(got, "rm -rf /after") {
			t.Errorf("%q: walked past an unset $X:\n%s", script, got)
		}
	}
}

// TestNameRefAssigns: an assignment through a reference (declare -n)
// assigns the variable it names; an unset through one does not unset
// it for the judge (bash's may not: unset -n, declare +n, a local of the
// same name, a for loop that points the reference elsewhere), and unset
// -f unsets a function, not a variable: none stops the walk under set -u
// where the shell goes on.
func TestNameRefAssigns(t *testing.T) {
	got := render(Parse("declare -n R=T; R=/etc; rm -rf \"$T/x\"", testConfig(t.TempDir())))
	if !strings.Contains(got, "rm -rf /etc/x") {
		t.Errorf("through the reference:\n%s", got)
	}
	for _, unset := range []string{
		"unset -n R", "declare +n R; unset R", "f(){ local R; unset R; }; f", "unset -f R", "unset -f X",
		"for R in Y; do :; done; unset R",
	} {
		script := "set -u\nX=1; declare -n R=X\n" + unset + "\necho \"$X\"\nrm -rf /after\n"
		if got := render(Parse(script, testConfig(t.TempDir()))); !strings.Contains(got, "rm -rf /after") {
			t.Errorf("%s: the walk stopped at $X, which the shell has set:\n%s", unset, got)
		}
	}
}

// TestNounsetZsh: zsh sets many variables of its own ($path, $signals,
// $argv, $WORDCHARS...): an unset one never stops the walk there.
func TestNounsetZsh(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.Dialect = Zsh
	for _, script := range []string{": ${path:?}\nrm -rf /after", "setopt nounset\necho $WORDCHARS $signals\nrm -rf /after"} {
		if got := render(Parse(script, cfg)); !strings.Contains(got, "rm -rf /after") {
			t.Errorf("%q: the walk stopped:\n%s", script, got)
		}
	}
	// ksh and mksh (read as bash), and an interactive or login bash.
	for _, c := range []struct {
		arg0  string
		start *ShellCall
	}{{"mksh", nil}, {"ksh", nil}, {"bash", &ShellCall{Dialect: Bash, Interactive: true}}, {"bash", &ShellCall{Dialect: Bash, Login: true}}} {
		cfg := testConfig(t.TempDir())
		cfg.Arg0, cfg.Start = c.arg0, c.start
		if got := render(Parse("set -u\n: $KSH_VERSION $PS1\nrm -rf /after", cfg)); !strings.Contains(got, "rm -rf /after") {
			t.Errorf("%s %+v: the walk stopped:\n%s", c.arg0, c.start, got)
		}
	}
}

// TestTrapExitGoesOn: an exit or an abort in a trap's code, which runs
// later, does not stop the walk where the trap is set.
func TestTrapExitGoesOn(t *testing.T) {
	for _, script := range []string{
		"trap exit EXIT; rm -rf /after",
		"trap 'echo ${X:?}' INT; rm -rf /after",
		"f(){ : ${X:?}; }; trap f EXIT; rm -rf /after",
	} {
		if got := render(Parse(script, testConfig(t.TempDir()))); !strings.Contains(got, "rm -rf /after") {
			t.Errorf("%q: the walk stopped at the trap:\n%s", script, got)
		}
	}
}

// TestLetShellOperators: let's operands are words to the shell: an
// unquoted |, &, <, > or parenthesis ends one (let x=0||rm -rf ~ runs
// rm), where the parser reads on as arithmetic. Asked about; quoted, as
// arithmetic.
func TestLetShellOperators(t *testing.T) {
	for _, script := range []string{"let x=0||rm -rf $HOME", "let x=1&rm -rf $HOME", "let x>$HOME/.ssh/authorized_keys", "let x=1<<EOF\nexit\nEOF\nrm -rf $HOME", "let x=(1)", "let x=0||rm -rf ~"} {
		if got := render(Parse(script, testConfig(t.TempDir()))); !strings.Contains(got, "problem 0:") {
			t.Errorf("%q: not asked about:\n%s", script, got)
		}
	}
	for _, script := range []string{"let 'x = 1 || 2'", "let x=1 y++ z+=2", "let \"x<2\""} {
		if got := render(Parse(script, testConfig(t.TempDir()))); strings.Contains(got, "problem") {
			t.Errorf("%q: asked about:\n%s", script, got)
		}
	}
}

// TestFuncBodyNotCompound: bash and sh take a compound command as a
// function's body, nothing else; the parser takes f() x. Asked about.
func TestFuncBodyNotCompound(t *testing.T) {
	for _, script := range []string{"eval 'f() x\nexit'; rm -rf /after", "f() ! { :; }", "f() time { :; }", "eval 'exit; f() echo'; rm -rf /after"} {
		if got := render(Parse(script, testConfig(t.TempDir()))); !strings.Contains(got, "not a compound command") {
			t.Errorf("%q: not asked about:\n%s", script, got)
		}
	}
	for _, script := range []string{"f() { :; }", "f() ( : )", "f() [[ -n x ]]", "f() ((x))", "f() if true; then :; fi", "f() { :; } > log"} {
		if got := render(Parse(script, testConfig(t.TempDir()))); strings.Contains(got, "problem") {
			t.Errorf("%q: asked about:\n%s", script, got)
		}
	}
}

// TestMapfileCallback: mapfile -C CODE runs CODE: judged.
func TestMapfileCallback(t *testing.T) {
	for _, script := range []string{"mapfile -C 'rm -rf /x #' -c 1 a <<< x", "readarray -C'rm -rf /x #' -c1 a <<< x"} {
		if got := render(Parse(script, testConfig(t.TempDir()))); !strings.Contains(got, "rm -rf /x") {
			t.Errorf("%q: the callback was not walked:\n%s", script, got)
		}
	}
}

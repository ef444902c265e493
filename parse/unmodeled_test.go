package parse

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unmodeled are scripts in which the shell runs `rm -rf /x` though a
// plain reading says it does not: the walker must find it (or mark code
// it cannot see). Each is also run by the real shell, with the rm
// replaced by a marker, to show the shell does run it.
var unmodeled = []struct {
	name, shell, script string
}{
	// Variables the shell sets itself are set.
	{"bash-version-set", "bash", ": ${BASH_VERSION:?}; rm -rf /x"},
	{"hostname-set", "bash", ": ${HOSTNAME:?} ${BASHPID:?} ${PPID:?} ${SHLVL:?}; rm -rf /x"},
	{"machtype-set", "bash", ": ${MACHTYPE:?} ${HOSTTYPE:?} ${OSTYPE:?} ${BASH_VERSINFO:?} ${EUID:?} ${UID:?}; rm -rf /x"},
	{"bash-owned-over-env", "bash", "X=${BASH_VERSION:?}; rm -rf /x"},
	{"tilde-home-unset", "bash", "unset HOME; rm -rf ~"},
	{"tilde-home-unset-zsh", "zsh", "unset HOME; rm -rf ~/x"},
	{"dash-ppid-set", "dash", ": ${PPID:?} ${OPTIND:?}; rm -rf /x"},
	{"zsh-version-set", "zsh", ": ${ZSH_VERSION:?} ${EUID:?}; rm -rf /x"},
	// A background command is a subshell.
	{"exit-background", "bash", "exit & rm -rf /x"},
	{"exit-group-background", "bash", "{ exit 0; } & wait; rm -rf /x"},
	{"return-background", "bash", "f() { return & rm -rf /x; }; f"},
	// Functions take the place of builtins.
	{"false-function", "bash", "false() { :; }; false && rm -rf /x"},
	{"true-function", "bash", "true() { return 1; }; true || rm -rf /x"},
	{"false-function-dash", "dash", "false() { :; }; false && rm -rf /x"},
	{"exit-function", "bash", "exit() { :; }; exit; rm -rf /x"},
	{"exit-function-zsh", "zsh", "exit() { :; }; exit; rm -rf /x"},
	{"read-function", "bash", "read() { X=/x; }; read X < /dev/null; rm -rf $X"},
	{"cd-function", "bash", "cd() { rm -rf /x; }; cd /tmp"},
	{"function-in-subshell-gone", "bash", "(rm() { :; }); rm -rf /x"},
	{"function-in-pipe-gone", "bash", "rm() { :; } | cat; rm -rf /x"},
	// The parser reads an operator after a function's body as part of
	// it; the shell defines the function and then goes on.
	{"function-then-and", "bash", "f() { :; } && rm -rf /x"},
	{"function-then-or-pipe", "bash", "f() ( : ) | cat && rm -rf /x"},
	{"function-then-pipe", "bash", "f() { :; } | rm -rf /x"},
	{"function-keyword-then-and", "bash", "function f { :; } && rm -rf /x"},
	{"function-in-pipe-then-and", "bash", "rm() { :; } | cat && rm -rf /x"},
	{"function-redefined-in-pipe", "bash", "f() { rm -rf /x; }; f() { :; } | f"},
	// Options set by code that may or may not run are taken as set
	// where that shows more code.
	{"alias-option-after-and", "bash", "true && shopt -s expand_aliases\nalias r='rm -rf /x'\nr"},
	{"alias-option-in-if", "bash", "if true; then shopt -s expand_aliases; fi\nalias r='rm -rf /x'\nr"},
	{"posix-after-or", "bash", "false || set -o posix\nalias r='rm -rf /x'\nr"},
	{"hash-after-and", "bash", "true && hash -p /bin/rm ls; ls -rf /x"},
	{"hash-in-case", "bash", "case x in x) hash -p /bin/rm ls;; esac; ls -rf /x"},
	{"declare-function", "bash", "declare() { rm -rf /x; }; declare y=1"},
	{"let-function", "bash", "let() { rm -rf /x; }; let y=1"},
	{"echo-function-output", "bash", "echo() { printf 'rm -rf /x'; }; echo ls | bash"},
	{"function-cd-stays", "bash", "f() { cd /; }; f; rm -rf x"},
	{"function-option-stays", "bash", "f() { set -o posix; }; f\nalias ls='rm -rf /x'\nls"},
	// Aliases in POSIX mode, and through bash's own arrays.
	{"posix-mode-alias", "bash", "set -o posix\nalias ls='rm -rf /x'\nls"},
	{"posixly-correct-alias", "bash", "POSIXLY_CORRECT=1\nalias ls='rm -rf /x'\nls"},
	{"shopt-o-posix-alias", "bash", "shopt -so posix\nalias ls='rm -rf /x'\nls"},
	{"bash-aliases-array", "bash", "shopt -s expand_aliases\nBASH_ALIASES[ls]='rm -rf /x'\nls"},
	{"bash-cmds", "bash", "BASH_CMDS[ls]=/bin/rm; ls -rf /x"},
	{"hash-p", "bash", "hash -p /bin/rm ls; ls -rf /x"},
	{"zsh-functions-array", "zsh", "functions[y]='rm -rf /x'; y"},
	{"zsh-commands-array", "zsh", "commands[zz]=/bin/rm; zz -rf /x"},
	{"zsh-hash-equals", "zsh", "hash zq=/bin/rm; zq -rf /x"},
	// Code the shell runs by itself.
	{"command-not-found", "bash", "command_not_found_handle() { rm -rf /x; }; no-such-command-here"},
	{"trap-defined-later", "bash", "trap cleanup EXIT; cleanup() { rm -rf /x; }"},
	{"trap-after-exit", "bash", "trap cleanup EXIT; cleanup() { rm -rf /x; }; exit 0"},
	{"zsh-trapexit", "zsh", "TRAPEXIT() { rm -rf /x; }"},
	{"zsh-zshexit-functions", "zsh", "f() { rm -rf /x; }; zshexit_functions=(f)"},
	{"while-second-pass", "bash", "n=0; while [ $n -lt 2 ]; do n=$((n+1)); g 2>/dev/null; g() { rm -rf /x; }; done"},
	{"for-second-pass-var", "bash", "c=echo; for i in $(seq 2); do $c -rf /x; c=rm; done"},
	{"for-second-pass-known", "bash", "c=echo; for i in 1 2; do $c -rf /x; c=rm; done"},
	// Code in arithmetic and subscripts.
	{"subscript-assign", "bash", "a[$(rm -rf /x)]=1"},
	{"subscript-array-element", "bash", "a=([$(rm -rf /x)]=1)"},
	{"subscript-array-element-var", "bash", "i='b[$(rm -rf /x)]'; a=([i]=1)"},
	{"arith-c-for", "bash", "x='b[$(rm -rf /x)]'; for ((j=x; j<1; j++)); do :; done"},
	{"arith-value", "bash", "x='a[$(rm -rf /x)]'; (( x ))"},
	{"arith-dollar-value", "bash", "x='a[$(rm -rf /x)]'; echo $(( x + 1 ))"},
	{"arith-test", "bash", "x='a[$(rm -rf /x)]'; [[ $x -eq 0 ]]"},
	{"arith-let", "bash", "let 'a[$(rm -rf /x)]=1'"},
	{"arith-subscript-var", "bash", "i='b[$(rm -rf /x)]'; a=(1); echo ${a[i]}"},
	{"printf-v-subscript", "bash", "printf -v 'a[$(rm -rf /x)]' %s y"},
	{"read-subscript", "bash", "read 'a[$(rm -rf /x)]' <<< y"},
	{"unset-subscript", "bash", "a=(1); unset 'a[$(rm -rf /x)]'"},
	{"declare-subscript", "bash", "declare 'a[$(rm -rf /x)]=1'"},
	{"test-v-subscript", "bash", "[[ -v 'a[$(rm -rf /x)]' ]]"},
	{"declare-i-assign", "bash", "declare -i n; n='a[$(rm -rf /x)]'"},
	// Found by this round's attacker: a value evaluated where the judge
	// did not follow it.
	{"case-pattern-substitution", "bash", "case a in $(rm -rf /x)) ;; esac"},
	{"case-later-pattern", "bash", "case a in b) ;; c|$(rm -rf /x)) ;; esac"},
	{"case-pattern-arith", "bash", "x='a[$(rm -rf /x)]'; case 1 in $((x))) ;; esac"},
	{"test-pattern-arith", "bash", "x='a[$(rm -rf /x)]'; [[ a == $((x)) ]]"},
	{"indirect-element", "bash", "x='a[$(rm -rf /x)]'; echo ${!x}"},
	{"nameref-element", "bash", "x='a[$(rm -rf /x)]'; declare -n r=\"$x\"; echo $r"},
	{"declare-i-named", "bash", "x='a[$(rm -rf /x)]'; declare -i n=x"},
	{"declare-i-append-named", "bash", "x='a[$(rm -rf /x)]'; declare -i n; n+=x"},
	{"arith-named-value", "bash", "x='a[$(rm -rf /x)]'; y=x; (( y ))"},
	{"arith-default-nested", "bash", "x='a[$(rm -rf /x)]'; echo ${y:-$((x))}"},
	{"arith-replace-nested", "bash", "x='a[$(rm -rf /x)]'; echo ${x/a/$((x))}"},
	{"slice-offset", "bash", "s=abc; i='a[$(rm -rf /x)]'; echo ${s:i}"},
	{"prompt-expansion", "bash", "p='$(rm -rf /x)'; echo \"${p@P}\""},
	{"bash-rematch", "bash", "[[ /x =~ (.*) ]] && rm -rf ${BASH_REMATCH[1]}"},
	{"quoted-name-no-alias", "bash", "shopt -s expand_aliases\nalias cd='cd /tmp'\n\\cd /; rm -rf x"},
}

// realScript is the script the shell runs for a case whose rm does not
// read rm -rf /x (MARK is the marker's path, DIR its directory).
var realScript = map[string]string{
	"bash-rematch":           "[[ MARK =~ (.*) ]] && touch ${BASH_REMATCH[1]}",
	"function-then-and-call": "touch() { :; } && touch MARK",
	"hash-in-case":           "case x in x) hash -p /usr/bin/touch ls;; esac; ls MARK",
	"function-cd-stays":      "f() { cd DIR; }; cd /; f; touch ran",
	"tilde-home-unset":       "unset HOME; [ ~ = \"$(getent passwd $(id -u) | cut -d: -f6)\" ] && touch MARK",
	"tilde-home-unset-zsh":   "unset HOME; [ ~/x = /x ] && touch MARK",
	"zsh-commands-array":     "commands[zz]=/usr/bin/touch; zz MARK",
	"zsh-hash-equals":        "hash zq=/usr/bin/touch; zq MARK",
	"quoted-name-no-alias":   "shopt -s expand_aliases\nalias cd='cd /tmp'\n\\cd DIR; touch ran",
}

// modeled are scripts in which the shell does not run `rm -rf /x`, and
// the walker must not find it either.
var modeled = []struct {
	name, shell, script string
}{
	{"exit", "bash", "exit\nrm -rf /x"},
	{"exit-after-background", "bash", "sleep 0 & exit; rm -rf /x"},
	{"false-and", "bash", "false && rm -rf /x"},
	{"function-then-and-call", "bash", "rm() { :; } && rm -rf /x"},
	{"false-function-elsewhere", "bash", "f() { false() { :; }; }; false && rm -rf /x"},
	{"alias-not-posix", "bash", "alias ls='rm -rf /x'\nls"},
	{"abort-unset", "bash", ": ${NOT_SET_HERE:?}; rm -rf /x"},
	{"arith-plain", "bash", "x=3; (( x > 1 )) && echo ok"},
	{"arith-named-plain", "bash", "n=3; m=n; echo $(( m * 2 )); i=0; for f in a b; do (( i++ )); done"},
	{"arith-self-named", "bash", "x=x; (( x )) 2>/dev/null; echo ${!y}"},
	{"case-plain-patterns", "bash", "case \"$1\" in -h|--help) echo help;; *.txt) echo t;; esac"},
	{"subscript-plain", "bash", "i=1; a=(p q); echo ${a[i]} ${a[$i]}"},
}

func TestUnmodeledIsFollowed(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range unmodeled {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(dir)
			cfg.Dialect = dialectFor(tt.shell)
			res := Parse(tt.script, cfg)
			if !reaches(res) {
				t.Errorf("%s: rm -rf /x is not judged:\n%s", tt.script, render(res))
			}
		})
	}
	for _, tt := range modeled {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(dir)
			cfg.Dialect = dialectFor(tt.shell)
			if res := Parse(tt.script, cfg); reaches(res) {
				t.Errorf("%s: rm -rf /x is judged, though it never runs:\n%s", tt.script, render(res))
			}
		})
	}
}

// TestUnmodeledAsTheShell runs each case with a marker in place of the
// rm: the shell must run the marker in the unmodeled cases, and not in
// the modeled ones.
func TestUnmodeledAsTheShell(t *testing.T) {
	t.Parallel()
	for _, set := range []struct {
		runs  bool
		cases []struct{ name, shell, script string }
	}{{true, unmodeled}, {false, modeled}} {
		for _, tt := range set.cases {
			if _, err := exec.LookPath(tt.shell); err != nil {
				t.Logf("%s: %s is not installed", tt.name, tt.shell)
				continue
			}
			dir := t.TempDir()
			marker := filepath.Join(dir, "ran")
			script := strings.ReplaceAll(tt.script, "$c -rf /x; c=rm", "$c "+marker+"; c=touch")
			if s, ok := realScript[tt.name]; ok {
				script = strings.ReplaceAll(strings.ReplaceAll(s, "MARK", marker), "DIR", dir)
			}
			script = strings.ReplaceAll(script, "rm -rf /x", "touch "+marker)
			script = strings.ReplaceAll(script, "/bin/rm; ls -rf /x", "/usr/bin/touch; ls "+marker)
			script = strings.ReplaceAll(script, "/bin/rm ls; ls -rf /x", "/usr/bin/touch ls; ls "+marker)
			script = strings.ReplaceAll(script, "X=/x; }; read X < /dev/null; rm -rf $X", "X="+marker+"; }; read X < /dev/null; touch $X")
			cmd := exec.Command(tt.shell, "-c", script)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
			out, _ := cmd.CombinedOutput()
			_, err := os.Stat(marker)
			if ran := err == nil; ran != set.runs {
				t.Errorf("%s: %s -c %q: the marker ran: %v, want %v (output %q)", tt.name, tt.shell, script, ran, set.runs, out)
			}
		}
	}
}

func dialectFor(shell string) Dialect {
	switch shell {
	case "dash":
		return POSIX
	case "zsh":
		return Zsh
	}
	return Bash
}

// reaches reports whether res judges rm -rf /x, or has code it cannot
// see.
func reaches(res *Result) bool {
	for _, c := range res.Commands {
		// A call of a function named rm runs no program: not the rm.
		if c.UnknownCode || !c.Function && (c.Line() == "rm -rf /x" || c.Line() == "/bin/rm -rf /x" || c.Line() == "rm -rf ?" && c.Dir != "" || c.Line() == "rm -rf x" && c.Dir == "/" || c.Line() == "rm -rf /home/dev") {
			return true
		}
	}
	for _, p := range res.Problems {
		if p.Kind == ProblemSyntax || p.Kind == ProblemDepth {
			return true // asked about
		}
	}
	return false
}

package parse

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// env is the shell's variables as the judge tracks them: the real
// environment below, assignments made by the script on top. It never runs
// anything; values it cannot know are [Unknown].
//
// A subshell's env is a new layer over its parent's, so that taking one
// costs nothing until it assigns.
type env struct {
	base   map[string]string
	parent *env
	vars   map[string]expand.Variable
	arg0   string
	params []string
	shell  map[string]bool // the variables the shell sets itself ([shellSet])
}

func newEnv(pairs []string, arg0 string, params []string) *env {
	e := &env{base: make(map[string]string, len(pairs)), arg0: arg0, params: params}
	for _, kv := range pairs {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e.base[k] = v
		}
	}
	return e
}

// clone returns a layer over e for a subshell: changes made there do not
// leak back. e must not change while the layer is in use.
func (e *env) clone() *env {
	return &env{base: e.base, parent: e, arg0: e.arg0, params: e.params, shell: e.shell}
}

// child returns the environment a new shell process inherits: only
// exported variables.
func (e *env) child(arg0 string, params []string) *env {
	c := &env{base: make(map[string]string, len(e.base)), arg0: arg0, params: params}
	for k, v := range e.base {
		c.base[k] = v
	}
	e.Each(func(k string, v expand.Variable) bool {
		switch {
		case !v.IsSet():
			delete(c.base, k)
		case v.Exported:
			c.base[k] = v.String()
		}
		return true
	})
	return c
}

// unknownVars are parameters whose value changes at run time.
var unknownVars = map[string]bool{
	"RANDOM": true, "SRANDOM": true, "SECONDS": true, "EPOCHSECONDS": true,
	"EPOCHREALTIME": true, "LINENO": true, "BASHPID": true, "?": true,
	"$": true, "!": true, "PPID": true, "REPLY": true, "_": true, "-": true,
}

func str(s string) expand.Variable {
	return expand.Variable{Set: true, Kind: expand.String, Str: s}
}

// own returns the variable assigned in e or a layer below, if any.
func (e *env) own(name string) (expand.Variable, bool) {
	for l := e; l != nil; l = l.parent {
		if v, ok := l.vars[name]; ok {
			return v, true
		}
	}
	return expand.Variable{}, false
}

// Get implements [expand.Environ].
func (e *env) Get(name string) expand.Variable {
	if v, ok := e.own(name); ok {
		return v
	}
	if e.shell[name] && shellOwned[name] {
		return e.shellValue(name)
	}
	if v, ok := e.base[name]; ok {
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
	}
	switch {
	case e.shell[name]:
		return e.shellValue(name)
	case unknownVars[name]:
		return str(Unknown)
	case name == "0":
		return str(e.arg0)
	case name == "#":
		return str(strconv.Itoa(len(e.params)))
	case name == "@" || name == "*":
		return expand.Variable{Set: true, Kind: expand.Indexed, List: e.params}
	}
	if n, ok := positional(name); ok && n > 0 {
		if n <= len(e.params) {
			return str(e.params[n-1])
		}
	}
	return expand.Variable{}
}

// positional is [strconv.Atoi] of a name that can be a number: a name
// that starts with neither a digit nor a sign is none, and is not handed
// to Atoi, whose error for it (an allocation, with a copy of the name)
// every unset variable looked up cost.
func positional(name string) (int, bool) {
	if name == "" || (name[0] < '0' || name[0] > '9') && name[0] != '+' && name[0] != '-' {
		return 0, false
	}
	n, err := strconv.Atoi(name)
	return n, err == nil
}

// Each implements [expand.Environ].
func (e *env) Each(fn func(string, expand.Variable) bool) {
	seen := map[string]bool{}
	for l := e; l != nil; l = l.parent {
		for k, v := range l.vars {
			if seen[k] {
				continue
			}
			seen[k] = true
			if !fn(k, v) {
				return
			}
		}
	}
	for k := range e.base {
		if seen[k] {
			continue
		}
		if !fn(k, e.Get(k)) {
			return
		}
	}
}

// Set implements [expand.WriteEnviron].
func (e *env) Set(name string, vr expand.Variable) error {
	if old := e.Get(name); old.Exported {
		vr.Exported = true
	}
	e.put(name, vr)
	return nil
}

func (e *env) put(name string, vr expand.Variable) {
	// A reference (declare -n R=X) is assigned through: R=1 sets X.
	// (Not a new reference; bash gives up on a chain of more than a
	// few.) Not an unset: whether bash's reaches X depends on what the
	// judge does not follow (unset -n, declare +n, a local R, a for loop
	// that points R elsewhere), and taken for unset, X would stop the
	// walk under set -u where the shell goes on; left set, it is judged.
	for range 8 {
		old := e.Get(name)
		if old.Kind != expand.NameRef || vr.Kind == expand.NameRef || !vr.IsSet() || !syntax.ValidName(old.Str) {
			break
		}
		name = old.Str
	}
	if e.Get(name).ReadOnly {
		return // the shell refuses to change it
	}
	if e.vars == nil {
		e.vars = map[string]expand.Variable{}
	}
	e.vars[name] = vr
}

// readOnly makes a variable read-only (readonly NAME, declare -r).
func (e *env) readOnly(name string) {
	v := e.Get(name)
	if !v.IsSet() {
		v = str("")
	}
	v.ReadOnly = true
	if e.vars == nil {
		e.vars = map[string]expand.Variable{}
	}
	e.vars[name] = v
}

// setString assigns a string value.
func (e *env) setString(name, value string, export bool) {
	v := str(value)
	v.Exported = export || e.Get(name).Exported
	e.put(name, v)
}

// unset removes a variable.
func (e *env) unset(name string) { e.put(name, expand.Variable{}) }

// lookup returns a variable's value and whether it is set.
func (e *env) lookup(name string) (string, bool) {
	v := e.Get(name)
	return v.String(), v.IsSet()
}

// shellStart sets what every shell of dialect d sets for itself at
// start: bash and dash reset IFS, and the variables the shell sets
// itself are set, to a value the judge does not know (a script's
// ${BASH_VERSION:?} or [ -z "$UID" ] && exit does not stop it).
func (e *env) shellStart(d Dialect) *env {
	e.put("IFS", str(" \t\n"))
	e.shell = shellSet[d]
	return e
}

// shellValue is the value of a variable the shell sets itself: unknown,
// an array of unknown elements for the indexed ones.
func (e *env) shellValue(name string) expand.Variable {
	if shellArrays[name] {
		return expand.Variable{Set: true, Kind: expand.Indexed, List: unknownList}
	}
	return str(Unknown)
}

// shellArrays are bash's indexed arrays among [shellSet]: any element
// of theirs is unknown (up to unknownList's length). zsh has none by
// these names.
var shellArrays = map[string]bool{
	"BASH_ARGC": true, "BASH_ARGV": true, "BASH_LINENO": true, "BASH_SOURCE": true, "BASH_VERSINFO": true,
	"DIRSTACK": true, "GROUPS": true, "PIPESTATUS": true, "FUNCNAME": true, "BASH_REMATCH": true, "COPROC": true,
}

var unknownList = []string{Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown}

// shellSet are the variables each shell sets as it starts (bash 5.2, dash
// and zsh 5.9, as `env -i SHELL -c set` lists them, and the dynamic ones
// set lists not). A POSIX script may be run by dash or by bash as sh.
var shellSet = map[Dialect]map[string]bool{
	Bash:  set(bashSet...),
	POSIX: set(append(slices.Clip(bashSet), "PS1", "PS2")...),
	Zsh: set("ARGC", "CPUTYPE", "EGID", "EUID", "GID", "HISTCMD", "HOST", "LINENO", "LOGNAME", "MACHTYPE",
		"OLDPWD", "OPTIND", "OSTYPE", "PPID", "PS1", "PS2", "PS3", "PS4", "PROMPT", "PROMPT2", "PROMPT3", "PROMPT4",
		"RANDOM", "SECONDS", "SHLVL", "TTY", "TTYIDLE", "UID", "USERNAME", "VENDOR", "ZSH_ARGZERO",
		"ZSH_EVAL_CONTEXT", "ZSH_EXECUTION_STRING", "ZSH_NAME", "ZSH_PATCHLEVEL", "ZSH_SUBSHELL", "ZSH_VERSION",
		"EPOCHSECONDS", "EPOCHREALTIME", "status", "pipestatus", "funcstack", "commands", "functions", "aliases",
		"options", "parameters", "builtins", "match", "MATCH", "mbegin", "mend", "reply", "OPTARG"),
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

var bashSet = []string{"BASH", "BASHOPTS", "BASHPID", "BASH_ALIASES", "BASH_ARGC", "BASH_ARGV", "BASH_CMDS",
	"BASH_COMMAND", "BASH_EXECUTION_STRING", "BASH_LINENO", "BASH_LOADABLES_PATH", "BASH_SOURCE",
	"BASH_SUBSHELL", "BASH_VERSINFO", "BASH_VERSION", "DIRSTACK", "EPOCHREALTIME", "EPOCHSECONDS", "EUID",
	"GROUPS", "HISTCMD", "HOSTNAME", "HOSTTYPE", "LINENO", "MACHTYPE", "OPTERR", "OPTIND", "OSTYPE", "PPID",
	"PS4", "RANDOM", "SECONDS", "SHELL", "SHELLOPTS", "SHLVL", "SRANDOM", "TERM", "UID",
	// Set by the shell as it runs: [[ =~ ]], pipelines, functions, getopts, coproc.
	"BASH_REMATCH", "PIPESTATUS", "FUNCNAME", "OPTARG", "BASH_ARGV0", "COPROC",
	// Set by bash in every shell, interactive or not.
	"COMP_WORDBREAKS"}

// shellOwned are the variables a shell sets whatever the environment
// holds for them.
var shellOwned = map[string]bool{
	"BASH": true, "BASHOPTS": true, "BASHPID": true, "BASH_COMMAND": true, "BASH_EXECUTION_STRING": true,
	"BASH_LINENO": true, "BASH_SUBSHELL": true, "BASH_VERSINFO": true, "BASH_VERSION": true,
	"EPOCHREALTIME": true, "EPOCHSECONDS": true, "HISTCMD": true, "LINENO": true, "OPTERR": true,
	"OPTIND": true, "PPID": true, "RANDOM": true, "SECONDS": true, "SHELLOPTS": true, "SHLVL": true,
	"SRANDOM": true, "ZSH_VERSION": true, "ZSH_NAME": true, "ZSH_PATCHLEVEL": true, "ZSH_SUBSHELL": true,
	"ZSH_ARGZERO": true, "ZSH_EVAL_CONTEXT": true, "ZSH_EXECUTION_STRING": true, "TTYIDLE": true,
}

// setPWD records the working directory for expansions (globs are
// relative to it).
func (e *env) setPWD(dir string) {
	if dir == "" {
		e.put("PWD", str(Unknown))
		return
	}
	if v, ok := e.own("PWD"); ok && v.Str == dir {
		return
	}
	v := str(dir)
	v.Exported = true
	e.put("PWD", v)
}

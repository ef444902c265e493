package tamper

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A piped shell's refusal line runs in the agent's shell (command printf
// ...; (exit 126)), and a shell looks up functions and aliases before
// its builtins: a statement that redefined printf, command or exit would
// run the agent's code, unjudged, in place of every later refusal. So a
// piped shell refuses to define functions or aliases named like the shells'
// builtins and reserved words, names with a slash (bash runs
// "function /bin/x" for /bin/x), and enable, which turns builtins off or
// loads new ones.

// reserved are the names a piped shell does not let a statement redefine:
// the builtins and reserved words of bash, dash and zsh that decide what
// a line does. Built on first use: only piped shells and terminals ask.
var reserved = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`. : [ [[ ]] ! { } alias autoload bg bind break builtin caller case cd chdir
		command compgen complete compopt continue declare dirs disown do done echo elif else emulate enable esac
		eval exec exit export false fc fg fi for function getopts hash help history if in jobs kill let local
		logout mapfile noglob popd print printf pushd pwd read readarray readonly return select set setopt shift
		shopt source suspend test then time times trap true type typeset ulimit umask unalias unfunction unhash
		unset unsetopt until wait whence where which while zmodload`) {
		m[n] = true
	}
	return m
})

// Hijack returns why a piped shell refuses stmts as a redefinition of what
// its refusals rely on, or "".
func Hijack(stmts []*syntax.Stmt) string {
	why := ""
	for _, st := range stmts {
		syntax.Walk(st, func(node syntax.Node) bool {
			if why != "" {
				return false
			}
			switch n := node.(type) {
			case *syntax.FuncDecl:
				names := n.Names
				if n.Name != nil {
					names = append(names, n.Name)
				}
				for _, name := range names {
					if reservedName(name.Value) {
						why = fmt.Sprintf("it defines a function named %s", name.Value)
					}
				}
			case *syntax.CallExpr:
				if len(n.Args) == 0 {
					return true
				}
				// The name as the shell runs it: 'enable', builtin enable.
				words := callWords(n.Args)
				switch words[0] {
				case "enable", "zmodload":
					why = "it turns shell builtins off or loads new ones (" + words[0] + ")"
				case "alias":
					for _, a := range n.Args[len(n.Args)-len(words)+1:] {
						lit, ok := a.Parts[0].(*syntax.Lit)
						if !ok || reservedName(strings.SplitN(lit.Value, "=", 2)[0]) {
							why = "it defines an alias named like a shell builtin, or one cordon cannot read"
						}
					}
				case "set", "setopt":
					for _, a := range words[1:] {
						switch strings.ToLower(a) {
						case "-h", "histexpand", "banghist", "bang_hist":
							why = "it turns history expansion (!) back on"
						}
						if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "H") {
							why = "it turns history expansion (!) back on"
						}
					}
				}
			}
			return why == ""
		})
		if why != "" {
			return why
		}
	}
	return ""
}

// reservedName reports whether a function or alias may not be named name.
func reservedName(name string) bool {
	return reserved()[name] || strings.Contains(name, "/") || name == ""
}

// HistoryBang reports whether text holds a ! that an interactive bash or
// zsh would take for a history expansion (!!, !$, !-2, !cmd), which
// pastes earlier lines, unseen, into this one: outside single quotes, not
// escaped, not followed by a blank, =, ( or a closing double quote.
func HistoryBang(text string) bool {
	single, double := false, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case single:
			single = c != '\''
		case c == '\\':
			i++
		case c == '\'' && !double:
			single = true
		case c == '"':
			double = !double
		case c == '!':
			if i+1 == len(text) || strings.IndexByte(" \t\n\r=(", text[i+1]) >= 0 || double && text[i+1] == '"' {
				continue
			}
			return true
		}
	}
	return false
}

// FuncsInEnv returns the first function the environment hands bash
// (BASH_FUNC_NAME%%=() {...}) under a reserved name, or "".
func FuncsInEnv(env []string) string {
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		name, ok := strings.CutPrefix(k, "BASH_FUNC_")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(strings.TrimSuffix(name, "%%"), "()")
		if reservedName(name) {
			return name
		}
	}
	return ""
}

// Package pscheck reads the PowerShell scripts that cordon ships
// (install.ps1) and makes (the set-up of a judged interactive
// PowerShell) where no PowerShell is there to run them: brackets,
// quotes and here-strings closed, no syntax error that cordon's own
// PowerShell parser finds, every variable used assigned somewhere or
// automatic, and every cmdlet, program, .NET static member and method
// called in an allow list that the caller keeps, so that a call that
// does not exist in Windows PowerShell 5.1 or PowerShell 7 is a decision
// someone made, not a typo.
package pscheck

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/parse/powershell"
)

// An Allow list: what a script may call, compared ignoring case.
type Allow struct {
	// Commands are cmdlets, programs, and .NET static members as
	// cordon's parser names them ("[System.IO.File]::Delete").
	Commands []string
	// Methods are the names of instance methods called as .Name(.
	Methods []string
}

// automatic are PowerShell's automatic and preference variables that
// the scripts may read without assigning them.
var automatic = []string{"_", "true", "false", "null", "args", "input", "this", "executioncontext", "pscmdlet",
	"psscriptroot", "pscommandpath", "myinvocation", "lastexitcode", "error", "home", "pwd", "profile",
	"psversiontable", "host", "iswindows", "islinux", "ismacos", "pid", "erroractionpreference", "matches",
	"psitem", "psboundparameters", "progresspreference"}

var (
	funcDef   = regexp.MustCompile(`(?i)\bfunction\s+(?:global:|script:)?([\w-]+)`)
	method    = regexp.MustCompile(`[\w)\]]\.([A-Za-z_]\w*)\(`)
	varUse    = regexp.MustCompile(`\$(?:\{([^}]+)\}|((?:[A-Za-z]+:)?[A-Za-z_]\w*))`)
	varSet    = regexp.MustCompile(`\$(?:[A-Za-z]+:)?([A-Za-z_]\w*)\s*(?:=[^=]|\+=|-=|\+\+|--)`)
	varRef    = regexp.MustCompile(`(?i)\[ref\]\s*\$([A-Za-z_]\w*)`)
	varLoop   = regexp.MustCompile(`(?i)\bforeach\s*\(\s*\$([A-Za-z_]\w*)\s+in\b`)
	varNamed  = regexp.MustCompile(`(?i)\b(?:Set|New)-Variable\s+-Name\s+'?([A-Za-z_]\w*)`)
	paramOpen = regexp.MustCompile(`(?i)\bparam\s*\(|\bfunction\s+[\w:-]+\s*\(`)
)

// Check returns what is wrong with the script src (Windows PowerShell
// 5.1, or PowerShell 7 when core is set), one line each; nil when
// nothing is.
func Check(src string, core bool, allow *Allow) []string {
	code, strs, err := Split(src)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	res := powershell.Commands(src, &powershell.Config{Core: core})
	for _, p := range res.Problems {
		out = append(out, fmt.Sprintf("%s: %s: %s", p.Pos, p.Kind, p.Msg))
	}
	defined := map[string]bool{}
	for _, m := range funcDef.FindAllStringSubmatch(code, -1) {
		defined[strings.ToLower(m[1])] = true
	}
	has := func(list []string, name string) bool {
		return slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(s, name) })
	}
	seen := map[string]bool{}
	report := func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	for _, c := range res.Commands {
		if !defined[strings.ToLower(c.Name)] && !has(allow.Commands, c.Name) {
			report("%s: calls %s, which is not in the allow list", c.Pos, strings.ReplaceAll(c.Name, powershell.Unknown, "?"))
		}
	}
	for _, m := range method.FindAllStringSubmatch(code, -1) {
		if !has(allow.Methods, m[1]) {
			report("calls the method %s, which is not in the allow list", m[1])
		}
	}
	assigned := map[string]bool{}
	for _, re := range []*regexp.Regexp{varSet, varRef, varLoop, varNamed} {
		for _, m := range re.FindAllStringSubmatch(code, -1) {
			assigned[strings.ToLower(m[1])] = true
		}
	}
	for _, p := range paramBlocks(code) {
		for _, m := range varUse.FindAllStringSubmatch(p, -1) {
			assigned[strings.ToLower(m[2])] = true
		}
	}
	for _, text := range append([]string{code}, strs...) {
		for _, m := range varUse.FindAllStringSubmatch(text, -1) {
			name := strings.ToLower(m[1] + m[2])
			if scope, rest, ok := strings.Cut(name, ":"); ok {
				if scope == "env" || scope == "function" || scope == "variable" {
					continue
				}
				name = rest
			}
			if !assigned[name] && !slices.Contains(automatic, name) {
				report("uses $%s, which is never assigned", m[1]+m[2])
			}
		}
	}
	return out
}

// paramBlocks returns the text inside each param( ... ) of code, and
// each function f( ... ).
func paramBlocks(code string) []string {
	var out []string
	for _, loc := range paramOpen.FindAllStringIndex(code, -1) {
		depth := 1
		for j := loc[1]; j < len(code); j++ {
			switch code[j] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				out = append(out, code[loc[1]:j])
				break
			}
		}
	}
	return out
}

package tamper

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/parse/powershell"
)

// psHijack are the words that refuse a line entered in a judged
// PowerShell: they name what would switch the judging off (PSReadLine,
// its key handlers, the PSConsoleHostReadLine function, cordon's own
// names, removing modules, the function: drive, the engine's own
// objects). A line that does it another way (reflection, a script file
// it runs) is not seen: the sandbox is the guard there.
var psHijack = []string{"psreadline", "psconsole", "__cordon", "remove-module", "function:", "executioncontext"}

// psHijackWord is Remove-Module's alias.
var psHijackWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(^|[\s;|&({])rmo($|[\s;|&)}])`) })

// psWildDrive finds a drive named with a wildcard (Func*:, F[u]nction:),
// which PowerShell resolves like a path.
var psWildDrive = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z*?\[\]]*[*?\[][A-Za-z*?\[\]]*:`) })

// psHookDrives are the drives whose items cordon's hook is made of.
var psHookDrives = []string{"function", "variable", "alias"}

// wildHookDrive returns the hook's drive that a wildcard drive in t
// matches, or "".
func wildHookDrive(t string) string {
	for _, m := range psWildDrive().FindAllString(t, -1) {
		pat := strings.ToLower(strings.TrimSuffix(m, ":"))
		for _, d := range psHookDrives {
			if ok, err := path.Match(pat, d); ok || err != nil {
				return d
			}
		}
	}
	return ""
}

// psHijackNames are whole names the words of psHijack stand for, which a
// pattern (ipmo PSRead* -Force, & (gcm Remove-PSR*)) can name without
// spelling the word.
var psHijackNames = []string{"psreadline", "psconsolehostreadline", "microsoft.powershell.psconsolereadline", "remove-module",
	"set-psreadlinekeyhandler", "remove-psreadlinekeyhandler", "set-psreadlineoption", "executioncontext", "__cordonrefused"}

// psWildWord finds a word with a wildcard in it.
var psWildWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9_.\-]*[*?\[][A-Za-z0-9_.\-*?\[\]]*`) })

// wildHijack returns the name of psHijackNames a pattern in t matches, or
// "". A pattern of wildcards alone (Get-ChildItem *) names nothing in
// particular.
func wildHijack(t string) string {
	for _, m := range psWildWord().FindAllString(t, -1) {
		pat := strings.ToLower(m)
		if !strings.ContainsFunc(pat, func(r rune) bool { return !strings.ContainsRune("*?", r) }) {
			continue
		}
		for _, n := range psHijackNames {
			if ok, err := path.Match(pat, n); ok || err != nil {
				return n
			}
		}
	}
	return ""
}

// HijackPS returns why a PowerShell line is refused before it is judged,
// or "". The words are looked for in the text, and in the commands and
// arguments cordon's parser finds in it, strings put together and
// decoded payloads included: ('Remove-PSRead' + 'LineKeyHandler').
func HijackPS(text string, core bool) string {
	texts := []string{text}
	for _, c := range powershell.Commands(text, &powershell.Config{Core: core}).Commands {
		texts = append(texts, c.Name)
		for _, a := range c.Args {
			texts = append(texts, a.Text)
		}
	}
	for _, t := range texts {
		lower := strings.ToLower(t)
		for _, w := range psHijack {
			if strings.Contains(lower, w) {
				return "it names " + w
			}
		}
		if psHijackWord().MatchString(t) || strings.EqualFold(t, "rmo") {
			return "it names rmo (Remove-Module)"
		}
		if d := wildHookDrive(t); d != "" {
			return "it names a drive by a pattern that matches " + d + ":"
		}
		if n := wildHijack(t); n != "" {
			return "it names by a pattern what matches " + n
		}
	}
	return ""
}

package decide

// The labelled Windows corpus (testdata/corpus-windows/*.yaml), judged by
// CheckWindows as `cordon check --platform windows` judges it, and scored
// with the same thresholds as the POSIX corpus.
//
// The scenario is a Windows machine described by its environment (user
// dev, workspace C:\work\proj); its files are not on this machine, so
// what git could restore is unknown and deletes in the workspace are asked
// about. The labels follow that convention (see the files' comments).

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/internal/testenv"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/winargs"
)

// Windows corpus size requirements (issue 4).
const (
	minWinCases      = 200
	minWinAllowShare = 0.40
	minWinObfuscated = 50
)

// windowsScenarioEnv is the judged machine's environment.
var windowsScenarioEnv = []string{
	`USERPROFILE=C:\Users\dev`, `HOMEDRIVE=C:`, `HOMEPATH=\Users\dev`, `USERNAME=dev`,
	`APPDATA=C:\Users\dev\AppData\Roaming`, `LOCALAPPDATA=C:\Users\dev\AppData\Local`,
	`TEMP=C:\Users\dev\AppData\Local\Temp`, `TMP=C:\Users\dev\AppData\Local\Temp`,
	`SystemRoot=C:\Windows`, `windir=C:\Windows`, `SystemDrive=C:`,
	`ProgramFiles=C:\Program Files`, `ProgramFiles(x86)=C:\Program Files (x86)`, `ProgramData=C:\ProgramData`,
	`ComSpec=C:\Windows\system32\cmd.exe`, `PUBLIC=C:\Users\Public`,
	`PATH=C:\Windows\system32;C:\Windows;C:\Program Files\Git\cmd;C:\Program Files\nodejs;C:\Users\dev\AppData\Local\Programs\Python\Python312`,
	`PATHEXT=.COM;.EXE;.BAT;.CMD;.VBS;.JS;.WSF;.MSC;.PS1`,
}

const windowsScenarioDir = `C:\work\proj`

var encPattern = regexp.MustCompile(`\{(ENC|B64)([0-9]+)\}`)

// expandEncodings replaces {ENCn} and {B64n} with the encodings of the
// case's n-th encode text (1-based); a text may use earlier ones.
func expandEncodings(s string, encode []string) (string, error) {
	var err error
	var expand func(s string, upto int) string
	expand = func(s string, upto int) string {
		return encPattern.ReplaceAllStringFunc(s, func(m string) string {
			sm := encPattern.FindStringSubmatch(m)
			n, _ := strconv.Atoi(sm[2])
			if n < 1 || n > upto {
				err = fmt.Errorf("%s: no encode entry %d before it", m, n)
				return m
			}
			text := expand(encode[n-1], n-1)
			if sm[1] == "ENC" {
				return testenv.EncodeUTF16(text)
			}
			return base64.StdEncoding.EncodeToString([]byte(text))
		})
	}
	out := expand(s, len(encode))
	return out, err
}

// windowsCmdline is the case's command line, encodings expanded.
func windowsCmdline(c *corpusCase) (string, error) {
	if c.Cmdline != "" {
		return expandEncodings(c.Cmdline, c.Encode)
	}
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		var err error
		if argv[i], err = expandEncodings(a, c.Encode); err != nil {
			return "", err
		}
	}
	return winargs.Join(argv)
}

func windowsCaseEnv(c *corpusCase) []string {
	env := append(append([]string(nil), windowsScenarioEnv...), scenarioCredentials...)
	for k, v := range c.Env {
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(strings.ToLower(kv), strings.ToLower(k)+"=") })
		if v != nil {
			env = append(env, k+"="+*v)
		}
	}
	return env
}

// TestWindowsCorpusWellFormed checks the Windows corpus itself.
func TestWindowsCorpusWellFormed(t *testing.T) {
	cases := loadCorpusDir(t, "corpus-windows")
	seen := map[string]string{}
	var allow, obfuscated int
	for _, c := range cases {
		bad := func(format string, args ...any) { t.Errorf("%s: %s", c.where(), fmt.Sprintf(format, args...)) }
		if !corpusIDPattern.MatchString(c.ID) {
			bad("id %q is not [a-z0-9-]", c.ID)
		}
		if prev, dup := seen[c.ID]; dup {
			bad("duplicate id, first at %s", prev)
		}
		seen[c.ID] = c.where()
		if (c.Cmdline == "") == (len(c.Argv) == 0) || c.Cmd != "" {
			bad("give exactly one of cmdline and argv")
		}
		if _, err := windowsCmdline(c); err != nil {
			bad("%v", err)
		}
		v, ok := rules.ParseVerdict(c.Verdict)
		if !ok {
			bad("verdict %q is not allow, ask or deny", c.Verdict)
		}
		for _, cat := range c.Categories {
			if !slices.Contains(corpusCategories, cat) {
				bad("unknown category %q", cat)
			}
		}
		if ok && (v == rules.Allow) != (len(c.Categories) == 0) {
			bad("categories must be empty exactly when the verdict is allow")
		}
		if v == rules.Allow {
			allow++
		}
		if c.Obfuscated {
			obfuscated++
		}
	}
	if len(cases) < minWinCases {
		t.Errorf("%d cases, want at least %d", len(cases), minWinCases)
	}
	if share := float64(allow) / float64(max(1, len(cases))); share < minWinAllowShare {
		t.Errorf("%d of %d cases are allow, want at least %.0f%%", allow, len(cases), 100*minWinAllowShare)
	}
	if obfuscated < minWinObfuscated {
		t.Errorf("%d obfuscated cases, want at least %d", obfuscated, minWinObfuscated)
	}
	t.Logf("%d cases (%d allow, %d obfuscated)", len(cases), allow, obfuscated)
}

// TestWindowsCorpus judges every Windows case and scores the judgements.
func TestWindowsCorpus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the Windows corpus describes another machine: judged where its paths are foreign")
	}
	cases := loadCorpusDir(t, "corpus-windows")
	results := make([]*corpusResult, 0, len(cases))
	for _, c := range cases {
		r := &corpusResult{c: c}
		line, err := windowsCmdline(c)
		if err == nil {
			var j *rules.Judgement
			j, err = CheckWindows(line, cmpOr(c.Cwd, windowsScenarioDir), windowsCaseEnv(c))
			if err == nil {
				r.verdict, r.cats, r.reasons = j.Verdict, j.Categories, j.Reasons
			}
		}
		r.err = err
		results = append(results, r)
	}
	scoreCorpus(t, results)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

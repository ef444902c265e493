package rules

import (
	"strings"
	"sync"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/winpath"
)

// Windows commands are judged with the same classes and policies as
// POSIX ones. Their paths are mapped to winpath's canonical form
// (/c:/users/dev/src, lower case), in which the POSIX code's string
// comparisons are Windows's case-insensitive ones; their names are
// looked up without regard to case in the namespace of their dialect.

// winPathsOnce builds, per set, the path classes for Windows: the
// entries of Paths that are not POSIX absolute paths, then WindowsPaths.
type winClasses struct {
	once  sync.Once
	paths PathClasses
}

// pathsFor returns the path classes that apply in e.
func (s *Set) pathsFor(e *Env) *PathClasses {
	if !e.Windows {
		return &s.paths
	}
	s.win.once.Do(func() {
		var p PathClasses
		mergeEach(&p, &s.paths, func(entry string) bool { return !strings.HasPrefix(entry, "/") })
		mergeEach(&p, &s.winPaths, func(string) bool { return true })
		s.win.paths = p
	})
	return &s.win.paths
}

// mergeEach appends to dst the entries of src that keep accepts, class
// by class.
func mergeEach(dst, src *PathClasses, keep func(string) bool) {
	pairs := []struct{ d, s *[]string }{
		{&dst.Scratch, &src.Scratch}, {&dst.Caches, &src.Caches}, {&dst.Agent, &src.Agent},
		{&dst.Credentials, &src.Credentials}, {&dst.ReadableCredentials, &src.ReadableCredentials}, {&dst.NotSecret, &src.NotSecret},
		{&dst.Regenerable, &src.Regenerable}, {&dst.System, &src.System},
		{&dst.Devices, &src.Devices}, {&dst.HarmlessDevs, &src.HarmlessDevs},
		{&dst.AutoRun, &src.AutoRun}, {&dst.AutoRunIncludes, &src.AutoRunIncludes}, {&dst.Projects, &src.Projects}, {&dst.MadeCaches, &src.MadeCaches}, {&dst.FilteredCredentials, &src.FilteredCredentials}, {&dst.GitConfig, &src.GitConfig}, {&dst.GitData, &src.GitData}, {&dst.GitObjects, &src.GitObjects}, {&dst.NetDevices, &src.NetDevices},
		{&dst.MetadataHosts, &src.MetadataHosts}, {&dst.Startup, &src.Startup},
		{&dst.History, &src.History}, {&dst.GitPointers, &src.GitPointers}, {&dst.NotWorkspace, &src.NotWorkspace},
		{&dst.SandboxWritable, &src.SandboxWritable}, {&dst.SandboxHidden, &src.SandboxHidden},
		{&dst.SandboxSockets, &src.SandboxSockets},
		{&dst.ScratchPrivate, &src.ScratchPrivate}, {&dst.ProjectSubdirs, &src.ProjectSubdirs},
		{&dst.Cordon, &src.Cordon}, {&dst.Installs, &src.Installs},
	}
	for _, p := range pairs {
		for _, entry := range *p.s {
			if keep(entry) {
				*p.d = append(*p.d, entry)
			}
		}
	}
}

// winEntryIsPath reports whether a Windows path-class entry names a path
// rather than a base name.
func winEntryIsPath(entry string) bool {
	return strings.ContainsAny(entry, `/\:`) || strings.HasPrefix(entry, "~") || strings.HasPrefix(entry, "$")
}

// winEntry expands a Windows path-class entry into a canonical path or
// glob, or "" when it names nothing here (an unset variable).
func (e *Env) winEntry(entry string) string {
	rest := ""
	switch {
	case entry == "~":
		return e.Home
	case strings.HasPrefix(entry, `~\`), strings.HasPrefix(entry, "~/"):
		if e.Home == "" {
			return ""
		}
		return e.Home + "/" + strings.ToLower(strings.ReplaceAll(entry[2:], `\`, "/"))
	case strings.HasPrefix(entry, "$"):
		name := entry[1:]
		if i := strings.IndexAny(name, `/\`); i >= 0 {
			name, rest = name[:i], name[i+1:]
		}
		v := e.getenv(name)
		if v == "" {
			return ""
		}
		c := winpath.Canon(v)
		if c == "" {
			return ""
		}
		if rest == "" {
			return c
		}
		return c + "/" + strings.ToLower(strings.ReplaceAll(rest, `\`, "/"))
	}
	return winpath.Canon(entry)
}

// getenv looks a variable up; Windows names ignore case.
func (e *Env) getenv(name string) string {
	if e.Getenv == nil {
		return ""
	}
	if v := e.Getenv(name); v != "" || !e.Windows {
		return v
	}
	for _, kv := range e.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// resolveWin makes a Windows path absolute against dir and returns its
// canonical form, or "" when it cannot be known. Links and junctions are
// not followed: deleting one deletes the link.
func (e *Env) resolveWin(p, dir string) string {
	if e.msys {
		switch {
		case p == "/dev/null":
			p = "NUL"
		case p == "/tmp" || strings.HasPrefix(p, "/tmp/"):
			p = e.getenv("TEMP") + p[len("/tmp"):] // Git Bash's /tmp
		}
		p = winpath.FromMSYS(p)
		dir = winpath.FromMSYS(dir)
	}
	if strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, "//") {
		dir = winpath.Display(dir) // a directory this package resolved
	}
	switch {
	case p == "~":
		p = winpath.Display(e.Home)
	case strings.HasPrefix(p, `~\`), strings.HasPrefix(p, "~/"):
		p = winpath.Display(e.Home) + p[1:]
	}
	if e.Home == "" && strings.HasPrefix(p, "~") {
		return ""
	}
	abs := winpath.Abs(p, dir)
	if abs == "" {
		return ""
	}
	c := winpath.Canon(abs)
	if c != "" {
		if e.shown == nil {
			e.shown = map[string]string{}
		}
		if _, ok := e.shown[c]; !ok {
			e.shown[c] = abs
		}
	}
	return c
}

// Show returns a path as the judgement names it to people: for Windows,
// the spelling it was first written with (C:\Users\Dev\src rather than
// /c:/users/dev/src).
func (e *Env) Show(p string) string {
	if !e.Windows || !strings.HasPrefix(p, "/") {
		return p
	}
	if s, ok := e.shown[p]; ok {
		return s
	}
	return winpath.Display(p)
}

// isRoot reports whether path is the root of a file system: "/", a
// drive (/c:), a UNC share (/unc/srv/share), a registry hive.
func (e *Env) isRoot(path string) bool {
	if path == "/" {
		return true
	}
	if !e.Windows {
		return false
	}
	if rest, ok := strings.CutPrefix(path, "/unc/"); ok {
		return strings.Count(rest, "/") <= 1
	}
	return strings.Count(path, "/") == 1 && strings.HasSuffix(path, ":")
}

// native returns the path to hand the operating system for a judged
// path, or "" when the path is not on this machine.
func (e *Env) native(path string) string {
	switch {
	case !e.Windows:
		return path
	case e.Foreign:
		return ""
	}
	return winpath.Display(path)
}

// lstatExists reports whether path exists on this machine; a foreign
// path is assumed to.
func (e *Env) lstatExists(path string) bool {
	n := e.native(path)
	if n == "" {
		return e.Foreign
	}
	_, err := e.lstat(n)
	return err == nil
}

// winName is the name a Windows command is looked up by: its base name
// in lower case, without ".exe" or ".com".
func winName(c *parse.Command) string {
	if len(c.Args) == 0 || !c.Args[0].IsKnown() {
		return ""
	}
	name := c.Args[0].Text
	name = strings.ToLower(name[strings.LastIndexAny(name, `/\`)+1:])
	for _, ext := range []string{".exe", ".com"} {
		if n, ok := strings.CutSuffix(name, ext); ok {
			return n
		}
	}
	return name
}

// winCommand finds the rules for a Windows command: in its dialect's
// namespace (cmd.exe builtins, PowerShell commands), then among Windows
// programs, then the commands every system has (git, npm, curl).
func (s *Set) winCommand(c *parse.Command) *command {
	name := winName(c)
	if name == "" {
		return nil
	}
	var order []string
	switch c.Dialect {
	case parse.Cmd:
		order = []string{"cmd:", "win:", ""}
	case parse.PowerShell:
		order = []string{"ps:", "win:", ""}
	default:
		order = []string{"", "win:"}
	}
	for _, prefix := range order {
		if cmd := s.command(prefix + name); cmd != nil {
			return cmd
		}
	}
	return nil
}

// split splits a command's arguments as the command reads them: POSIX
// options, Windows /switches, or PowerShell's parameter binding.
func split(spec *CmdSpec, ws []parse.Word, fold bool) args {
	var a args
	switch {
	case len(spec.Parameters) > 0 || len(spec.Switches) > 0 || len(spec.Positional) > 0:
		a = bindPowerShell(spec, ws)
	case spec.SlashOptions:
		a = splitSlash(ws, spec.ValueOptions)
	case spec.OldOptions:
		a = splitArgs(oldOptions(ws, spec.ValueOptions), spec.ValueOptions, spec.longOptions(), spec.EndOfOptions)
	default:
		a = splitArgs(ws, spec.ValueOptions, spec.longOptions(), spec.EndOfOptions)
	}
	a.fold = fold
	return a
}

// splitSlash splits Windows-style arguments: /S/Q is /s and /q, /A:H is
// /a with the value h, -X is /x, and a value option takes the next
// argument.
func splitSlash(ws []parse.Word, valueOpts []string) args {
	a := args{dashdash: -1, values: map[string][]parse.Word{}}
	for j := 0; j < len(ws); j++ {
		t := ws[j].Text
		if len(t) < 2 || t[0] != '/' && t[0] != '-' || t == "--" {
			a.operands = append(a.operands, ws[j])
			a.opIdx = append(a.opIdx, j)
			continue
		}
		for _, sw := range slashSwitches(t[1:]) {
			name, val, hasVal := strings.Cut(sw, ":")
			opt := "/" + strings.ToLower(name)
			a.flags = append(a.flags, opt)
			switch {
			case hasVal:
				a.values[opt] = append(a.values[opt], parse.Word{Text: val, Vars: ws[j].Vars})
			case containsFold(valueOpts, opt) && j+1 < len(ws):
				j++
				a.values[opt] = append(a.values[opt], ws[j])
			}
		}
	}
	return a
}

// slashSwitches splits glued switches (/s/q gives s and q); a value after
// a colon runs to the end (/i:https://x/a.sct).
func slashSwitches(t string) []string {
	var out []string
	for t != "" {
		i := strings.IndexAny(t, "/:")
		switch {
		case i < 0:
			return append(out, t)
		case t[i] == ':':
			return append(out, t)
		}
		if i > 0 {
			out = append(out, t[:i])
		}
		t = t[i+1:]
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Common parameters every PowerShell command takes, with their aliases.
var (
	psCommonValues   = []string{"ErrorAction|ea", "WarningAction|wa", "InformationAction|infa", "ProgressAction|proga", "ErrorVariable|ev", "WarningVariable|wv", "InformationVariable|iv", "OutVariable|ov", "OutBuffer|ob", "PipelineVariable|pv"}
	psCommonSwitches = []string{"Verbose|vb", "Debug|db", "WhatIf|wi", "Confirm|cf", "UseTransaction|usetx"}
)

// A psParam is one parameter of a PowerShell command: its name and the
// aliases that select it exactly.
type psParam struct {
	names    []string
	isSwitch bool
}

func psParams(spec *CmdSpec) []psParam {
	var out []psParam
	add := func(list []string, sw bool) {
		for _, p := range list {
			out = append(out, psParam{names: strings.Split(p, "|"), isSwitch: sw})
		}
	}
	add(spec.Parameters, false)
	add(spec.Switches, true)
	add(psCommonValues, false)
	add(psCommonSwitches, true)
	return out
}

// matchPSParam finds the parameter key names as PowerShell binds it: an
// exact name or alias, else the one parameter whose name begins with
// key. Ambiguous and unknown keys match nothing.
func matchPSParam(params []psParam, key string) *psParam {
	for i := range params {
		for _, n := range params[i].names {
			if strings.EqualFold(n, key) {
				return &params[i]
			}
		}
	}
	var found *psParam
	for i := range params {
		if len(key) > 0 && len(params[i].names[0]) >= len(key) && strings.EqualFold(params[i].names[0][:len(key)], key) {
			if found != nil {
				return nil // ambiguous: PowerShell refuses the command
			}
			found = &params[i]
		}
	}
	return found
}

// bindPowerShell binds a PowerShell command's arguments to its
// parameters as PowerShell does: named parameters by unambiguous prefix
// (-r -fo are -Recurse -Force), switches with an optional :$false, then
// the arguments without a name to the positional parameters in order.
// Flags and values are keyed by "-" and the parameter's name ("-Path").
//
// A name that matches no parameter, or more than one, makes PowerShell
// refuse to run the command. Rules may not list every parameter, so such
// a name is kept as a flag as written and binding goes on: the command
// is judged as if it ran.
func bindPowerShell(spec *CmdSpec, ws []parse.Word) args {
	a := args{dashdash: -1, values: map[string][]parse.Word{}}
	params := psParams(spec)
	var positional [][]parse.Word // each an argument: an array's elements together
	lastOpt := ""                 // the parameter the last value was bound to
	for j := 0; j < len(ws); j++ {
		w := ws[j]
		switch {
		case w.More && lastOpt != "":
			a.values[lastOpt] = append(a.values[lastOpt], w)
			continue
		case w.More && len(positional) > 0:
			positional[len(positional)-1] = append(positional[len(positional)-1], w)
			continue
		case !w.Param:
			positional = append(positional, []parse.Word{w})
			lastOpt = ""
			continue
		}
		lastOpt = ""
		key, val, hasVal := strings.Cut(strings.TrimLeft(w.Text, "-\u2013\u2014\u2015"), ":")
		p := matchPSParam(params, key)
		if p == nil {
			a.flags = append(a.flags, w.Text)
			continue
		}
		opt := "-" + p.names[0]
		switch {
		case p.isSwitch:
			if !hasVal || !falsy(val) {
				a.flags = append(a.flags, opt)
			}
		case hasVal:
			a.flags = append(a.flags, opt)
			a.values[opt] = append(a.values[opt], parse.Word{Text: val, Vars: w.Vars, Computed: w.Computed})
			lastOpt = opt
		case j+1 < len(ws):
			j++
			a.flags = append(a.flags, opt)
			a.values[opt] = append(a.values[opt], ws[j])
			lastOpt = opt
		}
	}
	next := 0
	for _, arg := range positional {
		for next < len(spec.Positional) && a.values["-"+strings.Split(spec.Positional[next], "|")[0]] != nil {
			next++ // already given by name
		}
		if next < len(spec.Positional) {
			opt := "-" + strings.Split(spec.Positional[next], "|")[0]
			a.values[opt] = append(a.values[opt], arg...)
			next++
			continue
		}
		for _, w := range arg {
			a.operands = append(a.operands, w)
			a.opIdx = append(a.opIdx, -1)
		}
	}
	return a
}

// falsy reports whether a switch's value turns it off (-Recurse:$false).
func falsy(v string) bool {
	switch strings.ToLower(strings.TrimPrefix(v, "$")) {
	case "false", "0", "", "null":
		return true
	}
	return false
}

// credentialValues returns the credential variables of the environment
// whose values appear in a command's arguments: cmd.exe and PowerShell
// expand %GITHUB_TOKEN% and $env:GITHUB_TOKEN before the command sees
// them, so the value is what is looked for.
func (s *Set) credentialValues(e *Env, c *parse.Command) []string {
	var out []string
	for _, kv := range e.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || len(v) < 8 || !s.credentials().Var(k, v) {
			continue
		}
		for _, w := range c.Args[min(1, len(c.Args)):] {
			if containsPart(w.Text, v) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// minSecretPart is the length of a credential's substring that counts as
// the credential: %GITHUB_TOKEN:~0,30% prints most of the token.
const minSecretPart = 20

// containsPart reports whether text holds secret, or a part of it at
// least minSecretPart bytes long.
func containsPart(text, secret string) bool {
	if len(secret) <= minSecretPart || len(text) < minSecretPart {
		return strings.Contains(text, secret)
	}
	for i := 0; i+minSecretPart <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+minSecretPart]) {
			return true
		}
	}
	return false
}

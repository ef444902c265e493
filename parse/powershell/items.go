package powershell

import (
	"strings"
	"sync"
)

// File-system items and paths: what Get-ChildItem, Get-Item and the path
// cmdlets and .NET methods return, so that the items a pipeline carries
// (Get-ChildItem C:\x | Remove-Item), $_ in a ForEach-Object block and
// paths built at run time ([IO.Path]::GetTempPath()) are known.

// itemMark, in the extra field of a string value, marks a file-system
// item (a FileInfo or DirectoryInfo): the string is its full path, which
// is what PowerShell binds and prints for it.
const itemMark = "item"

// profileMark, in the extra field of a string value, marks $PROFILE,
// whose properties name the other profile scripts.
const profileMark = "profile"

// profileProperty evaluates $PROFILE.CurrentUserAllHosts and the like.
func (w *walker) profileProperty(x value, lower string) (value, bool) {
	if x.k != kStr || x.extra != profileMark {
		return value{}, false
	}
	dir := x.s[:strings.LastIndexByte(x.s, '\\')+1]
	pshome := `C:\Windows\System32\WindowsPowerShell\v1.0\`
	if w.core {
		pshome = `C:\Program Files\PowerShell\7\`
	}
	switch lower {
	case "currentusercurrenthost":
		return computedStr(x.s), true
	case "currentuserallhosts":
		return computedStr(dir + "profile.ps1"), true
	case "alluserscurrenthost":
		return computedStr(pshome + "Microsoft.PowerShell_profile.ps1"), true
	case "allusersallhosts":
		return computedStr(pshome + "profile.ps1"), true
	}
	return unknownValue, true
}

// item returns the item at path p; unknown when p is "".
func item(p string) value {
	if p == "" {
		return unknownValue
	}
	return value{k: kStr, s: p, comp: true, extra: itemMark}
}

// valueParams lists the parameters of the cmdlets whose output the walker
// computes.
var valueParams = sync.OnceValue(func() map[string][]param {
	return map[string][]param{
		"Get-ChildItem": {positional(0, "path"), named("literalpath", "pspath", "lp"), positional(1, "filter"),
			named("include"), named("exclude"), sw("recurse", "s"), named("depth"), sw("force"), sw("name"),
			sw("directory", "ad", "d"), sw("file", "af"), sw("hidden", "ah", "h"), sw("readonly", "ar"),
			sw("system", "as"), named("attributes"), sw("followsymlink")},
		"Get-Item":     {positional(0, "path"), named("literalpath", "pspath", "lp"), named("filter"), named("include"), named("exclude"), sw("force"), named("stream")},
		"Resolve-Path": {positional(0, "path"), named("literalpath", "pspath", "lp"), sw("relative"), named("relativebasepath")},
		"Convert-Path": {positional(0, "path"), named("literalpath", "pspath", "lp")},
		"Join-Path":    {positional(0, "path"), positional(1, "childpath"), positional(2, "additionalchildpath"), sw("resolve")},
		"Split-Path": {positional(0, "path"), named("literalpath", "pspath", "lp"), sw("parent"), sw("leaf"), sw("leafbase"),
			sw("extension"), sw("qualifier"), sw("noqualifier"), sw("isabsolute"), sw("resolve")},
		"Get-Variable": {positional(0, "name"), sw("valueonly"), named("include"), named("exclude"), named("scope")},
	}
})

// passThrough are the cmdlets that write (some of) the objects they read:
// what comes out is among what went in.
var passThrough = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"Where-Object": true, "Sort-Object": true, "Tee-Object": true, "Get-Unique": true,
	}
})

// pathOutput returns the output of the path cmdlets, or false for other
// cmdlets.
func (w *walker) pathOutput(name string, args []eArg, input *value) (value, bool) {
	params, ok := valueParams()[name]
	if !ok {
		switch name {
		case "New-TemporaryFile":
			return item(w.tempDir(`tmp0000.tmp`)), true
		case "Get-Location":
			return w.known(w.dir), true
		case "Select-Object":
			// Select-Object -First/-Last/-Skip passes objects through;
			// -Property and -ExpandProperty make new ones.
			for _, a := range args {
				if p := strings.ToLower(strings.TrimLeft(a.param, "-")); p != "" && !strings.HasPrefix("first", p) && !strings.HasPrefix("last", p) && !strings.HasPrefix("skip", p) && !strings.HasPrefix("unique", p) {
					return unknownValue, true
				}
			}
			fallthrough
		default:
			if passThrough()[name] && input != nil {
				return *input, true
			}
		}
		return unknownValue, false
	}
	b := bind(params, args)
	paths, literal := b["path"], false
	if lp, ok := b["literalpath"]; ok {
		paths, literal = lp, true
	}
	switch name {
	case "Get-Variable":
		n := b["name"]
		if _, only := b["valueonly"]; !only || !n.known() || n.k == kArr {
			return unknownValue, true
		}
		return w.variable(n.str()), true
	case "Join-Path":
		p, c := b["path"], b["childpath"]
		if !p.known() || !c.known() || p.k == kArr || c.k == kArr {
			return unknownValue, true
		}
		return computedStr(strings.TrimRight(p.str(), `\/`) + `\` + strings.TrimLeft(c.str(), `\/`)), true
	case "Split-Path":
		if !paths.known() || paths.k == kArr {
			return unknownValue, true
		}
		p := strings.TrimRight(strings.ReplaceAll(paths.str(), "/", `\`), `\`)
		i := strings.LastIndexByte(p, '\\')
		_, leaf := b["leaf"]
		switch {
		case leaf:
			return computedStr(p[i+1:]), true
		case len(b) == 1 && i >= 0: // -Parent, the default
			return computedStr(p[:i]), true
		}
		return unknownValue, true
	}
	if _, ok := b["path"]; !ok && !literal || paths.k == kNull {
		if name != "Get-ChildItem" {
			return unknownValue, true
		}
		paths = strValue(".")
	}
	var filters []string // what the items' names match
	if f, ok := b["filter"]; ok {
		if !f.known() || f.k == kArr {
			return unknownValue, true
		}
		filters = []string{f.str()}
	}
	if inc, ok := b["include"]; ok && filters == nil && name == "Get-ChildItem" {
		for _, e := range inc.elems() {
			if !e.known() {
				return unknownValue, true
			}
			filters = append(filters, e.str())
		}
	}
	var out []value
	for _, p := range paths.elems() {
		if !p.known() {
			return unknownValue, true
		}
		abs := w.resolvePath(w.dir, p.str())
		if abs == "" {
			return unknownValue, true
		}
		if name == "Get-ChildItem" && len(filters) > 0 {
			for _, f := range filters {
				out = append(out, item(strings.TrimRight(abs, `\`)+`\`+f))
			}
			continue
		}
		if name == "Get-ChildItem" && (literal || !strings.ContainsAny(p.str(), "*?[")) {
			abs = strings.TrimRight(abs, `\`) + `\*`
		}
		if name == "Resolve-Path" || name == "Convert-Path" {
			out = append(out, computedStr(abs))
			continue
		}
		out = append(out, item(abs))
	}
	if len(out) == 1 {
		return out[0], true
	}
	return value{k: kArr, arr: out, comp: true}, true
}

// tempDir returns name in the user's temporary directory, or "".
func (w *walker) tempDir(name string) string {
	t, ok := w.getenv("TEMP")
	if !ok || !t.known() || t.str() == "" {
		return ""
	}
	return strings.TrimRight(t.str(), `\`) + `\` + name
}

// specialFolders maps [Environment+SpecialFolder] names to the
// environment variable their path starts from and the rest of it.
var specialFolders = sync.OnceValue(func() map[string][2]string {
	return map[string][2]string{
		"userprofile": {"USERPROFILE", ""}, "mydocuments": {"USERPROFILE", `Documents`}, "personal": {"USERPROFILE", `Documents`},
		"desktop": {"USERPROFILE", `Desktop`}, "desktopdirectory": {"USERPROFILE", `Desktop`},
		"mypictures": {"USERPROFILE", `Pictures`}, "mymusic": {"USERPROFILE", `Music`}, "myvideos": {"USERPROFILE", `Videos`},
		"applicationdata": {"APPDATA", ""}, "localapplicationdata": {"LOCALAPPDATA", ""},
		"startup":   {"APPDATA", `Microsoft\Windows\Start Menu\Programs\Startup`},
		"startmenu": {"APPDATA", `Microsoft\Windows\Start Menu`}, "programs": {"APPDATA", `Microsoft\Windows\Start Menu\Programs`},
		"windows": {"SystemRoot", ""}, "system": {"SystemRoot", `System32`}, "programfiles": {"ProgramFiles", ""},
		"commonapplicationdata": {"ProgramData", ""}, "commonstartup": {"ProgramData", `Microsoft\Windows\Start Menu\Programs\Startup`},
	}
})

// specialFolder is [Environment]::GetFolderPath(name).
func (w *walker) specialFolder(name value) value {
	if !name.known() {
		return unknownValue
	}
	n := strings.ToLower(name.str())
	n = n[strings.LastIndexAny(n, ":.]")+1:] // [Environment+SpecialFolder]::Desktop
	f, ok := specialFolders()[strings.TrimSpace(n)]
	if !ok {
		return unknownValue
	}
	base, ok := w.getenv(f[0])
	if !ok || !base.known() || base.str() == "" {
		return unknownValue
	}
	if f[1] == "" {
		return computedStr(base.str())
	}
	return computedStr(strings.TrimRight(base.str(), `\`) + `\` + f[1])
}

// itemProperty evaluates the properties of an item that name paths.
func itemProperty(x value, lower string) (value, bool) {
	if x.k != kStr || x.extra != itemMark {
		return value{}, false
	}
	p := strings.TrimRight(x.s, `\`)
	i := strings.LastIndexByte(p, '\\')
	switch lower {
	case "fullname", "pspath", "path", "providerpath":
		return x, true
	case "name", "pschildname":
		return computedStr(p[i+1:]), true
	case "directoryname", "psparentpath":
		if i > 0 {
			return computedStr(p[:i]), true
		}
	case "directory", "parent":
		if i > 0 {
			return item(p[:i]), true
		}
	}
	return unknownValue, true
}

// itemMethods maps the methods of FileInfo and DirectoryInfo that change
// files to the .NET static methods the rules know, which take the item's
// path first.
var itemMethods = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"delete": "[System.IO.Directory]::Delete", "moveto": "[System.IO.Directory]::Move",
		"copyto": "[System.IO.File]::Copy", "create": "[System.IO.Directory]::CreateDirectory",
		"createsubdirectory": "[System.IO.Directory]::CreateDirectory", "encrypt": "[System.IO.File]::AppendAllText",
		"decrypt": "[System.IO.File]::AppendAllText", "replace": "[System.IO.File]::Move",
		"appendtext": "[System.IO.File]::AppendAllText", "createtext": "[System.IO.File]::WriteAllText",
		"openwrite": "[System.IO.File]::AppendAllText", "opentext": "[System.IO.File]::ReadAllText",
		"openread": "[System.IO.File]::ReadAllText",
	}
})

// itemMethod reports x.name(args) on an item as the .NET method that does
// the same with the item's path.
func (w *walker) itemMethod(m *memberExpr, x value, lower string, args []value) bool {
	if x.k != kStr || x.extra != itemMark {
		return false
	}
	target, ok := itemMethods()[lower]
	if !ok {
		return true
	}
	c := Command{Name: target, Pos: w.f.position(m.pos), StdinFrom: -1}
	c.Args = append(c.Args, Arg{Text: x.s, Computed: true})
	if lower == "createsubdirectory" && len(args) > 0 {
		c.Args[0].Text = strings.TrimRight(x.s, `\`) + `\` + args[0].str()
		args = args[1:]
	}
	for _, a := range args {
		for j, e := range a.elems() {
			c.Args = append(c.Args, Arg{Text: e.str(), Computed: true, More: j > 0})
		}
	}
	w.emit(c)
	return true
}

// inputArgs returns the items of a pipeline's input as arguments, nil
// when they are not known.
func inputArgs(v *value) []Arg {
	if v != nil && v.k == kHash {
		return pathProperty(*v)
	}
	if v == nil || v.k == kUnknown || v.k == kNull || v.k == kBlock || v.k == kObj {
		return nil
	}
	var out []Arg
	for _, e := range v.elems() {
		if e.k == kHash {
			out = append(out, pathProperty(e)...)
			continue
		}
		if !e.known() || e.k == kBlock || e.k == kObj {
			return []Arg{{Text: Unknown, Computed: true}}
		}
		out = append(out, Arg{Text: e.str(), Computed: true})
	}
	return out
}

// pathProperties are the property names a piped object binds to the
// file cmdlets' -LiteralPath and -Path by name (ValueFromPipelineBy-
// PropertyName, aliases included).
var pathProperties = []string{"LiteralPath", "PSPath", "LP", "Path", "FullName"}

// pathProperty is the path an object piped into a file cmdlet binds by
// property name ([pscustomobject]@{LiteralPath=$HOME} | Remove-Item), or
// none when it has no such property.
func pathProperty(h value) []Arg {
	for _, name := range pathProperties {
		if p, ok := h.hashGet(name); ok {
			if !p.known() || p.k == kBlock || p.k == kHash || p.k == kObj {
				return []Arg{{Text: Unknown, Computed: true}}
			}
			var out []Arg
			for _, e := range p.elems() {
				out = append(out, Arg{Text: e.str(), Computed: true})
			}
			return out
		}
	}
	return nil
}

// writeParams lists the parameters of the cmdlets that write text to a
// file, whose content the walker keeps: a script written, then run, is
// read from there.
var writeParams = sync.OnceValue(func() map[string][]param {
	return map[string][]param{
		"Set-Content": {positional(0, "path"), named("literalpath", "pspath", "lp"), positional(1, "value"), named("encoding"), sw("force"), sw("nonewline"), sw("passthru")},
		"Add-Content": {positional(0, "path"), named("literalpath", "pspath", "lp"), positional(1, "value"), named("encoding"), sw("force"), sw("nonewline"), sw("passthru")},
		"Out-File":    {positional(0, "filepath", "path"), named("literalpath", "lp"), positional(1, "encoding"), sw("append"), sw("force"), sw("noclobber", "nc"), sw("nonewline"), named("width"), named("inputobject")},
	}
})

// wrote records the text a cmdlet writes to a file.
func (w *walker) wrote(name string, args []eArg, input *value) {
	params, ok := writeParams()[name]
	if !ok {
		return
	}
	b := bind(params, args)
	p, ok := b["path"]
	if lp, ok2 := b["literalpath"]; ok2 {
		p, ok = lp, true
	}
	if !ok || !p.known() || p.k == kArr {
		return
	}
	text, ok := b["value"]
	if v, ok2 := b["inputobject"]; ok2 {
		text, ok = v, true
	}
	if !ok && input != nil {
		text, ok = *input, true
	}
	path := strings.ToLower(w.resolvePath(w.dir, p.str()))
	if path == "" {
		return
	}
	if w.written == nil {
		w.written = map[string]string{}
	}
	_, appending := b["append"]
	if name == "Set-Content" || name == "Out-File" && !appending {
		delete(w.written, path)
	}
	if !ok || !text.known() {
		w.written[path] = Unknown
		return
	}
	var lines []string
	for _, e := range text.elems() {
		lines = append(lines, e.str())
	}
	if add := strings.Join(lines, "\r\n") + "\r\n"; w.grow(len(add)) {
		w.written[path] += add
	}
}

// readScript reads a script file: one this script wrote, else through
// Config.ReadFile.
func (w *walker) readScript(file string) ([]byte, bool) {
	if text, ok := w.written[strings.ToLower(file)]; ok {
		return []byte(text), !strings.Contains(text, Unknown)
	}
	if w.cfg.ReadFile == nil {
		return nil, false
	}
	data, err := w.cfg.ReadFile(file)
	return data, err == nil
}

// forgetWritten drops what the script wrote to a file another command
// may change (Copy-Item x.txt c.ps1): it is then read as any other file.
func (w *walker) forgetWritten(c Command) {
	if len(w.written) == 0 {
		return
	}
	for _, a := range c.Args {
		delete(w.written, strings.ToLower(w.resolvePath(w.dir, a.Text)))
	}
	for _, r := range c.Redirs {
		delete(w.written, strings.ToLower(w.resolvePath(w.dir, r.Target.Text)))
	}
}

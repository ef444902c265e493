package powershell

import (
	"path"
	"strings"

	"github.com/cordonsh/cordon/winargs"
)

// carrier interprets the cmdlets that run code, change the location or
// define aliases. idx is the cmdlet's own command.
func (w *walker) carrier(idx int, name string, args []eArg, input *value, off int) {
	params, ok := carrierParams()[name]
	if !ok && name != "Pop-Location" {
		return
	}
	b := bind(params, args)
	switch name {
	case "Invoke-Expression":
		code, ok := b["command"]
		if !ok && input != nil {
			code = *input
		}
		if !code.known() || code.k == kArr || !w.runText(code.str(), "Invoke-Expression", off) {
			w.unknownCode(idx)
		}
	case "Start-Process":
		fp, ok := b["filepath"]
		if !ok {
			return
		}
		var list []string
		for _, e := range b["argumentlist"].elems() {
			if e.k != kNull {
				list = append(list, e.str())
			}
		}
		runas := strings.EqualFold(b["verb"].str(), "runas")
		wd := ""
		if v, ok := b["workingdirectory"]; ok {
			wd = w.resolvePath(w.dir, v.str())
		}
		w.carryLine(fp, strings.Join(list, " "), "Start-Process", runas, wd, off)
	case "Set-Location", "Push-Location":
		if name == "Push-Location" {
			w.dirStack = append(w.dirStack, w.dir)
		}
		p, ok := b["path"]
		if lp, ok2 := b["literalpath"]; ok2 {
			p, ok = lp, true
		}
		switch {
		case !ok && w.core:
			w.dir = w.cfg.Home
		case !ok:
		case !p.known() || p.str() == "-" || p.str() == "+":
			w.dir = ""
		default:
			w.dir = w.resolvePath(w.dir, p.str())
		}
	case "Pop-Location":
		if n := len(w.dirStack); n > 0 {
			w.dir, w.dirStack = w.dirStack[n-1], w.dirStack[:n-1]
		}
	case "Set-Alias", "New-Alias":
		n, v := b["name"], b["value"]
		if n.known() && n.k != kNull {
			target := v.str()
			if !v.known() || v.k == kNull {
				target = Unknown
			}
			w.aliases[strings.ToLower(n.str())] = target
		}
	case "Invoke-Command":
		if fp, ok := b["filepath"]; ok {
			w.scriptFile(idx, fp.str(), "&", off)
		}
	}
}

// carryLine reports the program a carrier starts with a command line
// (Start-Process, Process.Start, WScript.Shell.Run): file is the program
// (or, with argline "", a whole command line), argline its arguments.
func (w *walker) carryLine(file value, argline, via string, privileged bool, dir string, off int) {
	prog := file.str()
	if file.k == kUnknown || file.k == kNull {
		prog = Unknown
	}
	if argline == "" && strings.HasPrefix(via, "[WScript.Shell]") {
		parts := winargs.Split(prog)
		prog, argline = parts[0], strings.TrimSpace(strings.TrimPrefix(strings.TrimLeft(prog, " \t"), programText(prog)))
	}
	c := Command{Name: prog, Pos: w.f.position(off), StdinFrom: -1, Privileged: privileged, Dir: dir}
	for _, a := range winargs.Split("x " + argline)[1:] {
		c.Args = append(c.Args, Arg{Text: a, Computed: true})
	}
	line := prog
	if strings.ContainsAny(prog, " \t") {
		line = `"` + prog + `"`
	}
	if argline != "" {
		line += " " + argline
	}
	c.CommandLine = line
	c.UnknownCode = strings.Contains(prog, Unknown)
	w.via = append(w.via, via)
	saved := w.priv
	w.priv = w.priv || privileged
	w.emit(c)
	w.priv = saved
	w.via = w.via[:len(w.via)-1]
}

// programText returns the program part of a command line as written.
func programText(line string) string {
	line = strings.TrimLeft(line, " \t")
	if strings.HasPrefix(line, `"`) {
		if i := strings.IndexByte(line[1:], '"'); i >= 0 {
			return line[:i+2]
		}
		return line
	}
	if i := strings.IndexAny(line, " \t"); i >= 0 {
		return line[:i]
	}
	return line
}

// output returns what a cmdlet writes, for the few whose output matters
// to what runs next: Get-Command gives a command, New-Object an object,
// Write-Output its input.
func (w *walker) output(name string, args []eArg, input *value) value {
	if v, ok := w.pathOutput(name, args, input); ok {
		return v
	}
	switch name {
	case "Get-Command":
		b := bind(carrierParams()[name], args)
		n, ok := b["name"]
		if !ok || !n.known() || n.k == kArr {
			return unknownValue
		}
		s := n.str()
		if strings.ContainsAny(s, "*?[") {
			return w.matchCommand(s)
		}
		return strValue(s).withComp(true)
	case "New-Object":
		b := bind(carrierParams()[name], args)
		if com, ok := b["comobject"]; ok && com.known() {
			return objValue(comName(com.str()))
		}
		if t, ok := b["typename"]; ok && t.known() {
			typ := fullType(t.str())
			if p, ok := b["property"]; ok && p.k == kHash && typ == "System.Management.Automation.PSObject" {
				return p // New-Object psobject -Property @{...}: the properties
			}
			if constructors()[typ] {
				c := Command{Name: "[" + typ + "]::new", StdinFrom: -1}
				for _, a := range b["argumentlist"].elems() {
					if a.k != kNull {
						c.Args = append(c.Args, Arg{Text: a.str(), Computed: true})
					}
				}
				w.emit(c)
			}
			return objValue(typ)
		}
	case "Write-Output":
		var out []value
		for _, a := range args {
			if a.param == "" {
				out = append(out, a.val.elems()...)
			}
		}
		if len(out) == 1 {
			return out[0].withComp(true)
		}
		return value{k: kArr, arr: out, comp: true}
	}
	return unknownValue
}

// comName canonicalises the COM classes whose methods are reported.
func comName(s string) string {
	for _, c := range []string{"WScript.Shell", "Shell.Application", "Scripting.FileSystemObject"} {
		if strings.EqualFold(s, c) {
			return c
		}
	}
	return s
}

// matchCommand resolves a Get-Command wildcard against the known cmdlets;
// unknown unless exactly one matches.
func (w *walker) matchCommand(pattern string) value {
	found := ""
	for lower, name := range cmdletNames() {
		if ok, _ := path.Match(strings.ToLower(pattern), lower); ok {
			if found != "" {
				return unknownValue
			}
			found = name
		}
	}
	if found == "" {
		return unknownValue
	}
	return computedStr(found)
}

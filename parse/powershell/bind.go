package powershell

import (
	"strings"
	"sync"
)

// Parameter binding for the cmdlets the walker interprets itself: their
// parameters are matched by unique prefix, ignoring case, as PowerShell
// does. Other commands' parameters are reported as written.

// param is one parameter of a cmdlet: its name and aliases in lower
// case, whether it is a switch, and its position (-1 for none).
type param struct {
	names []string
	flag  bool
	pos   int
}

// positional, sw and named build parameters: positional, switch, named only.
func positional(pos int, names ...string) param { return param{names: names, pos: pos} }
func sw(names ...string) param                  { return param{names: names, flag: true, pos: -1} }
func named(names ...string) param               { return param{names: names, pos: -1} }

// commonParams are the common parameters every cmdlet takes.
var commonParams = []param{
	sw("verbose", "vb"), sw("debug", "db"), named("erroraction", "ea"), named("warningaction", "wa"),
	named("informationaction", "infa"), named("errorvariable", "ev"), named("warningvariable", "wv"),
	named("informationvariable", "iv"), named("outvariable", "ov"), named("outbuffer", "ob"),
	named("pipelinevariable", "pv"), sw("whatif", "wi"), sw("confirm", "cf"), named("progressaction", "proga"),
}

// carrierParams lists the parameters of the cmdlets the walker
// interprets.
var carrierParams = sync.OnceValue(func() map[string][]param {
	return map[string][]param{
		"Invoke-Expression": {positional(0, "command")},
		"Start-Process": {positional(0, "filepath", "pspath", "path"), positional(1, "argumentlist", "args"), named("credential", "runas"),
			named("workingdirectory"), sw("loaduserprofile", "lup"), sw("nonewwindow", "nnw"), sw("passthru"),
			named("redirectstandarderror", "rse"), named("redirectstandardinput", "rsi"),
			named("redirectstandardoutput", "rso"), named("verb"), named("windowstyle"), sw("wait"),
			sw("usenewenvironment"), named("environment")},
		"Set-Location":  {positional(0, "path"), named("literalpath", "pspath", "lp"), sw("passthru"), named("stackname")},
		"Push-Location": {positional(0, "path"), named("literalpath", "pspath", "lp"), sw("passthru"), named("stackname")},
		"Set-Alias": {positional(0, "name"), positional(1, "value"), named("description"), named("option"), sw("passthru"),
			named("scope"), sw("force")},
		"New-Alias": {positional(0, "name"), positional(1, "value"), named("description"), named("option"), sw("passthru"),
			named("scope"), sw("force")},
		"New-Object":  {positional(0, "typename"), positional(1, "argumentlist", "args"), named("property"), named("comobject"), sw("strict")},
		"Get-Command": {positional(0, "name"), positional(1, "argumentlist", "args"), named("verb"), named("noun"), named("module"), named("commandtype", "type"), named("totalcount"), sw("syntax"), sw("all"), sw("listimported")},
		"Invoke-Command": {positional(0, "scriptblock", "command"), named("filepath", "pspath"), named("computername", "cn"),
			named("session"), named("credential"), named("argumentlist", "args"), named("inputobject"), sw("asjob"),
			sw("hidecomputername", "hcn"), named("jobname"), named("throttlelimit"), named("port"), sw("usessl"),
			named("configurationname"), named("applicationname"), sw("indisconnectedsession", "disconnected"),
			named("sessionname"), named("sessionoption"), named("authentication"), named("certificatethumbprint"),
			named("connectionuri", "uri", "cu"), sw("allowredirection"), named("vmid", "vmguid"), named("vmname"),
			named("containerid"), sw("runasadministrator"), named("hostname"), named("username"), named("keyfilepath", "identityfilepath"),
			sw("sshtransport"), named("subsystem"), sw("nonewscope"), sw("enablenetworkaccess"), sw("remotedebug"),
			named("sshconnection"), named("options")},
	}
})

// bind matches args to the parameters of a carrier cmdlet; it returns
// the values by the parameter's first name.
func bind(params []param, args []eArg) map[string]value {
	out := map[string]value{}
	var positional []value
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.param == "" {
			positional = append(positional, a.val)
			continue
		}
		pm := matchParam(params, strings.ToLower(strings.TrimLeft(a.param, "-")))
		switch {
		case pm == nil:
		case a.colon:
			out[pm.names[0]] = a.val
		case pm.flag:
			out[pm.names[0]] = boolValue(true)
		case i+1 < len(args) && args[i+1].param == "":
			i++
			out[pm.names[0]] = args[i].val
		}
	}
	k := 0
	for pos := 0; pos < 8 && k < len(positional); pos++ {
		for _, pm := range params {
			if pm.pos == pos {
				if _, done := out[pm.names[0]]; !done {
					out[pm.names[0]] = positional[k]
					k++
				}
			}
		}
	}
	return out
}

// matchParam finds the parameter that key names exactly or by a unique
// prefix, among params and the common parameters.
func matchParam(params []param, key string) *param {
	var found *param
	count := 0
	for _, list := range [][]param{params, commonParams} {
		for i := range list {
			for _, n := range list[i].names {
				if n == key {
					return &list[i]
				}
				if strings.HasPrefix(n, key) && key != "" && found != &list[i] {
					found = &list[i]
					count++
				}
			}
		}
	}
	if count == 1 {
		return found
	}
	return nil
}

// bindBlock binds the arguments given to a script block to the names of
// its param(): by name (-p value, or unique prefix), then by position.
// A name left unbound is unknown.
func bindBlock(names []string, args []eArg) []value {
	params := make([]param, len(names))
	for i, n := range names {
		params[i] = positional(i, strings.ToLower(n))
	}
	b := bind(params, args)
	out := make([]value, len(names))
	for i, n := range names {
		v, ok := b[strings.ToLower(n)]
		if !ok {
			v = unknownValue
		}
		out[i] = v.withComp(true)
	}
	return out
}

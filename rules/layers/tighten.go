package layers

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/rules"
)

// loosening are the path classes whose entries make a path less
// protected: an untrusted file may not add to them.
var loosening = map[string]bool{
	"scratch": true, "caches": true, "agent": true, "not_secret": true, "regenerable": true,
	"harmless_devices": true, "startup": true, "not_workspace": true, "sandbox_writable": true, "projects": true, "made_caches": true, "filtered_credentials": true,
}

// carrierFields are the fields of a command that change how scripts are
// parsed (what code a command carries): an untrusted file may not set
// them.
var carrierFields = []string{
	"Carries", "Skip", "Subs", "Assigns", "StdinArgs", "ExecFlags", "CodeFlags", "FileFlags", "DefaultFiles",
	"CodeOperand", "Rewrite", "Translate", "RunFiles", "Runs", "OptionCode", "Stream", "StreamWhen",
}

// tighten removes from a (an untrusted project file) what could loosen
// the rules of earlier, and returns a refusal per item removed.
func tighten(a *applied, earlier *rules.Set) []string {
	var out []string
	refuse := func(line int, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: not applied, the project's rules are not trusted: %s (run `cordon rules trust` to apply it)",
			where(a.Path, line), fmt.Sprintf(format, args...)))
	}
	tightenPolicies(a, earlier, refuse)
	tightenPaths(&a.Rules.Paths, "paths", a, refuse)
	tightenPaths(&a.Rules.WindowsPaths, "windows_paths", a, refuse)
	tightenCommands(a, earlier, refuse)
	if len(a.Rules.GitConfigSafe) > 0 {
		refuse(a.lines["git_config_safe"], "git_config_safe lets commands set git configuration keys unasked, and the sandbox keep them")
		a.Rules.GitConfigSafe = nil
	}
	var creds []string
	for _, g := range a.Rules.CredentialVars {
		if strings.HasPrefix(g, "!") {
			refuse(a.lines["credential_vars"], "credential_vars %q says variables hold no credentials, which lets them into the sandbox", g)
			continue
		}
		creds = append(creds, g)
	}
	a.Rules.CredentialVars = creds
	if len(a.Rules.Credentials) > 0 {
		// A kind or a host added here would have the person's token sent
		// to a host the project names.
		refuse(a.lines["credentials"], "credentials sends a person's credential to the hosts it names")
		a.Rules.Credentials = nil
	}
	if len(a.Rules.Network.Allow) > 0 {
		// (Its deny entries only close more.)
		refuse(a.lines["network"], "network.allow opens destinations a command could send the workspace to")
		a.Rules.Network.Allow = nil
	}
	if len(a.Rules.Approved) > 0 {
		refuse(a.lines["approved"], "approved allows commands a person approved")
		a.Rules.Approved = nil
	}
	for k := range a.Rules.EnvCode {
		if earlier.EnvCode(k) != parse.EnvData {
			refuse(a.lines["env_code."+k], "env_code %s changes what cordon knows of a variable", k)
			delete(a.Rules.EnvCode, k)
		}
	}
	return out
}

type refuseFunc func(line int, format string, args ...any)

func tightenPolicies(a *applied, earlier *rules.Set, refuse refuseFunc) {
	old := map[string]rules.Verdict{}
	for _, p := range earlier.Policies() {
		old[p.ID], _ = rules.ParseVerdict(p.Verdict)
	}
	var keep []*rules.Policy
	var lines []int
	for i, p := range a.Rules.Policies {
		line := a.PolicyLines[i]
		v, _ := rules.ParseVerdict(p.Verdict)
		was, exists := old[p.ID]
		switch {
		case p.Disable:
			refuse(line, "policy %q: disable removes a policy", p.ID)
		case v == rules.Allow:
			refuse(line, "policy %q: an allow policy loosens", p.ID)
		case exists && v < was:
			refuse(line, "policy %q: overriding a %s policy with %s loosens", p.ID, was, v)
		default:
			keep = append(keep, p)
			lines = append(lines, line)
		}
	}
	a.Rules.Policies, a.PolicyLines = keep, lines
}

// tightenPaths empties the loosening classes of pc.
func tightenPaths(pc *rules.PathClasses, key string, a *applied, refuse refuseFunc) {
	v := reflect.ValueOf(pc).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Tag.Get("yaml")
		if !loosening[name] || v.Field(i).Len() == 0 {
			continue
		}
		refuse(a.lines[key+"."+name], "%s.%s makes paths less protected", key, name)
		v.Field(i).SetZero()
	}
}

func tightenCommands(a *applied, earlier *rules.Set, refuse refuseFunc) {
	for _, ns := range rules.Namespaces(a.Rules) {
		for name, spec := range ns.Commands {
			key := ns.Key(name)
			line := a.CommandLines[key]
			why := ""
			for _, alias := range append([]string{name}, spec.Aliases...) {
				if earlier.Knows(ns.Key(alias)) {
					why = fmt.Sprintf("command %q redefines what cordon knows of %s", ns.Prefix+name, alias)
				}
			}
			if f := carrierField(spec); why == "" && f != "" {
				why = fmt.Sprintf("command %q: %s changes how scripts are parsed", ns.Prefix+name, f)
			}
			if why != "" {
				refuse(line, "%s", why)
				delete(ns.Commands, name)
				delete(a.CommandLines, key)
			}
		}
	}
}

// carrierField returns the first carrier field set in spec or its
// subcommands, or "".
func carrierField(spec *rules.CmdSpec) string {
	v := reflect.ValueOf(spec).Elem()
	for _, f := range carrierFields {
		if !v.FieldByName(f).IsZero() {
			return f
		}
	}
	for sub, s := range spec.Subcommands {
		if f := carrierField(s); f != "" {
			return "subcommand " + strconv.Quote(sub) + " " + f
		}
	}
	return ""
}

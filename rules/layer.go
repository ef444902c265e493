package rules

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/cordonsh/cordon/parse"
)

// Layering: later rule files (the system's, the user's, the project's)
// are laid over the built-in rules one file at a time with [Set.Extend].

// Extend returns a new set: s with the rule file f (named name, for
// errors) laid over it as a later layer. Path classes, credential
// variables and secret words are added; an env_code entry, and a command
// of the same name in the same namespace (aliases included), replace
// s's; a policy with the id of one of s's replaces it where it stands,
// or removes it when it has Disable set; the other policies of f are
// tried before all of s's, in f's order. s is not changed. The error is
// a *[LoadError] naming the first thing in f that does not compile.
func (s *Set) Extend(name string, f *File) (*Set, error) {
	n := &Set{
		table: s.table, floor: s.floor,
		credVars:    slices.Concat(s.credVars, f.CredentialVars),
		credWords:   slices.Concat(s.credWords, f.CredentialWords),
		credValues:  slices.Concat(s.credValues, f.CredentialValues),
		secretWords: slices.Concat(s.secretWords, f.SecretWords),
		gitSafe:     slices.Concat(s.gitSafe, f.GitConfigSafe),
		gitPrograms: slices.Concat(s.gitPrograms, f.GitConfigPrograms),
		approved:    slices.Concat(s.approved, f.Approved),
		network:     addNetwork(s.network, f.Network),
		credKinds:   s.credKinds,
		envCode:     maps.Clone(s.envCode),
		commands:    maps.Clone(s.commands),
		wrappers:    s.wrappers,
	}
	if len(f.Wrappers) > 0 {
		return nil, &LoadError{File: name, Msg: "wrappers: only cordon's built-in rules name agents' wrappers (they decide what an approval is bound to); remove the key"}
	}
	if err := checkValues(name, f.CredentialValues); err != nil {
		return nil, err
	}
	kinds, err := addKinds(name, s.credKinds, f.Credentials)
	if err != nil {
		return nil, err
	}
	n.credKinds = kinds
	n.paths = addPaths(s.paths, f.Paths)
	n.winPaths = addPaths(s.winPaths, f.WindowsPaths)
	if n.commands == nil {
		n.commands = map[string]*command{}
	}
	for k, v := range f.EnvCode {
		if v != "script" && v != "file" && v != "library" {
			return nil, &LoadError{File: name, Msg: fmt.Sprintf("env_code %s: %q is not script, file or library", k, v)}
		}
		if n.envCode == nil {
			n.envCode = map[string]string{}
		}
		n.envCode[k] = v
	}
	if err := n.addCommands(name, f); err != nil {
		return nil, err
	}
	policies, err := overlay(name, s.policies, f.Policies)
	if err != nil {
		return nil, err
	}
	n.policies = policies
	return n, nil
}

// addPaths returns a's entries, then b's, class by class. Without b it
// returns a itself: sets never append to their classes, so sharing them
// is safe.
func addPaths(a, b PathClasses) PathClasses {
	if reflect.ValueOf(b).IsZero() {
		return a
	}
	var out PathClasses
	mergeEach(&out, &a, func(string) bool { return true })
	mergeEach(&out, &b, func(string) bool { return true })
	return out
}

// addNetwork returns a's network entries, then b's.
func addNetwork(a, b NetworkRules) NetworkRules {
	return NetworkRules{Allow: slices.Concat(a.Allow, b.Allow), Deny: slices.Concat(a.Deny, b.Deny)}
}

// addCommands compiles f's commands into n, replacing n's of the same
// name.
func (n *Set) addCommands(name string, f *File) error {
	for _, ns := range Namespaces(f) {
		for _, cmdName := range slices.Sorted(maps.Keys(ns.Commands)) {
			spec := ns.Commands[cmdName]
			c, err := compile(name, cmdName, spec)
			if err != nil {
				return err
			}
			if _, err := c.carrierOf(); err != nil {
				return &LoadError{File: name, Msg: fmt.Sprintf("command %q: %v", cmdName, err)}
			}
			for _, alias := range append([]string{cmdName}, spec.Aliases...) {
				n.commands[ns.Key(alias)] = c
			}
		}
	}
	return nil
}

// overlay lays the policies of a later file over earlier ones.
func overlay(name string, earlier, later []*Policy) ([]*Policy, error) {
	out := slices.Clone(earlier)
	var added []*Policy
	for _, p := range later {
		i := slices.IndexFunc(out, func(q *Policy) bool { return q.ID == p.ID })
		switch {
		case p.Disable && i < 0:
			return nil, &LoadError{File: name, Msg: fmt.Sprintf("policy %q: disable names no earlier policy", p.ID)}
		case p.Disable:
			out = slices.Delete(out, i, i+1)
			continue
		}
		if err := checkPolicy(name, p); err != nil {
			return nil, err
		}
		if i >= 0 {
			out[i] = p
			continue
		}
		added = append(added, p)
	}
	return append(added, out...), nil
}

// CheckPolicy reports what is wrong with one policy of the file name
// (an unknown effect, target, state, verdict or category) as a
// *[LoadError], or nil.
func CheckPolicy(name string, p *Policy) error {
	if p.Disable {
		if p.ID == "" {
			return &LoadError{File: name, Msg: "a policy has no id"}
		}
		return nil
	}
	return checkPolicy(name, p)
}

// CheckCommand reports what is wrong with one command of the file name
// (an unknown effect or carrier, a pattern that does not compile) as a
// *[LoadError], or nil.
func CheckCommand(name, cmdName string, spec *CmdSpec) error {
	c, err := compile(name, cmdName, spec)
	if err != nil {
		return err
	}
	if _, err := c.carrierOf(); err != nil {
		return &LoadError{File: name, Msg: fmt.Sprintf("command %q: %v", cmdName, err)}
	}
	return nil
}

// Policies returns the policies of s in the order they are tried. The
// caller must not change them.
func (s *Set) Policies() []*Policy { return s.policies }

// Knows reports whether s has knowledge of the command key: a name as
// [Namespace.Key] gives it ("rm", "ps:remove-item").
func (s *Set) Knows(key string) bool { return s.command(key) != nil }

// CommandNames returns the keys of the commands s knows, sorted.
func (s *Set) CommandNames() []string {
	names := map[string]bool{}
	if s.table != nil {
		for _, e := range s.table.commands {
			names[e.name] = true
		}
	}
	for k := range s.commands {
		names[k] = true
	}
	return slices.Sorted(maps.Keys(names))
}

// WithFloor returns a set that judges like s, then judges the same
// script with floor too and keeps the stricter of the two: the verdict
// is never weaker than floor's, whatever s adds. It is how rules that may
// only tighten (an untrusted project's) are applied.
func (s *Set) WithFloor(floor *Set) *Set {
	return &Set{
		table: s.table, floor: floor, paths: s.paths, winPaths: s.winPaths,
		credVars: s.credVars, credWords: s.credWords, credValues: s.credValues, envCode: s.envCode, secretWords: s.secretWords,
		gitSafe: s.gitSafe, gitPrograms: s.gitPrograms, commands: s.commands, policies: s.policies, wrappers: s.wrappers,
		credKinds: s.credKinds, network: s.network, approved: s.approved,
	}
}

// judgeFloor adds to j what floor finds in res: reasons j lacks, and a
// stricter verdict.
func judgeFloor(j *Judgement, floor *Set, res *parse.Result, ctx *Context) {
	fctx := *ctx
	fctx.Report = false
	fctx.Env.classes, fctx.Env.sets = nil, nil // classes depend on the set
	fj := floor.Judge(res, &fctx)
	for _, r := range fj.Reasons {
		if !slices.ContainsFunc(j.Reasons, func(q Reason) bool { return q.Rule == r.Rule && q.Message == r.Message }) {
			j.Reasons = append(j.Reasons, r)
		}
	}
	for _, c := range fj.Categories {
		if !slices.Contains(j.Categories, c) {
			j.Categories = append(j.Categories, c)
		}
	}
	j.Verdict = max(j.Verdict, fj.Verdict)
}

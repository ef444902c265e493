package layers

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/ruleyaml"
)

// An applied file is a rule file as it applies, after trust and
// examples, with the lines of what is left: what the cache keeps.
type applied struct {
	File
	Rules *rules.File `json:"rules"`
	// PolicyLines are the lines of Rules.Policies; CommandLines the lines
	// of the commands, by key.
	PolicyLines  []int          `json:"policy_lines"`
	CommandLines map[string]int `json:"command_lines"`

	lines map[string]int // every line, while decoding
}

// result is a load with the files as applied.
type result struct {
	*Loaded
	applied     []*applied
	failures    []Failure
	examplesRun int
}

// yamlKeys are the keys of a rule file's command maps, by namespace
// prefix.
var yamlKeys = map[string]string{"": "commands", "cmd:": "cmd_builtins", "ps:": "powershell", "win:": "windows_commands"}

// decodeAll decodes, checks and applies files in order, then checks the
// examples and leaves out the policies that fail theirs.
func decodeAll(files []*found, trust *trustRecords, judge Judge) (*result, error) {
	r := &result{Loaded: &Loaded{}}
	set := builtin()
	var base *rules.Set // the rules before an untrusted project file
	for _, f := range files {
		rf, lines, err := ruleyaml.DecodeLines(f.Path, f.data)
		if err != nil {
			return nil, err
		}
		if err := check(f.Path, rf, lines); err != nil {
			return nil, err
		}
		a := newApplied(f.File, rf, lines)
		if !f.Trusted {
			if base == nil {
				base = set
			}
			r.untrusted(f, trust)
			r.Warnings = append(r.Warnings, tighten(a, set)...)
		}
		if set, err = set.Extend(f.Path, a.Rules); err != nil {
			return nil, err
		}
		r.applied = append(r.applied, a)
		r.Files = append(r.Files, f.File)
	}
	if base != nil {
		set = set.WithFloor(base)
	}
	trusted := set
	if base != nil {
		// The examples of trusted files are judged without the untrusted
		// ones: a project must not get a user's policy left out by
		// changing what its examples match.
		var err error
		if trusted, err = buildTrusted(r.applied); err != nil {
			return nil, err
		}
	}
	if judge != nil && r.examples(set, trusted, judge) {
		var err error
		if set, err = build(r.applied); err != nil {
			return nil, err
		}
	}
	r.Set = set
	r.sources()
	return r, nil
}

// untrusted warns, once per change, when a file the user trusted has
// changed.
func (r *result) untrusted(f *found, trust *trustRecords) {
	if _, ok := trust.Files[f.Path]; ok {
		r.Warnings = append(r.Warnings, fmt.Sprintf("project rules %s changed since you trusted it; only its tightening rules apply until `cordon rules trust`", f.Path))
	}
}

func newApplied(f File, rf *rules.File, lines map[string]int) *applied {
	a := &applied{File: f, Rules: rf, CommandLines: map[string]int{}, lines: lines}
	for i := range rf.Policies {
		a.PolicyLines = append(a.PolicyLines, lines["policies."+strconv.Itoa(i)])
	}
	for _, ns := range rules.Namespaces(rf) {
		for name := range ns.Commands {
			a.CommandLines[ns.Key(name)] = lines[yamlKeys[ns.Prefix]+"."+name]
		}
	}
	return a
}

// check validates each policy and command of f on its own, so that an
// error carries its line.
func check(name string, f *rules.File, lines map[string]int) error {
	at := func(err error, key string) error {
		if le, ok := err.(*rules.LoadError); ok && le.Line == 0 {
			le.Line = lines[key]
		}
		return err
	}
	for i, p := range f.Policies {
		key := "policies." + strconv.Itoa(i)
		if err := rules.CheckPolicy(name, p); err != nil {
			return at(err, key)
		}
		if err := checkExamples(name, p, lines[key]); err != nil {
			return err
		}
	}
	for _, ns := range rules.Namespaces(f) {
		for cmd, spec := range ns.Commands {
			if err := rules.CheckCommand(name, cmd, spec); err != nil {
				return at(err, yamlKeys[ns.Prefix]+"."+cmd)
			}
		}
	}
	return nil
}

func checkExamples(name string, p *rules.Policy, line int) error {
	if p.Disable && (p.Verdict != "" || len(p.Effect) > 0 || len(p.Match) > 0 || len(p.NotMatch) > 0) {
		return &rules.LoadError{File: name, Line: line, Msg: fmt.Sprintf("policy %q: disable removes the policy; give nothing else with it", p.ID)}
	}
	for _, x := range slices.Concat(p.Match, p.NotMatch) {
		if (x.Script == "") == (len(x.Argv) == 0) {
			return &rules.LoadError{File: name, Line: x.Line, Msg: fmt.Sprintf("policy %q: an example gives exactly one of script and argv", p.ID)}
		}
	}
	return nil
}

// buildTrusted lays the trusted applied files alone over the built-in
// rules.
func buildTrusted(files []*applied) (*rules.Set, error) {
	set := builtin()
	for _, a := range files {
		if !a.Trusted {
			continue
		}
		var err error
		if set, err = set.Extend(a.Path, a.Rules); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// build lays the applied files over the built-in rules.
func build(files []*applied) (*rules.Set, error) {
	set := builtin()
	var base *rules.Set
	for _, a := range files {
		if !a.Trusted && base == nil {
			base = set
		}
		var err error
		if set, err = set.Extend(a.Path, a.Rules); err != nil {
			return nil, err
		}
	}
	if base != nil {
		set = set.WithFloor(base)
	}
	return set, nil
}

// sources records where each policy and command of the effective set
// came from.
func (r *result) sources() {
	r.Policies = map[string]Source{}
	r.Commands = map[string]Source{}
	for _, p := range builtin().Policies() {
		r.Policies[p.ID] = Source{Layer: Builtin, File: "built-in"}
	}
	for _, a := range r.applied {
		for i, p := range a.Rules.Policies {
			if p.Disable {
				delete(r.Policies, p.ID)
				continue
			}
			r.Policies[p.ID] = Source{Layer: a.Layer, File: a.Path, Line: a.PolicyLines[i]}
		}
		for key, line := range a.CommandLines {
			r.Commands[key] = Source{Layer: a.Layer, File: a.Path, Line: line}
		}
	}
}

// where is "file:line" for messages.
func where(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

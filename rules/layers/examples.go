package layers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/rules"
)

// A Judge judges an example with a rule set the way the shim judges what
// an agent runs. The example comes with its Cwd and Env filled in (see
// [Fill]); the workspace is Cwd, taken as not on this machine, so that
// the judgement does not depend on the machine's files.
type Judge func(set *rules.Set, ex rules.Example) (*rules.Judgement, error)

// The defaults of an example: its directory, and the environment its
// Env is added to.
const (
	DefaultCwd  = "/home/dev/proj"
	DefaultHome = "/home/dev"
	DefaultUser = "dev"
	DefaultPath = "/usr/bin:/bin"
)

// Fill returns ex with the defaults for what it leaves unset.
func Fill(ex rules.Example) rules.Example {
	if ex.Cwd == "" {
		ex.Cwd = DefaultCwd
	}
	env := map[string]string{"HOME": DefaultHome, "USER": DefaultUser, "PATH": DefaultPath}
	for k, v := range ex.Env {
		env[k] = v
	}
	ex.Env = env
	return ex
}

// A Failure is an example a policy fails.
type Failure struct {
	File    string
	Line    int
	Policy  string
	Example rules.Example
	// Match is true for a match example (the policy should have matched).
	Match bool
	// Got is the judgement, or nil when Err says why there is none.
	Got *rules.Judgement
	Err error
}

// Error returns "file:line: policy ID: ..." with what was expected and
// what the judgement was.
func (f *Failure) Error() string {
	what := f.Example.Script
	if what == "" {
		what = strings.Join(f.Example.Argv, " ")
	}
	head := fmt.Sprintf("%s: policy %q: example %q", where(f.File, f.Line), f.Policy, what)
	if f.Err != nil {
		return fmt.Sprintf("%s: cannot be judged: %v", head, f.Err)
	}
	var ids []string
	for _, r := range f.Got.Reasons {
		ids = append(ids, r.Rule)
	}
	got := "no rule matched"
	if len(ids) > 0 {
		got = "matched " + strings.Join(ids, ", ")
	}
	if f.Match {
		return fmt.Sprintf("%s should match, but is judged %s (%s)", head, f.Got.Verdict, got)
	}
	return fmt.Sprintf("%s should not match, but is judged %s (%s)", head, f.Got.Verdict, got)
}

// TestPolicy judges p's examples with set and returns the ones that
// fail. file is p's file, for the failures.
func TestPolicy(set *rules.Set, file string, p *rules.Policy, judge Judge) []Failure {
	var out []Failure
	try := func(x rules.Example, match bool) {
		j, err := judge(set, Fill(x))
		hit := err == nil && slices.ContainsFunc(j.Reasons, func(r rules.Reason) bool { return r.Rule == p.ID })
		if err != nil || hit != match {
			out = append(out, Failure{File: file, Line: x.Line, Policy: p.ID, Example: x, Match: match, Got: j, Err: err})
		}
	}
	for _, x := range p.Match {
		try(x, true)
	}
	for _, x := range p.NotMatch {
		try(x, false)
	}
	return out
}

// examples checks the examples of every applied file's policies, a
// trusted file's against trusted (the rules without the untrusted files),
// an untrusted file's against set, leaves out the policies that fail, and
// reports whether it left out any.
func (r *result) examples(set, trusted *rules.Set, judge Judge) bool {
	dropped := false
	for _, a := range r.applied {
		var keep []*rules.Policy
		var lines []int
		with := set
		if a.Trusted {
			with = trusted
		}
		for i, p := range a.Rules.Policies {
			fails := TestPolicy(with, a.Path, p, judge)
			r.failures = append(r.failures, fails...)
			r.examplesRun += len(p.Match) + len(p.NotMatch)
			for _, f := range fails {
				r.Warnings = append(r.Warnings, f.Error())
			}
			if len(fails) > 0 {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s: policy %q is not used: its examples fail", where(a.Path, a.PolicyLines[i]), p.ID))
				dropped = true
				continue
			}
			keep = append(keep, p)
			lines = append(lines, a.PolicyLines[i])
		}
		a.Rules.Policies, a.PolicyLines = keep, lines
	}
	return dropped
}

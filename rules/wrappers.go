package rules

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/cordonsh/cordon/parse"
)

// An Unwrapped script is an agent's wrapper around the command its model
// wrote: the agent, and the command.
type Unwrapped struct {
	Agent, Command string
}

// compiledWrapper is a [Wrapper] with its pattern compiled.
type compiledWrapper struct {
	Wrapper
	re  *regexp.Regexp
	cmd int // the index of the group "command"
}

// compileWrapper checks w and compiles its pattern; the error says what
// is wrong with it.
func compileWrapper(w Wrapper) (*compiledWrapper, error) {
	if w.Agent == "" || len(w.Shells) == 0 {
		return nil, fmt.Errorf("a wrapper needs an agent and its shells")
	}
	re, err := regexp.Compile(w.Script)
	if err != nil {
		return nil, fmt.Errorf("wrapper of %s: %v", w.Agent, err)
	}
	c := &compiledWrapper{Wrapper: w, re: re, cmd: re.SubexpIndex("command")}
	if c.cmd < 0 {
		return nil, fmt.Errorf("wrapper of %s: the script pattern has no group named command", w.Agent)
	}
	shell := w.Shells[0]
	for _, m := range w.Match {
		if got, ok := c.unwrap(shell, false, m.Script); !ok || got.Command != m.Command {
			return nil, fmt.Errorf("wrapper of %s: it should unwrap %q to %q, got %q", w.Agent, m.Script, m.Command, got.Command)
		}
	}
	for _, s := range w.NotMatch {
		if got, ok := c.unwrap(shell, false, s); ok {
			return nil, fmt.Errorf("wrapper of %s: it should not unwrap %q (got %q)", w.Agent, s, got.Command)
		}
	}
	return c, nil
}

// unwrap returns the command inside script when shell (login, or not)
// runs it as w.
func (c *compiledWrapper) unwrap(shell string, login bool, script string) (Unwrapped, bool) {
	if !slices.Contains(c.Shells, shell) || login && !c.Login {
		return Unwrapped{}, false
	}
	m := c.re.FindStringSubmatchIndex(script)
	if m == nil || m[0] != 0 || m[1] != len(script) || m[2*c.cmd] < 0 {
		return Unwrapped{}, false
	}
	cmd := script[m[2*c.cmd]:m[2*c.cmd+1]]
	if c.Quoted {
		d := parse.Bash
		if shell == "zsh" {
			d = parse.Zsh
		}
		var ok bool
		if cmd, ok = parse.LiteralWord(cmd, d); !ok {
			return Unwrapped{}, false
		}
	}
	if cmd == "" {
		return Unwrapped{}, false
	}
	return Unwrapped{Agent: c.Agent, Command: cmd}, true
}

// Unwrap returns the agent and the command its model wrote when script,
// the -c script of shell (bash, zsh; login: started with -l), is exactly
// one of the agents' wrappers. The patterns are compiled on the first
// call: only an ask needs them.
func (s *Set) Unwrap(shell string, login bool, script string) (Unwrapped, bool) {
	s.wrapOnce.Do(func() {
		for _, w := range s.wrappers {
			c, err := compileWrapper(w)
			if err != nil {
				panic("cordon bug: the built-in wrappers do not compile: " + err.Error())
			}
			s.compiled = append(s.compiled, c)
		}
	})
	for _, c := range s.compiled {
		if u, ok := c.unwrap(shell, login, script); ok {
			return u, true
		}
	}
	return Unwrapped{}, false
}

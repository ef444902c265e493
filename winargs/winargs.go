// Package winargs splits Windows command lines the way the programs that
// receive them do.
//
// Windows passes a program one string, its command line, and leaves the
// splitting to the program. Most programs split it with the rules of the
// Microsoft C runtime ([Split], and [Join] the other way); cmd.exe reads
// it itself, with rules of its own for its switches and for the quotes
// around the command after /C ([Cmd]); PowerShell splits it like the C
// runtime, then reads its parameters by prefix ([PowerShell], with
// -EncodedCommand decoded by [DecodeCommand]). All are plain functions of
// the strings, so that cordon can judge a Windows invocation on any
// system. Nothing here is wired into the shim yet: that is the Windows
// dialects issue.
package winargs

import (
	"fmt"
	"strings"
)

// Split splits a command line into arguments with the rules of the
// Microsoft C runtime (2008 and later, also CommandLineToArgvW but for
// its "" rule):
//
//   - spaces and tabs outside quotes separate arguments;
//   - a double quote starts or ends a quoted part, which may be glued to
//     unquoted text ("a b"c is one argument);
//   - 2n backslashes before a quote are n backslashes, and the quote is a
//     quote; 2n+1 are n backslashes and a literal quote; backslashes not
//     before a quote are literal;
//   - inside a quoted part, "" is a literal quote and the part goes on;
//   - the first argument, the program name, is special: quotes only
//     group, and backslashes are always literal.
func Split(cmdline string) []string {
	prog, rest := program(cmdline)
	args := []string{prog}
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return args
		}
		var arg string
		arg, rest = next(rest)
		args = append(args, arg)
	}
}

// program returns the program name at the start of cmdline, as Split
// reads it, and what follows it.
func program(cmdline string) (string, string) {
	var b strings.Builder
	inQuotes := false
	i := 0
	for ; i < len(cmdline); i++ {
		c := cmdline[i]
		switch {
		case c == '"':
			inQuotes = !inQuotes
		case (c == ' ' || c == '\t') && !inQuotes:
			return b.String(), cmdline[i:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// next reads one argument (not the first) from s, which does not start
// with a space, and returns it and what follows.
func next(s string) (string, string) {
	var b strings.Builder
	inQuotes := false
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				b.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					b.WriteByte('"')
					i++
				}
				continue
			}
			b.WriteString(strings.Repeat(`\`, n))
		case c == '"':
			if inQuotes && i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i += 2
				continue
			}
			inQuotes = !inQuotes
			i++
		case (c == ' ' || c == '\t') && !inQuotes:
			return b.String(), s[i:]
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), ""
}

// A CmdCall is a cmd.exe command line, read as cmd.exe reads it.
type CmdCall struct {
	// Program is cmd.exe's own name, as given.
	Program string
	// Command is the command line to run after /C, /K or /R, quotes
	// handled; empty for an interactive cmd.exe.
	Command string
	// Run is "C" (run Command and exit; /R is the same), "K" (run it and
	// stay interactive), or "" (interactive).
	Run string
	// Options are the switches before /C or /K, upper case, with their
	// values ("D", "S", "Q", "V:ON", "E:OFF", "T:1F").
	Options []string
	// KeptQuotes is true when the quotes around Command were kept (the
	// first of cmd.exe's two quote rules).
	KeptQuotes bool
}

// Has reports whether cmd.exe was given the switch opt ("D", "V:ON").
func (c *CmdCall) Has(opt string) bool {
	for _, o := range c.Options {
		if o == opt {
			return true
		}
	}
	return false
}

// DelayedExpansion reports whether !VAR! is expanded (/V:ON).
func (c *CmdCall) DelayedExpansion() bool { return c.Has("V:ON") }

// cmdSpecial are the characters that, between the two quotes after /C,
// make cmd.exe strip them (cmd /?).
const cmdSpecial = "&<>()@^|"

// Cmd reads a cmd.exe command line as cmd.exe does: its program name,
// then switches (case-insensitive, separated by spaces or glued together:
// /d/s/c, and /C glued to the command: /cdir), then, after /C, /K or /R,
// the command, whose quotes follow the rule of cmd /?:
//
//  1. The quotes are kept when all of these hold: no /S, exactly two
//     quotes in the command, none of &<>()@^| between them, at least one
//     space or tab between them, and the text between them names an
//     executable file (isExecutable says so; nil means none does).
//  2. Otherwise, when the command starts with a quote, that quote and the
//     last quote in the command are removed, and what follows the last
//     quote is kept.
//
// An unknown switch is an error, as is a switch that needs a value and
// has a wrong one: cordon does not guess what cmd.exe would make of it.
func Cmd(cmdline string, isExecutable func(string) bool) (*CmdCall, error) {
	prog, rest := program(cmdline)
	c := &CmdCall{Program: prog}
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return c, nil
		}
		if rest[0] != '/' {
			return nil, fmt.Errorf("cmd.exe: %q is not a switch (want /C, /K or a switch before them)", firstWord(rest))
		}
		if len(rest) < 2 {
			return nil, fmt.Errorf("cmd.exe: a lone /")
		}
		sw := strings.ToUpper(rest[1:2])
		rest = rest[2:]
		switch sw {
		case "C", "K", "R":
			c.Run = sw
			if sw == "R" {
				c.Run = "C"
			}
			c.Command, c.KeptQuotes = cmdQuotes(strings.TrimLeft(rest, " \t"), c.Has("S"), isExecutable)
			return c, nil
		case "D", "S", "Q", "A", "U", "X", "Y", "?":
			c.Options = append(c.Options, sw)
		case "E", "F", "V":
			val, after, err := onOff(rest)
			if err != nil {
				return nil, fmt.Errorf("cmd.exe: /%s%s", sw, err)
			}
			c.Options = append(c.Options, sw+":"+val)
			rest = after
		case "T":
			if len(rest) < 2 || rest[0] != ':' {
				return nil, fmt.Errorf("cmd.exe: /T needs :fg colours")
			}
			end := strings.IndexAny(rest, " \t/")
			if end < 0 {
				end = len(rest)
			}
			c.Options = append(c.Options, "T:"+strings.ToUpper(rest[1:end]))
			rest = rest[end:]
		default:
			return nil, fmt.Errorf("cmd.exe: unknown switch /%s", sw)
		}
	}
}

// onOff reads the ":ON" or ":OFF" after /E, /F or /V.
func onOff(s string) (val, rest string, err error) {
	up := strings.ToUpper(s)
	switch {
	case strings.HasPrefix(up, ":ON"):
		return "ON", s[3:], nil
	case strings.HasPrefix(up, ":OFF"):
		return "OFF", s[4:], nil
	}
	return "", "", fmt.Errorf(" needs :ON or :OFF")
}

// cmdQuotes applies cmd /?'s quote rule to the command after /C.
func cmdQuotes(cmd string, s bool, isExecutable func(string) bool) (string, bool) {
	if !s && strings.Count(cmd, `"`) == 2 && strings.HasPrefix(cmd, `"`) {
		inner := cmd[1:strings.LastIndexByte(cmd, '"')]
		if !strings.ContainsAny(inner, cmdSpecial) && strings.ContainsAny(inner, " \t") &&
			isExecutable != nil && isExecutable(inner) {
			return cmd, true
		}
	}
	if strings.HasPrefix(cmd, `"`) {
		last := strings.LastIndexByte(cmd, '"')
		if last == 0 {
			return cmd[1:], false
		}
		return cmd[1:last] + cmd[last+1:], false
	}
	return cmd, false
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}

// Quote returns arg written so that [Split] reads it back as one
// argument (not the first): as it is when it holds no space, tab or
// quote, else in quotes, with the backslashes before a quote doubled.
func Quote(arg string) string {
	if arg != "" && !strings.ContainsAny(arg, " \t\"") {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	backslashes := 0
	for i := 0; i < len(arg); i++ {
		switch c := arg[i]; c {
		case '\\':
			backslashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*backslashes+1))
			b.WriteByte('"')
			backslashes = 0
		default:
			b.WriteString(strings.Repeat(`\`, backslashes))
			b.WriteByte(c)
			backslashes = 0
		}
	}
	b.WriteString(strings.Repeat(`\`, 2*backslashes))
	b.WriteByte('"')
	return b.String()
}

// Join returns the command line that [Split] reads as args. The program
// name, args[0], is put in quotes when it holds a space or a tab; it
// cannot hold a quote (Windows file names cannot either).
func Join(args []string) (string, error) {
	if len(args) == 0 {
		return "", fmt.Errorf("no program name")
	}
	prog := args[0]
	if strings.Contains(prog, `"`) {
		return "", fmt.Errorf("a program name cannot hold a quote: %q", prog)
	}
	if prog == "" || strings.ContainsAny(prog, " \t") {
		prog = `"` + prog + `"`
	}
	parts := []string{prog}
	for _, a := range args[1:] {
		parts = append(parts, Quote(a))
	}
	return strings.Join(parts, " "), nil
}

// Program splits a command line into its program name, as [Split] reads
// it, and the rest of the line exactly as written (starting with the
// space that ends the name, if any). A program started for another one
// is given the same rest, so that it reads the same arguments.
func Program(cmdline string) (name, rest string) { return program(cmdline) }

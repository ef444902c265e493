package winargs

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
)

// A PSCall is a PowerShell command line (powershell.exe 5.1 or pwsh),
// read as PowerShell's console host reads its arguments.
type PSCall struct {
	// Command is the script to run: -Command's arguments joined with
	// spaces, or -EncodedCommand's text decoded.
	Command string
	// Encoded is true when Command came from -EncodedCommand.
	Encoded bool
	// Stdin is true when the script is read from standard input
	// (-Command - or -File -).
	Stdin bool
	// File is the script file to run (-File, or the first argument that
	// is not a parameter, for pwsh), with Args its arguments.
	File string
	Args []string
	// The switches that matter for judging and running.
	NoExit, NoProfile, NonInteractive, ShowVersion, Help bool
	// ExecutionPolicy and WorkingDirectory are the values given, if any.
	ExecutionPolicy, WorkingDirectory string
}

// A psParam is one of the console host's parameters: its name, the
// shortest prefix that selects it, and whether it takes a value.
type psParam struct {
	name, shortest string
	value          bool
}

// pwshParams are pwsh's parameters in the order its console host tries
// them (the first match wins: -e is EncodedCommand, -ex ExecutionPolicy,
// -s ServerMode). Its parser accepts any prefix at least as long as the
// shortest one (CommandLineParameterParser.MatchSwitch).
var pwshParams = []psParam{
	{"version", "v", false}, {"help", "h", false}, {"?", "?", false}, {"login", "l", false},
	{"noexit", "noe", false}, {"noprofile", "nop", false}, {"nologo", "nol", false},
	{"noninteractive", "noni", false}, {"socketservermode", "so", false}, {"servermode", "s", false},
	{"namedpipeservermode", "nam", false}, {"sshservermode", "sshs", false}, {"interactive", "i", false},
	{"configurationname", "config", true}, {"custompipename", "cus", true},
	{"command", "c", false}, {"commandwithargs", "cwa", false}, {"windowstyle", "w", true}, {"file", "f", false},
	{"outputformat", "o", true}, {"of", "o", true}, {"inputformat", "inp", true}, {"if", "if", true},
	{"executionpolicy", "ex", true}, {"ep", "ep", true}, {"encodedcommand", "e", false}, {"ec", "e", false},
	{"encodedarguments", "encodeda", true}, {"ea", "ea", true}, {"settingsfile", "settings", true},
	{"sta", "sta", false}, {"mta", "mta", false}, {"workingdirectory", "wo", true}, {"wd", "wd", true},
	{"configurationfile", "configurationf", true},
}

// powershellParams are powershell.exe 5.1's, from its documentation
// (about_PowerShell_exe); it is not open source, so the order and the
// shortest prefixes follow pwsh's where the two share a parameter.
var powershellParams = []psParam{
	{"version", "v", true}, {"help", "h", false}, {"?", "?", false},
	{"noexit", "noe", false}, {"noprofile", "nop", false}, {"nologo", "nol", false},
	{"noninteractive", "noni", false}, {"psconsolefile", "psc", true}, {"sta", "sta", false}, {"mta", "mta", false},
	{"configurationname", "config", true}, {"command", "c", false}, {"windowstyle", "w", true}, {"file", "f", false},
	{"outputformat", "o", true}, {"inputformat", "inp", true}, {"executionpolicy", "ex", true}, {"ep", "ep", true},
	{"encodedcommand", "e", false}, {"ec", "e", false}, {"encodedarguments", "encodeda", true}, {"ea", "ea", true},
}

// isDash reports whether r introduces a parameter: '-', or, for pwsh, an
// en dash, em dash or horizontal bar (PowerShell's CharExtensions.IsDash).
func isDash(r rune, pwsh bool) bool {
	return r == '-' || pwsh && (r == '\u2013' || r == '\u2014' || r == '\u2015')
}

// PowerShell reads args, a PowerShell command line without the program
// name (already split, see [Split]), as pwsh (pwsh true) or
// powershell.exe 5.1 reads it. Parameters start with '-', '--' or '/'
// (and Unicode dashes for pwsh), ignore case and may be shortened to any
// prefix at least as long as their shortest one. -Command takes every
// argument after it, joined with spaces. The first argument that is no
// parameter is a script file for pwsh and the start of the command for
// powershell.exe. An unknown parameter is an error for powershell.exe;
// for pwsh too (it would look for a script of that name and fail).
func PowerShell(args []string, pwsh bool) (*PSCall, error) {
	params := powershellParams
	if pwsh {
		params = pwshParams
	}
	c := &PSCall{}
	for i := 0; i < len(args); i++ {
		key, isParam := paramKey(args[i], pwsh)
		if !isParam {
			return c.positional(args[i:], pwsh)
		}
		p := matchParam(params, key)
		if p == nil {
			// pwsh would take it for a script file and fail to find one;
			// powershell.exe refuses it. Neither runs a thing, and a
			// prefix that selects nothing (-no) is no guess to make.
			return nil, fmt.Errorf("powershell: unknown or ambiguous parameter %s", args[i])
		}
		takes := p.value || p.name == "encodedcommand" || p.name == "ec"
		var val string
		if takes || p.name == "command" || p.name == "commandwithargs" || p.name == "file" {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("powershell: %s needs a value", args[i])
			}
			val = args[i+1]
		}
		switch p.name {
		case "command":
			return c.command(args[i+1:])
		case "commandwithargs":
			// The command, then the values of its $args.
			c.Command, c.Args = val, args[i+2:]
			return c, nil
		case "file":
			return c.file(args[i+1:])
		case "encodedcommand", "ec":
			if c.Command != "" {
				return nil, errors.New("powershell: a command is given twice")
			}
			script, err := DecodeCommand(val)
			if err != nil {
				return nil, fmt.Errorf("powershell: %s: %v", args[i], err)
			}
			c.Command, c.Encoded = script, true
		case "version":
			c.ShowVersion = true
			if pwsh {
				return c, nil // pwsh stops reading there
			}
		case "help", "?":
			c.Help = true
		case "noexit":
			c.NoExit = true
		case "noprofile":
			c.NoProfile = true
		case "noninteractive":
			c.NonInteractive = true
		case "executionpolicy", "ep":
			c.ExecutionPolicy = val
		case "workingdirectory", "wd":
			c.WorkingDirectory = val
		}
		if takes {
			i++
		}
	}
	return c, nil
}

// paramKey returns the parameter name in arg without its '-', '--' or
// '/', and whether arg is a parameter at all.
func paramKey(arg string, pwsh bool) (string, bool) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return "", false
	}
	r := []rune(arg)
	if !isDash(r[0], pwsh) && r[0] != '/' {
		return "", false
	}
	r = r[1:]
	if len(r) > 0 && isDash(r[0], pwsh) {
		r = r[1:]
	}
	return string(r), true
}

// matchParam returns the first parameter that key selects, or nil.
func matchParam(params []psParam, key string) *psParam {
	key = strings.ToLower(key)
	for i, p := range params {
		if len(key) >= len(p.shortest) && strings.HasPrefix(p.name, key) {
			return &params[i]
		}
	}
	return nil
}

// positional handles the first argument that is no parameter: a script
// file for pwsh, the command's first word for powershell.exe.
func (c *PSCall) positional(rest []string, pwsh bool) (*PSCall, error) {
	if pwsh {
		return c.file(rest)
	}
	return c.command(rest)
}

func (c *PSCall) command(rest []string) (*PSCall, error) {
	if c.Command != "" {
		return nil, errors.New("powershell: a command is given twice")
	}
	if len(rest) == 1 && rest[0] == "-" {
		c.Stdin = true
		return c, nil
	}
	c.Command = strings.Join(rest, " ")
	return c, nil
}

func (c *PSCall) file(rest []string) (*PSCall, error) {
	if len(rest) == 0 {
		return nil, errors.New("powershell: -File needs a file")
	}
	if rest[0] == "-" {
		c.Stdin = true
		return c, nil
	}
	c.File, c.Args = rest[0], rest[1:]
	return c, nil
}

// DecodeCommand decodes an -EncodedCommand value: base64 (spaces and
// line breaks ignored, as .NET does) of UTF-16LE text. A value that is no
// base64, or decodes to an odd number of bytes, is an error: PowerShell
// would run something, and cordon cannot say what.
func DecodeCommand(b64 string) (string, error) {
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, b64)
	data, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		return "", fmt.Errorf("not base64: %v", err)
	}
	if len(data)%2 != 0 {
		return "", fmt.Errorf("%d bytes: UTF-16 text has an even number of bytes", len(data))
	}
	u := make([]uint16, len(data)/2)
	for i := range u {
		u[i] = uint16(data[2*i]) | uint16(data[2*i+1])<<8
	}
	return string(utf16.Decode(u)), nil
}

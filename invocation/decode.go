package invocation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/parse"
)

// A DecodeError reports an argv that the shell named by argv[0] rejects
// itself: an unknown option letter, -c with no command string, an unknown
// long option or one missing its value. Msg reads like the shell's own
// message, lowercase ("bash: -Z: invalid option").
//
// The real shell prints its own message for such an argv, exits with status
// 1 or 2 and runs no code, so a caller may hand the argv to it unchanged,
// unjudged. That is only safe while the real shell rejects every argv that
// [Decode] rejects, so Decode reports only errors that all versions of the
// shell agree on. Where versions or implementations differ (set -o, shopt
// and zsh option names; the letters /bin/sh or ksh accept) it decodes
// instead: the worst case is judging a script the shell will refuse to run.
type DecodeError struct {
	Msg string
}

// Error returns Msg.
func (e *DecodeError) Error() string { return e.Msg }

// Decode decodes argv the way the shell named by argv[0] would: which shell
// and dialect, where the script comes from (-c, a file, standard input, an
// interactive shell), $0, the positional parameters, login and
// interactive flags, and the options set on the command line.
// stdinIsTerminal decides between [ModeInteractive] and [ModeStdin] when
// argv gives no script.
//
// argv[0]'s base name, case-insensitive, with a leading "-" and a ".exe"
// suffix removed, picks the shell: bash; sh and dash (POSIX); zsh; ksh and
// mksh (read as bash). Any other name, the Windows shells included (see
// [IsWindowsShell]), is a direct exec: [ModeExec] with Shell "", never an
// error. An empty argv is ModeExec too.
//
// Options uses set -o names for letters ("-e" is "errexit"), -o and -O
// names as given, "posix", "verbose" and "restricted" for the long options
// and -r, and "noexec" for -D and --dump-strings (bash parses the script
// but runs nothing). zsh's options are listed by zsh's names, lowercase
// without underscores; one on by default that is turned off gets a "no"
// prefix, so zsh's -u is "nounset" as in bash. As /bin/sh may be dash,
// bash, busybox or mksh, sh takes bash's long options and -O and any option
// letter; ksh is read likewise, with ksh93's -R FILE and mksh's -T TTY, an
// approximation of both.
//
// When the shell itself would reject argv, Decode returns a *[DecodeError]
// and an Invocation with only Argv, Shell, Dialect and Arg0 set and Mode
// [ModeInfo]: the shell prints its message and runs nothing.
//
// Warning: without -c or a script operand, a real shell is interactive only
// when standard error is a terminal as well; Decode knows only standard
// input. Options, Login and Interactive say what the command line sets, not
// what startup files may set later.
func Decode(argv []string, stdinIsTerminal bool) (*Invocation, error) {
	return DecodeWith(BuiltinRules(), argv, stdinIsTerminal)
}

// DecodeWith is Decode with the shells that rules know.
func DecodeWith(rules parse.Knowledge, argv []string, stdinIsTerminal bool) (*Invocation, error) {
	inv := &Invocation{Argv: argv, Mode: ModeExec}
	if len(argv) == 0 {
		return inv, nil
	}
	shell, dialect, ok := shellIn(rules, CommandName(argv[0]))
	if !ok {
		return inv, nil
	}
	inv.Shell, inv.Dialect, inv.Arg0 = shell, dialect, argv[0]
	inv.Login = strings.HasPrefix(argv[0], "-") // bash, dash and zsh agree
	d := &decoder{inv: inv, args: argv[1:]}
	err := d.decode(stdinIsTerminal)
	if err != nil {
		return &Invocation{Argv: argv, Shell: shell, Dialect: dialect, Mode: ModeInfo, Arg0: argv[0]}, err
	}
	if len(inv.Options) == 0 {
		inv.Options = nil
	}
	return inv, nil
}

// IsWindowsShell reports whether name (an argv[0] or a path, any case, with
// or without ".exe") names a Windows shell: cmd, powershell or pwsh. Decode
// treats these as a direct exec for now.
func IsWindowsShell(name string) bool {
	switch CommandName(name) {
	case "cmd", "powershell", "pwsh", "pwsh-preview":
		return true
	}
	return false
}

// CommandName is argv0's base name (after / or \), lowercase, with ".exe"
// and one leading "-" (a login shell) removed.
func CommandName(argv0 string) string {
	name := strings.ToLower(argv0[strings.LastIndexAny(argv0, `/\`)+1:])
	return strings.TrimPrefix(strings.TrimSuffix(name, ".exe"), "-")
}

// shellFor maps a command name to the canonical shell name and its
// dialect, for the shells the built-in rules know.
func shellFor(name string) (string, parse.Dialect, bool) {
	return shellIn(BuiltinRules(), name)
}

// shellIn maps a command name to the canonical shell name and its
// dialect. The shells are the rules' shell carriers (bash and its
// aliases: one list); the name says the family: ash, rbash and
// busybox's sh are read as sh and bash.
func shellIn(rules parse.Knowledge, name string) (string, parse.Dialect, bool) {
	if k := rules.Carrier(name); k == nil || k.Kind != parse.CarryShell {
		return "", 0, false
	}
	switch {
	case name == "sh" || name == "dash":
		return name, parse.POSIX, true
	case strings.Contains(name, "zsh"):
		return "zsh", parse.Zsh, true
	case strings.Contains(name, "bash"):
		return "bash", parse.Bash, true
	case strings.Contains(name, "ksh"):
		return "ksh", parse.Bash, true
	}
	return "sh", parse.POSIX, true
}

// A decoder walks the arguments after argv[0] once.
type decoder struct {
	inv     *Invocation
	args    []string // argv[1:]
	i       int      // the next argument to read
	command bool     // -c was given
	stdin   bool     // -s was given
	info    bool     // --help or --version: the shell prints and exits

	// zsh only
	done      bool // "--" (or "-", "+") ended the options
	brk       bool // -b: the options end after this argument
	emulated  bool // an option was read, so --emulate comes too late
	shLetters bool // --emulate sh or ksh: the single letters are ksh's
}

func (d *decoder) decode(tty bool) error {
	var err error
	if d.inv.Shell == "zsh" {
		err = d.zshOptions()
	} else {
		err = d.options()
	}
	switch {
	case err != nil:
		return err
	case d.info:
		d.inv.Mode = ModeInfo
		return nil
	}
	return d.operands(tty)
}

// operands reads what follows the options: the command string for -c,
// then $0, then $1...; or a script file and its parameters; or, with -s or
// no operands, the positional parameters of a script read from stdin.
func (d *decoder) operands(tty bool) error {
	rest := d.args[d.i:]
	switch {
	case d.command:
		return d.commandOperands(rest)
	case !d.stdin && len(rest) > 0:
		d.inv.Mode, d.inv.File, d.inv.Arg0 = ModeFile, rest[0], rest[0]
		d.inv.Params = params(rest[1:])
	case d.inv.Interactive || tty && !d.oneCommand():
		d.inv.Mode, d.inv.Params = ModeInteractive, params(rest)
	default:
		d.inv.Mode, d.inv.Params = ModeStdin, params(rest)
	}
	return nil
}

func (d *decoder) commandOperands(rest []string) error {
	if len(rest) == 0 {
		return d.missingCommand()
	}
	d.inv.Mode, d.inv.Script, rest = ModeCommand, rest[0], rest[1:]
	switch {
	case d.stdin && d.inv.Shell == "zsh":
		// zsh -s -c: every operand is a parameter; $0 stays argv[0].
		d.inv.Params = params(rest)
	case len(rest) > 0:
		d.inv.Arg0, d.inv.Params = rest[0], params(rest[1:])
	}
	return nil
}

// oneCommand reports zsh's -t, which keeps a shell on a terminal
// non-interactive.
func (d *decoder) oneCommand() bool {
	return d.inv.Shell == "zsh" && slices.Contains(d.inv.Options, "singlecommand")
}

func (d *decoder) missingCommand() error {
	switch d.inv.Shell {
	case "dash":
		return &DecodeError{Msg: "dash: -c requires an argument"}
	case "zsh":
		return &DecodeError{Msg: "zsh: string expected after -c"}
	}
	return &DecodeError{Msg: d.inv.Shell + ": -c: option requires an argument"}
}

func params(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	return args
}

// value takes the next argument as an option's value (-o NAME, -O NAME,
// --rcfile FILE), whatever it looks like.
func (d *decoder) value() (string, bool) {
	if d.i >= len(d.args) {
		return "", false
	}
	d.i++
	return d.args[d.i-1], true
}

// set adds name to Options, or removes it.
func (d *decoder) set(name string, on bool) {
	d.inv.Options = slices.DeleteFunc(d.inv.Options, func(s string) bool { return s == name })
	if on {
		d.inv.Options = append(d.inv.Options, name)
	}
}

// options reads the options of bash and the shells decoded like it (sh,
// dash, ksh) as bash's parse_long_options and parse_shell_options do: long
// options first (not dash), then clusters of letters introduced by "-" or
// "+", up to the first operand or "-" or "--". A letter that takes a value
// (o, O) takes the next argument, so "-eo pipefail" sets errexit and
// pipefail. -c only marks that the first operand is the command string, so
// options may follow it ("bash -c -l CMD").
func (d *decoder) options() error {
	if d.inv.Shell != "dash" {
		if err := d.longOptions(); err != nil || d.info {
			return err
		}
	}
	for d.i < len(d.args) {
		arg := d.args[d.i]
		if arg == "" || arg[0] != '-' && arg[0] != '+' {
			return nil
		}
		d.i++
		if arg == "-" || arg == "--" {
			return nil
		}
		on := arg[0] == '-'
		for j := 1; j < len(arg); j++ {
			if err := d.letter(arg[j], on); err != nil {
				return err
			}
		}
	}
	return nil
}

// longOptions reads bash's long options, which must come before any other
// option and may be spelled with one dash ("-login", "-norc").
func (d *decoder) longOptions() error {
	for d.i < len(d.args) && strings.HasPrefix(d.args[d.i], "-") {
		arg := d.args[d.i]
		name, long := strings.CutPrefix(arg[1:], "-")
		if !long || name == "" {
			name, long = arg[1:], false
		}
		known, err := d.long(name)
		switch {
		case err != nil:
			return err
		case !known && long:
			return &DecodeError{Msg: fmt.Sprintf("%s: %s: invalid option", d.inv.Shell, arg)}
		case !known:
			return nil // "-", "--" or letters
		}
		d.i++
	}
	return nil
}

// long applies one of bash's long options, reporting false for a name bash
// does not know.
func (d *decoder) long(name string) (bool, error) {
	switch name {
	case "login":
		d.inv.Login = true
	case "help", "version":
		d.info = true
	case "posix", "verbose", "restricted":
		d.set(name, true)
	case "dump-strings", "dump-po-strings":
		d.set("noexec", true) // bash reads the script but runs nothing
	case "debugger":
		d.set("extdebug", true)
	case "rcfile", "init-file":
		if d.i+1 >= len(d.args) {
			return true, &DecodeError{Msg: fmt.Sprintf("%s: --%s: option requires an argument", d.inv.Shell, name)}
		}
		d.i++
		d.inv.RcFile = d.args[d.i]
	case "norc":
		d.inv.NoRc = true
	case "noprofile":
		d.inv.NoProfile = true
	case "debug", "noediting", "pretty-print", "protected", "wordexp":
	default:
		return false, nil
	}
	return true, nil
}

// letter applies one option letter of a cluster; on is false after "+".
// -c, -l and (but for dash) -s take effect whatever the sign, as in bash.
func (d *decoder) letter(c byte, on bool) error {
	sh := d.inv.Shell
	switch {
	case c == 'c':
		d.command = true
	case c == 'l':
		d.inv.Login = true
	case c == 's':
		d.stdin = on || sh != "dash"
	case c == 'i':
		d.inv.Interactive = on
	case c == 'o' || (c == 'O' && sh != "dash"):
		if name, ok := d.value(); ok {
			d.set(name, on) // no value: the shell lists its options
		}
	case c == 'D' && sh != "dash":
		d.set("noexec", true)
	case sh == "ksh" && (c == 'R' || c == 'T'):
		d.value() // ksh93 -R FILE, mksh -T TTY
	default:
		return d.flag(c, on)
	}
	return nil
}

// flag applies a letter that stands for a set -o option.
func (d *decoder) flag(c byte, on bool) error {
	name, ok := letterName(d.inv.Shell, c)
	switch {
	case name != "":
		d.set(name, on)
	case ok:
	case d.inv.Shell == "dash":
		return &DecodeError{Msg: fmt.Sprintf("dash: illegal option %c%c", sign(on), c)}
	default:
		return &DecodeError{Msg: fmt.Sprintf("%s: %c%c: invalid option", d.inv.Shell, sign(on), c)}
	}
	return nil
}

func sign(on bool) byte {
	if on {
		return '-'
	}
	return '+'
}

// letterName is the long name of a single-letter option, and whether the
// shell accepts the letter. /bin/sh may be dash, bash, busybox or mksh, and
// ksh may be ksh93 or mksh, so those two accept any letter.
func letterName(shell string, c byte) (string, bool) {
	switch shell {
	case "bash":
		return lookup(bashLetters[:], c)
	case "dash":
		return lookup(dashLetters[:], c)
	}
	if name, ok := lookup(bashLetters[:], c); ok {
		return name, true
	}
	name, _ := lookup(dashLetters[:], c)
	return name, true
}

func lookup(table []string, c byte) (string, bool) {
	if int(c) >= len(table) || table[c] == "" {
		return "", false
	}
	return table[c], true
}

// bashLetters are bash's set letters by long name (bash's flags.c).
var bashLetters = [...]string{
	'a': "allexport", 'b': "notify", 'e': "errexit", 'f': "noglob", 'h': "hashall",
	'k': "keyword", 'm': "monitor", 'n': "noexec", 'p': "privileged", 'r': "restricted",
	't': "onecmd", 'u': "nounset", 'v': "verbose", 'x': "xtrace", 'B': "braceexpand",
	'C': "noclobber", 'E': "errtrace", 'H': "histexpand", 'P': "physical", 'T': "functrace",
}

// dashLetters are dash's (options.c).
var dashLetters = [...]string{
	'a': "allexport", 'b': "notify", 'e': "errexit", 'f': "noglob", 'm': "monitor",
	'n': "noexec", 'p': "privileged", 'u': "nounset", 'v': "verbose", 'x': "xtrace",
	'C': "noclobber", 'E': "emacs", 'I': "ignoreeof", 'V': "vi",
}

// zshOptions reads zsh's options as zsh's parseopts does. Unlike bash, long
// options ("--login", "--no-rcs") may come anywhere among the options, -o
// takes its value from the rest of the cluster or the next argument
// ("-opipefail", "-eo pipefail"), "-" and "+" alone end the options like
// "--", and -b ends them after the current argument.
func (d *decoder) zshOptions() error {
	for !d.brk && !d.done && !d.info && d.i < len(d.args) {
		arg := d.args[d.i]
		if arg == "" || arg[0] != '-' && arg[0] != '+' {
			return nil
		}
		d.i++
		if len(arg) == 1 {
			return nil
		}
		if err := d.zshCluster(arg); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) zshCluster(arg string) error {
	on := arg[0] == '-'
	for j := 1; j < len(arg); j++ {
		c := arg[j]
		switch {
		case c == '-' && j == len(arg)-1:
			d.done = true // "--", "+-", even "-x-"
			return nil
		case c == '-' && j == 1:
			return d.zshLong(arg[2:], on)
		case c == '-':
			return &DecodeError{Msg: fmt.Sprintf("zsh: bad option string: %q", arg)}
		case c == 'o':
			return d.zshO(arg[j+1:], on)
		case strings.IndexByte(" \t\n\v\f\r", c) >= 0:
			if strings.TrimLeft(arg[j:], " \t\n\v\f\r") != "" {
				return &DecodeError{Msg: fmt.Sprintf("zsh: bad option string: %q", arg)}
			}
			return nil
		}
		if err := d.zshLetter(c, on); err != nil {
			return err
		}
	}
	return nil
}

// zshLong applies "--NAME": --help, --version, --emulate MODE, or any
// option by name.
func (d *decoder) zshLong(name string, on bool) error {
	switch name {
	case "help", "version":
		d.info = true
		return nil
	case "emulate":
		return d.zshEmulate()
	}
	d.emulated = true
	return d.zshSet(strings.ReplaceAll(name, "-", "_"), on)
}

// zshEmulate applies --emulate MODE, which must come before any other
// option. Emulating sh or ksh changes the dialect and the option letters.
func (d *decoder) zshEmulate() error {
	mode, ok := d.value()
	switch {
	case !ok:
		return &DecodeError{Msg: "zsh: --emulate: argument required"}
	case d.emulated:
		return &DecodeError{Msg: "zsh: --emulate: must precede other options"}
	}
	mode = strings.TrimPrefix(mode, "r") // as zsh: rsh, rksh
	d.inv.Dialect, d.shLetters = parse.Zsh, false
	switch {
	case strings.HasPrefix(mode, "k"):
		d.inv.Dialect, d.shLetters = parse.Bash, true
	case strings.HasPrefix(mode, "s"), strings.HasPrefix(mode, "b"):
		d.inv.Dialect, d.shLetters = parse.POSIX, true
	}
	return nil
}

// zshO applies -o NAME; the name is the rest of the cluster if any.
func (d *decoder) zshO(rest string, on bool) error {
	d.emulated = true
	if rest == "" {
		var ok bool
		if rest, ok = d.value(); !ok {
			return &DecodeError{Msg: "zsh: string expected after -o"}
		}
	}
	return d.zshSet(rest, on)
}

func (d *decoder) zshLetter(c byte, on bool) error {
	d.emulated = true
	table := zshLetters[:]
	if d.shLetters {
		table = kshLetters[:]
	}
	name, ok := lookup(table, c)
	switch {
	case c == 'b' && !d.shLetters:
		d.brk = true
	case c == 'c':
		d.command = true
	case !ok:
		return &DecodeError{Msg: fmt.Sprintf("zsh: bad option: -%c", c)}
	default:
		return d.zshSet(name, on)
	}
	return nil
}

// zshSet applies a zsh option spelled any way zsh accepts: any case,
// underscores anywhere, a "no" prefix turning it off. login, interactive
// and shinstdin (stdin) set Login, Interactive and -s. Any other option is
// listed in Options by its lowercase name without underscores; one that is
// on by default and turned off is listed with "no" in front, zsh's own
// spelling, which agrees with bash's names: NO_UNSET (-u) is "nounset",
// NO_GLOB "noglob", NO_CLOBBER "noclobber", NO_EXEC (-n) "noexec". Names
// are not checked, as newer versions add options; zsh itself refuses the
// ones it does not know.
func (d *decoder) zshSet(name string, on bool) error {
	n := strings.ToLower(strings.ReplaceAll(name, "_", ""))
	if strings.HasPrefix(n, "no") && n != "nomatch" && n != "notify" {
		n, on = n[2:], !on
	}
	switch n {
	case "":
		return &DecodeError{Msg: fmt.Sprintf("zsh: no such option: %s", name)}
	case "login":
		d.inv.Login = on
	case "interactive":
		d.inv.Interactive = on
	case "shinstdin", "stdin":
		d.stdin = on
	default:
		_, defaultOn := slices.BinarySearch(zshDefaultOn[:], n)
		d.set("no"+n, !on && defaultOn)
		d.set(n, on)
	}
	return nil
}

// zshDefaultOn are the options on by default in a non-interactive zsh
// (options.c: OPT_ALL, OPT_BSHELL, OPT_NONBOURNE or OPT_ZSH), sorted.
var zshDefaultOn = [...]string{
	"aliases", "alwayslastprompt", "appendhistory", "autolist", "automenu",
	"autoparamkeys", "autoparamslash", "autoremoveslash", "badpattern", "banghist",
	"bareglobqual", "beep", "bgnice", "caseglob", "casematch", "checkjobs",
	"checkrunningjobs", "clobber", "debugbeforecmd", "equals", "evallineno", "exec",
	"flowcontrol", "functionargzero", "glob", "globalexport", "globalrcs", "hashcmds",
	"hashdirs", "hashlistall", "histbeep", "histsavebycopy", "hup", "listambiguous",
	"listbeep", "listtypes", "multibyte", "multifuncdef", "multios", "nomatch",
	"notify", "promptcr", "promptpercent", "promptsp", "rcs", "shortloops", "unset",
}

// zshLetters are zsh's option letters (zshletters in options.c), by the
// name zshSet lists them under.
var zshLetters = [...]string{
	'0': "correct", '1': "printexitvalue", '2': "nobadpattern", '3': "nonomatch",
	'4': "globdots", '5': "notify", '6': "bgnice", '7': "ignoreeof", '8': "markdirs",
	'9': "autolist", 'B': "nobeep", 'C': "noclobber", 'D': "pushdtohome",
	'E': "pushdsilent", 'F': "noglob", 'G': "nullglob", 'H': "rmstarsilent",
	'I': "ignorebraces", 'J': "autocd", 'K': "nobanghist", 'L': "sunkeyboardhack",
	'M': "singlelinezle", 'N': "autopushd", 'O': "correctall", 'P': "rcexpandparam",
	'Q': "pathdirs", 'R': "longlistjobs", 'S': "recexact", 'T': "cdablevars",
	'U': "mailwarning", 'V': "nopromptcr", 'W': "autoresume", 'X': "listtypes",
	'Y': "menucomplete", 'Z': "zle", 'a': "allexport", 'd': "noglobalrcs",
	'e': "errexit", 'f': "norcs", 'g': "histignorespace", 'h': "histignoredups",
	'i': "interactive", 'k': "interactivecomments", 'l': "login", 'm': "monitor",
	'n': "noexec", 'p': "privileged", 'r': "restricted", 's': "shinstdin",
	't': "singlecommand", 'u': "nounset", 'v': "verbose", 'w': "chaselinks",
	'x': "xtrace", 'y': "shwordsplit",
}

// kshLetters are zsh's letters under --emulate sh or ksh (kshletters).
var kshLetters = [...]string{
	'C': "noclobber", 'T': "trapsasync", 'X': "markdirs", 'a': "allexport",
	'b': "notify", 'e': "errexit", 'f': "noglob", 'i': "interactive", 'l': "login",
	'm': "monitor", 'n': "noexec", 'p': "privileged", 'r': "restricted",
	's': "shinstdin", 't': "singlecommand", 'u': "nounset", 'v': "verbose",
	'x': "xtrace",
}

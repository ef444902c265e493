package parse

import (
	"strings"

	"github.com/cordonsh/cordon/parse/cmdexe"
	"github.com/cordonsh/cordon/parse/powershell"
	"github.com/cordonsh/cordon/winpath"
)

// Windows scripts are read by their own packages (cmdexe, powershell),
// which report what they would run; the walker adopts those commands
// into the common model and follows what they carry: nested cmd.exe and
// PowerShell command lines (decoded by Config.CommandLine), POSIX shells
// (Git Bash), and the carriers the rules describe (git, python, npm).

// winScript walks a cmd.exe command line or a PowerShell script in st.
func (w *walker) winScript(st *state, src, name string) {
	if st.depth > maxDepth {
		w.problem(ProblemDepth, name, "code nested more than %d levels deep is not followed", maxDepth)
		return
	}
	var cmds []found
	if st.dialect == Cmd {
		res := cmdexe.Commands(src, &cmdexe.Config{
			Getenv: w.winGetenv, Dir: st.dir, Delayed: st.delayed, Depth: st.depth,
			Join: winJoin, ReadFile: w.winReadFile, Batch: st.batch, Params: st.env.params,
		})
		for _, p := range res.Problems {
			kind := ProblemSyntax
			if p.Kind == cmdexe.ProblemDepth {
				kind = ProblemDepth
			}
			w.problem(kind, p.Pos, "cmd: %s", p.Msg)
		}
		for _, c := range res.Commands {
			cmds = append(cmds, cmdFound(c))
		}
	} else {
		res := powershell.Commands(src, &powershell.Config{
			Getenv: w.winGetenv, Home: w.winHome(), Dir: st.dir, Core: st.core, Depth: st.depth,
			Join: winJoin, ReadFile: w.winReadFile,
		})
		for _, p := range res.Problems {
			kind := ProblemDepth
			if p.Kind == powershell.ProblemSyntax {
				kind = ProblemSyntax
			}
			w.problem(kind, p.Pos, "PowerShell: %s", p.Msg)
		}
		for _, c := range res.Commands {
			cmds = append(cmds, psFound(c))
		}
	}
	idx := make([]int, len(cmds)) // index in w.res.Commands, by index in cmds
	for k, f := range cmds {
		if f.stdin >= 0 && f.stdin < k {
			f.cmd.StdinFrom = idx[f.stdin]
		}
		idx[k] = w.winRun(st.within(f.via, f.dir), f.cmd, f.cmdline)
	}
}

// A found command is one a Windows package reported, in the common
// model, with what the walker still has to place: the index of the
// command piped into it among the package's results, the carriers that
// led to it, its directory, and its Windows command line.
type found struct {
	cmd          Command
	stdin        int
	via          []string
	dir, cmdline string
}

func cmdFound(c cmdexe.Command) found {
	cmd := Command{Pos: c.Pos, UnknownCode: c.UnknownCode, StdinFrom: -1}
	for _, a := range c.Args {
		cmd.Args = append(cmd.Args, winWord(a))
	}
	for _, r := range c.Redirs {
		cmd.Redirs = append(cmd.Redirs, Redir{Op: winRedirOp(r.Op), Fd: r.Fd, Target: winWord(r.Target)})
	}
	return found{cmd, c.StdinFrom, c.Via, c.Dir, c.CommandLine}
}

func psFound(c powershell.Command) found {
	cmd := Command{Pos: c.Pos, UnknownCode: c.UnknownCode, Privileged: c.Privileged, StdinFrom: -1}
	cmd.Args = append(cmd.Args, winWord(c.Name))
	for _, a := range c.Args {
		if a.Bound && len(cmd.Args) > 1 && cmd.Args[len(cmd.Args)-1].Param {
			cmd.Args[len(cmd.Args)-1].Text += ":" + a.Text // -Recurse:$false
			continue
		}
		word := winWord(a.Text)
		word.Param, word.More = a.Param, a.More
		word.Computed = word.Computed || a.Computed
		cmd.Args = append(cmd.Args, word)
	}
	for _, r := range c.Redirs {
		cmd.Redirs = append(cmd.Redirs, Redir{Op: winRedirOp(r.Op), Fd: r.Fd, Target: winWord(r.Target.Text)})
	}
	for _, a := range c.Input {
		word := winWord(a.Text)
		word.Computed = true
		cmd.Input = append(cmd.Input, word)
	}
	return found{cmd, c.StdinFrom, c.Via, c.Dir, c.CommandLine}
}

// within returns the state a command found by a Windows package runs
// in: st, with the carriers that led to it and its directory.
func (st *state) within(via []string, dir string) *state {
	c := *st
	if len(via) > 0 {
		c.via = append(append([]string(nil), st.via...), via...)
	}
	c.dir = dir
	return &c
}

// winRun records a Windows command and follows the code it carries.
func (w *walker) winRun(st *state, c Command, cmdline string) int {
	i := w.emit(st, c)
	if len(c.Args) == 0 {
		return i
	}
	name := strings.ToLower(w.res.Commands[i].Name())
	if out, ok := winEcho(st.dialect, name, c, cmdline); ok {
		out = w.hold(out)
		w.out[i] = &out
	}
	if in, ok := winInput(w.res.Commands[i]); ok {
		// What a PowerShell pipeline gives a native program is its
		// standard input: 'code' | powershell -Command -.
		in = w.hold(in)
		w.in[i] = &in
	}
	switch name {
	case "cmd", "powershell", "pwsh", "pwsh-preview":
		w.winShell(st, i, cmdline)
	default:
		if w.cfg.Knowledge != nil {
			// The rules' carriers (bash -c, git -c alias.x=!..., python
			// -c) read Windows programs' names in lower case.
			saved := w.res.Commands[i].Args[0]
			w.res.Commands[i].Args[0].Text = name
			w.carry(st, i)
			w.res.Commands[i].Args[0] = saved
		}
	}
	return i
}

// winShell follows a nested cmd.exe or PowerShell command line.
func (w *walker) winShell(st *state, i int, cmdline string) {
	if w.cfg.CommandLine == nil || cmdline == "" {
		w.unknownCode(i)
		return
	}
	call, err := w.cfg.CommandLine(cmdline)
	if err != nil {
		w.problem(ProblemSyntax, w.res.Commands[i].Pos, "%v", err)
		w.unknownCode(i)
		return
	}
	name := w.res.Commands[i].Name()
	sub := st.newShell(call, name+" -c")
	sub.dir = st.dir
	switch {
	case call.HasScript:
		if strings.Contains(call.Script, Unknown) {
			w.unknownCode(i)
			return
		}
		w.script(sub, call.Script, "")
	case call.File != "":
		sub.via[len(sub.via)-1] = name + " " + call.File
		w.winFile(sub, i, call.File)
	default:
		sub.via[len(sub.via)-1] = name + " <stdin"
		if in := w.stdinOf(i); in != nil && sub.dialect == Cmd {
			// cmd reads its standard input a line at a time, as typed
			// at its prompt.
			for _, line := range strings.Split(strings.ReplaceAll(*in, "\r", ""), "\n") {
				if strings.TrimSpace(line) != "" {
					w.script(sub, line, "")
				}
			}
		} else if in != nil {
			w.script(sub, *in, "")
		} else {
			w.unknownCode(i)
		}
	}
}

// winFile walks a script file a Windows shell runs: a PowerShell
// script, or a batch file. One that cannot be read runs unknown code.
func (w *walker) winFile(st *state, i int, p string) {
	path := winJoin(st.dir, p)
	w.res.Commands[i].ScriptFile = path
	data, err := w.winReadFile(path)
	if err != nil {
		w.problem(ProblemSyntax, w.res.Commands[i].Pos, "the script %s cannot be read here: %v", p, err)
		w.unknownCode(i)
		return
	}
	low := strings.ToLower(path)
	if strings.HasSuffix(low, ".bat") || strings.HasSuffix(low, ".cmd") {
		st.dialect, st.batch = Cmd, true
	}
	w.script(st, string(data), p)
}

// winReadFile reads a Windows script file, when it is on this machine.
func (w *walker) winReadFile(path string) ([]byte, error) {
	return readFile(w.cfg, path)
}

// winGetenv looks up a variable of the judged environment, ignoring case
// as Windows does.
func (w *walker) winGetenv(name string) (string, bool) {
	if w.winEnv == nil {
		w.winEnv = map[string]string{}
		for _, kv := range w.cfg.Env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				if _, dup := w.winEnv[strings.ToLower(k)]; !dup {
					w.winEnv[strings.ToLower(k)] = v
				}
			}
		}
	}
	v, ok := w.winEnv[strings.ToLower(name)]
	return v, ok
}

// winHome is the user's profile directory: %USERPROFILE%, else %HOME%.
func (w *walker) winHome() string {
	if v, ok := w.winGetenv("USERPROFILE"); ok && v != "" {
		return v
	}
	v, _ := w.winGetenv("HOME")
	return v
}

// winJoin resolves p against dir as Windows does.
func winJoin(dir, p string) string { return winpath.Abs(p, dir) }

// winWord is the Word for a value from a Windows package.
func winWord(s string) Word {
	return Word{Text: s, Computed: strings.Contains(s, Unknown)}
}

func winRedirOp(op string) RedirOp {
	switch op {
	case "<":
		return RedirRead
	case ">>":
		return RedirAppend
	}
	return RedirWrite
}

// winEcho returns what a Windows echo prints, when that is known: cmd's
// echo prints the rest of its line; PowerShell's Write-Output each
// argument on a line.
func winEcho(d Dialect, name string, c Command, cmdline string) (string, bool) {
	switch {
	case d == Cmd && name == "echo":
		_, text, _ := strings.Cut(strings.TrimLeft(cmdline, " \t@"), " ")
		if strings.Contains(text, Unknown) || len(c.Redirs) > 0 {
			return "", false
		}
		return text + "\r\n", true
	case d == PowerShell && name == "write-output":
		var b strings.Builder
		for _, a := range c.Args[1:] {
			if a.Param || !a.IsKnown() {
				return "", false
			}
			b.WriteString(a.Text + "\r\n")
		}
		return b.String(), true
	}
	return "", false
}

// winInput returns, for a native program in a PowerShell pipeline, the
// standard input the known objects piped in make: one line each.
func winInput(c Command) (string, bool) {
	if c.Dialect != PowerShell || len(c.Input) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, a := range c.Input {
		if !a.IsKnown() {
			return "", false
		}
		b.WriteString(a.Text + "\r\n")
	}
	return b.String(), true
}

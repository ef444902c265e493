package powershell

import (
	"path"
	"strings"

	"github.com/cordonsh/cordon/winargs"
)

// eArg is an evaluated command argument.
type eArg struct {
	param string // parameter token as written, or ""
	colon bool   // param has its value in val
	val   value
	lit   bool // val is literal script text
	pos   int
}

// cmdKind is what a command name resolves to.
type cmdKind uint8

const (
	kindCmdlet cmdKind = iota
	kindNative
	kindFunction
	kindScript
	kindUnknown
)

// resolve resolves a command name through aliases (Set-Alias first,
// then the built-in ones), functions and cmdlets.
func (w *walker) resolve(name string) (canon, alias string, k cmdKind) {
	if strings.Contains(name, Unknown) {
		return name, "", kindUnknown
	}
	written := name
	for hops := 0; hops < 8; hops++ {
		lower := strings.ToLower(name)
		t, ok := w.aliases[lower]
		if !ok {
			t = builtinAlias(lower, w.core)
		}
		if t == "" {
			break
		}
		alias, name = written, t
		if strings.Contains(t, Unknown) {
			return t, alias, kindUnknown
		}
	}
	lower := strings.ToLower(name)
	if f, ok := w.funcs[lower]; ok {
		return f, alias, kindFunction
	}
	if c, ok := cmdletNames()[lower]; ok {
		return c, alias, kindCmdlet
	}
	if i := strings.LastIndexByte(name, '\\'); i > 0 && !strings.ContainsAny(name[:i], `:\/`) && name[0] != '.' {
		if c, ok := cmdletNames()[lower[i+1:]]; ok { // Microsoft.PowerShell.Management\Remove-Item
			return c, alias, kindCmdlet
		}
	}
	if strings.HasSuffix(lower, ".ps1") {
		return name, alias, kindScript
	}
	if i := strings.IndexByte(name, '-'); i > 0 && i < len(name)-1 && !strings.ContainsAny(name, `\/.:`) {
		return name, alias, kindCmdlet
	}
	return name, alias, kindNative
}

// command walks a command element; stdin is the index of the command
// piped into it, input the value piped into it (nil at the head). It
// returns the command's index and its output.
func (w *walker) command(c *command, stdin int, input *value) (int, value) {
	nameV := w.argValue(c.name, false)
	pos := w.f.position(c.pos)
	if nameV.k == kBlock {
		w.blockParams = w.args(c.args, true)
		defer func() { w.blockParams = nil }()
		label := c.invoke + " {}"
		if c.invoke == "" {
			label = "& {}"
		}
		if !w.runBlock(nameV.blk, label, c.invoke != ".", c.pos) {
			i := w.emit(Command{Name: Unknown, Pos: pos, StdinFrom: stdin, UnknownCode: true})
			return i, unknownValue
		}
		return -1, unknownValue
	}
	name := nameV.str()
	if nameV.k == kUnknown || nameV.k == kArr || nameV.k == kHash {
		name = Unknown
	}
	canon, alias, kind := w.resolve(name)
	args := w.args(c.args, kind != kindNative)
	cmd := Command{Name: canon, Alias: alias, Pos: pos, StdinFrom: stdin, Redirs: w.redirs(c.redirs)}
	cmd.Args = flatten(args)
	cmd.Input = inputArgs(input)
	if kind == kindNative || kind == kindScript {
		if kind == kindNative {
			cmd.CommandLine = w.commandLine(canon, cmd.Args, c)
		}
		if c.hasStop {
			rest := winargs.ExpandPercent(c.stop, w.getenvString)
			for _, a := range winargs.Split("x " + rest)[1:] {
				cmd.Args = append(cmd.Args, Arg{Text: a})
			}
		}
	}
	cmd.UnknownCode = kind == kindUnknown
	idx := w.emit(cmd)
	if idx < 0 {
		return idx, unknownValue
	}
	if kind == kindScript {
		w.scriptFile(idx, canon, c.invoke, c.pos)
	}
	w.forgetWritten(cmd)
	if kind == kindCmdlet {
		w.carrier(idx, canon, args, input, c.pos)
		w.wrote(canon, args, input)
	}
	if canon == "ForEach-Object" || canon == "Where-Object" {
		saved := w.item
		w.item = input
		defer func() { w.item = saved }()
	}
	w.blockArgs(canon+" {}", args)
	for _, a := range args {
		if w.hasUnknownBlock(a.val) {
			w.unknownCode(idx)
		}
	}
	if kind == kindCmdlet {
		return idx, w.output(canon, args, input)
	}
	return idx, unknownValue
}

// blockArgs walks the script blocks among the arguments: the code of
// ForEach-Object, Where-Object, Invoke-Command, Start-Job and any other
// command given a block is taken to run.
func (w *walker) blockArgs(label string, args []eArg) {
	for _, a := range args {
		for _, e := range a.val.elems() {
			if e.k == kBlock && e.blk.sb != nil {
				mark := len(w.log)
				w.runBlock(e.blk, label, false, a.pos)
				w.forget(w.log[mark:])
			}
		}
	}
}

// hasUnknownBlock reports whether v holds a script block of unknown code.
func (w *walker) hasUnknownBlock(v value) bool {
	for _, e := range v.elems() {
		if e.k == kBlock && e.blk.sb == nil {
			return true
		}
	}
	return false
}

// argValue evaluates an argument in argument mode.
func (w *walker) argValue(x expr, tilde bool) value {
	if s, ok := x.(*expandStr); ok {
		return w.expand(s, tilde)
	}
	return w.eval(x)
}

// args evaluates a command's arguments, splats expanded.
func (w *walker) args(list []*cmdArg, tilde bool) []eArg {
	var out []eArg
	for _, a := range list {
		switch {
		case a.splat != "":
			out = append(out, w.splat(a)...)
		case a.param != "":
			e := eArg{param: a.param, colon: a.colon, pos: a.pos}
			if a.colon {
				e.val, e.lit = w.argValue(a.val, tilde), isLiteral(a.val)
			}
			out = append(out, e)
		default:
			v := w.argValue(a.val, tilde)
			if list, ok := a.val.(*arrayLit); ok {
				v = arrValue(nil)
				for _, e := range list.elems {
					v.arr = append(v.arr, w.argValue(e, tilde))
				}
			}
			out = append(out, eArg{val: v, lit: isLiteral(a.val), pos: a.pos})
		}
	}
	return out
}

// splat expands @name: a hashtable gives parameters, an array values.
func (w *walker) splat(a *cmdArg) []eArg {
	v := w.variable(a.splat)
	switch v.k {
	case kHash:
		var out []eArg
		for i, k := range v.keys {
			val := v.arr[i]
			if val.k == kBool && val.n != 0 {
				out = append(out, eArg{param: "-" + k, pos: a.pos})
				continue
			}
			if val.k == kBool {
				out = append(out, eArg{param: "-" + k, colon: true, val: val.withComp(true), pos: a.pos})
				continue
			}
			out = append(out, eArg{param: "-" + k, pos: a.pos}, eArg{val: val.withComp(true), pos: a.pos})
		}
		return out
	case kArr:
		var out []eArg
		for _, e := range v.arr {
			out = append(out, eArg{val: e.withComp(true), pos: a.pos})
		}
		return out
	}
	return []eArg{{val: unknownValue, pos: a.pos}}
}

// isLiteral reports whether x is script text with nothing to evaluate.
func isLiteral(x expr) bool {
	switch x := x.(type) {
	case *strLit, *numLit, *blockLit:
		return true
	case *expandStr:
		for _, p := range x.parts {
			if _, ok := p.(*strLit); !ok {
				return false
			}
		}
		return true
	case *arrayLit:
		for _, e := range x.elems {
			if !isLiteral(e) {
				return false
			}
		}
		return true
	}
	return false
}

// flatten turns evaluated arguments into the reported ones.
func flatten(args []eArg) []Arg {
	var out []Arg
	for _, a := range args {
		if a.param != "" {
			out = append(out, Arg{Text: a.param, Param: true})
			if !a.colon {
				continue
			}
		}
		for j, e := range a.val.elems() {
			text := e.str()
			switch {
			case e.k == kBlock && e.blk.sb != nil:
				text = "{" + text + "}"
			case e.k == kHash:
				// A hashtable is passed whole (-Headers @{...}): its
				// contents are what the command receives.
				text = hashText(e)
			}
			out = append(out, Arg{Text: text, Bound: a.colon && j == 0, Computed: !a.lit || a.val.comp || e.comp, More: j > 0})
		}
		if len(a.val.elems()) == 0 {
			out = append(out, Arg{Text: "", Bound: a.colon, Computed: !a.lit})
		}
	}
	return out
}

// redirs evaluates redirections; merges (2>&1) are left out.
func (w *walker) redirs(list []*redir) []Redir {
	var out []Redir
	for _, r := range list {
		if r.merge {
			continue
		}
		v := w.argValue(r.target, true)
		out = append(out, Redir{Op: r.op, Fd: r.fd, Target: Arg{Text: v.str(), Computed: !isLiteral(r.target) || v.comp}})
	}
	return out
}

// commandLine builds the command line PowerShell gives a native program.
func (w *walker) commandLine(prog string, args []Arg, c *command) string {
	var b strings.Builder
	if prog == "" || strings.ContainsAny(prog, " \t") {
		b.WriteString(`"` + prog + `"`)
	} else {
		b.WriteString(prog)
	}
	for i := 0; i < len(args); i++ {
		a := args[i].Text
		if args[i].Param && i+1 < len(args) && args[i+1].Bound {
			a += ":" + args[i+1].Text
			i++
		}
		b.WriteByte(' ')
		b.WriteString(winargs.Quote(a))
	}
	if c.hasStop {
		b.WriteByte(' ')
		b.WriteString(winargs.ExpandPercent(c.stop, w.getenvString))
	}
	return b.String()
}

// scriptFile walks a .ps1 file the script runs (& .\x.ps1, . .\x.ps1).
func (w *walker) scriptFile(idx int, name, invoke string, off int) {
	label := invoke
	if label == "" {
		label = "&"
	}
	label += " " + path.Base(strings.ReplaceAll(name, `\`, "/"))
	file := w.resolvePath(w.dir, name)
	data, ok := w.readScript(file)
	if file == "" || !ok {
		w.unknownCode(idx)
		return
	}
	if invoke != "." {
		w.scopes = append(w.scopes, map[string]value{})
		defer func() { w.scopes = w.scopes[:len(w.scopes)-1] }()
	}
	if !w.runText(string(data), label, off) {
		w.unknownCode(idx)
	}
}

// resolvePath resolves p against dir; "" when it cannot be known.
func (w *walker) resolvePath(dir, p string) string {
	if strings.Contains(p, Unknown) || strings.Contains(dir, Unknown) {
		return ""
	}
	if w.cfg.Join != nil {
		if dir == "" && !isAbs(p) {
			return ""
		}
		return w.cfg.Join(dir, p)
	}
	return lexicalJoin(dir, p)
}

// isAbs reports whether p is an absolute Windows or provider path.
func isAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return true
	}
	i := strings.IndexByte(p, ':')
	return i > 0 && !strings.ContainsAny(p[:i], `\/. `)
}

// lexicalJoin joins p to dir and cleans . and .. lexically; "" when dir
// is needed and unknown.
func lexicalJoin(dir, p string) string {
	p = strings.ReplaceAll(p, "/", `\`)
	switch {
	case isAbs(p):
	case strings.HasPrefix(p, `\`):
		if i := strings.IndexByte(dir, ':'); i > 0 {
			p = dir[:i+1] + p
		} else {
			return ""
		}
	case dir == "":
		if p == "" {
			return ""
		}
		return ""
	case p == "":
		p = dir
	default:
		p = strings.TrimRight(dir, `\`) + `\` + p
	}
	return cleanPath(p)
}

// cleanPath removes . and .. elements, never above the root.
func cleanPath(p string) string {
	parts := strings.Split(p, `\`)
	var out []string
	for i, s := range parts {
		switch {
		case s == "." || s == "" && i > 0 && i < len(parts)-1 && !strings.HasPrefix(p, `\\`):
		case s == "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, `\`)
	if strings.HasSuffix(r, ":") {
		r += `\`
	}
	return r
}

// hashText writes a hashtable argument as @{key=value; ...}.
func hashText(h value) string {
	parts := make([]string, 0, len(h.keys))
	for i, k := range h.keys {
		v := ""
		if i < len(h.arr) {
			v = h.arr[i].str()
		}
		parts = append(parts, k+"="+v)
	}
	return "@{" + strings.Join(parts, "; ") + "}"
}

package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/nethost"
	"github.com/cordonsh/cordon/parse"
	"github.com/cordonsh/cordon/winpath"
)

// An Effect is one thing a command would do to one target.
type Effect struct {
	Kind string
	// Cmd is the index of the command in the parse result.
	Cmd int
	// Raw is the target as the command names it, unknown parts as "?".
	Raw string
	// Path is the resolved absolute path, or "".
	Path  string
	Class string
	// Recursive, Ignored and Filter qualify deletes and git clean.
	Recursive bool
	Ignored   bool
	Filter    string
	// Dirs is set for git clean -d.
	Dirs bool
	// State, for a git effect, is the state the script's earlier
	// commands leave (a stash it made, commits on a branch it made), or
	// "" for the repository's state before the script.
	State string
	// Selected: the command acts on what it selects below the target
	// (find -delete), not on the target itself.
	Selected bool
	// Dir, for a push, is the directory git runs in (after cd and -C):
	// the repository it finds there is the one pushed.
	Dir string
}

// args is a command's arguments split into flags and operands.
type args struct {
	flags    []string
	next     []string // the word after each flag ("" when none or taken as its value)
	operands []parse.Word
	opIdx    []int // index in the input of each operand
	dashdash int   // index in operands of the first one after "--", or -1
	values   map[string][]parse.Word
	fold     bool // globs ignore case (Windows)
	// known are the long options the rules name for the command: one of
	// them is never read as an abbreviation of another.
	known []string
}

// splitArgs splits a command's arguments. known are the long options the
// rules name for it ([CmdSpec.longOptions]); end, words that end the
// options ([CmdSpec.EndOfOptions]).
func splitArgs(ws []parse.Word, valueOpts, known, end []string) args {
	a := args{dashdash: -1, known: known}
	ended := false
	for j := 0; j < len(ws); j++ {
		t := ws[j].Text
		switch {
		case a.dashdash >= 0 || t == "-" || !strings.HasPrefix(t, "-") || ended && t != "--":
			a.operand(ws, j)
		case t == "--":
			a.dashdash = len(a.operands)
		case slices.Contains(end, t):
			ended = true
		case len(a.abbrev(t, valueOpts)) > 0:
			j = a.addAbbrev(ws, j, valueOpts)
		default:
			opt, val, next, ok := parse.Option(ws, j, valueOpts)
			if ok && next == j+1 && !strings.HasPrefix(t, "--") {
				// A value glued to a short option is not a cluster of
				// flags: -bfeature is -b feature, not -b -f ...
				t = strings.TrimSuffix(t, val.Text)
			}
			a.flags = append(a.flags, t)
			a.next = append(a.next, "")
			if ok {
				a.addValue(opt, val)
			} else if next < len(ws) {
				a.next[len(a.next)-1] = ws[next].Text
			}
			j = next - 1
		}
	}
	if a.operands == nil && len(ws) > 0 {
		// Words but no operand: none, not nil, which stands for an
		// effect without targets ([selectTargets]).
		a.operands, a.opIdx = ws[:0:0], counting[:0:0]
	}
	return a
}

// counting holds 0, 1, 2, ...: the indexes of a run of operands
// ([args.operand]). It is shared, and never written.
var counting = func() []int {
	n := make([]int, 64)
	for i := range n {
		n[i] = i
	}
	return n
}()

// operand adds ws[j] to a's operands. Most commands' operands are
// consecutive words (cp -r a b): they stay a slice of ws itself, and
// their indexes one of [counting], each with its capacity clipped, so
// that an append copies them. Only an operand after a gap (grep a -r b)
// copies them, with room for the rest. Nothing writes to a's operands.
func (a *args) operand(ws []parse.Word, j int) {
	n := len(a.operands)
	switch {
	case j >= len(counting):
	case n == 0:
		a.operands, a.opIdx = ws[j:j+1:j+1], counting[j:j+1:j+1]
		return
	case &a.operands[n-1] == &ws[j-1]:
		// The run so far ends just before j.
		a.operands, a.opIdx = ws[j-n:j+1:j+1], counting[j-n:j+1:j+1]
		return
	}
	if n == cap(a.operands) {
		left := len(ws) - j
		a.operands = append(make([]parse.Word, 0, n+left), a.operands...)
		a.opIdx = append(make([]int, 0, n+left), a.opIdx...)
	}
	a.operands = append(a.operands, ws[j])
	a.opIdx = append(a.opIdx, j)
}

// oldOptions spells an old-style first argument ("czf") as the options
// it is ("-c", "-z", "-f"), each value option followed by the next of the
// arguments after the cluster, in order (tar cfb FILE 20).
func oldOptions(ws []parse.Word, valueOpts []string) []parse.Word {
	if len(ws) == 0 || ws[0].Text == "" || strings.HasPrefix(ws[0].Text, "-") || !ws[0].IsKnown() {
		return ws
	}
	for _, r := range ws[0].Text {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return ws
		}
	}
	out := make([]parse.Word, 0, len(ws)+len(ws[0].Text))
	next := 1
	for _, r := range ws[0].Text {
		opt := "-" + string(r)
		out = append(out, parse.Word{Text: opt})
		if slices.Contains(valueOpts, opt) && next < len(ws) {
			out = append(out, ws[next])
			next++
		}
	}
	return append(out, ws[next:]...)
}

// longOptions lists the long options ("--force") the rules name for the
// command, anywhere: an argument that is one of them exactly is never
// read as an abbreviation of another.
func (c *CmdSpec) longOptions() []string {
	c.longOnce.Do(func() { c.long = c.listLongOptions() })
	return c.long
}

// listLongOptions is longOptions, listed anew.
func (c *CmdSpec) listLongOptions() []string {
	lists := [][]string{c.ValueOptions, c.DirOptions, c.SplitOptions, c.ArgFileOptions, c.ExecFlags, c.CodeFlags, c.FileFlags, c.StreamWhen}
	for _, t := range c.OptionCode {
		lists = append(lists, t.Options)
	}
	for _, e := range c.Effects {
		lists = append(lists, e.Options, e.When, e.Unless, e.ValueOf, e.Filter, e.Recursive, e.Ignored)
	}
	var out []string
	for _, l := range lists {
		for _, o := range l {
			if strings.HasPrefix(o, "--") {
				out = append(out, o)
			}
		}
	}
	return out
}

// abbrev returns the long options of opts that t ("--in-pl",
// "--in-pl=x") may abbreviate ([parse.Abbreviates]): none when t is one
// the rules know exactly.
func (a *args) abbrev(t string, opts []string) []string {
	return parse.Abbreviates(t, opts, a.known)
}

// addAbbrev reads ws[j], an abbreviation of value options, and returns
// the index of the last word it took. Its value is given after "=" or is
// the next word; the next word is then also kept as an operand, as the
// abbreviation may stand for a flag too: a wrong guess must not hide an
// operand from judgement.
func (a *args) addAbbrev(ws []parse.Word, j int, valueOpts []string) int {
	t := ws[j].Text
	a.flags = append(a.flags, t)
	a.next = append(a.next, "")
	_, val, glued := strings.Cut(t, "=")
	for _, opt := range a.abbrev(t, valueOpts) {
		switch {
		case glued:
			a.addValue(opt, parse.Word{Text: val, Vars: ws[j].Vars, Computed: ws[j].Computed})
		case j+1 < len(ws):
			a.addValue(opt, ws[j+1])
		}
	}
	return j
}

// addValue adds values to option opt's.
func (a *args) addValue(opt string, values ...parse.Word) {
	if a.values == nil {
		a.values = map[string][]parse.Word{}
	}
	a.values[opt] = append(a.values[opt], values...)
}

// has reports whether one of flags was given, also inside a cluster of
// short options ("-r" in "-rf"), with a value ("--force=..."), or
// abbreviated ("--forc", see [args.abbrev]).
func (a *args) has(flags []string) bool {
	if a.hasExact(flags) {
		return true
	}
	for _, f := range a.flags {
		if len(a.abbrev(f, flags)) > 0 {
			return true
		}
	}
	return false
}

// hasExact is has without abbreviations: for the options that make an
// effect harmless, which a prefix is never taken as.
func (a *args) hasExact(flags []string) bool {
	for _, f := range a.flags {
		for _, want := range flags {
			if f == want || strings.HasPrefix(f, want+"=") || parse.InCluster(f, want) {
				return true
			}
		}
	}
	return false
}

// unless reports whether one of flags, which make an effect harmless
// (-n, --dry-run), is present as written (never abbreviated), switched
// on, and not undone: a "--no-" form of any of them anywhere, abbreviated
// or not (git push --dry-run --no-dry-run pushes: the last wins), leaves
// the effect as it is, whichever came last. So does a value that does
// not switch it on ([switchedOn]).
func (a *args) unless(flags []string) bool {
	if !a.hasOn(flags) {
		return false
	}
	var undo []string
	for _, want := range flags {
		if long, ok := strings.CutPrefix(want, "--"); ok {
			undo = append(undo, "--no-"+long)
		}
	}
	return !a.has(undo)
}

// hasOn is hasExact for flags given switched on: not --dry-run=false,
// nor --dry-run followed by a word that switches it off (npm's parser,
// nopt, takes --dry-run false as the flag's value). A value option
// counts with any value.
func (a *args) hasOn(flags []string) bool {
	for i, f := range a.flags {
		for _, want := range flags {
			switch {
			case f == want:
				if strings.HasPrefix(want, "--") && i < len(a.next) && switchedOff(a.next[i]) {
					continue
				}
				return true
			case parse.InCluster(f, want):
				return true
			case strings.HasPrefix(f, want+"="):
				if _, valued := a.values[want]; valued || switchedOn(f[len(want)+1:]) {
					return true // a value option's value is no switch (--repo=x)
				}
			}
		}
	}
	return false
}

// switchedOn reports whether an option's value ("--dry-run=VALUE")
// switches it on, as the parsers of the tools read it (nopt, pflag, Go's
// flag, kubectl's and helm's --dry-run=client|server). Any other value,
// false among them, is not taken as the option.
func switchedOn(v string) bool {
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on", "t", "y", "client", "server":
		return true
	}
	return false
}

// switchedOff reports whether a word after a boolean option may be read
// as its value switching it off (npm publish --dry-run false).
func switchedOff(v string) bool {
	switch strings.ToLower(v) {
	case "false", "0", "no", "off", "f", "n", "none":
		return true
	}
	return false
}

// firstMatches reports whether the first operand matches one of globs;
// no globs is true.
func (a *args) firstMatches(globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	if len(a.operands) == 0 {
		return false
	}
	return a.anyGlob(globs, a.operands[0].Text)
}

// valueMatches reports whether a value of one of opts matches one of
// globs or is unknown; no globs is true.
func (a *args) valueMatches(opts, globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, opt := range opts {
		for _, v := range a.values[opt] {
			if !v.IsKnown() || v.Computed && !fileSystemPath(v.Text) || a.anyGlob(globs, v.Text) {
				return true
			}
		}
	}
	return false
}

// fileSystemPath reports whether a value is a file-system path by its
// form (C:\x, \\server\share, /x): whatever variable made it, it is no
// other provider's (env:, HKLM:).
func fileSystemPath(s string) bool {
	switch {
	case strings.HasPrefix(s, `\\`), strings.HasPrefix(s, "/"):
		return true
	case len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/'):
		c := s[0] | 0x20
		return 'a' <= c && c <= 'z'
	}
	return false
}

// lastMatches reports whether the last operand matches one of globs; no
// globs is true.
func (a *args) lastMatches(globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	return len(a.operands) > 0 && a.anyGlob(globs, a.operands[len(a.operands)-1].Text)
}

// anyGlob is anyGlobMatch, ignoring case when a.fold is set.
func (a *args) anyGlob(globs []string, s string) bool {
	if !a.fold {
		return anyGlobMatch(globs, s)
	}
	s = strings.ToLower(s)
	for _, g := range globs {
		if ok, _ := matchGlob(strings.ToLower(g), s); ok {
			return true
		}
	}
	return false
}

func anyGlobMatch(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := matchGlob(g, s); ok {
			return true
		}
	}
	return false
}

// anyMatches reports whether some operand matches one of globs; no globs
// is true.
func (a *args) anyMatches(globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, op := range a.operands {
		if a.anyGlob(globs, op.Text) {
			return true
		}
	}
	return false
}

// AnyCommand names the rules whose effects apply, besides the default
// ones, to every command the rules do not name.
const AnyCommand = "*"

// lookup finds the spec for a command, descending into subcommands. It
// returns the spec and the arguments after the command or subcommand.
func (s *Set) lookup(e *Env, c *parse.Command) (*command, []parse.Word, string) {
	var cmd *command
	if e.Windows {
		cmd = s.winCommand(c)
	} else {
		cmd = s.command(c.Name())
	}
	if cmd == nil {
		return nil, c.Args[1:], c.Dir
	}
	rest := c.Args[1:]
	dir := c.Dir
	for cmd.subs != nil {
		a := split(cmd.spec, rest, e.Windows)
		for _, opt := range cmd.spec.DirOptions {
			for _, v := range a.values[opt] {
				dir = e.resolve(v.Text, dir, false)
			}
		}
		if len(a.operands) == 0 {
			return cmd, rest, dir
		}
		sub, idx := a.operands[0], a.opIdx[0]
		if idx < 0 {
			return cmd, rest, dir
		}
		next := cmd.subs[sub.Text]
		if next == nil && e.Windows {
			next = cmd.subs[strings.ToLower(sub.Text)]
		}
		if next == nil {
			next = cmd.subs["*"]
		}
		if next == nil {
			return cmd, rest[idx+1:], dir
		}
		after := rest[idx+1:]
		if cmd.spec.LeadingOptions {
			after = slices.Concat(rest[:idx], after)
		}
		cmd, rest = next, after
	}
	return cmd, rest, dir
}

// effects lists what command i does.
func (s *Set) effects(e *Env, c *parse.Command, i int, up *parse.Command) []Effect {
	var out []Effect
	e.of(c)
	for _, r := range c.Redirs {
		out = append(out, s.redirEffect(e, c, i, r))
	}
	if len(c.Args) == 0 {
		return out
	}
	cmd, rest, dir := s.lookup(e, c)
	if c.Function {
		return out
	}
	if cmd == nil {
		// A command the rules do not name: its path-like operands are
		// read, and the effects of the command named "*" apply to it.
		out = append(out, s.defaultEffects(e, c, i, rest, dir)...)
		if cmd = s.command(AnyCommand); cmd == nil || e.Windows || c.Name() == "" {
			return out
		}
	} else if len(cmd.spec.Effects) == 0 && cmd.spec.Operands != "none" {
		return append(out, s.defaultEffects(e, c, i, rest, dir)...)
	}
	a := split(cmd.spec, withoutEmbedded(rest, cmd.spec.ExecFlags), e.Windows)
	for _, opt := range cmd.spec.DirOptions {
		for _, v := range a.values[opt] {
			dir = e.resolve(v.Text, dir, false)
		}
	}
	piped := pipedPaths(c, up)
	for _, spec := range cmd.spec.Effects {
		if piped != nil && (spec.Targets == "options" || spec.Targets == "operands") && len(spec.Options) > 0 && pipedTo(cmd.spec, spec.Options[0]) && noTargets(spec, &a) {
			// Remove-Item with its paths piped in (Get-ChildItem X |
			// Remove-Item): what lies in the paths the pipeline started
			// from.
			if a.values == nil {
				a.values = map[string][]parse.Word{}
			}
			a.values[spec.Options[0]] = piped
			a.flags = append(a.flags, spec.Recursive...)
		}
		if spec.WhenUnsafeKey && !unsafeGitWrite(s.gitSafe, &a) {
			continue
		}
		if len(spec.When) > 0 && !a.has(spec.When) || a.unless(spec.Unless) || !a.firstMatches(spec.WhenFirst) || !a.anyMatches(spec.WhenArg) || spec.Alone && (len(a.operands) > 0 || len(a.values) > 0) || spec.NoOperands && len(a.operands) > 0 || !a.lastMatches(spec.WhenLast) || !a.valueMatches(spec.ValueOf, spec.WhenValue) {
			continue
		}
		out = append(out, s.specEffects(e, spec, &a, i, dir, c.Assigns)...)
	}
	return out
}

// withoutEmbedded drops the commands that exec flags start (find -exec
// CMD ... ; or +, fd -x CMD ...): their arguments are the embedded
// command's, judged as its own command, not the carrier's options.
func withoutEmbedded(ws []parse.Word, execFlags []string) []parse.Word {
	if len(execFlags) == 0 {
		return ws
	}
	var out []parse.Word
	for j := 0; j < len(ws); j++ {
		if !slices.Contains(execFlags, ws[j].Text) {
			out = append(out, ws[j])
			continue
		}
		for j++; j < len(ws) && ws[j].Text != ";" && ws[j].Text != "+"; j++ {
		}
	}
	return out
}

func (s *Set) specEffects(e *Env, spec *EffectSpec, a *args, i int, dir string, assigns []string) []Effect {
	base := Effect{Kind: spec.Effect, Cmd: i, Recursive: a.has(spec.Recursive) || slices.Contains(spec.Recursive, "*"), Ignored: a.has(spec.Ignored), Dirs: a.has([]string{"-d"}) || len(a.operands) > 0, Selected: len(spec.Filter) > 0}
	for _, opt := range spec.Filter {
		for _, v := range a.values[opt] {
			base.Filter = v.Text
		}
	}
	if spec.Effect == "push-to" {
		base.Dir = dir
	}
	if spec.Targets == "repo-file" {
		return s.repoFiles(e, base, spec.Options, dir)
	}
	words, whole := selectTargets(spec, a)
	if len(spec.Implied) > 0 && len(words) == 0 && !whole {
		words = e.implied(spec.Implied, assigns)
	}
	if spec.Effect == "discard-changes" || spec.Effect == "git-clean" {
		for _, w := range words {
			if strings.HasPrefix(w.Text, ":") || strings.ContainsAny(w.Text, "*?[") {
				whole = true // pathspec magic or a glob: judged as the whole repository
			}
		}
	}
	if whole {
		return []Effect{s.repoEffect(e, base, dir)}
	}
	if words == nil {
		base.Class = ClassNone
		return []Effect{base}
	}
	var out []Effect
	for _, w := range words {
		if w.Text == "" {
			continue // rm "" removes nothing
		}
		if spec.Remote && isRemote(w.Text) {
			eff := base
			eff.Kind = "upload"
			eff.Raw, eff.Class = w.String(), s.hostClass(w.Text)
			out = append(out, eff)
			continue
		}
		if spec.Remote && spec.Effect == "upload" {
			continue
		}
		if pathless[spec.Effect] {
			eff := base
			eff.Raw, eff.Class = w.String(), s.hostClass(w.Text)
			if (eff.Kind == "network" || eff.Kind == "download") && !w.IsKnown() {
				eff.Kind = "upload" // data computed at run time rides in the address
			}
			if spec.Effect == "secret-env" && s.credentialSet(e, w.Text) {
				eff.Raw, eff.Class = "$"+w.Text, ClassCred
			}
			out = append(out, eff)
			continue
		}
		switch spec.Effect {
		case "read":
			w.Text = dataFile(w.Text)
		case "mount":
			host, _, _ := strings.Cut(w.Text, ":")
			if strings.Contains(w.Text, "=") { // --mount type=bind,src=/x,dst=/y
				host = ""
				for _, kv := range strings.Split(w.Text, ",") {
					if k, v, ok := strings.Cut(kv, "="); ok && (k == "src" || k == "source") {
						host = v
					}
				}
			}
			if !strings.ContainsAny(host, "/~.") {
				continue // a named volume, not a host path
			}
			w.Text = host
		}
		out = append(out, s.target(e, base, w, dir))
	}
	return out
}

// pipedPaths returns, for a PowerShell command reading a pipeline, the
// objects it receives: what the walker knows of them (the items of
// Get-ChildItem C:\x, a string), else one unknown word. Nil when nothing
// is piped in.
func pipedPaths(c, up *parse.Command) []parse.Word {
	if c.Dialect != parse.PowerShell {
		return nil
	}
	if len(c.Input) > 0 {
		return c.Input
	}
	if up == nil {
		return nil
	}
	return []parse.Word{{Text: parse.Unknown, Computed: true}}
}

// pathless effects name things that are not files: branches, URLs.
var pathless = map[string]bool{
	"delete-branch": true, "rewrite-remote": true, "drop-stash": true,
	"network": true, "download": true, "privilege": true, "persist": true,
	"secret-cmd": true, "remote-code": true, "rewrite-history": true,
	"upload": true, "publish": true, "secret-env": true, "destroy-remote": true, "push-to": true, "fetch-from": true,
	"create-branch": true, "branch-from": true, "switch-branch": true, "merge-branch": true, "push-branch": true, "push-default": true, "push-setting": true,
	"set-default": true, "rename-branch": true,
	"wipe": true, "disable-protection": true, "env-dump": true,
}

// hostClass classifies the target of a network effect: a URL or host on
// this machine under every reading of it ([nethost.Local]) is ClassLocal,
// a cloud metadata service under some reading ClassMetadata. A bare
// decimal number up to 65535 is a port (nc host 80), not an address.
func (set *Set) hostClass(s string) string {
	for _, h := range nethost.Hosts(s) {
		for _, m := range set.paths.MetadataHosts {
			if nethost.Same(h, m) || nethost.Same(h, "["+m+"]") {
				return ClassMetadata
			}
		}
	}
	if _, err := strconv.ParseUint(s, 10, 16); err == nil && (s == "0" || s[0] != '0') {
		return ClassLocal
	}
	if nethost.Local(s) {
		return ClassLocal
	}
	return ClassNone
}

// dataFile returns the file named by a data argument in the "@file" and
// "name=@file" conventions (curl -d @file, -F f=@file), or the argument.
func dataFile(s string) string {
	if i := strings.Index(s, "=@"); i >= 0 && !strings.HasPrefix(s, "@") {
		return s[i+2:]
	}
	return strings.TrimPrefix(s, "@")
}

// selectTargets picks the words an effect applies to; whole is set for
// the whole repository.
func selectTargets(spec *EffectSpec, a *args) (words []parse.Word, whole bool) {
	ops := a.operands
	switch spec.Targets {
	case "none":
		return nil, false
	case "repo":
		return nil, true
	case "first":
		return ops[:min(1, len(ops))], false
	case "last":
		if len(ops) > 0 {
			return ops[len(ops)-1:], false
		}
		return []parse.Word{}, false
	case "all-but-last":
		if len(ops) > 1 {
			return ops[:len(ops)-1], false
		}
		return []parse.Word{}, false
	case "rest":
		if len(ops) > 1 {
			return ops[1:], false
		}
		return []parse.Word{}, false
	case "first-or-dot":
		if len(ops) == 0 {
			return []parse.Word{{Text: "."}}, false
		}
		return ops[:1], false
	case "operands-or-repo":
		if len(ops) == 0 {
			return nil, true
		}
		return ops, false
	case "after-dashdash":
		if a.dashdash >= 0 {
			return ops[a.dashdash:], false
		}
		return []parse.Word{}, false
	case "options":
		return optionTargets(spec, a), false
	case "unknown":
		// What the command acts on comes at run time (a remote helper
		// reads its refspecs from its input).
		return []parse.Word{{Text: parse.Unknown, Computed: true}}, false
	}
	if len(ops) == 0 && len(spec.Options) == 0 {
		return []parse.Word{}, false
	}
	return append(optionTargets(spec, a), ops...), false
}

// optionTargets returns the values of target options, including
// key=value operands such as dd's of=FILE.
func optionTargets(spec *EffectSpec, a *args) []parse.Word {
	out := []parse.Word{}
	for _, opt := range spec.Options {
		out = append(out, a.values[opt]...)
		if strings.HasSuffix(opt, "=") {
			for _, op := range a.operands {
				if v, ok := strings.CutPrefix(op.Text, opt); ok {
					out = append(out, parse.Word{Text: v, Vars: op.Vars})
				}
			}
		}
	}
	return out
}

func isRemote(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	host, _, ok := strings.Cut(s, ":")
	return ok && host != "" && !strings.Contains(host, "/")
}

// target resolves one word into an effect on a path, judged as one on
// a read-only place when the sandbox will not let the command write
// there.
func (s *Set) target(e *Env, base Effect, w parse.Word, dir string) Effect {
	return s.sandboxed(e, s.locate(e, base, w, dir))
}

// locate resolves one word into an effect on a path.
func (s *Set) locate(e *Env, base Effect, w parse.Word, dir string) Effect {
	eff := base
	eff.Raw = w.String()
	if !w.IsKnown() {
		if w.Under == "" {
			eff.Class = ClassUnknown
			if within(e.dirKey(dir), e.Workspace) && !e.absText(w.Text) && !strings.HasPrefix(w.Text, "~") {
				eff.Class = ClassWSUnknown
			}
			return eff
		}
		eff.Path, eff.Filter, eff.Recursive = w.Under, w.Filter, true
		eff.Raw = w.Under + "/" + cmpOr(w.Filter, "*")
	} else {
		eff.Path = e.resolve(w.Text, dir, base.Kind == "delete")
		if e.Windows && eff.Path != "" {
			// Windows programs expand wildcards themselves (del C:\*):
			// judged as what they match below their directory.
			if i := strings.LastIndexByte(eff.Path, '/'); i >= 0 && strings.ContainsAny(eff.Path[i+1:], "*?") {
				eff.Filter = eff.Path[i+1:]
				if eff.Filter == "*" || eff.Filter == "*.*" {
					eff.Filter = ""
					w.Under = "all"
				}
				eff.Path = eff.Path[:max(i, 1)]
			}
		}
	}
	if eff.Path == "" {
		eff.Class = ClassUnknown
		if s.credentialName(e, w.Text) {
			eff.Class = ClassCred
		}
		return eff
	}
	isDir := e.stat(eff.Path) == kindDir
	switch {
	case !w.IsKnown() || eff.Filter != "" || w.Under == "all":
		// Only what lies below the root (and matches the filter): judged
		// as anything down there.
		eff.Recursive = true
		below := "_"
		if eff.Filter != "" && !strings.ContainsAny(eff.Filter, "*?[") {
			below = eff.Filter
		}
		eff.Class = s.classify(e, filepath.Join(eff.Path, below))
		if eff.Filter == "" && eff.Kind == "delete" && e.Workspace != "" && eff.Path != e.Workspace && within(e.Workspace, eff.Path) {
			// Any child of an ancestor of the workspace may be the one
			// that holds it.
			eff.Class = ClassContainsW
		}
		if eff.Filter == "" && eff.Kind == "delete" {
			// Everything below the home directory or the root is as
			// much as the directory itself.
			if c := s.classify(e, eff.Path); c == ClassHome || c == ClassRoot {
				eff.Class = c
			}
		}
		return eff
	case eff.Kind == "overwrite" && isDir:
		// Writing into a directory replaces nothing there: it adds an
		// entry, judged by where that entry lies.
		eff.Kind = "modify"
		eff.Class = s.classify(e, filepath.Join(eff.Path, "_"))
		return eff
	}
	eff.Class = s.classify(e, eff.Path)
	if eff.Kind == "read" && isDir && eff.Class != ClassCred && s.holdsCredentials(e, eff.Path) {
		eff.Class = ClassCred
	}
	return eff
}

// credentialName reports whether a relative path, whose directory is not
// known, names credentials anyway: a home credential's path below the home
// directory (.ssh/id_ed25519) or a credential file name (id_rsa, .env).
func (s *Set) credentialName(e *Env, p string) bool {
	if e.Windows {
		p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	}
	p = strings.TrimPrefix(filepath.Clean(p), "./")
	for _, entry := range slices.Concat(s.pathsFor(e).Credentials, s.pathsFor(e).ReadableCredentials) {
		if e.Windows {
			entry = strings.ToLower(strings.ReplaceAll(entry, `\`, "/"))
		}
		rel, ok := strings.CutPrefix(entry, "~/")
		if ok && (p == rel || strings.HasPrefix(p, rel+"/")) {
			return true
		}
		if !pathEntry(entry) {
			if m, _ := filepath.Match(entry, filepath.Base(p)); m {
				return true
			}
		}
	}
	return false
}

// holdsCredentials reports whether dir contains credential files of the
// home directory, or settings files of it that hold credentials (reading
// dir recursively reads them). Answered once per directory and
// judgement: a script that greps its workspace a thousand times looks
// for the home's credential files in it once.
func (s *Set) holdsCredentials(e *Env, dir string) bool {
	if held, ok := e.creds[dir]; ok {
		return held
	}
	held := s.holdsCredentials1(e, dir)
	if e.creds == nil {
		e.creds = map[string]bool{}
	}
	e.creds[dir] = held
	return held
}

func (s *Set) holdsCredentials1(e *Env, dir string) bool {
	paths := s.pathsFor(e)
	readable := len(paths.Credentials)
	for i, entry := range slices.Concat(paths.Credentials, paths.ReadableCredentials) {
		if !strings.HasPrefix(entry, "~/") && !strings.HasPrefix(entry, "/") && !(e.Windows && winEntryIsPath(entry)) {
			continue
		}
		p := e.expandEntry(entry)
		if p == "" || strings.ContainsAny(p, "*?[") || !within(p, dir) || p == dir {
			continue
		}
		if i < readable && e.lstatExists(p) || i >= readable && s.holdsSecret(e, p) {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// repoEffect is an effect on the whole repository the command runs in.
func (s *Set) repoEffect(e *Env, base Effect, dir string) Effect {
	raw := dir
	dir = e.dirKey(dir)
	base.Path, base.Raw = dir, raw
	switch {
	case dir == "":
		base.Class = ClassUnknown
	case within(dir, e.Workspace):
		base.Path, base.Class = e.Workspace, ClassWorkspace
	default:
		base.Class = s.classify(e, dir)
		if base.Class != ClassScratch && base.Class != ClassCache {
			base.Class = ClassOutside
		}
	}
	return base
}

// repoFiles are effects on fixed files of the repository dir is in
// (git config writes .git/config).
func (s *Set) repoFiles(e *Env, base Effect, files []string, dir string) []Effect {
	top := e.dirKey(dir)
	if within(top, e.Workspace) {
		top = e.Workspace
	}
	var out []Effect
	for _, f := range files {
		out = append(out, s.target(e, base, parse.Word{Text: filepath.Join(top, f)}, dir))
	}
	return out
}

func (s *Set) redirEffect(e *Env, c *parse.Command, i int, r parse.Redir) Effect {
	kind := "modify"
	switch r.Op {
	case parse.RedirRead:
		kind = "read"
	case parse.RedirWrite:
		kind = "overwrite"
	case parse.RedirRW:
		kind = "rewrite"
	}
	return s.target(e, Effect{Kind: kind, Cmd: i}, r.Target, c.Dir)
}

// defaultEffects apply to commands the rules do not describe: operands
// that name existing files are read.
func (s *Set) defaultEffects(e *Env, c *parse.Command, i int, rest []parse.Word, dir string) []Effect {
	var out []Effect
	if !c.Args[0].IsKnown() {
		out = append(out, Effect{Kind: "unknown-command", Cmd: i, Raw: c.Args[0].String(), Class: ClassNone})
	}
	for _, w := range rest {
		if strings.HasPrefix(w.Text, "-") || w.Param || !w.IsKnown() || !e.looksLikePath(w.Text, dir) {
			continue
		}
		out = append(out, s.target(e, Effect{Kind: "read", Cmd: i}, w, dir))
	}
	return out
}

func (e *Env) looksLikePath(p, dir string) bool {
	if e.Windows {
		if strings.Contains(p, "://") {
			return false // a URL
		}
		if strings.ContainsAny(p, `\~:`) || strings.Contains(p, "/") && !strings.HasPrefix(p, "/") || strings.HasPrefix(p, ".") {
			return true
		}
		r := e.resolve(p, dir, true)
		return r != "" && e.lstatExists(r) && !e.Foreign
	}
	if strings.ContainsAny(p, "/~") {
		return true
	}
	if dir == "" {
		return false
	}
	_, err := os.Lstat(filepath.Join(dir, p))
	return err == nil
}

// dirKey returns a command's directory in the form workspace paths are
// compared in: canonical for Windows.
func (e *Env) dirKey(dir string) string {
	if e.Windows && dir != "" && !strings.HasPrefix(dir, "/") {
		return e.resolve(dir, "", true)
	}
	return dir
}

// absText reports whether an argument is written as an absolute path.
func (e *Env) absText(p string) bool {
	if e.Windows {
		return winpath.IsAbs(p) || strings.HasPrefix(p, `\`) || strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, "/")
}

// pipedTo reports whether what is piped into a PowerShell command binds
// to option opt: the command's first positional parameter, Remove-Item's
// -Path, takes it (Invoke-RestMethod's -OutFile does not).
func pipedTo(spec *CmdSpec, opt string) bool {
	if len(spec.Positional) == 0 {
		return false
	}
	first, _, _ := strings.Cut(spec.Positional[0], "|")
	return strings.EqualFold("-"+first, opt)
}

// noTargets reports whether an effect's spec finds no target in a's
// arguments: a PowerShell command then acts on what is piped in.
func noTargets(spec *EffectSpec, a *args) bool {
	words, whole := selectTargets(spec, a)
	return len(words) == 0 && !whole
}

// unsafeGitWrite reports whether git config with arguments a writes a
// key that is not safe: it sets or removes one (git config KEY VALUE,
// --unset KEY, --add, --replace-all, or git config set/unset KEY) not in
// safe, or one computed when the command runs, or edits the file or
// renames or removes a section (which the keys do not show). Reading
// (git config KEY, get, list) writes nothing.
func unsafeGitWrite(safe []string, a *args) bool {
	ops := a.operands
	key := func(w parse.Word) bool { return !w.IsKnown() || w.Computed || !gitkey.Safe(safe, w.Text) }
	if a.has([]string{"-e", "--edit", "--rename-section", "--remove-section"}) {
		return true
	}
	if len(ops) == 0 {
		return false
	}
	switch ops[0].Text {
	case "edit", "rename-section", "remove-section":
		return true
	case "set", "unset":
		return len(ops) < 2 || key(ops[1])
	case "get", "list":
		return false
	}
	if !ops[0].IsKnown() || ops[0].Computed {
		return true
	}
	if a.has([]string{"--unset", "--unset-all"}) || len(ops) >= 2 {
		return key(ops[0])
	}
	return false
}

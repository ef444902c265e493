package rules

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cordonsh/cordon/credvar"
	"github.com/cordonsh/cordon/parse"
)

//go:generate go run ./internal/genrules -o zbuiltin.go builtin

// A Set is a compiled, immutable rule set: safe for concurrent use.
type Set struct {
	// table, for the built-in rules, builds commands on first use.
	table *table
	lazy  sync.Map // name → *command (nil for none), built from table

	paths       PathClasses
	winPaths    PathClasses // paths for Windows: see [File.WindowsPaths]
	credVars    []string
	credWords   []string
	credValues  []string
	envCode     map[string]string
	secretWords []string
	gitSafe     []string
	gitPrograms []string
	commands    map[string]*command // by name; Windows namespaces prefixed (see Namespaces)
	policies    []*Policy
	approved    []Approved
	network     NetworkRules
	credKinds   []CredentialKind
	wrappers    []Wrapper // only the built-in rules': see [File.Wrappers]

	wrapOnce sync.Once
	compiled []*compiledWrapper // wrappers, compiled by [Set.Unwrap]

	win   winClasses // built on first use
	creds struct {
		once sync.Once
		m    *credvar.Matcher
	}

	// floor, when set, judges every script too: see [Set.WithFloor].
	floor *Set
}

// command is a compiled [CmdSpec]. Its carrier, with the regular
// expressions of its code patterns, is built on first use: most
// invocations never meet an interpreter.
type command struct {
	spec   *CmdSpec
	stream *parse.Stream
	subs   map[string]*command
	kind   parse.CarrierKind
	file   string

	once       sync.Once
	carrier    *parse.Carrier
	carrierErr error
}

// carrierOf returns how the command carries code, building it once.
func (c *command) carrierOf() (*parse.Carrier, error) {
	c.once.Do(func() { c.carrier, c.carrierErr = buildCarrier(c.spec, c.kind) })
	return c.carrier, c.carrierErr
}

func buildCarrier(spec *CmdSpec, kind parse.CarrierKind) (*parse.Carrier, error) {
	trans, err := compileTranslations(spec.Translate)
	if err != nil {
		return nil, err
	}
	optCode, err := compileTranslations(spec.OptionCode)
	if err != nil {
		return nil, err
	}
	rewrites, err := compileRewrites(spec.Rewrite)
	if err != nil {
		return nil, err
	}
	runFiles, err := compileTranslations(spec.RunFiles)
	if err != nil {
		return nil, err
	}
	if kind == parse.CarryNone && len(optCode) == 0 && len(spec.Runs) == 0 && len(runFiles) == 0 {
		return nil, nil
	}
	return &parse.Carrier{
		Kind: kind, ValueOptions: spec.ValueOptions, DirOptions: spec.DirOptions,
		SplitOptions: spec.SplitOptions, Skip: spec.Skip, Subs: spec.Subs, Assigns: spec.Assigns,
		Privileged: spec.Privileged, StdinArgs: spec.StdinArgs, ExecFlags: spec.ExecFlags,
		CodeFlags: spec.CodeFlags, FileFlags: spec.FileFlags, DefaultFiles: spec.DefaultFiles, CodeOperand: spec.CodeOperand, CodeAnywhere: spec.CodeAnywhere, Rewrites: rewrites,
		Translations: trans, OptionCode: optCode, Runs: spec.Runs, RunFiles: runFiles,
		InShell: spec.InShell, Later: spec.Later, NotRun: spec.NotRun, ArgSeparators: spec.ArgSeparators,
		ArgFileSeparators: spec.ArgFileSeparators, Replacements: spec.Replacements, ArgFileOptions: spec.ArgFileOptions,
	}, nil
}

// A LoadError is a problem in a rule file, with its position.
type LoadError struct {
	File string
	Line int
	Msg  string
}

// Error returns "file:line: message".
func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Builtin returns the built-in rules: the YAML files in builtin/,
// decoded at build time into zbuiltin.go so that no YAML is parsed when a
// shim starts. It panics only if those rules do not compile, which tests
// rule out.
func Builtin() *Set {
	t := &builtinTable
	return &Set{
		table: t, paths: t.paths, winPaths: t.winPaths, credVars: t.credVars, credWords: t.credWords, credValues: t.credValues, secretWords: t.secretWords,
		gitSafe: t.gitSafe, gitPrograms: t.gitPrograms, envCode: t.envCode, policies: t.policies, network: t.network, wrappers: t.wrappers,
		credKinds: t.credKinds,
	}
}

// A table is rules laid out for a shim's start by genrules: path classes,
// variables and policies merged in file order, and a sorted index of
// commands whose specs are built only when a command is met. Most of it
// is static data: a shim that judges `git status` builds one command.
type table struct {
	paths       PathClasses
	winPaths    PathClasses
	credVars    []string
	credWords   []string
	credValues  []string
	secretWords []string
	gitSafe     []string
	gitPrograms []string
	envCode     map[string]string
	policies    []*Policy
	network     NetworkRules
	credKinds   []CredentialKind
	wrappers    []Wrapper
	commands    []tableEntry // sorted by name
}

// A tableEntry is one command name (or alias) of the built-in rules.
type tableEntry struct {
	name, file, key string
	spec            func() *CmdSpec
}

// Paths returns the path classes of the rules.
func (s *Set) Paths() PathClasses { return s.paths }

// GitConfigSafe returns the globs of git configuration keys that never
// make git run a program (see [File.GitConfigSafe] and package gitkey).
func (s *Set) GitConfigSafe() []string { return s.gitSafe }

// GitConfigPrograms returns the globs of git configuration keys whose
// value names a program git runs (see [File.GitConfigPrograms]).
func (s *Set) GitConfigPrograms() []string { return s.gitPrograms }

// Network returns the destinations allowed and denied, every layer's
// entries together (see [File.Network]).
func (s *Set) Network() NetworkRules { return s.network }

// CredentialKinds returns the credential variables the sandbox holds by
// placeholder, each with its hosts, every layer's entries together (see
// [File.Credentials]).
func (s *Set) CredentialKinds() []CredentialKind { return s.credKinds }

// CredentialVars returns the globs of environment variable names that
// hold credentials.
func (s *Set) CredentialVars() []string { return s.credVars }

// CredentialWords returns the words that, as a word part of a variable's
// name, mark it as holding credentials.
func (s *Set) CredentialWords() []string { return s.credWords }

// CredentialValues returns the regular expressions of values that hold
// credentials whatever the variable's name (see [File.CredentialValues]).
func (s *Set) CredentialValues() []string { return s.credValues }

// Credentials returns the matcher of credential variables.
func (s *Set) Credentials() *credvar.Matcher { return s.credentials() }

// Approved reports whether a person approved the exact command text in
// dir with an approved entry (see [File.Approved]).
func (s *Set) Approved(command, dir string) bool {
	for _, a := range s.approved {
		if a.Command == command && a.Dir == dir {
			return true
		}
	}
	return false
}

// credentials returns the matcher of credential variables.
func (s *Set) credentials() *credvar.Matcher {
	s.creds.once.Do(func() { s.creds.m = credvar.New(s.credVars, s.credWords, s.credValues) })
	return s.creds.m
}

// command returns the compiled command named name, or nil.
func (s *Set) command(name string) *command {
	if c, ok := s.commands[name]; ok || s.table == nil {
		return c
	}
	if c, ok := s.lazy.Load(name); ok {
		return c.(*command)
	}
	var c *command
	cmds := s.table.commands
	if i, found := slices.BinarySearchFunc(cmds, name, func(e tableEntry, n string) int { return strings.Compare(e.name, n) }); found {
		var err error
		if c, err = compile(cmds[i].file, cmds[i].key, cmds[i].spec()); err != nil {
			panic("cordon bug: built-in rules do not compile: " + err.Error())
		}
	}
	// Two callers may compile it at once: both are the same command,
	// and every caller gets the one stored first.
	got, _ := s.lazy.LoadOrStore(name, c)
	return got.(*command)
}

// Compile compiles decoded rule files (names give their paths, for
// errors) into a set, checking everything a file can get wrong that
// decoding cannot: unknown effects, targets and verdicts, patterns that do
// not compile, commands defined twice.
func Compile(names []string, files []*File) (*Set, error) {
	s, err := compileFiles(names, files)
	if err != nil {
		return nil, err
	}
	for name, c := range s.commands {
		if _, err := c.carrierOf(); err != nil {
			return nil, &LoadError{File: c.file, Msg: fmt.Sprintf("command %q: %v", name, err)}
		}
	}
	return s, nil
}

func compileFiles(names []string, files []*File) (*Set, error) {
	s := &Set{commands: make(map[string]*command, 1024)}
	for i, f := range files {
		if err := s.add(names[i], f); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// add compiles one decoded rule file into s.
func (s *Set) add(name string, f *File) error {
	s.paths = mergePaths(s.paths, f.Paths)
	s.winPaths = mergePaths(s.winPaths, f.WindowsPaths)
	s.credVars = append(s.credVars, f.CredentialVars...)
	s.credWords = append(s.credWords, f.CredentialWords...)
	if err := checkValues(name, f.CredentialValues); err != nil {
		return err
	}
	s.credValues = append(s.credValues, f.CredentialValues...)
	s.secretWords = append(s.secretWords, f.SecretWords...)
	s.gitSafe = append(s.gitSafe, f.GitConfigSafe...)
	s.gitPrograms = append(s.gitPrograms, f.GitConfigPrograms...)
	s.approved = append(s.approved, f.Approved...)
	s.network = addNetwork(s.network, f.Network)
	kinds, err := addKinds(name, s.credKinds, f.Credentials)
	if err != nil {
		return err
	}
	s.credKinds = kinds
	for _, w := range f.Wrappers {
		if _, err := compileWrapper(w); err != nil {
			return &LoadError{File: name, Msg: err.Error()}
		}
		s.wrappers = append(s.wrappers, w)
	}
	for k, v := range f.EnvCode {
		if v != "script" && v != "file" && v != "library" {
			return &LoadError{File: name, Msg: fmt.Sprintf("env_code %s: %q is not script, file or library", k, v)}
		}
		if s.envCode == nil {
			s.envCode = map[string]string{}
		}
		s.envCode[k] = v
	}
	for _, ns := range Namespaces(f) {
		for cmdName, spec := range ns.Commands {
			c, err := compile(name, cmdName, spec)
			if err != nil {
				return err
			}
			for _, n := range append([]string{cmdName}, spec.Aliases...) {
				key := ns.Key(n)
				if _, dup := s.commands[key]; dup {
					return &LoadError{File: name, Msg: fmt.Sprintf("command %q is defined twice", ns.Prefix+n)}
				}
				s.commands[key] = c
			}
		}
	}
	for _, p := range f.Policies {
		if err := checkPolicy(name, p); err != nil {
			return err
		}
		s.policies = append(s.policies, p)
	}
	return nil
}

func mergePaths(a, b PathClasses) PathClasses {
	mergeEach(&a, &b, func(string) bool { return true })
	return a
}

var carrierKinds = map[string]parse.CarrierKind{
	"": parse.CarryNone, "exec": parse.CarryExec, "shell": parse.CarryShell,
	"eval": parse.CarryEval, "source": parse.CarrySource, "find": parse.CarryFind,
	"interp": parse.CarryInterp, "remote": parse.CarryRemote,
}

var streamFilters = map[string]parse.Filter{
	"": parse.FilterNone, "echo": parse.FilterEcho, "printf": parse.FilterPrintf,
	"cat": parse.FilterCat, "base64": parse.FilterBase64, "hex": parse.FilterHex,
	"rev": parse.FilterRev, "pwd": parse.FilterPwd, "dirname": parse.FilterDirname,
	"basename": parse.FilterBasename, "realpath": parse.FilterRealpath,
	"tr": parse.FilterTr, "mktemp": parse.FilterMktemp, "symlink": parse.FilterSymlink, "copy": parse.FilterCopy, "setup": parse.FilterSetup,
}

func compile(file, name string, spec *CmdSpec) (*command, error) {
	bad := func(format string, args ...any) error {
		return &LoadError{File: file, Msg: fmt.Sprintf("command %q: ", name) + fmt.Sprintf(format, args...)}
	}
	kind, ok := carrierKinds[spec.Carries]
	if !ok {
		return nil, bad("unknown carries %q (want exec, shell, eval, source, find, interp or remote)", spec.Carries)
	}
	filter, ok := streamFilters[spec.Stream]
	if !ok {
		return nil, bad("unknown stream %q", spec.Stream)
	}
	c := &command{spec: spec}
	if filter != parse.FilterNone {
		c.stream = &parse.Stream{Filter: filter, When: spec.StreamWhen}
	}
	c.kind, c.file = kind, file
	for _, e := range spec.Effects {
		if !knownEffects[e.Effect] {
			return nil, bad("unknown effect %q", e.Effect)
		}
		if !knownTargets[e.Targets] {
			return nil, bad("effect %s: unknown targets %q", e.Effect, e.Targets)
		}
	}
	if len(spec.Subcommands) > 0 {
		c.subs = map[string]*command{}
		for sub, sspec := range spec.Subcommands {
			if len(sspec.ValueOptions) == 0 {
				sspec.ValueOptions = spec.ValueOptions
			}
			if len(sspec.EndOfOptions) == 0 {
				sspec.EndOfOptions = spec.EndOfOptions
			}
			sc, err := compile(file, name+" "+sub, sspec)
			if err != nil {
				return nil, err
			}
			for _, n := range append([]string{sub}, sspec.Aliases...) {
				c.subs[n] = sc
			}
		}
	}
	return c, nil
}

func compileTranslations(ts []Translate) ([]parse.Translation, error) {
	var out []parse.Translation
	for _, t := range ts {
		if len(t.SQL) > 0 && t.Pattern != "" {
			return nil, fmt.Errorf("pattern %q: give a pattern or sql, not both", t.Pattern)
		}
		re, err := regexp.Compile(t.Pattern)
		if err != nil {
			return nil, fmt.Errorf("pattern %q does not compile: %v", t.Pattern, err)
		}
		if (len(t.Argv) == 0) == (t.Shell == "") {
			return nil, fmt.Errorf("pattern %q: give exactly one of argv and shell", cmpOr(t.Pattern, strings.Join(t.SQL, ",")))
		}
		out = append(out, parse.Translation{File: t.File, Options: t.Options, Pattern: re, Argv: t.Argv, Shell: t.Shell, SQL: t.SQL})
	}
	return out, nil
}

func compileRewrites(rs []Rewrite) ([]parse.Rewrite, error) {
	var out []parse.Rewrite
	for _, r := range rs {
		re, err := regexp.Compile(r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("rewrite pattern %q does not compile: %v", r.Pattern, err)
		}
		out = append(out, parse.Rewrite{Pattern: re, With: r.With})
	}
	return out, nil
}

var knownEffects = map[string]bool{
	"delete": true, "overwrite": true, "modify": true, "read": true, "exec": true,
	"network": true, "upload": true, "download": true, "remote-code": true,
	"privilege": true, "persist": true, "discard-changes": true, "git-clean": true,
	"drop-stash": true, "delete-branch": true, "rewrite-remote": true,
	"rewrite-history": true, "secret-env": true, "secret-cmd": true,
	"unknown-code": true, "unknown-command": true, "syntax": true,
	"exfil": true, "destroy-remote": true, "publish": true, "env-dump": true, "checkpoint": true, "discard-saved": true, "stage-all": true, "commit": true, "mount": true, "remote-install": true, "rewrite": true, "push-to": true, "move": true, "self-policy": true, "unfollowed": true, "over-budget": true, "wipe": true, "disable-protection": true, "fetch-from": true,
	"push-stash": true, "pop-stash": true, "create-branch": true, "branch-from": true, "switch-branch": true, "merge-branch": true, "push-branch": true, "push-default": true, "push-setting": true, "set-default": true, "rename-branch": true,
}

var knownTargets = map[string]bool{
	"": true, "operands": true, "first": true, "last": true, "all-but-last": true,
	"rest": true, "after-dashdash": true, "operands-or-repo": true, "first-or-dot": true, "repo-file": true, "none": true, "repo": true, "options": true, "unknown": true,
}

var knownVerdicts = map[string]bool{"allow": true, "ask": true, "deny": true}

var knownCategories = map[string]bool{
	"": true, "destroy-ws": true, "outside": true, "secret": true,
	"network-exfil": true, "privileged": true,
}

func checkPolicy(file string, p *Policy) error {
	bad := func(format string, args ...any) error {
		return &LoadError{File: file, Msg: fmt.Sprintf("policy %q: ", p.ID) + fmt.Sprintf(format, args...)}
	}
	if p.ID == "" {
		return &LoadError{File: file, Msg: "a policy has no id"}
	}
	if !knownVerdicts[p.Verdict] {
		return bad("unknown verdict %q (want allow, ask or deny)", p.Verdict)
	}
	for _, c := range p.Category {
		if !knownCategories[c] {
			return bad("unknown category %q", c)
		}
	}
	for _, e := range p.Effect {
		if !knownEffects[e] {
			return bad("unknown effect %q", e)
		}
	}
	for _, t := range p.Target {
		if !knownClasses[t] {
			return bad("unknown target class %q", t)
		}
	}
	for _, st := range p.State {
		if !knownStates[st] {
			return bad("unknown state %q", st)
		}
	}
	return nil
}

var knownClasses = map[string]bool{
	ClassRoot: true, ClassHome: true, ClassWSRoot: true, ClassContainsW: true,
	ClassCred: true, ClassWSCred: true, ClassAutoRun: true, ClassWorkspace: true,
	ClassScratch: true, ClassCache: true, ClassAgent: true, ClassNetDev: true,
	ClassHarmless: true, ClassDevice: true, ClassSystem: true, ClassOutside: true,
	ClassUnknown: true, ClassNone: true, ClassLocal: true, ClassHistory: true,
	ClassMetadata: true, ClassWSUnknown: true, ClassCordon: true,
	ClassSibling: true, ClassReadOnly: true, ClassProgDir: true, ClassSSH: true, ClassRemote: true,
	ClassElsewhere: true,
}

var knownStates = map[string]bool{
	"absent": true, "recoverable": true, "regenerable": true, "uncommitted": true,
	"untracked": true, "irreplaceable": true, "unversioned": true, "stash": true,
	"unmerged": true, "unknown": true, "known": true, "foreign": true, "unseen": true, "local": true, "nodefault": true,
	"default": true, "branch": true,
}

// printsArgs reports whether the named command prints its arguments
// (echo, printf).
func (s *Set) printsArgs(name string) bool {
	c := s.command(name)
	return c != nil && c.stream != nil && (c.stream.Filter == parse.FilterEcho || c.stream.Filter == parse.FilterPrintf)
}

// EnvCode implements [parse.Knowledge].
func (s *Set) EnvCode(name string) parse.EnvCode {
	switch s.envCode[name] {
	case "script":
		return parse.EnvScript
	case "file":
		return parse.EnvFile
	case "library":
		return parse.EnvLibrary
	}
	return parse.EnvData
}

// Carrier implements [parse.Knowledge]. It panics if the command's code
// patterns do not compile, which [Compile] rules out for the files it
// compiles and the tests rule out for the built-in rules.
func (s *Set) Carrier(name string) *parse.Carrier {
	c := s.command(name)
	if c == nil {
		return nil
	}
	k, err := c.carrierOf()
	if err != nil {
		panic("cordon bug: rules for " + name + " do not compile: " + err.Error())
	}
	return k
}

// Stream implements [parse.Knowledge].
func (s *Set) Stream(name string) *parse.Stream {
	if c := s.command(name); c != nil {
		return c.stream
	}
	return nil
}

// A Namespace is one of a rule file's maps of commands. Windows names
// are looked up without regard to case, so their keys are in lower case
// and prefixed with the namespace.
type Namespace struct {
	// Prefix is "" for POSIX commands, "cmd:" for cmd.exe builtins,
	// "ps:" for PowerShell commands and "win:" for Windows programs.
	Prefix   string
	Commands map[string]*CmdSpec
}

// Key returns the key the command name is indexed by.
func (ns Namespace) Key(name string) string {
	if ns.Prefix == "" {
		return name
	}
	return ns.Prefix + strings.ToLower(name)
}

// Namespaces returns f's command maps.
func Namespaces(f *File) []Namespace {
	return []Namespace{
		{"", f.Commands}, {"cmd:", f.CmdBuiltins}, {"ps:", f.PowerShell}, {"win:", f.WindowsCommands},
	}
}

// addKinds returns a's credential kinds with b's added: a kind of a
// variable a has gets b's hosts too. The error is an entry of the file
// name without a variable or hosts, or with a host that is no name.
func addKinds(name string, a, b []CredentialKind) ([]CredentialKind, error) {
	if len(b) == 0 {
		return a, nil
	}
	out := slices.Clone(a)
	for _, k := range b {
		if err := checkKind(k); err != nil {
			return nil, &LoadError{File: name, Msg: err.Error()}
		}
		i := slices.IndexFunc(out, func(o CredentialKind) bool { return o.Env == k.Env })
		if i < 0 {
			out = append(out, CredentialKind{Env: k.Env, Hosts: slices.Clone(k.Hosts), Files: slices.Clone(k.Files)})
			continue
		}
		hosts := slices.Clone(out[i].Hosts)
		for _, h := range k.Hosts {
			if !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
		out[i] = CredentialKind{Env: k.Env, Hosts: hosts, Files: slices.Concat(out[i].Files, k.Files)}
	}
	return out, nil
}

// checkKind reports what is wrong with a credential kind.
func checkKind(k CredentialKind) error {
	if k.Env == "" || strings.ContainsAny(k.Env, "= \t\n") {
		return fmt.Errorf("credentials: %q is not a variable's name", k.Env)
	}
	if len(k.Hosts) == 0 {
		return fmt.Errorf("credentials: %s has no hosts", k.Env)
	}
	for _, h := range k.Hosts {
		name, _, _ := strings.Cut(strings.TrimPrefix(h, "["), "]")
		if h == "" || strings.ContainsAny(h, "/ \t\n@?#") || strings.Trim(name, "*.:") == "" {
			// "*" alone, or a URL, would send the credential anywhere.
			return fmt.Errorf("credentials: %s: %q is not a host name", k.Env, h)
		}
	}
	for _, f := range k.Files {
		if err := checkFile(f); err != nil {
			return fmt.Errorf("credentials: %s: files: %s: %v", k.Env, f.Path, err)
		}
	}
	return nil
}

// checkFile reports what is wrong with a credential file's patterns.
func checkFile(f CredentialFile) error {
	if !strings.HasPrefix(f.Path, "~/") && !strings.HasPrefix(f.Path, "/") && !strings.HasPrefix(f.Path, "$") {
		return errors.New("not a path from the home directory, the root or a variable")
	}
	secret, err := regexp.Compile(f.Secret)
	if err != nil {
		return fmt.Errorf("secret: %v", err)
	}
	if secret.SubexpIndex("value") < 0 {
		return errors.New(`secret has no group "value"`)
	}
	if secret.SubexpIndex("host") >= 0 {
		return nil
	}
	section, err := regexp.Compile(f.Section)
	if err != nil || f.Section == "" || section.SubexpIndex("host") < 0 {
		return errors.New(`neither secret nor section has a group "host"`)
	}
	return nil
}

// checkValues refuses a credential_values pattern that is not a regular
// expression.
func checkValues(name string, values []string) error {
	for _, v := range values {
		if err := credvar.CheckValues([]string{v}); err != nil {
			return &LoadError{File: name, Msg: fmt.Sprintf("credential_values %q: %v", v, err)}
		}
	}
	return nil
}

package rules

import "sync"

// The types in this file are the YAML rule language, version 1. They are
// decoded strictly: an unknown key is an error with its file and line.

// File is one rule file.
type File struct {
	Version  int                 `yaml:"version"`
	Paths    PathClasses         `yaml:"paths"`
	Commands map[string]*CmdSpec `yaml:"commands"`
	Policies []*Policy           `yaml:"policies"`
	// CredentialVars are globs of environment variable names that hold
	// credentials (*_TOKEN, AWS_SECRET_ACCESS_KEY).
	CredentialVars []string `yaml:"credential_vars"`
	// CredentialWords are lowercase words that mark a variable as holding
	// credentials when one is a word part of its name (DB_PASS,
	// npm_config_//registry.npmjs.org/:_authToken): see [credvar.Parts].
	CredentialWords []string `yaml:"credential_words"`
	// CredentialValues are regular expressions (RE2) of values that hold
	// credentials whatever the variable's name: the shapes of known
	// kinds of tokens (ghp_ and 36 letters and digits, sk_live_...,
	// -----BEGIN ... PRIVATE KEY-----). One matching anywhere in a
	// variable's value marks the variable as a credential.
	CredentialValues []string `yaml:"credential_values"`
	// SecretWords are lowercase words that, in a filter applied to an
	// environment dump (env | grep TOKEN), pick out credentials.
	SecretWords []string `yaml:"secret_words"`
	// EnvCode names environment variables whose value programs run as
	// shell code ("script": GIT_EDITOR) or source as a file ("file":
	// BASH_ENV).
	EnvCode map[string]string `yaml:"env_code"`
	// GitConfigSafe are globs of git configuration keys that never make
	// git run a program (user.*, branch.*.merge; "*" matches any run of
	// characters, case is ignored): a `git config` write of any other key
	// is judged (when_unsafe_key), and a sandboxed command's change to
	// any other key in the files of paths.git_config is undone.
	GitConfigSafe []string `yaml:"git_config_safe"`
	// GitConfigPrograms are globs of git configuration keys whose value
	// names a program git runs (core.fsmonitor, diff.*.textconv,
	// alias.* with "!"): when the program is a path inside the
	// workspace, named by any file of git's configuration, the sandbox
	// keeps that file read-only, or a command would rewrite what the
	// person's next git status runs. Layers add to the list.
	GitConfigPrograms []string `yaml:"git_config_programs"`
	// Approved are commands a person approved for good (`cordon approve
	// --always-here`): each allows its exact command text in its
	// directory when the verdict is ask; a deny stays a deny.
	Approved []Approved `yaml:"approved"`
	// Network are the destinations sandboxed commands may reach when
	// the network setting is allowlist (docs/network.md).
	Network NetworkRules `yaml:"network"`
	// Credentials are the credential variables the sandbox holds by a
	// placeholder that the network proxy swaps for the real value on
	// requests to the variable's own hosts (docs/network.md,
	// "Credentials used, never held"). A layer adds kinds, and hosts to
	// a kind of the same variable; a project's untrusted file may do
	// neither.
	Credentials []CredentialKind `yaml:"credentials"`
	// Wrappers are the scripts agents wrap the command their model
	// wrote in before a shell runs it with -c (see [Wrapper]). Only the
	// built-in rules name them: a wrapper decides what an approval is
	// bound to.
	Wrappers []Wrapper `yaml:"wrappers"`

	// WindowsPaths are path classes that apply when Windows commands are
	// judged, besides the entries of Paths that are not POSIX absolute
	// paths. Entries are Windows paths (C:\Windows, $SystemRoot\System32,
	// ~\AppData\Roaming\GitHub CLI, HKLM:\, \\.\NUL), compared
	// without regard to case.
	WindowsPaths PathClasses `yaml:"windows_paths"`
	// CmdBuiltins are cmd.exe's own commands (del, rd, copy, set):
	// looked up first, without regard to case, in cmd scripts.
	CmdBuiltins map[string]*CmdSpec `yaml:"cmd_builtins"`
	// PowerShell are PowerShell's commands, by their canonical names
	// (Remove-Item: the parser resolves aliases such as rm and ri),
	// looked up first, without regard to case, in PowerShell scripts.
	// Their Parameters, Switches and Positional describe how PowerShell
	// binds the arguments.
	PowerShell map[string]*CmdSpec `yaml:"powershell"`
	// WindowsCommands are Windows programs (reg, icacls, schtasks),
	// looked up without regard to case and without ".exe" in Windows
	// commands of any dialect, before Commands.
	WindowsCommands map[string]*CmdSpec `yaml:"windows_commands"`
}

// NetworkRules are destinations allowed and denied. An entry is HOST or
// HOST:PORTS: a name or a glob of names ("*.npmjs.org"), "*", an
// address or a CIDR range ("127.0.0.0/8", "[::1]"); PORTS is a port, a
// range ("8000-8999") or "*" (the default). A deny entry wins over an
// allow entry; a layer adds to both lists.
type NetworkRules struct {
	Allow []string `yaml:"allow"`
	Deny  []string `yaml:"deny"`
}

// A CredentialKind is one credential variable and the hosts it may go
// to: names or globs of names as in [NetworkRules], each with an
// optional ":PORT" (443 when none).
type CredentialKind struct {
	Env   string   `yaml:"env" json:"env"`
	Hosts []string `yaml:"hosts" json:"hosts"`
	// Files are the person's files that hold tokens of this kind too
	// (gh's hosts.yml): the sandbox sees each token as a placeholder
	// the broker swaps on requests to the token's host.
	Files []CredentialFile `yaml:"files" json:"files,omitempty"`
}

// A CredentialFile says where a file holds its tokens, and for which
// host: Secret is a regular expression matching a line that holds one
// (its group "value"), and the host it is for (its group "host"), or,
// when Secret has no "host", Section matches the line above that names
// it (gh's hosts.yml: "github.com:" then "  oauth_token: gho_..."). A
// token for one of its kind's hosts goes to all of them; one for
// another host, to that host only (the person's file names it; an
// agent cannot write the file). An optional group "path" limits the
// token to that path on the host and below it (an .npmrc's
// //HOST/PATH/:_authToken).
type CredentialFile struct {
	Path    string `yaml:"path" json:"path"`
	Section string `yaml:"section" json:"section,omitempty"`
	Secret  string `yaml:"secret" json:"secret"`
	// URLEscaped says the value is written %-escaped, as in a URL.
	URLEscaped bool `yaml:"url_escaped" json:"url_escaped,omitempty"`
}

// PathClasses name groups of paths. Entries are paths or globs; "~"
// means the home directory and "$NAME" an environment variable. A glob
// without "/" matches a base name anywhere ("node_modules").
type PathClasses struct {
	Scratch     []string `yaml:"scratch"`
	Caches      []string `yaml:"caches"`
	Agent       []string `yaml:"agent"`
	Credentials []string `yaml:"credentials"`
	// ReadableCredentials may hold credentials but are settings tools
	// read to work (~/.gitconfig, pip.conf): a command that names one is
	// judged as reading credentials, but the sandbox leaves it readable.
	ReadableCredentials []string `yaml:"readable_credentials"`
	NotSecret           []string `yaml:"not_secret"`
	Regenerable         []string `yaml:"regenerable"`
	System              []string `yaml:"system"`
	Devices             []string `yaml:"devices"`
	HarmlessDevs        []string `yaml:"harmless_devices"`
	AutoRun             []string `yaml:"autorun"`
	// MadeCaches are the sandbox_writable directories cordon makes when
	// they are missing, so that a sandbox can bind them: "DIR PROGRAM",
	// made only when PROGRAM is found on PATH ("-": always), so that a
	// home gets only the caches of tools that are installed.
	MadeCaches []string `yaml:"made_caches"`
	// FilteredCredentials are credential files that also hold the
	// person's settings (~/.npmrc): "FILE KEY...". The sandbox shows them
	// with their secret lines left out instead of hiding them whole: a
	// line whose key (before "=", or before ":" in YAML) matches one of
	// the KEY globs, case ignored, or whose value is a URL carrying a
	// password. FILE must be among the credentials too.
	FilteredCredentials []string `yaml:"filtered_credentials"`
	// Projects are the places a person keeps projects in (~/src): an
	// empty directory directly in one is a new project's workspace.
	Projects []string `yaml:"projects"`
	// AutoRunIncludes are directives of auto-run files that make more
	// auto-run places: "FILE DIRECTIVE ARG KIND", where the ARGth argument
	// of DIRECTIVE in FILE (relative to the workspace root) is a file the
	// tool sources (KIND "file") or a directory it puts on PATH ("dir"):
	// ".envrc PATH_add 1 dir".
	AutoRunIncludes []string `yaml:"autorun_includes"`
	// GitConfig are git's configuration files in the workspace, relative
	// to its root: judged as auto-run files, but writable in the sandbox,
	// where only their keys outside [File.GitConfigSafe] are guarded.
	// GitData are a repository's own files that the continuous snapshot
	// round saves and restores as files, relative to its git directory
	// ("refs/**": everything below).
	GitData []string `yaml:"git_data"`
	// GitObjects are a repository's immutable object files, relative to
	// its git directory ("objects/??/*"), which the round copies once
	// into a mirror.
	GitObjects []string `yaml:"git_objects"`
	GitConfig  []string `yaml:"git_config"`
	NetDevices []string `yaml:"network_devices"`
	// MetadataHosts are cloud metadata services that hand out the
	// instance's credentials.
	MetadataHosts []string `yaml:"metadata_hosts"`
	// Startup files are the user's shell configuration: sourcing one runs
	// the user's own code, as a login shell does.
	Startup []string `yaml:"startup"`
	// History entries are relative to the workspace root.
	History []string `yaml:"history"`
	// GitPointers are names that, below the workspace's root (never the
	// root's own), are a repository's git directory or a file or link
	// that leads git to one: writing one is writing an auto-run place.
	GitPointers []string `yaml:"git_pointers"`
	// NotWorkspace are directories never taken as the workspace: an
	// entry is that directory, and with "/**" everything below it too.
	NotWorkspace []string `yaml:"not_workspace"`
	// ProjectSubdirs are names of a project's subdirectories (src,
	// tests): when the workspace is not on this machine and its root
	// cannot be found, a command run in one is taken to work in the
	// project above it.
	ProjectSubdirs []string `yaml:"project_subdirs"`
	// SandboxWritable are the directories a sandboxed command may write
	// besides the workspace and scratch: tool caches, not the places
	// tools are installed to (a binary there runs outside later).
	SandboxWritable []string `yaml:"sandbox_writable"`
	// Installs are the places tools install programs to (~/go/bin,
	// ~/.cargo/bin, ~/.local/bin): a program written there runs later,
	// outside the sandbox, which keeps them read-only. A write there is
	// judged as one to a program directory.
	Installs []string `yaml:"installs"`
	// SandboxHidden are hidden in the sandbox besides the credentials:
	// the user's runtime directory, daemons' sockets.
	SandboxHidden []string `yaml:"sandbox_hidden"`
	// SandboxSockets are the host's Unix sockets, or directories of
	// them, that sandboxed commands may connect to; every other socket
	// of the host is out of their reach.
	SandboxSockets []string `yaml:"sandbox_sockets"`
	// Cordon are cordon's own settings, rule files and records (trust,
	// cache): an agent must not change what judges it.
	Cordon []string `yaml:"cordon"`
	// ScratchPrivate are globs of names in a scratch directory that
	// belong to other programs (ssh-agent's ssh-*, X11's .X11-unix):
	// hidden from sandboxed commands.
	ScratchPrivate []string `yaml:"scratch_private"`
}

// CmdSpec is the knowledge about one command: how it carries code, how
// its arguments map to effects, and its subcommands.
type CmdSpec struct {
	// Aliases are other names of the same command (unlink for rm).
	Aliases []string `yaml:"aliases"`
	// Carries says how the command carries other code: exec, shell, eval,
	// source, find, interp.
	Carries string `yaml:"carries"`
	// ValueOptions take a value ("-o FILE", "--output=FILE").
	ValueOptions []string `yaml:"value_options"`
	// EndOfOptions are words that end the options as "--" does, but
	// are not themselves "--" (git's --end-of-options): a "--" after one
	// still separates operands. Subcommands inherit them.
	EndOfOptions []string `yaml:"end_of_options"`
	DirOptions   []string `yaml:"dir_options"`
	SplitOptions []string `yaml:"split_options"`
	Skip         int      `yaml:"skip"`
	Subs         []string `yaml:"subs"`
	Assigns      bool     `yaml:"assigns"`
	// InShell: an exec carrier's command runs in the current shell
	// (builtin cd); NotRun are the options under which it is not run
	// (command -v).
	InShell bool `yaml:"in_shell"`
	// Later: the carried code runs later, in a state that may differ
	// (trap).
	Later  bool     `yaml:"later"`
	NotRun []string `yaml:"not_run"`
	// ArgSeparators, ArgFileSeparators and Replacements describe GNU
	// parallel's arguments (CMD {} ::: A B, :::: FILE); ArgFileOptions
	// name a file of arguments read instead of standard input (xargs -a).
	ArgSeparators     []string `yaml:"arg_separators"`
	ArgFileSeparators []string `yaml:"arg_file_separators"`
	Replacements      []string `yaml:"replacements"`
	ArgFileOptions    []string `yaml:"arg_file_options"`
	Privileged        bool     `yaml:"privileged"`
	StdinArgs         bool     `yaml:"stdin_args"`
	ExecFlags         []string `yaml:"exec_flags"`
	CodeFlags         []string `yaml:"code_flags"`
	// FileFlags name a file of code (make -f), read when the script wrote
	// it or it is standard input.
	FileFlags []string `yaml:"file_flags"`
	// DefaultFiles are the files of code read without a file flag (make's
	// Makefile), in the order the command looks for them.
	DefaultFiles []string `yaml:"default_files"`
	// CodeOperand: without a code flag the first operand (after Skip) is
	// code.
	CodeOperand bool `yaml:"code_operand"`
	// CodeAnywhere: code flags may follow operands (mysql DB -e SQL).
	CodeAnywhere bool `yaml:"code_anywhere"`
	// Rewrite normalises interpreter code before Translate.
	Rewrite []Rewrite `yaml:"rewrite"`
	// Translate maps patterns in interpreter code to commands.
	Translate []Translate `yaml:"translate"`
	// RunFiles are code the command runs from project files found by
	// pattern (npm and package.json scripts); every file of that name the
	// same script wrote is judged.
	RunFiles []Translate `yaml:"run_files"`
	// Runs are repository files the command runs as scripts (git hooks);
	// judged when the same script wrote them.
	Runs []string `yaml:"runs"`
	// OptionCode maps option values that hold shell code.
	OptionCode []Translate `yaml:"option_code"`
	// Stream says how the command produces output: echo, printf, cat,
	// base64, hex, rev; When lists flags one of which is required.
	Stream     string   `yaml:"stream"`
	StreamWhen []string `yaml:"stream_when"`
	// Effects are what the command does to its targets.
	Effects []*EffectSpec `yaml:"effects"`
	// Subcommands are keyed by the first operand (git reset).
	Subcommands map[string]*CmdSpec `yaml:"subcommands"`
	// LeadingOptions: options before the subcommand are the
	// subcommand's too (npm -g install x is npm install -g x).
	LeadingOptions bool `yaml:"leading_options"`
	// Operands says which arguments are files when no effect lists
	// targets: "paths" (default: operands are read), "none".
	Operands string `yaml:"operands"`

	// SlashOptions: options are written /X (and -X), in any case, and
	// may be glued together (/S/Q) or carry a value after a colon
	// (/A:H): a Windows program's or a cmd.exe builtin's. Effects name
	// them in lower case ("/s"); ValueOptions name those that take the
	// next argument as their value ("/v").
	SlashOptions bool `yaml:"slash_options"`
	// OldOptions: a first argument without "-" is a cluster of
	// single-letter options, old style (tar czf FILE DIR, ar rcs LIB
	// OBJ): "-c -z -f FILE DIR", the value options taking the following
	// arguments in order.
	OldOptions bool `yaml:"old_options"`
	// Parameters are a PowerShell command's parameters that take a
	// value, Switches those that do not, without the dash ("Path",
	// "Recurse"); Positional lists, in order, the parameters that bind
	// arguments given without a name. A parameter is matched by any
	// unambiguous prefix, without regard to case, as PowerShell binds
	// it; the common parameters (Verbose, ErrorAction, WhatIf...) are
	// added to every command. Effects name parameters with their dash
	// ("-Path", "-Recurse").
	Parameters []string `yaml:"parameters"`
	Switches   []string `yaml:"switches"`
	Positional []string `yaml:"positional"`

	// The long options the rules name for the command, listed on first
	// use (see [CmdSpec.longOptions]).
	longOnce sync.Once
	long     []string
}

// Rewrite replaces a pattern in interpreter code ("{home}" is the home
// directory, $1 a group).
type Rewrite struct {
	Pattern string `yaml:"pattern"`
	With    string `yaml:"with"`
}

// Translate is one pattern of interpreter code and the command it means.
type Translate struct {
	// File, for run_files, is the project file whose content is matched.
	File string `yaml:"file"`
	// Options, for option_code, are the options whose values are matched.
	Options []string `yaml:"options"`
	Pattern string   `yaml:"pattern"`
	// SQL, instead of Pattern, are kinds of SQL statements (package
	// sqlkind: drop-table, truncate, delete-all...): each statement of
	// one of them is translated, $1 being its kind.
	SQL   []string `yaml:"sql"`
	Argv  []string `yaml:"argv"`
	Shell string   `yaml:"shell"`
}

// EffectSpec is one effect of a command on its targets.
type EffectSpec struct {
	// Effect is one of the effect names (delete, overwrite, modify, read,
	// exec, network, upload, download, remote-code, privilege, persist,
	// discard-changes, git-clean, drop-stash, delete-branch,
	// rewrite-remote, rewrite-history, secret-env, secret-cmd).
	Effect string `yaml:"effect"`
	// Targets selects the arguments the effect applies to: operands,
	// first, last, all-but-last, rest (operands after the first),
	// after-dashdash, none, repo, unknown (one target computed when it
	// runs: what a remote helper reads from its input), or an option list
	// in Options.
	Targets string `yaml:"targets"`
	// Options are options whose values are targets (-o FILE, of=FILE).
	Options []string `yaml:"options"`
	// When: the effect applies only when one of these flags is present.
	When []string `yaml:"when"`
	// Alone: the effect applies only when there are no operands (env
	// with no command prints the environment).
	Alone bool `yaml:"alone"`
	// NoOperands: the effect applies only when there are no operands,
	// options with values or not (git push -o ci.skip pushes the branch
	// checked out).
	NoOperands bool `yaml:"no_operands"`
	// WhenArg: the effect applies only when some operand matches one of
	// these globs (socat EXEC:...).
	WhenArg []string `yaml:"when_arg"`
	// Filter options give a base-name pattern the targets are limited to
	// (find -name).
	Filter []string `yaml:"filter"`
	// WhenValue: the effect applies only when a value of one of the
	// ValueOf options matches one of these globs, or is computed when the
	// command runs (curl -d @file or -d "$(cat f)", not -d '{"a":1}').
	WhenValue []string `yaml:"when_value"`
	ValueOf   []string `yaml:"value_of"`
	// WhenLast: the effect applies only when the last operand matches one
	// of these globs (mv X /dev/null).
	WhenLast []string `yaml:"when_last"`
	// WhenFirst: the effect applies only when the first operand matches
	// one of these globs (chmod u+s, tar xf).
	WhenFirst []string `yaml:"when_first"`
	// WhenUnsafeKey: the effect applies only when the command (git
	// config) sets or removes a configuration key that is not in
	// [File.GitConfigSafe], or one that cannot be known, or edits or
	// renames a whole section.
	WhenUnsafeKey bool `yaml:"when_unsafe_key"`
	// Unless: the effect does not apply when one of these is present.
	Unless []string `yaml:"unless"`
	// Recursive flags make a delete recursive.
	Recursive []string `yaml:"recursive"`
	// Ignored flags make git clean also remove ignored files.
	Ignored []string `yaml:"ignored"`
	// Remote: targets of the form host:path are network destinations.
	Remote bool `yaml:"remote"`
	// Implied is where the command writes when its arguments name no
	// target (go install writes $GOBIN, else $GOPATH/bin, else
	// ~/go/bin): the first entry that expands, a "$NAME" entry taking
	// NAME from the command's own assignments (GOBIN=$PWD/bin go
	// install) before the environment.
	Implied []string `yaml:"implied"`
}

// Policy turns an effect on a class of target into a verdict.
type Policy struct {
	ID string `yaml:"id"`
	// Effect lists effect names the policy applies to.
	Effect []string `yaml:"effect"`
	// Target lists target classes (root, system, home, contains-workspace,
	// credential, workspace, scratch, cache, agent, outside, device,
	// harmless-device, unknown, none, autorun).
	Target []string `yaml:"target"`
	// State lists what the effect would lose, from the repository's real
	// state (absent, recoverable, regenerable, uncommitted, untracked,
	// irreplaceable, unversioned, stash, unmerged, unknown).
	State []string `yaml:"state"`
	// Privileged, when set, matches only commands run with (true) or
	// without (false) raised privileges.
	Privileged *bool `yaml:"privileged"`
	// Recursive, when set, matches only recursive effects.
	Recursive bool   `yaml:"recursive"`
	Verdict   string `yaml:"verdict"`
	// Category is one category or a list of them.
	Category Categories `yaml:"category"`
	// Message is shown to the agent; {cmd} (the command's name), {line}
	// (the command), {target}, {raw} (the target as written), {workspace},
	// {state} and {effect} are filled in.
	Message string `yaml:"message"`
	// Disable, in a later layer, removes the earlier policy with this id;
	// nothing else may be set with it.
	Disable bool `yaml:"disable"`
	// Match are commands this policy must match: judged with the
	// effective rules, their reasons include the policy's id. NotMatch
	// are commands it must not match. A rule file whose policy fails one
	// of its examples is loaded without that policy.
	Match    []Example `yaml:"match"`
	NotMatch []Example `yaml:"not_match"`
}

// An Example is a command a policy is tested with: a bash script, or an
// argv an agent would exec, run in Cwd with Env added to a fixed
// environment (see package rules/layers for the defaults).
type Example struct {
	Script string            `yaml:"script" json:"script,omitempty"`
	Argv   []string          `yaml:"argv" json:"argv,omitempty"`
	Cwd    string            `yaml:"cwd" json:"cwd,omitempty"`
	Env    map[string]string `yaml:"env" json:"env,omitempty"`
	// Line is the example's line in its file, when known.
	Line int `yaml:"-" json:"line,omitempty"`
}

// UnmarshalYAML accepts a string (a bash script) or a mapping with
// script or argv, and cwd and env. It uses the callback form, as
// [Categories.UnmarshalYAML] does.
func (x *Example) UnmarshalYAML(unmarshal func(any) error) error {
	var script string
	if err := unmarshal(&script); err == nil {
		*x = Example{Script: script}
		return nil
	}
	type plain Example
	var p plain
	if err := unmarshal(&p); err != nil {
		return err
	}
	*x = Example(p)
	return nil
}

// Categories is one category name or a list of them.
type Categories []string

// UnmarshalYAML accepts a scalar or a sequence. It uses the YAML
// package's callback form, so that this package does not link a YAML
// decoder: shims compile built-in rules decoded at build time.
func (c *Categories) UnmarshalYAML(unmarshal func(any) error) error {
	var one string
	if err := unmarshal(&one); err == nil {
		*c = Categories{one}
		return nil
	}
	var list []string
	if err := unmarshal(&list); err != nil {
		return err
	}
	*c = list
	return nil
}

// A Wrapper is how an agent hands the command its model wrote to a
// shell: Claude Code's `source SNAPSHOT ... && eval 'CMD' < /dev/null &&
// pwd -P >| /tmp/claude-XXXX-cwd`, Gemini CLI's subshell with a trap that
// writes to a fresh temporary directory. An approval is bound to the
// command inside (docs/hooks.md), so that the agent's retry, whose
// wrapper names another temporary file, finds it.
type Wrapper struct {
	// Agent names the agent (claude-code, gemini).
	Agent string `yaml:"agent"`
	// Shells are the shells it runs the wrapper with (bash, zsh).
	Shells []string `yaml:"shells"`
	// Login: the agent may start the shell as a login shell (-l), which
	// reads the person's own profile; no other option is accepted.
	Login bool `yaml:"login"`
	// Script is a regular expression (RE2) that the whole -c script
	// must match. Its group named "command" is the command; everything
	// else is fixed text or a narrow pattern for what changes from one
	// run to the next (a temporary file's name, a snapshot's).
	Script string `yaml:"script"`
	// Quoted: the command group is one quoted shell word holding the
	// command, with nothing to expand (eval 'CMD'); else it is the
	// command's text itself.
	Quoted bool `yaml:"quoted"`
	// Match are scripts the pattern must unwrap, with the command each
	// holds; NotMatch scripts it must not. Checked when the rules load.
	Match    []WrapperExample `yaml:"match"`
	NotMatch []string         `yaml:"not_match"`
}

// A WrapperExample is a wrapped script and the command inside it.
type WrapperExample struct {
	Script  string `yaml:"script"`
	Command string `yaml:"command"`
}

// An Approved entry is one command a person approved in one directory.
type Approved struct {
	// Command is the exact command text: the argv as one quoted line
	// (bash -c 'git reset --hard'), or a session's statement.
	Command string `yaml:"command"`
	// Dir is the absolute directory it runs in.
	Dir string `yaml:"dir"`
}

package invocation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordonsh/cordon/parse"
)

// A decodeCase is one argv and what Decode must make of it. The same table
// seeds FuzzDecode and is confirmed against the real shells by
// TestDecodeRealShells.
type decodeCase struct {
	name string
	argv []string
	tty  bool       // standard input is a terminal
	want Invocation // Argv is filled in from argv
	err  string     // the *DecodeError message instead; want gives Shell and Dialect
	// realRejects says why the shell installed here refuses an argv that
	// Decode accepts. That is the safe direction (cordon judges a script
	// that will not run); the real-shell test checks the refusal, or, when
	// a different shell accepts it, that the two agree.
	realRejects string
	// noReal says why no real shell can confirm the row.
	noReal string
}

// Scripts of the agent shapes in research/agent-shells.md §3.2.
const (
	claudeZshNoSnapshot = `setopt NO_EXTENDED_GLOB NO_BARE_GLOB_QUAL 2>/dev/null || true && eval 'npm test' < /dev/null && pwd -P >| /tmp/claude-1a2b-cwd`
	claudeSnapshot      = `source '/h/.claude/shell-snapshots/snapshot-bash-1-a.sh' 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'git log --oneline | head -5' < /dev/null && pwd -P >| /tmp/claude-9f3e-cwd`
	claudeMakeSnapshot  = "SNAPSHOT_FILE='/h/.claude/shell-snapshots/snapshot-bash-1-x.sh'\nsource \"/h/.bashrc\" < /dev/null\ndeclare -f >> \"$SNAPSHOT_FILE\""
	claudePrefix        = `/usr/local/bin/audit -x "source '/h/s/snapshot-bash-1-a.sh' 2>/dev/null || true && { shopt -u extglob || setopt NO_EXTENDED_GLOB NO_BARE_GLOB_QUAL; } >/dev/null 2>&1 || true && eval 'npm test' < /dev/null && pwd -P >| /tmp/claude-1-cwd"`
	geminiPTY           = "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file='/tmp/g/bgpids.tmp'\n(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\npytest -q\n)\n__code=$?\nexit $__code"
	cursorWrapper       = `snap=$(command cat <&3) && builtin shopt -s extglob && builtin eval -- "$snap" && builtin eval "$1"; dump_bash_state >&4`
	codexSnapshot       = `. '/h/.codex/shell_snapshots/T.123.sh' 2>/dev/null; exec /bin/zsh -c 'cargo build'`
	codexSnapshotFD     = `__codex_snapshot_fd=10; . /dev/fd/10; exec 10<&-; exec /bin/zsh -c 'cargo build'`
	vscodeBashInit      = "/app/out/vs/workbench/contrib/terminal/common/scripts/shellIntegration-bash.sh"
	mustNotRun          = "echo cordon-ran" // a script that must not run
)

func bashCmd(script, arg0 string, params ...string) Invocation {
	return Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeCommand, Script: script, Arg0: arg0, Params: params}
}

func zshCmd(script, arg0 string, params ...string) Invocation {
	return Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeCommand, Script: script, Arg0: arg0, Params: params}
}

func shCmd(shell, script, arg0 string, params ...string) Invocation {
	return Invocation{Shell: shell, Dialect: parse.POSIX, Mode: ModeCommand, Script: script, Arg0: arg0, Params: params}
}

// plus returns inv changed by f, so that rows read as "bashCmd(...) plus".
func plus(inv Invocation, f func(*Invocation)) Invocation {
	f(&inv)
	return inv
}

func asLogin(inv *Invocation)       { inv.Login = true }
func asInteractive(inv *Invocation) { inv.Interactive = true }

// noRcs is bash --norc --noprofile.
func noRcs(inv *Invocation) { inv.NoRc, inv.NoProfile = true, true }

func withOptions(names ...string) func(*Invocation) {
	return func(inv *Invocation) { inv.Options = names }
}

var (
	bashErr    = Invocation{Shell: "bash", Dialect: parse.Bash}
	zshErr     = Invocation{Shell: "zsh", Dialect: parse.Zsh}
	dashErr    = Invocation{Shell: "dash", Dialect: parse.POSIX}
	directExec = Invocation{Mode: ModeExec}
)

var decodeCases = []decodeCase{
	// §3.1 dialect selection.
	{name: "D1_bash", argv: []string{"bash", "-c", "echo d1"}, want: bashCmd("echo d1", "bash")},
	{name: "D1_bash_path", argv: []string{"/usr/local/bin/bash", "-c", "echo d1"}, want: bashCmd("echo d1", "/usr/local/bin/bash")},
	{name: "D1_bash_login_name", argv: []string{"-bash", "-c", "echo d1"}, want: plus(bashCmd("echo d1", "-bash"), asLogin)},
	{name: "D1_bash_upper_exe", argv: []string{"BASH.EXE", "-c", "echo d1"}, want: bashCmd("echo d1", "BASH.EXE")},
	{name: "D1_bash_windows_path", argv: []string{`C:\x\bash.exe`, "-c", "echo d1"}, want: bashCmd("echo d1", `C:\x\bash.exe`)},
	{name: "D1_bash_login_path", argv: []string{"-/bin/bash", "-c", "echo d1"}, want: plus(bashCmd("echo d1", "-/bin/bash"), asLogin)},
	{name: "D1_bash_dash_in_dir_not_login", argv: []string{"/tmp/-bash", "-c", "echo d1"}, want: bashCmd("echo d1", "/tmp/-bash")},
	{name: "D1_zsh", argv: []string{"zsh", "-c", "echo d1"}, want: zshCmd("echo d1", "zsh")},
	{name: "D1_zsh_login_name", argv: []string{"-zsh", "-c", "echo d1"}, want: plus(zshCmd("echo d1", "-zsh"), asLogin)},
	{name: "D1_sh", argv: []string{"sh", "-c", "echo d1"}, want: shCmd("sh", "echo d1", "sh")},
	{name: "D1_sh_login_name", argv: []string{"-sh", "-c", "echo d1"}, want: plus(shCmd("sh", "echo d1", "-sh"), asLogin)},
	{name: "D1_dash", argv: []string{"/bin/dash", "-c", "echo d1"}, want: shCmd("dash", "echo d1", "/bin/dash")},
	{name: "D1_ksh", argv: []string{"ksh", "-c", "echo d1"}, want: Invocation{Shell: "ksh", Dialect: parse.Bash, Mode: ModeCommand, Script: "echo d1", Arg0: "ksh"},
		noReal: "ksh is decoded with bash's rules, an approximation of ksh93 and mksh"},
	{name: "D1_mksh", argv: []string{"/bin/mksh", "-T", "/dev/tty1", "-c", "echo d1"}, want: Invocation{Shell: "ksh", Dialect: parse.Bash, Mode: ModeCommand, Script: "echo d1", Arg0: "/bin/mksh"},
		noReal: "ksh is decoded with bash's rules, an approximation of ksh93 and mksh"},
	{name: "D1_cmd", argv: []string{"cmd", "/c", "dir"}, want: directExec},
	{name: "D1_cmd_exe", argv: []string{"cmd.exe", "/d", "/s", "/c", "npm run build"}, want: directExec},
	{name: "D1_cmd_upper", argv: []string{`C:\Windows\System32\CMD.EXE`, "/c", "dir"}, want: directExec},
	{name: "D1_powershell", argv: []string{"powershell", "-Command", "Get-Date"}, want: directExec},
	{name: "D1_powershell_exe", argv: []string{"powershell.exe", "-NoProfile", "-Command", "Get-Date"}, want: directExec},
	{name: "D1_pwsh", argv: []string{"pwsh", "-NoProfile", "-Command", "Get-Date"}, want: directExec},
	{name: "D1_pwsh_exe", argv: []string{"pwsh.exe", "-c", "Get-Date"}, want: directExec},
	{name: "D1_pwsh_preview", argv: []string{"pwsh-preview", "script.ps1"}, want: directExec},
	{name: "D2_unknown_argv0", argv: []string{"ARGV0=x", "-c", "ls"}, want: directExec},
	{name: "D2_direct_exec", argv: []string{"rm", "-rf", "/"}, want: directExec},
	{name: "D2_empty_argv", argv: []string{}, want: directExec},
	{name: "D2_empty_argv0", argv: []string{"", "-c", "ls"}, want: directExec},
	{name: "D2_bare_dash_argv0", argv: []string{"-"}, want: directExec},

	// §3.2 POSIX non-interactive shapes.
	{name: "P1_bash_c", argv: []string{"bash", "-c", "ls -la"}, want: bashCmd("ls -la", "bash")},
	{name: "P2_bash_lc", argv: []string{"bash", "-lc", "git status"}, want: plus(bashCmd("git status", "bash"), asLogin)},
	{name: "P2_zsh_lc", argv: []string{"zsh", "-lc", "git status"}, want: plus(zshCmd("git status", "zsh"), asLogin)},
	{name: "P3_zsh_c_then_l", argv: []string{"/bin/zsh", "-c", "-l", claudeZshNoSnapshot}, want: plus(zshCmd(claudeZshNoSnapshot, "/bin/zsh"), asLogin)},
	{name: "P4_bash_snapshot", argv: []string{"/bin/bash", "-c", claudeSnapshot}, want: bashCmd(claudeSnapshot, "/bin/bash")},
	{name: "P5_bash_make_snapshot", argv: []string{"/bin/bash", "-c", "-l", claudeMakeSnapshot}, want: plus(bashCmd(claudeMakeSnapshot, "/bin/bash"), asLogin)},
	{name: "P6_zsh_env", argv: []string{"/bin/zsh", "-c", "env"}, want: zshCmd("env", "/bin/zsh")},
	{name: "P6_bash_version", argv: []string{"/opt/shim/bash", "--version"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInfo, Arg0: "/opt/shim/bash"}},
	{name: "P7_claude_prefix", argv: []string{"bash", "-c", claudePrefix}, want: bashCmd(claudePrefix, "bash")},
	{name: "P8_gemini", argv: []string{"bash", "-c", geminiPTY}, tty: true, want: bashCmd(geminiPTY, "bash")},
	{name: "P9_cursor", argv: []string{"/bin/bash", "-O", "extglob", "-c", cursorWrapper, "--", `echo "SEQ=4"`},
		want: plus(bashCmd(cursorWrapper, "--", `echo "SEQ=4"`), withOptions("extglob"))},
	{name: "P10_codex_snapshot", argv: []string{"/bin/zsh", "-c", codexSnapshot}, want: zshCmd(codexSnapshot, "/bin/zsh")},
	{name: "P10_codex_snapshot_fd", argv: []string{"/bin/zsh", "-c", codexSnapshotFD}, want: zshCmd(codexSnapshotFD, "/bin/zsh")},
	{name: "P11_nested", argv: []string{"bash", "-lc", `bash -lc "ls"`}, want: plus(bashCmd(`bash -lc "ls"`, "bash"), asLogin)},
	{name: "P12_zed_interactive", argv: []string{"/bin/sh", "-i", "-c", "(cargo test\n) </dev/null"}, want: plus(shCmd("sh", "(cargo test\n) </dev/null", "/bin/sh"), asInteractive)},
	{name: "P12_zed", argv: []string{"/bin/sh", "-c", "(ls) </dev/null"}, want: shCmd("sh", "(ls) </dev/null", "/bin/sh")},
	{name: "P13_aider_zsh", argv: []string{"/bin/zsh", "-i", "-c", "pytest"}, tty: true, want: plus(zshCmd("pytest", "/bin/zsh"), asInteractive)},
	{name: "P13_aider_sh", argv: []string{"/bin/sh", "-c", "pytest -x"}, want: shCmd("sh", "pytest -x", "/bin/sh")},
	{name: "P14_claude_hook", argv: []string{"/bin/sh", "-c", "./.claude/hooks/pre.sh"}, want: shCmd("sh", "./.claude/hooks/pre.sh", "/bin/sh")},
	{name: "P14_cline_hook", argv: []string{"/bin/zsh", "-lc", "./hooks/cline.sh"}, want: plus(zshCmd("./hooks/cline.sh", "/bin/zsh"), asLogin)},
	{name: "P14_copilot_hook", argv: []string{"bash", "--norc", "--noprofile", "-c", "./hooks/copilot.sh"}, want: plus(bashCmd("./hooks/copilot.sh", "bash"), noRcs)},
	{name: "P15_vscode_zsh", argv: []string{"/bin/zsh", "-l", "-c", "npm run build"}, want: plus(zshCmd("npm run build", "/bin/zsh"), asLogin)},
	{name: "P15_vscode_bash", argv: []string{"/bin/bash", "-c", "make -j8"}, want: bashCmd("make -j8", "/bin/bash")},
	{name: "P16_e_o_pipefail", argv: []string{"bash", "-e", "-o", "pipefail", "-c", "set -x; a | b"}, want: plus(bashCmd("set -x; a | b", "bash"), withOptions("errexit", "pipefail"))},
	{name: "P16_xc", argv: []string{"bash", "-xc", "make"}, want: plus(bashCmd("make", "bash"), withOptions("xtrace"))},
	{name: "P16_norc", argv: []string{"bash", "--norc", "-c", "make test"}, want: plus(bashCmd("make test", "bash"), func(inv *Invocation) { inv.NoRc = true })},
	{name: "P16_rcfile_interactive", argv: []string{"bash", "--rcfile", "/f", "-i"}, tty: true,
		want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "bash", Interactive: true, RcFile: "/f"}},
	{name: "P17_positional", argv: []string{"sh", "-c", `echo "$1"`, "sh", "hello world"}, want: shCmd("sh", `echo "$1"`, "sh", "hello world")},
	{name: "P18_s_params", argv: []string{"bash", "-s", "--", "a"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeStdin, Arg0: "bash", Params: []string{"a"}}},
	{name: "P18_pipe", argv: []string{"bash"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeStdin, Arg0: "bash"}},
	{name: "P18_pwsh_command_stdin", argv: []string{"pwsh", "-Command", "-"}, want: directExec},
	{name: "P18_pwsh_file_stdin", argv: []string{"pwsh", "-File", "-"}, want: directExec},
	{name: "P19_file", argv: []string{"bash", "./run.sh", "arg"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeFile, File: "./run.sh", Arg0: "./run.sh", Params: []string{"arg"}}},
	{name: "P19_sh_e_file", argv: []string{"sh", "-e", "script.sh"}, want: Invocation{Shell: "sh", Dialect: parse.POSIX, Mode: ModeFile, File: "script.sh", Arg0: "script.sh", Options: []string{"errexit"}}},

	// §3.3 interactive and PTY sessions.
	{name: "I1_copilot", argv: []string{"bash", "--norc", "--noprofile"}, tty: true, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "bash", NoRc: true, NoProfile: true}},
	{name: "I2_openhands", argv: []string{"/usr/bin/bash", "-i"}, tty: true, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "/usr/bin/bash", Interactive: true}},
	{name: "I2_openhands_no_tty", argv: []string{"/usr/bin/bash", "-i"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "/usr/bin/bash", Interactive: true}},
	{name: "I2_tmux", argv: []string{"/opt/shims/bash", "-c", "/bin/bash"}, want: bashCmd("/bin/bash", "/opt/shims/bash")},
	{name: "I3_vscode_bash", argv: []string{"bash", "--init-file", vscodeBashInit}, tty: true, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "bash", RcFile: vscodeBashInit}},
	{name: "I3_vscode_zsh", argv: []string{"zsh", "-i"}, tty: true, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeInteractive, Arg0: "zsh", Interactive: true}},
	{name: "I3_vscode_zsh_login", argv: []string{"zsh", "-il"}, tty: true, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeInteractive, Arg0: "zsh", Interactive: true, Login: true}},
	{name: "I4_vscode_pwsh", argv: []string{"pwsh", "-noexit", "-command", `. "/app/out/shellIntegration.ps1"`}, want: directExec},
	{name: "I4_vscode_pwsh_login", argv: []string{"pwsh", "-l", "-noexit", "-command", `. "/app/out/shellIntegration.ps1"`}, want: directExec},
	{name: "I4_vscode_powershell", argv: []string{"powershell.exe", "-noexit", "-command", `try { . "C:\app\shellIntegration.ps1" } catch {}`}, want: directExec},
	{name: "I5_copilot_pwsh", argv: []string{"pwsh.exe", "-NoProfile", "-NoLogo", "-NoExit", "-Command", "try { Set-PSReadLineOption -PredictionSource None } catch { }"}, want: directExec},
	{name: "I6_login_name", argv: []string{"-bash"}, tty: true, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "-bash", Login: true}},
	{name: "I6_zsh_l", argv: []string{"zsh", "-l"}, tty: true, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeInteractive, Arg0: "zsh", Login: true}},
	{name: "I6_bash_login_i", argv: []string{"bash", "--login", "-i"}, tty: true, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "bash", Login: true, Interactive: true}},

	// DESIGN §3 option forms, bash.
	{name: "O_c_arg0_params", argv: []string{"bash", "-c", "echo o1", "name", "a", "b"}, want: bashCmd("echo o1", "name", "a", "b")},
	{name: "O_cl", argv: []string{"bash", "-cl", "echo o2"}, want: plus(bashCmd("echo o2", "bash"), asLogin)},
	{name: "O_ec", argv: []string{"bash", "-ec", "echo o3"}, want: plus(bashCmd("echo o3", "bash"), withOptions("errexit"))},
	{name: "O_xeuo_pipefail", argv: []string{"bash", "-xeuo", "pipefail", "-c", "echo o4"}, want: plus(bashCmd("echo o4", "bash"), withOptions("xtrace", "errexit", "nounset", "pipefail"))},
	{name: "O_ilc", argv: []string{"bash", "-ilc", "echo o5"}, want: plus(plus(bashCmd("echo o5", "bash"), asLogin), asInteractive)},
	{name: "O_eo_pipefail", argv: []string{"bash", "-eo", "pipefail", "-c", "echo o6"}, want: plus(bashCmd("echo o6", "bash"), withOptions("errexit", "pipefail"))},
	{name: "O_oe_pipefail", argv: []string{"bash", "-oe", "pipefail", "-c", "echo o7"}, want: plus(bashCmd("echo o7", "bash"), withOptions("pipefail", "errexit"))},
	{name: "O_oo_two_values", argv: []string{"bash", "-oo", "pipefail", "nounset", "-c", "echo o8"}, want: plus(bashCmd("echo o8", "bash"), withOptions("pipefail", "nounset"))},
	{name: "O_plus_o", argv: []string{"bash", "-o", "pipefail", "+o", "pipefail", "-c", "echo o9"}, want: bashCmd("echo o9", "bash")},
	{name: "O_plus_e", argv: []string{"bash", "-eu", "+e", "-c", "echo o10"}, want: plus(bashCmd("echo o10", "bash"), withOptions("nounset"))},
	{name: "O_plus_O", argv: []string{"bash", "-O", "extglob", "+O", "extglob", "-c", "echo o11"}, want: bashCmd("echo o11", "bash")},
	{name: "O_O_in_cluster", argv: []string{"bash", "-Oc", "globstar", "echo o12"}, want: plus(bashCmd("echo o12", "bash"), withOptions("globstar"))},
	{name: "O_login_long", argv: []string{"bash", "--login", "-c", "echo o13"}, want: plus(bashCmd("echo o13", "bash"), asLogin)},
	{name: "O_login_one_dash", argv: []string{"bash", "-login", "-c", "echo o14"}, want: plus(bashCmd("echo o14", "bash"), asLogin)},
	{name: "O_norc_noprofile", argv: []string{"bash", "--norc", "--noprofile", "-lc", "echo o15"}, want: plus(plus(bashCmd("echo o15", "bash"), asLogin), noRcs)},
	{name: "O_rcfile", argv: []string{"bash", "--rcfile", "/f", "-c", "echo o16"}, want: plus(bashCmd("echo o16", "bash"), func(inv *Invocation) { inv.RcFile = "/f" })},
	{name: "O_init_file", argv: []string{"bash", "--init-file", "-c", "-c", "echo o17"}, want: plus(bashCmd("echo o17", "bash"), func(inv *Invocation) { inv.RcFile = "-c" })},
	{name: "O_c_then_l", argv: []string{"bash", "-c", "-l", "echo o18"}, want: plus(bashCmd("echo o18", "bash"), asLogin)},
	{name: "O_c_dashdash", argv: []string{"bash", "-c", "--", "echo o19", "zero"}, want: bashCmd("echo o19", "zero")},
	{name: "O_c_dash", argv: []string{"bash", "-c", "-", "echo o20"}, want: bashCmd("echo o20", "bash")},
	{name: "O_arg0_looks_like_option", argv: []string{"bash", "-c", "echo o21", "-x", "a"}, want: bashCmd("echo o21", "-x", "a")},
	{name: "O_arg0_login_option", argv: []string{"bash", "-c", "echo o22", "--login"}, want: bashCmd("echo o22", "--login")},
	{name: "O_plus_c", argv: []string{"bash", "+c", "echo o23", "a", "b"}, want: bashCmd("echo o23", "a", "b")},
	{name: "O_plus_l", argv: []string{"bash", "+l", "-c", "echo o24"}, want: plus(bashCmd("echo o24", "bash"), asLogin)},
	{name: "O_plus_alone", argv: []string{"bash", "+", "-c", "echo o25"}, want: bashCmd("echo o25", "bash")},
	{name: "O_s_c", argv: []string{"bash", "-s", "-c", "echo o26", "a", "b"}, want: bashCmd("echo o26", "a", "b")},
	{name: "O_i_c", argv: []string{"bash", "-i", "-c", "echo o27"}, want: plus(bashCmd("echo o27", "bash"), asInteractive)},
	{name: "O_posix", argv: []string{"bash", "--posix", "-c", "echo o28"}, want: plus(bashCmd("echo o28", "bash"), withOptions("posix"))},
	{name: "O_restricted", argv: []string{"bash", "-r", "-c", "echo o29"}, want: plus(bashCmd("echo o29", "bash"), withOptions("restricted"))},
	{name: "O_restricted_long", argv: []string{"bash", "--restricted", "-c", "echo o30"}, want: plus(bashCmd("echo o30", "bash"), withOptions("restricted"))},
	{name: "O_letters", argv: []string{"bash", "-abfhkmptuvBCEHPT", "-c", "echo o31"},
		want: plus(bashCmd("echo o31", "bash"), withOptions("allexport", "notify", "noglob", "hashall", "keyword", "monitor", "privileged", "onecmd",
			"nounset", "verbose", "braceexpand", "noclobber", "errtrace", "histexpand", "physical", "functrace")),
		noReal: "-t runs one command and -k, -P change what the probe sees"},
	{name: "O_noexec", argv: []string{"bash", "-n", "-c", "echo o32"}, want: plus(bashCmd("echo o32", "bash"), withOptions("noexec")),
		noReal: "noexec: the shell reads the script but runs nothing, not even the probe"},
	{name: "O_dump_strings", argv: []string{"bash", "-D", "-c", "echo o33"}, want: plus(bashCmd("echo o33", "bash"), withOptions("noexec")),
		noReal: "-D prints the $\"...\" strings instead of running the script"},
	{name: "O_dashdash_file", argv: []string{"bash", "--", "-c", "a"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeFile, File: "-c", Arg0: "-c", Params: []string{"a"}}},
	{name: "O_dash_file", argv: []string{"bash", "-", "script.sh"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeFile, File: "script.sh", Arg0: "script.sh"}},
	{name: "O_file_i", argv: []string{"bash", "-i", "script.sh", "x"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeFile, File: "script.sh", Arg0: "script.sh", Params: []string{"x"}, Interactive: true}},
	{name: "O_file_option_after", argv: []string{"bash", "script.sh", "-c", "x"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeFile, File: "script.sh", Arg0: "script.sh", Params: []string{"-c", "x"}}},
	{name: "O_s_tty", argv: []string{"bash", "-s", "a", "b"}, tty: true, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "bash", Params: []string{"a", "b"}}},
	{name: "O_none_tty", argv: []string{"bash"}, tty: true, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInteractive, Arg0: "bash"}},
	{name: "O_o_lists", argv: []string{"bash", "-o"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeStdin, Arg0: "bash"}},
	{name: "O_help", argv: []string{"bash", "--help"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInfo, Arg0: "bash"}},
	{name: "O_version_one_dash", argv: []string{"bash", "-version", "-c", mustNotRun}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInfo, Arg0: "bash"}},
	{name: "O_version_before_bad_letter", argv: []string{"bash", "--version", "-Z"}, want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeInfo, Arg0: "bash"}},
	{name: "O_o_unknown_name", argv: []string{"bash", "-o", "nosuch", "-c", mustNotRun}, want: plus(bashCmd(mustNotRun, "bash"), withOptions("nosuch")),
		realRejects: "bash refuses unknown -o names; Decode does not check them (they vary by version)"},
	{name: "O_O_unknown_name", argv: []string{"bash", "-O", "nosuch", "-c", mustNotRun}, want: plus(bashCmd(mustNotRun, "bash"), withOptions("nosuch")),
		realRejects: "bash refuses unknown shopt names; Decode does not check them (they vary by version)"},
	{name: "O_o_attached_takes_next", argv: []string{"bash", "-opipefail", "-c", mustNotRun},
		want: Invocation{Shell: "bash", Dialect: parse.Bash, Mode: ModeFile, File: mustNotRun, Arg0: mustNotRun, Login: true, Interactive: true,
			Options: []string{"-c", "privileged", "errexit", "noglob", "allexport"}},
		realRejects: `bash's -o takes the next argument, "-c", and refuses it as an option name`},
	{name: "E_bad_letter", argv: []string{"bash", "-Z", "-c", mustNotRun}, want: bashErr, err: "bash: -Z: invalid option"},
	{name: "E_bad_letter_plus", argv: []string{"bash", "+Z", "-c", mustNotRun}, want: bashErr, err: "bash: +Z: invalid option"},
	{name: "E_bad_letter_in_cluster", argv: []string{"bash", "-lZc", mustNotRun}, want: bashErr, err: "bash: -Z: invalid option"},
	{name: "E_c_missing", argv: []string{"bash", "-c"}, want: bashErr, err: "bash: -c: option requires an argument"},
	{name: "E_lc_missing", argv: []string{"bash", "-lc"}, want: bashErr, err: "bash: -c: option requires an argument"},
	{name: "E_long_unknown", argv: []string{"bash", "--nosuch", "-c", mustNotRun}, want: bashErr, err: "bash: --nosuch: invalid option"},
	{name: "E_long_after_short", argv: []string{"bash", "-c", "--login", mustNotRun}, want: bashErr, err: "bash: --: invalid option"},
	{name: "E_rcfile_missing", argv: []string{"bash", "--rcfile"}, want: bashErr, err: "bash: --rcfile: option requires an argument"},
	{name: "E_version_then_bad_long", argv: []string{"bash", "--version", "--nosuch"}, want: bashErr, err: "bash: --nosuch: invalid option"},

	// zsh.
	{name: "Z_c_dashdash_arg0", argv: []string{"zsh", "-c", "echo z1", "--", "CMD"}, want: zshCmd("echo z1", "--", "CMD")},
	{name: "Z_o_attached", argv: []string{"zsh", "-opipefail", "-c", "echo z2"}, want: plus(zshCmd("echo z2", "zsh"), withOptions("pipefail"))},
	{name: "Z_eo_pipefail", argv: []string{"zsh", "-eo", "pipefail", "-c", "echo z3"}, want: plus(zshCmd("echo z3", "zsh"), withOptions("errexit", "pipefail"))},
	{name: "Z_xeuo_pipefail", argv: []string{"zsh", "-xeuo", "pipefail", "-c", "echo z4"}, want: plus(zshCmd("echo z4", "zsh"), withOptions("xtrace", "errexit", "nounset", "pipefail"))},
	{name: "Z_oe_is_option_e", argv: []string{"zsh", "-oe", "pipefail", "-c", mustNotRun},
		want:        Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeFile, File: "pipefail", Arg0: "pipefail", Params: []string{"-c", mustNotRun}, Options: []string{"e"}},
		realRejects: `zsh's -o takes the rest of the cluster, "e", and refuses it as an option name`},
	{name: "Z_s_c", argv: []string{"zsh", "-s", "-c", "echo z5", "a", "b"}, want: zshCmd("echo z5", "zsh", "a", "b")},
	{name: "Z_i_c", argv: []string{"zsh", "-i", "-c", "echo z6"}, want: plus(zshCmd("echo z6", "zsh"), asInteractive)},
	{name: "Z_f_d", argv: []string{"zsh", "-f", "-d", "-c", "echo z7"}, want: plus(zshCmd("echo z7", "zsh"), withOptions("norcs", "noglobalrcs"))},
	{name: "Z_no_rcs", argv: []string{"zsh", "--no-rcs", "-c", "echo z8"}, want: plus(zshCmd("echo z8", "zsh"), withOptions("norcs"))},
	{name: "Z_norcs", argv: []string{"zsh", "--norcs", "-c", "echo z9"}, want: plus(zshCmd("echo z9", "zsh"), withOptions("norcs"))},
	{name: "Z_login_long", argv: []string{"zsh", "--login", "-c", "echo z10"}, want: plus(zshCmd("echo z10", "zsh"), asLogin)},
	{name: "Z_interactive_long", argv: []string{"zsh", "--interactive", "-c", "echo z11"}, want: plus(zshCmd("echo z11", "zsh"), asInteractive)},
	{name: "Z_long_after_c", argv: []string{"zsh", "-c", "--login", "echo z12"}, want: plus(zshCmd("echo z12", "zsh"), asLogin)},
	{name: "Z_u", argv: []string{"zsh", "-u", "-c", "echo z13"}, want: plus(zshCmd("echo z13", "zsh"), withOptions("nounset"))},
	{name: "Z_o_nounset", argv: []string{"zsh", "-o", "nounset", "-c", "echo z14"}, want: plus(zshCmd("echo z14", "zsh"), withOptions("nounset"))},
	{name: "Z_plus_o_unset", argv: []string{"zsh", "+o", "unset", "-c", "echo z15"}, want: plus(zshCmd("echo z15", "zsh"), withOptions("nounset"))},
	{name: "Z_o_NO_UNSET", argv: []string{"zsh", "-o", "NO_UNSET", "-c", "echo z16"}, want: plus(zshCmd("echo z16", "zsh"), withOptions("nounset"))},
	{name: "Z_u_then_plus_o_nounset", argv: []string{"zsh", "-u", "+o", "nounset", "-c", "echo z17"}, want: plus(zshCmd("echo z17", "zsh"), withOptions("unset"))},
	{name: "Z_plus_e", argv: []string{"zsh", "-e", "+e", "-c", "echo z18"}, want: zshCmd("echo z18", "zsh")},
	{name: "Z_plus_o_xtrace", argv: []string{"zsh", "+o", "xtrace", "+x", "-c", "echo z26"}, want: zshCmd("echo z26", "zsh")},
	{name: "Z_nomatch", argv: []string{"zsh", "+o", "nomatch", "-3", "-c", "echo z19"}, want: plus(zshCmd("echo z19", "zsh"), withOptions("nonomatch"))},
	{name: "Z_Z_zle", argv: []string{"zsh", "-Z", "-c", "echo z20"}, want: plus(zshCmd("echo z20", "zsh"), withOptions("zle"))},
	{name: "Z_emulate_sh", argv: []string{"zsh", "--emulate", "sh", "-c", "echo z21"}, want: shCmd("zsh", "echo z21", "zsh")},
	{name: "Z_emulate_ksh_letters", argv: []string{"zsh", "--emulate", "ksh", "-bc", "echo z22"},
		want: Invocation{Shell: "zsh", Dialect: parse.Bash, Mode: ModeCommand, Script: "echo z22", Arg0: "zsh", Options: []string{"notify"}}},
	{name: "Z_b_ends_options", argv: []string{"zsh", "-b", "-c", mustNotRun}, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeFile, File: "-c", Arg0: "-c", Params: []string{mustNotRun}}},
	{name: "Z_bc", argv: []string{"zsh", "-bc", "echo z23", "x"}, want: zshCmd("echo z23", "x")},
	{name: "Z_dash_alone", argv: []string{"zsh", "-", "-c", mustNotRun}, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeFile, File: "-c", Arg0: "-c", Params: []string{mustNotRun}}},
	{name: "Z_plus_alone", argv: []string{"zsh", "+", "-c", mustNotRun}, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeFile, File: "-c", Arg0: "-c", Params: []string{mustNotRun}}},
	{name: "Z_trailing_dash", argv: []string{"zsh", "-x-", "-c", mustNotRun}, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeFile, File: "-c", Arg0: "-c", Params: []string{mustNotRun}, Options: []string{"xtrace"}}},
	{name: "Z_plus_l_not_login", argv: []string{"-zsh", "+l", "-c", "echo z24"}, want: zshCmd("echo z24", "-zsh")},
	{name: "Z_arg0_looks_like_option", argv: []string{"zsh", "-c", "echo z25", "-x"}, want: zshCmd("echo z25", "-x")},
	{name: "Z_version", argv: []string{"zsh", "--version", "-c", mustNotRun}, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeInfo, Arg0: "zsh"}},
	{name: "Z_version_after_c", argv: []string{"zsh", "-c", "--version", mustNotRun}, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeInfo, Arg0: "zsh"}},
	{name: "Z_t_tty", argv: []string{"zsh", "-t"}, tty: true, want: Invocation{Shell: "zsh", Dialect: parse.Zsh, Mode: ModeStdin, Arg0: "zsh", Options: []string{"singlecommand"}}},
	{name: "Z_o_unknown_name", argv: []string{"zsh", "-o", "bogus", "-c", mustNotRun}, want: plus(zshCmd(mustNotRun, "zsh"), withOptions("bogus")),
		realRejects: "zsh refuses unknown option names; Decode does not check them (they vary by version)"},
	{name: "EZ_bad_letter", argv: []string{"zsh", "-j", "-c", mustNotRun}, want: zshErr, err: "zsh: bad option: -j"},
	{name: "EZ_c_missing", argv: []string{"zsh", "-ec"}, want: zshErr, err: "zsh: string expected after -c"},
	{name: "EZ_o_missing", argv: []string{"zsh", "-o"}, want: zshErr, err: "zsh: string expected after -o"},
	{name: "EZ_emulate_late", argv: []string{"zsh", "-e", "--emulate", "sh", "-c", mustNotRun}, want: zshErr, err: "zsh: --emulate: must precede other options"},
	{name: "EZ_emulate_missing", argv: []string{"zsh", "--emulate"}, want: zshErr, err: "zsh: --emulate: argument required"},
	{name: "EZ_bad_option_string", argv: []string{"zsh", "-x-y", "-c", mustNotRun}, want: zshErr, err: `zsh: bad option string: "-x-y"`},
	{name: "EZ_empty_option_name", argv: []string{"zsh", "-o", "no", "-c", mustNotRun}, want: zshErr, err: "zsh: no such option: no"},

	// dash and sh.
	{name: "S_dash_c_params", argv: []string{"dash", "-c", "echo s1", "zero", "one"}, want: shCmd("dash", "echo s1", "zero", "one")},
	{name: "S_dash_lc", argv: []string{"dash", "-lc", "echo s2"}, want: plus(shCmd("dash", "echo s2", "dash"), asLogin)},
	{name: "S_dash_c_then_l", argv: []string{"dash", "-c", "-l", "echo s3"}, want: plus(shCmd("dash", "echo s3", "dash"), asLogin)},
	{name: "S_dash_letters", argv: []string{"dash", "-IVE", "-c", "echo s4"}, want: plus(shCmd("dash", "echo s4", "dash"), withOptions("ignoreeof", "vi", "emacs"))},
	{name: "S_dash_eo_pipefail", argv: []string{"dash", "-eo", "pipefail", "-c", "echo s5"}, want: plus(shCmd("dash", "echo s5", "dash"), withOptions("errexit", "pipefail")),
		realRejects: "dash before 0.5.13 (Debian 12) has no pipefail"},
	{name: "S_dash_plus_c", argv: []string{"dash", "+c", "echo s6", "a", "b"}, want: shCmd("dash", "echo s6", "a", "b")},
	{name: "S_dash_plus_s", argv: []string{"dash", "-s", "+s", "script.sh"}, want: Invocation{Shell: "dash", Dialect: parse.POSIX, Mode: ModeFile, File: "script.sh", Arg0: "script.sh"}},
	{name: "S_sh_I", argv: []string{"sh", "-I", "-c", "echo s7"}, want: plus(shCmd("sh", "echo s7", "sh"), withOptions("ignoreeof"))},
	{name: "S_sh_long", argv: []string{"sh", "--norc", "-c", "echo s8"}, want: plus(shCmd("sh", "echo s8", "sh"), func(inv *Invocation) { inv.NoRc = true }),
		realRejects: "dash has no long options; bash as sh accepts them"},
	{name: "S_sh_O", argv: []string{"sh", "-O", "extglob", "-c", "echo s9"}, want: plus(shCmd("sh", "echo s9", "sh"), withOptions("extglob")),
		realRejects: "dash has no -O; bash as sh accepts it"},
	{name: "S_sh_any_letter", argv: []string{"sh", "-Z", "-c", "echo s10"}, want: shCmd("sh", "echo s10", "sh"),
		realRejects: "sh accepts any letter, as some /bin/sh (mksh, busybox) might"},
	{name: "ES_dash_long", argv: []string{"dash", "--norc", "-c", mustNotRun}, want: dashErr, err: "dash: illegal option --"},
	{name: "ES_dash_O", argv: []string{"dash", "-O", "extglob", "-c", mustNotRun}, want: dashErr, err: "dash: illegal option -O"},
	{name: "ES_dash_h", argv: []string{"dash", "-h", "-c", mustNotRun}, want: dashErr, err: "dash: illegal option -h"},
	{name: "ES_dash_c_missing", argv: []string{"dash", "-c"}, want: dashErr, err: "dash: -c requires an argument"},
	{name: "ES_sh_c_missing", argv: []string{"sh", "-c"}, want: Invocation{Shell: "sh", Dialect: parse.POSIX}, err: "sh: -c: option requires an argument"},
}

func TestDecodeCaseNames(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	seen := map[string]bool{}
	for _, tc := range decodeCases {
		if !valid.MatchString(tc.name) || seen[tc.name] {
			t.Errorf("case name %q: must be unique and usable in go test -run", tc.name)
		}
		seen[tc.name] = true
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.argv, tc.tty)
			want := tc.want
			want.Argv = tc.argv
			if tc.err != "" {
				var de *DecodeError
				if !errors.As(err, &de) || de.Msg != tc.err {
					t.Fatalf("Decode(%q) error = %v, want *DecodeError %q", tc.argv, err, tc.err)
				}
				want = Invocation{Argv: tc.argv, Shell: want.Shell, Dialect: want.Dialect, Mode: ModeInfo, Arg0: tc.argv[0]}
			} else if err != nil {
				t.Fatalf("Decode(%q): %v", tc.argv, err)
			}
			if !reflect.DeepEqual(got, &want) {
				t.Errorf("Decode(%q, %v)\n got %+v\nwant %+v", tc.argv, tc.tty, *got, want)
			}
		})
	}
}

func TestIsWindowsShell(t *testing.T) {
	for name, want := range map[string]bool{
		"cmd": true, "cmd.exe": true, `C:\Windows\System32\CMD.EXE`: true, "powershell": true,
		"powershell.exe": true, "pwsh": true, "/usr/bin/pwsh": true, "pwsh.exe": true, "pwsh-preview": true,
		"bash": false, "bash.exe": false, "sh": false, "cmdx": false, "": false,
	} {
		if got := IsWindowsShell(name); got != want {
			t.Errorf("IsWindowsShell(%q) = %v, want %v", name, got, want)
		}
	}
}

// The probes print what the shell decoded: the set options we check, one
// per line, then ARGS and $0 and the positional parameters, each ending in
// a NUL byte. Login shells that cannot say so (dash) are caught by
// $HOME/.profile printing "login".
const (
	probeFlags = `case $- in *e*) echo errexit;; esac
case $- in *u*) echo nounset;; esac
case $- in *x*) echo xtrace;; esac
case $- in *i*) echo interactive;; esac
`
	probeArgs  = "echo ARGS\nprintf '%s\\0' \"$0\" \"$@\"\n"
	bashProbe  = probeFlags + "shopt -q login_shell && echo login\n[[ -o pipefail ]] && echo pipefail\n" + probeArgs
	posixProbe = probeFlags + "set -o 2>/dev/null | grep -q '^pipefail[[:space:]]*on' && echo pipefail\n" + probeArgs
	zshProbe   = `[[ -o errexit ]] && echo errexit
[[ -o unset ]] || echo nounset
[[ -o xtrace ]] && echo xtrace
[[ -o interactive ]] && echo interactive
[[ -o login ]] && echo login
[[ -o pipefail ]] && echo pipefail
` + probeArgs
)

// probedOptions are the options the probes report.
var probedOptions = []string{"errexit", "nounset", "xtrace", "pipefail"}

// TestDecodeRealShells runs every row that decodes to a command through the
// real shell, with the command string replaced by a probe (or the probe
// written to the script file a row names), and checks that
// the shell saw the same $0, parameters, login and interactive flags and
// options as Decode. Rows Decode rejects must make the real shell fail, and
// --help and --version rows succeed, without running anything. A shell missing here is skipped, or fails the
// test when CORDON_REQUIRE_SHELLS=1.
func TestDecodeRealShells(t *testing.T) {
	home := t.TempDir()
	for name, text := range map[string]string{".profile": "echo login\n", ".zshrc": "", ".zshenv": ""} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "HOME=" + home, "TERM=dumb"}
	for _, tc := range decodeCases {
		inv, err := Decode(tc.argv, false)
		runs := inv.Mode == ModeCommand || inv.Mode == ModeFile
		refused := err != nil || tc.realRejects != "" && !runs
		info := err == nil && inv.Mode == ModeInfo
		if !refused && !runs && !info {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			if tc.noReal != "" {
				t.Skip(tc.noReal)
			}
			path := realShell(t, inv.Shell)
			if refused || info {
				confirmNothingRan(t, path, tc.argv, env, info)
				return
			}
			confirmRun(t, path, tc, inv, env)
		})
	}
}

// realShell finds the real shell for a decoded Shell.
func realShell(t *testing.T, shell string) string {
	for _, dir := range []string{"/bin", "/usr/bin"} {
		path := filepath.Join(dir, shell)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return path
		}
	}
	if os.Getenv("CORDON_REQUIRE_SHELLS") == "1" {
		t.Fatalf("%s is not installed in /bin or /usr/bin (CORDON_REQUIRE_SHELLS=1)", shell)
	}
	t.Skipf("%s is not installed in /bin or /usr/bin", shell)
	return ""
}

// confirmNothingRan checks that the real shell refuses argv (exits non-zero)
// or, for --help and --version, exits 0, and in both cases runs no code.
func confirmNothingRan(t *testing.T, path string, argv, env []string, info bool) {
	out, stderr, code := runShell(t, path, argv, env, t.TempDir())
	if (code == 0) != info || strings.Contains(out, "cordon-ran") {
		t.Errorf("real %s: exit %d, stdout %q, stderr %q; Decode says it prints information: %v, or refuses", path, code, out, stderr, info)
	}
}

func confirmRun(t *testing.T, path string, tc decodeCase, inv *Invocation, env []string) {
	argv, dir := tc.argv, t.TempDir()
	if inv.Mode == ModeCommand {
		argv = probeArgv(t, tc.argv, inv)
	} else if err := writeProbe(dir, inv); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runShell(t, path, argv, env, dir)
	flags, args, ok := strings.Cut(out, "ARGS\n")
	switch {
	case !ok && tc.realRejects != "" && code != 0:
		t.Logf("real %s refused, as expected: %s", path, tc.realRejects)
		return
	case !ok:
		t.Fatalf("real %s did not run the probe: exit %d, stdout %q, stderr %q", path, code, out, stderr)
	}
	fields := strings.Split(strings.TrimSuffix(args, "\x00"), "\x00")
	seen := strings.Fields(flags)
	if fields[0] != inv.Arg0 {
		t.Errorf("$0: real %q, Decode %q", fields[0], inv.Arg0)
	}
	if !slices.Equal(fields[1:], inv.Params) {
		t.Errorf("params: real %q, Decode %q", fields[1:], inv.Params)
	}
	if slices.Contains(seen, "login") != inv.Login {
		t.Errorf("login: real %v, Decode %v", slices.Contains(seen, "login"), inv.Login)
	}
	if slices.Contains(seen, "interactive") != inv.Interactive {
		t.Errorf("interactive: real %v, Decode %v", slices.Contains(seen, "interactive"), inv.Interactive)
	}
	for _, name := range probedOptions {
		if real, ours := slices.Contains(seen, name), slices.Contains(inv.Options, name); real != ours {
			t.Errorf("%s: real %v, Decode %v (Options %q)", name, real, ours, inv.Options)
		}
	}
}

// writeProbe writes the probe to the script file inv names, in dir.
func writeProbe(dir string, inv *Invocation) error {
	if !filepath.IsLocal(inv.File) {
		return fmt.Errorf("the script file %q must be a local path to be confirmed", inv.File)
	}
	return os.WriteFile(filepath.Join(dir, inv.File), []byte(probeFor(inv.Shell)), 0o644)
}

func probeFor(shell string) string {
	switch shell {
	case "bash":
		return bashProbe
	case "zsh":
		return zshProbe
	}
	return posixProbe
}

// probeArgv is argv with the command string replaced by the probe for the
// decoded shell.
func probeArgv(t *testing.T, argv []string, inv *Invocation) []string {
	at := -1
	for i, a := range argv[1:] {
		if a == inv.Script && at >= 0 {
			t.Fatalf("the command string %q appears twice in the row's argv; make it unique", a)
		}
		if a == inv.Script {
			at = i + 1
		}
	}
	if at < 0 {
		t.Fatalf("the command string %q is not in argv", inv.Script)
	}
	out := slices.Clone(argv)
	out[at] = probeFor(inv.Shell)
	return out
}

// runShell runs the shell at path with argv (argv[0] as given) in dir,
// stdin /dev/null, in its own session so that -i cannot take the terminal.
// It returns stdout, and stderr and the exit status for messages.
func runShell(t *testing.T, path string, argv, env []string, dir string) (string, string, int) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
	cmd.Args, cmd.Env, cmd.Dir = argv, env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	newSession(cmd)
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", path, err)
	}
	return stdout.String(), stderr.String(), 0
}

// newSession sets SysProcAttr.Setsid where the platform has it (not on
// Windows), without a file per platform.
func newSession(cmd *exec.Cmd) {
	attr := &syscall.SysProcAttr{}
	if f := reflect.ValueOf(attr).Elem().FieldByName("Setsid"); f.IsValid() {
		f.SetBool(true)
	}
	cmd.SysProcAttr = attr
}

func TestZshDefaultOnSorted(t *testing.T) {
	if !slices.IsSorted(zshDefaultOn[:]) {
		t.Error("zshDefaultOn must be sorted for binary search")
	}
}

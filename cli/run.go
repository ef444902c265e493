package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/shim"
)

func runCommand() *command {
	return &command{
		name:  "run",
		args:  "[--backend auto|bwrap|landlock|seatbelt|none] [--network allowlist|on|off] [--workspace DIR] [--explain-denials] -- CMD [ARGS...]",
		short: "run a command in the sandbox, without judging it",
		long: `CMD runs confined by the sandbox policy: the workspace (DIR, else the git
top level of the current directory, else the current directory) and scratch
directories writable, everything else read-only, credentials hidden,
credential variables removed from the environment, the network per
--network. Nothing is judged: this is the boundary alone, for people and
for tests. The exit status is CMD's; 126 when it could not be confined,
127 when it was not found.

--explain-denials (macOS) reads Seatbelt's reports in the system log
while CMD runs, and then lists on stderr each operation the sandbox
refused (the process, the operation, the path or service): why a command
failed. CMD then runs as cordon's child, and a death by a signal is
reported as the exit status 128+N.`,
		run: runRun,
	}
}

func runRun(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	opts := &decide.ConfineOptions{}
	fs.StringVar(&opts.Backend, "backend", "", "sandbox backend: auto, bwrap, landlock, seatbelt, token or none (default: the settings', else auto)")
	explain := fs.Bool("explain-denials", false, "list what the sandbox refused (macOS), on stderr, after CMD ends")
	fs.StringVar(&opts.Network, "network", "", "allowlist, on or off (default: the settings', else allowlist)")
	fs.StringVar(&opts.Workspace, "workspace", "", "the writable workspace `DIR`")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return c.usageError(stderr, "no command to run")
	}
	if opts.Backend != "" {
		if err := platform.CheckBackend(opts.Backend); err != nil {
			return c.usageError(stderr, "%v", err)
		}
	}
	if n := platform.Network(opts.Network); n != "" && n != platform.NetworkOn && n != platform.NetworkOff && n != platform.NetworkAllowlist {
		return c.usageError(stderr, "--network %q: want allowlist, on or off", opts.Network)
	}
	if opts.Workspace != "" {
		ws, err := filepath.Abs(opts.Workspace)
		if err != nil {
			return c.usageError(stderr, "--workspace: %v", err)
		}
		opts.Workspace = ws
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "cordon run: %v\n", err)
		return 127
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "cordon run: cannot read the current directory: %v\n", err)
		return 126
	}
	conf, lines, err := shim.ConfineForSession(dir, os.Environ(), opts)
	for _, l := range lines {
		fmt.Fprintln(stderr, l)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cordon run: %v; nothing was run\n", err)
		return 126
	}
	if *explain {
		return runExplained(conf, path, argv, stderr)
	}
	// In a session's sandbox only when CORDON_SESSION names one.
	err = shim.ExecConfined(conf, decide.StateDir(os.Getenv), path, argv, os.Getenv, false)
	fmt.Fprintf(stderr, "cordon run: cannot run %s: %v\n", argv[0], err)
	return 126
}

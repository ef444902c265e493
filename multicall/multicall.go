// Package multicall is what the cordon binary does by the name it was
// started under: a shell's name makes it the shim (package shim), cordon
// the command line (package cli), and the hidden names the processes
// cordon starts itself (the guard, the snapshot saver, a session's
// manager and keeper, the network forwarder, the Seatbelt step).
package multicall

import (
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/cordonsh/cordon/cli"
	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/sessionbox"
	"github.com/cordonsh/cordon/shim"
)

// tuneGC makes the collector run at a fifth of its default rate (judging
// a long script allocates in a burst, in a process that soon ends), but
// keeps the heap under 256 MiB as long as it can, unless GOGC or
// GOMEMLIMIT say otherwise.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(256 << 20)
	}
}

// run picks the role from argv[0] and returns the exit status.
// Main is the binary run with args (os.Args): it returns the exit status.
func Main(args []string) int {
	if len(args) == 0 {
		args = []string{"cordon"}
	}
	// The hidden roles: processes cordon starts itself, never a person.
	// (One more, platform.UsernsRole, is taken by package platform's init
	// before this runs.)
	switch args[0] {
	case guard.Role: // the parent of the sandbox (package guard)
		return guard.Main(args)
	case shim.SnapshotRole: // the continuous snapshot saver
		return shim.SnapshotMain(args[1:])
	case sessionbox.ManagerRole: // a session sandbox's manager, on the host
		return sessionbox.ManagerMain(args)
	}
	// A session sandbox's keeper, run through a link of its name (bwrap
	// before 0.9 cannot set argv[0]).
	if filepath.Base(args[0]) == sessionbox.KeeperRole {
		return sessionbox.KeeperMain(args)
	}
	// Inside a sandbox with the network allowlist: the forwarder's role,
	// run through a link of its name too (see platform.NetRole).
	if filepath.Base(args[0]) == platform.NetRole {
		return platform.NetMain(args)
	}
	tuneGC()
	if _, ok := shim.ShellName(args[0]); ok {
		return shim.Run(args)
	}
	// sandbox-exec runs cordon by its path inside the sandbox (macOS),
	// so this role is argv[1]; never under a shell's name, which is
	// always judged.
	if len(args) > 1 && args[1] == platform.SeatbeltRole {
		return platform.SeatbeltMain(args[1:])
	}

	return cli.Main(args[1:], os.Stdout, os.Stderr)
}

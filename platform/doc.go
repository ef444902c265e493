// Package platform runs the real shell once a command has been judged,
// confined by the operating system.
//
// A [Policy] says what a confined program may do: which directories it may
// write (the workspace, scratch, caches, agents' files), which paths inside
// them stay read-only, which are hidden, which environment variables it
// gets, whether it may use the network. It is one model for every OS,
// made by [NewPolicy] from a [Spec] of unresolved entries ("~/.ssh",
// "$TMPDIR") with every path resolved to a real one.
//
// A [Backend] runs a program in place of cordon. [Sandbox] picks the one
// that confines by a policy: on Linux bubblewrap when a cached probe says
// it works ([ProbeBwrap]), else Landlock and seccomp applied in process
// (for an ordinary user, with mounts made in a user namespace by cordon
// re-executed as [UsernsRole], see userns_linux.go); on macOS Seatbelt;
// [Direct] only when the user's settings ask for no sandbox. [Confined]
// tells whether this process already runs inside a sandbox that holds a
// policy, by testing the confinement itself. [FindShell] locates the real
// shell that a shim stands in for, never the shim itself.
//
// # bwrap
//
// cordon stays the parent of bwrap: bwrap forwards no signal, so cordon
// passes those it receives to the confined shell, and ends as the shell
// ended (killed by the same signal when bwrap reports 128+N). Descriptors
// the caller left open reach the shell at their own numbers; bwrap's own
// (the seccomp filter, empty files laid over hidden ones) are pipes it
// reads and closes. The shell keeps its argv[0] through its own ELF
// interpreter (ld.so --argv0) on bwrap versions without --argv0, and its
// logical working directory through --chdir.
//
// # Direct
//
// [Direct] execs the real program in place of the shim:
//
//	err := platform.Direct.Exec("/usr/bin/bash", []string{"bash", "-c", "ls"}, os.Environ(), "")
//	// only reached when the exec failed
//
// On Unix this is execve(2): the pid, process group, session, controlling
// terminal, open file descriptors (0, 1, 2 and any others the caller left
// open), resource limits and the exit status, including 128+signal, are the
// real shell's own, because no cordon process is left in between. There is
// no forking and no signal forwarding.
//
// On Windows, which has no exec, the real program is started as a child
// with the same standard handles, environment and directory; cordon ignores
// Ctrl+C itself (the child receives it from the console), waits, and exits
// with the child's exit code.
//
// # Finding the real shell
//
// [FindShell] searches PATH, skipping every candidate that is the running
// cordon binary (through a symlink, a hard link, or a byte-identical copy),
// then /bin/NAME and /usr/bin/NAME. Relative PATH entries (".", an empty
// entry) are never used, for the same reason os/exec refuses them. The real
// shell is deliberately not configurable through an environment variable:
// the agent controls the environment. A configured location comes with the
// configuration file of a later issue.
//
// # Limits
//
// The Go runtime installs its signal handlers before main runs and does not
// expose the dispositions it inherited. A signal the caller ignored is
// therefore reset to its default for the real shell, except SIGHUP and
// SIGINT, which Go leaves ignored (so nohup keeps working). Agents reset
// dispositions before they spawn a shell (libuv, Rust's std, Python's
// restore_signals), so in practice the real shell starts the same way.
//
// A copy of cordon that is not byte-identical to the running one (another
// version) is not recognised as cordon; two different cordon builds on
// PATH, each shadowing the other, would exec each other. The shims
// directory made by install.sh holds symlinks, which are always recognised.
//
// # Seatbelt
//
// On macOS [Sandbox] gives Seatbelt: /usr/bin/sandbox-exec with a profile
// made from the policy by [NewSeatbeltProfile] (plain Go, built and
// tested on every system), every path a -D parameter. sandbox-exec execs
// cordon inside the sandbox as [SeatbeltRole], which sets the limits and
// execs the program with its own argv[0]: one process from the shim to
// the shell. Seatbelt cannot nest: [Confined] tells cordon's own sandbox
// (run directly) from another one (refused). See docs/macos.md.
//
// Windows has no sandbox backend yet: [Sandbox] refuses there unless the
// settings ask for none.
package platform

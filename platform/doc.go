// Package platform runs the real shell once a command has been judged.
//
// A [Backend] replaces the running process with the real program. Today
// there is one, [Direct]; the sandboxes of DESIGN §5 (bubblewrap, Landlock
// and seccomp, Seatbelt, a restricted Windows token) become further backends
// behind the same interface. [FindShell] locates the real shell that a shim
// stands in for, never the shim itself.
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
// The sandboxed backends are not implemented yet: every command that is
// allowed runs unconfined.
package platform

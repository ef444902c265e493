// Package shim is cordon running as a shell: it decodes an argv the way
// the shell named by argv[0] would (package invocation), has it decided
// (package decide), and either runs the real shell, argv unchanged, in
// cordon's sandbox, or refuses with one paragraph on stderr and exit
// status 126 ([Run]). A shell that reads its script from a pipe (a piped
// shell) has each statement decided as it arrives, and an interactive
// terminal each line.
//
// Nothing of cordon's is printed on an allowed command, and the real
// shell is found on PATH skipping every entry that is cordon itself.
//
// Before an allowed command runs, the shim saves what it would destroy
// ([decide.BeforeRun]: saveBeforeRun) and starts the continuous
// snapshot saver (role [SnapshotRole]); after it, a guard process puts
// back the auto-run files it planted.
package shim

// Package shim is cordon running as a shell: it decodes an argv the way
// the shell named by argv[0] would ([invocation.Decode]), judges what it would run
// ([Judge], [Check]) with package parse and the built-in rules of package
// rules, and either replaces itself with the real shell, argv unchanged,
// or refuses with one paragraph on stderr and exit status 126 ([Run]).
//
// Nothing of cordon's is printed on an allowed command, and the real
// shell is found on PATH skipping every entry that is cordon itself.
//
// # One decision point
//
// Every judgement is [Context.Decide] on a [Request]: a one-shot command,
// each statement of a piped shell, a Windows command line, check and
// explain. The [Context] (settings, workspace, rules, the resolved
// sandbox policy) is read once per run ([NewContext]) and shared with
// git's host and the sandbox ([Context.Confine]). Decide returns one
// decision.Decision and, for real commands, writes it to the audit log
// (package audit). Between the rules' judgement and approvals, the
// [BeforeRun] steps see every decision that is not a deny: a step that
// saves what a command would destroy lists the saved ids in
// Decision.Saved and may set Decision.Verdict to allow (snapshots:
// saveBeforeRun; the continuous snapshot saver, role [SnapshotRole], is
// started right before the shell runs). An ask left is
// allowed by an approval (package approval) or the reviewer (package
// review), or recorded with the id `cordon approve` takes.
package shim

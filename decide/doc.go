// Package decide is cordon's one decision point: a [Context] (the
// settings, the workspace, the effective rules, the sandbox policy), read
// once per run, and a [Request] in; one decision.Decision out
// ([Context.Decide]). Its callers are the shim's run paths (a one-shot
// command, each statement of a piped shell, each line of a terminal, a
// Windows command line), the agents' hooks (cordon hook), and cordon
// check and explain ([Check], [CheckWindows]). It judges and records; it
// runs nothing of the command's.
//
// Decide judges the request with package rules (the script read by
// package parse); the [BeforeRun] steps see every decision that is not a
// deny: a step that saves what a command would destroy lists the saved
// ids in Decision.Saved and may set Decision.Verdict to allow (the
// shim's snapshots). An ask left is allowed by an approval (package
// approval) or the reviewer (package review), or recorded with the id
// `cordon approve` takes; every real decision goes to the audit log
// (package audit).
//
// What a decision is made for is chosen here too, so that the judge and
// the sandbox agree: the workspace of a directory ([Workspace]), the
// rules for it ([Rules]), and the sandbox policy an allowed command runs
// with ([Context.Confine]), which the judge asks what a command may
// write.
package decide

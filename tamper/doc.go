// Package tamper finds, in what a piped shell or an interactive terminal
// is about to run, what would go round cordon's judging of the next
// statements or lines: a redefinition of what a refusal runs ([Hijack]),
// a history expansion ([HistoryBang]), a function handed in by the
// environment under a builtin's name ([FuncsInEnv]), a line that would
// switch a terminal's hook off ([HookTamper], [HijackPS] for
// PowerShell). It says why, and runs nothing.
package tamper

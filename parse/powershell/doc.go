// Package powershell finds the commands a PowerShell script would run,
// without running anything.
//
// [Commands] parses a script (Windows PowerShell 5.1 or PowerShell 7,
// as [Config.Core] says) into a syntax tree and walks it, evaluating what
// can be known statically: literal strings, variables assigned earlier,
// $env: variables from [Config.Getenv], string operators (+, -f, -join,
// -replace, -split), base64 payloads decoded with [Convert] and
// [Text.Encoding], and script blocks built from known strings. Code
// carriers (Invoke-Expression, script blocks handed to ForEach-Object or
// Invoke-Command, the call operator, dot-sourced script files,
// Start-Process) are followed, and what cannot be followed is reported as
// [Command.UnknownCode]. Aliases are resolved to cmdlet names with
// PowerShell's built-in alias table for the edition; parameters are
// reported as written, never bound: binding is the rule engine's job.
//
// The package knows PowerShell grammar and the few cmdlets that carry
// code; it never decides whether a command is dangerous.
package powershell

// Package cli is the cordon command line: what the binary does when it is
// not called by a shell's name.
//
// The commands are a contract that scripts, tests and the held-out scoring
// depend on:
//
//	cordon check [--json] [--cwd DIR] [--platform linux|darwin|windows] -- ARGV...
//	cordon explain [--cwd DIR] [--platform linux|darwin|windows] -- ARGV...
//	cordon version
//	cordon help [COMMAND]
//
// check and explain judge ARGV (what an agent would exec, such as
// bash -lc '...', or a direct command such as rm -rf /) as if run in DIR
// with this process's environment, and never run any part of it. Both exit
// 0 whatever the verdict, 1 when the command could not be judged, and 2 on
// a usage error. check --json prints one object, [rules.Judgement.JSON]:
//
//	{"verdict": "deny", "categories": ["outside"],
//	 "reasons": [{"rule": "...", "message": "...", ...}], "commands": [...]}
package cli

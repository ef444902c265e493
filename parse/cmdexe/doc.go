// Package cmdexe finds the commands a cmd.exe command line or batch file
// would run, without running anything.
//
// cmd.exe reads a line in phases: it first expands %VAR% (for a batch
// file, a whole parenthesised block at once), then splits the result into
// commands at & && || |, ( ) and redirections, then, when each command
// runs, substitutes FOR variables and, with delayed expansion, !VAR!.
// [Commands] follows the same phases on a model of the environment kept
// from Config.Getenv and the set commands it meets, and reports each
// command with its arguments, redirections, directory and the carriers
// (for, if, call, start, forfiles, batch files) that lead to it.
//
// The walk is conservative: both branches of if and of && ||, every line
// of a batch file once whatever goto says, every item of a for loop (or
// once with the variable unknown). Values it cannot know are marked with
// [Unknown].
package cmdexe

// Package gitstate reads a repository's real state for the judge: which
// files git could not restore, the stash, unmerged branches, remotes.
//
// It runs on the host, outside every sandbox, before the command it
// judges, so it must never run a program the repository (or anyone who
// could write to it) configures. The stash, the remotes and HEAD are read
// from files. What needs git (status, --contains) runs the host's git
// (see [Host]) with a common directory of cordon's own: a configuration
// file holding only the variables that change how files compare (kept),
// links to the repository's refs and info directory, and nothing else;
// the system's and the user's configuration files are not read. No
// filter, fsmonitor, hook, pager, alias, transport or include is then
// known to git, whatever the files say or come to say while it runs.
// Submodules are read as repositories of their own, never by git's own
// recursion. A layout git would follow elsewhere (a .git/commondir that
// leads out of the repository) is an error: the state is unknown.
package gitstate

// Package gitstate reads a repository's real state for the judge: which
// files git could not restore, the stash, unmerged branches. It runs git
// read-only, only when asked, with settings that keep a repository's own
// configuration from running programs (fsmonitor hooks).
package gitstate

//go:build !linux

package guard

import (
	"os"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// A Command is a program started confined. Outside Linux there is no
// sandbox backend, and so no guard process.
type Command struct{ child *platform.Child }

// Start starts the program with backend b.
func Start(b platform.Backend, p *platform.Policy, stateDir, path string, argv, env []string, stdin *os.File) (*Command, error) {
	c, err := b.Start(path, argv, env, stdin)
	if err != nil {
		return nil, err
	}
	return &Command{child: c}, nil
}

// Forward passes a signal on to the program.
func (c *Command) Forward(sig os.Signal) { c.child.Forward(sig) }

// Wait waits for the program and returns its exit status.
func (c *Command) Wait() (int, error) { return c.child.Wait() }

// Exec replaces this process with the program.
func Exec(b platform.Backend, p *platform.Policy, stateDir, path string, argv, env []string) error {
	return b.Exec(path, argv, env, "")
}

// Main is the guard process, which only Linux has.
func Main(args []string) int {
	os.Stderr.WriteString("cordon: the guard process runs on Linux only\n")
	return 126
}

// Sweep does nothing outside Linux.
func Sweep(stateDir, ws string) []string { return nil }

// Reconcile does nothing outside Linux.
func Reconcile(stateDir, ws string) ([]string, error) { return nil, nil }

// TrustedContent is Linux's: elsewhere there is no ledger.
func TrustedContent(stateDir, ws, path string) ([]byte, bool) { return nil, false }

// StaleLedgers is Linux's: elsewhere there is no ledger.
func StaleLedgers(stateDir string) []string { return nil }

// CleanLedgers does nothing outside Linux.
func CleanLedgers(stateDir string) {}

// MoveAside does nothing outside Linux.
func MoveAside(stateDir, ws string, paths []string) []string { return nil }

// BelowSince has no mark outside Linux.
func BelowSince(stateDir, ws string) (time.Time, bool) { return time.Time{}, false }

// DoneBelow does nothing outside Linux.
func DoneBelow(stateDir, ws string, t time.Time) {}

// SayNext does nothing outside Linux.
func SayNext(stateDir, ws, kind string, lines []string) {}

// FindBelow finds nothing outside Linux.
func FindBelow(stateDir, ws string, entries, skip, roots []string, t time.Time, clean func(string) bool) ([]string, []platform.NestedRepo, bool) {
	return nil, nil, true
}

// AdoptRoots does nothing outside Linux.
func AdoptRoots(stateDir, ws string, repos []platform.NestedRepo) []string { return nil }

// TrustedConfig is Linux's: elsewhere there is no ledger.
func TrustedConfig(stateDir, ws, config string) (sum string, kept, ledger bool) {
	return "", false, false
}

// AgentRemotes is Linux's: elsewhere there is no ledger.
func AgentRemotes(stateDir, ws, config string) ([]string, string) { return nil, "" }

// CheckBelow does nothing outside Linux.
func CheckBelow(stateDir string, p *platform.Policy, since time.Time) []string { return nil }

// Changes is Linux's: elsewhere every end walks.
type Changes struct{}

// WatchChanges watches nothing outside Linux.
func WatchChanges(p *platform.Policy, since time.Time) *Changes { return nil }

// Changed is always true outside Linux.
func (c *Changes) Changed() bool { return true }

// Stop does nothing outside Linux.
func (c *Changes) Stop() {}

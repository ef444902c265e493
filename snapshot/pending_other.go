//go:build !unix

package snapshot

import "time"

// The continuous guard runs on Unix only; see pending_unix.go.

// SaverRole is the continuous guard's saver's role (Unix only).
const SaverRole = "cordon-snapshot"

// CountRound is a no-op here.
func (s *Store) CountRound(ws string) {}

// Rounds is 0 here.
func (s *Store) Rounds(ws string) int { return 0 }

// LastRound is never known here.
func (s *Store) LastRound(ws string) (time.Time, bool) { return time.Time{}, false }

// MarkPending is a no-op here.
func (s *Store) MarkPending(ws string, pid int, pidStart string, saver int) error { return nil }

// LockPending is a no-op here.
func (s *Store) LockPending(ws string) (func(), error) { return func() {}, nil }

// DonePending is a no-op here.
func (s *Store) DonePending(ws string, pid int, start string) {}

// WaitPending is a no-op here.
func (s *Store) WaitPending(ws string) {}

// WaitExit is a no-op here.
func WaitExit(pid int, start string) {}

// ProcessStart is "" here.
func ProcessStart(pid int) string { return "" }

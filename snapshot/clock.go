package snapshot

import (
	"os"
	"path/filepath"
	"time"
)

// The file clock: the kernel stamps file times with a coarse clock that
// lags time.Now() by up to a few milliseconds (a tick; more when ticks
// are late), so a file written right after time.Now() can carry a change
// time before it. Whether a path changed after a command is therefore
// told on the file clock itself: the command's end is the change time of
// a file the store touches when the command has ended.

// FileClock returns the time the kernel stamps a file changed now with:
// it rewrites the store's clock file and reads its change time.
func (s *Store) FileClock() (time.Time, error) {
	if err := s.init(); err != nil {
		return time.Time{}, err
	}
	file := filepath.Join(s.Dir, "tmp", "clock")
	if err := os.WriteFile(file, []byte{'.'}, 0o600); err != nil {
		return time.Time{}, err
	}
	fi, err := os.Lstat(file)
	if err != nil {
		return time.Time{}, err
	}
	sec, nsec := ctime(fi)
	if sec == 0 && nsec == 0 {
		return time.Time{}, os.ErrInvalid
	}
	return time.Unix(sec, nsec), nil
}

// maxClockWait bounds [Store.passClock]: far more than a tick.
const maxClockWait = 200 * time.Millisecond

// passClock returns once the file clock is past t, so that whatever
// changes afterwards carries a change time after t: the first reading
// past t (the last one when maxClockWait passed first, zero on an error).
func (s *Store) passClock(t time.Time) time.Time {
	deadline := time.Now().Add(maxClockWait)
	for {
		now, err := s.FileClock()
		if err != nil || now.After(t) || !time.Now().Before(deadline) {
			return now
		}
		time.Sleep(time.Millisecond)
	}
}

// ClockPast returns clock, a reading of the file clock taken before a
// command starts, unless a file among paths carries a change time at or
// after it: then a later reading, once the file clock is past clock. A
// file changed before clock was read may carry clock itself (changed
// within the same tick of the coarse clock, or the last fine-grained
// time the kernel stamped, which the next coarse ones repeat), and
// [Store.Refresh] leaves such a file to the command's round, as the
// command's doing: a person's edit made just before the command would
// not be kept, and the command that destroys it could not be undone.
// A reading past clock is after every change made before clock was
// read. Where the kernel stamps a file whose times were just read with
// a fine-grained time (multigrain timestamps, Linux 6.13), that is one
// more write and stat; elsewhere it waits for the next tick.
func (s *Store) ClockPast(clock time.Time, paths []string) time.Time {
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if sec, nsec := ctime(fi); !time.Unix(sec, nsec).Before(clock) {
			if now := s.passClock(clock); now.After(clock) {
				return now
			}
			return clock
		}
	}
	return clock
}

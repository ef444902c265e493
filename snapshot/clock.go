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
// changes afterwards carries a change time after t.
func (s *Store) passClock(t time.Time) {
	deadline := time.Now().Add(maxClockWait)
	for time.Now().Before(deadline) {
		now, err := s.FileClock()
		if err != nil || now.After(t) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

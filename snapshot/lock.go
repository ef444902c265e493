package snapshot

import (
	"fmt"
	"path/filepath"

	"github.com/cordonsh/cordon/filelock"
)

// lock makes the store's directories when missing and takes its
// exclusive lock; unlock releases it.
func (s *Store) lock() (unlock func(), err error) {
	if err := s.init(); err != nil {
		return nil, err
	}
	unlock, err = filelock.Make(filepath.Join(s.Dir, "lock"))
	if err != nil {
		return nil, fmt.Errorf("cannot lock the snapshot store: %v", err)
	}
	return unlock, nil
}

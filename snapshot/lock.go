package snapshot

import (
	"fmt"
	"path/filepath"

	"github.com/cordonsh/cordon/filelock"
)

// lock takes the store's exclusive lock; unlock releases it.
func (s *Store) lock() (unlock func(), err error) {
	unlock, err = filelock.Make(filepath.Join(s.Dir, "lock"))
	if err != nil {
		return nil, fmt.Errorf("cannot lock the snapshot store: %v", err)
	}
	return unlock, nil
}

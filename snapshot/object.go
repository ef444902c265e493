package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// store copies the regular file at path into the objects and returns its
// sha256 and size, and whether the content was new to the store. The file is opened without following a symlink in any
// component where the system allows it ([openFile]), so that a directory
// swapped for a link after it was planned cannot make cordon copy a file
// from somewhere else (a credential the sandbox hides) into the store.
func (s *Store) store(path string) (sum string, n int64, isNew bool, err error) {
	src, err := openFile(path)
	if err != nil {
		return "", 0, false, fmt.Errorf("cannot save %s: %v", path, err)
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", 0, false, fmt.Errorf("cannot save %s: not a regular file any more", path)
	}
	if fi.Size() > s.Budgets.File {
		return "", 0, false, &OverBudgetError{Path: path, Size: fi.Size(), Budget: s.Budgets.File, What: "file"}
	}
	h := sha256.New()
	var tmpName string
	if name := filepath.Join(s.Dir, "tmp", "o-"+newID()); cloneFile(src, name) == nil {
		// The clone shares the blocks; the hash is read from it, so it is
		// the content saved even if the source changes meanwhile.
		tmpName = name
		defer os.Remove(tmpName)
		var c *os.File
		if c, err = os.Open(tmpName); err == nil {
			n, err = io.Copy(h, c)
			c.Close()
		}
	} else {
		tmp, err2 := os.CreateTemp(filepath.Join(s.Dir, "tmp"), "o-")
		if err2 != nil {
			return "", 0, false, fmt.Errorf("cannot write the snapshot store: %v", err2)
		}
		tmpName = tmp.Name()
		defer os.Remove(tmpName)
		n, err = io.Copy(io.MultiWriter(tmp, h), io.LimitReader(src, s.Budgets.File+1))
		if err == nil && n > s.Budgets.File {
			err = &OverBudgetError{Path: path, Size: n, Budget: s.Budgets.File, What: "file"}
		}
		if e := tmp.Close(); err == nil {
			err = e
		}
	}
	if err != nil {
		var ob *OverBudgetError
		if errors.As(err, &ob) {
			return "", 0, false, err
		}
		return "", 0, false, fmt.Errorf("cannot save %s: %v", path, err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	dst := s.object(sum)
	if _, err := os.Lstat(dst); err == nil {
		return sum, n, false, nil // the same content is saved already
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", 0, false, fmt.Errorf("cannot write the snapshot store: %v", err)
	}
	os.Chmod(tmpName, 0o400)
	if err := os.Rename(tmpName, dst); err != nil {
		return "", 0, false, fmt.Errorf("cannot write the snapshot store: %v", err)
	}
	return sum, n, true, nil
}

// openObject opens a saved content.
func (s *Store) openObject(sum string) (*os.File, error) {
	if len(sum) != 64 {
		return nil, fs.ErrNotExist
	}
	return os.Open(s.object(sum))
}

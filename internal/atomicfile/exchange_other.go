//go:build !linux

package atomicfile

import "errors"

// exchange is not done here: [exchanged] renames.
func exchange(a, b string) error { return errors.ErrUnsupported }

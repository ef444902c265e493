//go:build !linux

package atomicfile

import "errors"

// exchange is not done here: [Replace] renames.
func exchange(a, b string) error { return errors.ErrUnsupported }

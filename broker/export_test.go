package broker

import (
	"io"
	"time"
)

// MaskStream is maskStream for the tests, with a map of replacements.
func MaskStream(rc io.ReadCloser, m map[string]string) io.ReadCloser {
	var pairs []string
	for k, v := range m {
		pairs = append(pairs, k, v)
	}
	return maskStream(rc, pairs)
}

// Later moves the clock bundles' stamps are taken by d ahead, until the
// test ends.
func Later(t interface{ Cleanup(func()) }, d time.Duration) {
	old := clock
	clock = func() time.Time { return old().Add(d) }
	t.Cleanup(func() { clock = old })
}

// Parsed is how many system bundles were read and parsed so far.
func Parsed() int64 { return parsed.Load() }

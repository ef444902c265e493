package broker

import "io"

// MaskStream is maskStream for the tests, with a map of replacements.
func MaskStream(rc io.ReadCloser, m map[string]string) io.ReadCloser {
	var pairs []string
	for k, v := range m {
		pairs = append(pairs, k, v)
	}
	return maskStream(rc, pairs)
}

//go:build !windows

package winpipe

import (
	"io"
	"time"
)

// A Listener is a pipe the shim serves (Windows only).
type Listener struct{}

// Listen fails outside Windows.
func Listen(name, clientSID string) (*Listener, error) { return nil, ErrUnsupported }

// Accept fails outside Windows.
func (l *Listener) Accept(pid int, timeout time.Duration) (io.ReadWriteCloser, error) {
	return nil, ErrUnsupported
}

// Close does nothing outside Windows.
func (l *Listener) Close() error { return nil }

// Dial fails outside Windows.
func Dial(name string) (io.ReadWriteCloser, error) { return nil, ErrUnsupported }

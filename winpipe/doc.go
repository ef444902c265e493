// Package winpipe is the named pipe between cordon's shim and the
// interactive PowerShell it starts on Windows: the shim, unconfined,
// serves it; the shell, confined by a restricted token, connects to it
// from its Enter key handler and asks about each line.
//
// The pipe cannot be taken over, and fails closed:
//   - Its name is random (128 bits) and passed to the shell alone, on
//     its command line.
//   - The shim creates it before the shell starts, as its first instance
//     (FILE_FLAG_FIRST_PIPE_INSTANCE) with at most one instance: a pipe
//     of that name made before is an error, not a server to talk to, and
//     no second instance (a server of the shell's own) can be made later.
//   - Its DACL grants the user, and the confined shell through its
//     workspace SID (a write-restricted token must find write granted to
//     one of its restricting SIDs): another user's process cannot open
//     it. Remote clients are refused.
//   - The server accepts one client, and only the process it started
//     (GetNamedPipeClientProcessId): another process that connects first
//     makes the shell's own connection fail, so the shell stops.
package winpipe

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
)

// ErrUnsupported is returned outside Windows.
var ErrUnsupported = errors.New("named pipes are Windows'")

// Prefix starts every pipe name cordon makes.
const Prefix = `\\.\pipe\cordon-`

// NewName returns a new pipe name: Prefix and 32 random hex digits.
func NewName() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return Prefix + hex.EncodeToString(b[:]), nil
}

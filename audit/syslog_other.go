//go:build !unix

package audit

import (
	"errors"

	"github.com/cordonsh/cordon/decision"
)

// Syslog is not available here: there is no /dev/log.
func Syslog(d *decision.Decision) error {
	return errors.New("no local syslog socket on this system (log.syslog is for Linux and macOS)")
}

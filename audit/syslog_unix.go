//go:build unix

package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/decision"
)

// SyslogSocket is the local syslog socket (journald listens on it too).
var SyslogSocket = "/dev/log"

// Syslog sends d to the local syslog daemon as an RFC 5424 message,
// facility user, severity info for allow and warning otherwise, the
// record's JSON as the message. It is one datagram over a Unix socket
// made with golang.org/x/sys/unix: package net stays out of the binary
// (no resolver, no dialer), and nothing leaves the machine.
func Syslog(d *decision.Decision) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	unix.CloseOnExec(fd)
	err = unix.Sendto(fd, syslogMessage(d), 0, &unix.SockaddrUnix{Name: SyslogSocket})
	if err != nil {
		return fmt.Errorf("%s: %v", SyslogSocket, err)
	}
	return nil
}

// syslogMessage is d as an RFC 5424 message.
func syslogMessage(d *decision.Decision) []byte {
	const user, info, warning = 1, 6, 4
	sev := warning
	if d.Verdict == decision.Allow {
		sev = info
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "-"
	}
	body, _ := json.Marshal(d)
	return fmt.Appendf(nil, "<%d>1 %s %s cordon %d decision - %s", user*8+sev,
		d.Time.UTC().Format(time.RFC3339Nano), host, os.Getpid(), body)
}

//go:build unix

package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/decision"
)

// TestSyslogSends: with log.syslog, a record reaches a datagram socket
// standing in for /dev/log.
func TestSyslogSends(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "log")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	old := SyslogSocket
	SyslogSocket = sock
	defer func() { SyslogSocket = old }()
	l := &Log{Dir: t.TempDir(), Syslog: true}
	if err := l.Append(&decision.Decision{Time: time.Now(), Verdict: decision.Allow, Command: "ls"}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if msg := string(buf[:n]); !strings.HasPrefix(msg, "<14>1 ") || !strings.Contains(msg, `"command":"ls"`) {
		t.Errorf("got %q", msg)
	}
}

// TestSyslogMessage: RFC 5424's header, then the record.
func TestSyslogMessage(t *testing.T) {
	d := &decision.Decision{Time: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), Verdict: decision.Ask, Command: "git reset --hard"}
	msg := syslogMessage(d)
	host, _ := os.Hostname()
	want := fmt.Sprintf("<12>1 2026-05-01T10:00:00Z %s cordon %d decision - {", host, os.Getpid())
	if !bytes.HasPrefix(msg, []byte(want)) {
		t.Fatalf("message %q, want prefix %q", msg, want)
	}
	var back decision.Decision
	if err := json.Unmarshal(msg[len(want)-1:], &back); err != nil || back.Command != d.Command {
		t.Errorf("the record does not follow the header: %v", err)
	}
}

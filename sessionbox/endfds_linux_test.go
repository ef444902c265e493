package sessionbox

import (
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestEndConnsClosed: the manager's copies of its commands'
// connections are all closed once their ends are told, whether the
// command ran ("-SEQ"), could not be started ("xSEQ"), or more ran at
// once than it keeps (past maxTokens): many commands leave it no
// descriptor more, and each shim then reads its connection's end.
func TestEndConnsClosed(t *testing.T) {
	m, ctl, _ := fakeSession(t)
	if _, err := unix.Write(ctl, []byte("ready")); err != nil {
		t.Fatal(err)
	}
	unix.SetsockoptTimeval(ctl, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 10})
	open := func() int {
		des, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(des)
	}
	start := func(token string) int { return handCommand(t, m, ctl, token) }
	ended := func(conn int) bool {
		unix.SetsockoptTimeval(conn, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
		buf := make([]byte, 64)
		for {
			n, err := readFD(conn, buf)
			if err != nil {
				return false
			}
			if n == 0 {
				return true
			}
		}
	}
	// A first command and its end: what the manager opens once (its
	// ledger, its watches) is open from then on.
	c := start("t0")
	unix.Write(ctl, []byte("+"))
	unix.Write(ctl, []byte("-1"))
	ended(c)
	unix.Close(c)
	time.Sleep(100 * time.Millisecond)
	base := open()
	seq := 1
	for round := 0; round < 3; round++ {
		var conns []int
		for i := 0; i < maxTokens+40; i++ {
			conns = append(conns, start("t"+strconv.Itoa(i)))
		}
		for i, conn := range conns {
			msg := "-"
			if i%3 == 0 {
				msg = "x"
			} else {
				unix.Write(ctl, []byte("+"))
			}
			if _, err := unix.Write(ctl, []byte(msg+strconv.Itoa(seq+1+i))); err != nil {
				t.Fatal(err)
			}
			if !ended(conn) {
				t.Fatalf("command %d: its shim did not read its connection's end", seq+1+i)
			}
			unix.Close(conn)
		}
		seq += len(conns)
	}
	time.Sleep(200 * time.Millisecond)
	if n := open(); n > base {
		t.Errorf("%d descriptors open after %d commands, %d before", n, seq-1, base)
	}
}

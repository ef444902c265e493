//go:build linux

package battery

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cordonsh/cordon/internal/wire"
)

// TestSessionHandedCommandHoldsTicket: a command the manager has handed
// to the keeper, not yet started, counts as running: another command's
// end meanwhile must not give back the session's guard ticket, or the
// handed command runs with none held and what it writes at a guarded
// place stays (and becomes trusted at the next command). The window
// (between the manager's handing over and the keeper's fork) is widened
// here by a shim that sends its request late, as a shim descheduled on a
// busy machine does.
func TestSessionHandedCommandHoldsTicket(t *testing.T) {
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		r.inSession(true)
		state := filepath.Join(r.home, ".local", "state", "cordon")
		socks, _ := filepath.Glob(filepath.Join(state, "sessions", "*.sock"))
		if len(socks) != 1 {
			t.Fatalf("want one session socket, got %q", socks)
		}
		dir, err := os.Open(filepath.Dir(socks[0]))
		if err != nil {
			t.Fatal(err)
		}
		defer dir.Close()
		sock := "/proc/self/fd/" + strconv.Itoa(int(dir.Fd())) + "/" + filepath.Base(socks[0])
		// The first command runs a while: the ticket is held.
		first := make(chan struct{})
		go func() {
			defer close(first)
			r.sh("sleep 0.6")
		}()
		for start := time.Now(); heldTickets(state) != 1; time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatal("the first command's ticket was never held")
			}
		}
		frame := func(v any) []byte {
			data, err := wire.Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			return append(binary.BigEndian.AppendUint32(nil, uint32(len(data))), data...)
		}
		// A shim's connection, its credentials said and answered.
		connect := func() (int, *os.File) {
			conn, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := unix.Connect(conn, &unix.SockaddrUnix{Name: sock}); err != nil {
				t.Fatal(err)
			}
			// (The fields of sessionbox's hello, in order.)
			hello := struct {
				Secrets []string
				Round   *struct{}
				Token   string
			}{}
			if _, err := unix.Write(conn, frame(&hello)); err != nil {
				t.Fatal(err)
			}
			f := os.NewFile(uintptr(conn), "conn")
			var n [4]byte
			if _, err := io.ReadFull(f, n[:]); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(f, make([]byte, binary.BigEndian.Uint32(n[:]))); err != nil {
				t.Fatal(err)
			}
			return conn, f
		}
		// The second command's shim: its credentials, then (late) its
		// request.
		conn, f := connect()
		defer f.Close()
		// The first command ends meanwhile.
		<-first
		time.Sleep(300 * time.Millisecond)
		held := heldTickets(state)
		null, _ := os.Open(os.DevNull)
		defer null.Close()
		fd := int(null.Fd())
		req := struct {
			Path  string
			Argv  []string
			Env   []string
			Dir   string
			Umask int
			FDs   []int
		}{Path: r.bash, Argv: []string{"bash", "-c", "echo 'export X=1' > .envrc"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: r.ws, Umask: 0o22, FDs: []int{0, 1, 2}}
		if _, err := unix.SendmsgN(conn, frame(&req), unix.UnixRights(fd, fd, fd), nil, 0); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewReader(f)
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				t.Fatalf("the keeper: %v", err)
			}
			if strings.HasPrefix(line, "exit ") || strings.HasPrefix(line, "error ") {
				t.Logf("the keeper: %s", strings.TrimSpace(line))
				break
			}
		}
		f.Close()
		for start := time.Now(); heldTickets(state) != 0 && time.Since(start) < 5*time.Second; time.Sleep(10 * time.Millisecond) {
		}
		if data, err := os.ReadFile(filepath.Join(r.ws, ".envrc")); err == nil {
			t.Errorf("a command handed to the keeper while another ended ran without a ticket (%d held before it started): its .envrc is on the host: %q", held, data)
		}

		// A command handed over that the keeper cannot start (its
		// request names descriptors it does not carry) gives the ticket
		// back as one that ended does.
		for start := time.Now(); heldTickets(state) != 0; time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatal("a ticket is held between commands")
			}
		}
		conn, f = connect()
		defer f.Close()
		for start := time.Now(); heldTickets(state) != 1; time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatal("the handed command's ticket was never held")
			}
		}
		if _, err := unix.Write(conn, frame(&req)); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(f).ReadString('\n'); !strings.HasPrefix(line, "error ") {
			t.Fatalf("the keeper started a request without its descriptors: %q", line)
		}
		for start := time.Now(); heldTickets(state) != 0; time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatal("a command the keeper could not start kept the ticket")
			}
		}
	})
}

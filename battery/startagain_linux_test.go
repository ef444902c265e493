package battery

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordonsh/cordon/sessionbox"
)

// TestStartAgainKeepsStreams: while other programs make and remove
// directories holding Unix sockets in /tmp (what a test runner or a
// language server does), a one-shot command's bwrap often fails to set
// up (a directory it binds or covers went meanwhile) and is started
// again. The command started again must get the caller's standard
// streams: the guard's process dropped its copies of stdin and stdout
// as soon as the first bwrap started, and the second ran with /dev/null
// in their place, its output lost and its status kept (11 of 40 such
// commands printed nothing and exited 0 before the fix).
func TestStartAgainKeepsStreams(t *testing.T) {
	b := newBattery(t, "bwrap")
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { churnSockets(ctx, t) })
	defer func() { stop(); wg.Wait() }()
	const runs = 30
	retried := 0
	for i := range runs {
		in := filepath.Join(b.base, "in")
		if err := os.WriteFile(in, []byte(fmt.Sprintf("line %d\n", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := b.runWithFDs("cat; echo out; echo err >&2; exit 3", f)
		f.Close()
		if want := fmt.Sprintf("line %d\nout\n", i); out != want || code != 3 {
			t.Fatalf("run %d: exit %d, stdout %q, want exit 3 and %q (stderr %q)", i, code, out, want, errOut)
		}
		if !strings.HasSuffix(errOut, "err\n") {
			t.Fatalf("run %d: stderr %q does not end with the command's", i, errOut)
		}
		if strings.Contains(errOut, "bwrap:") {
			retried++
		}
	}
	t.Logf("%d of %d commands had a failed bwrap start", retried, runs)
}

// TestSessionStartAgainKeepsKeeper: as TestStartAgainKeepsStreams, for
// the bwrap that a session's manager starts its keeper in. The manager
// closed its copy of the keeper's end of their connection as soon as
// the first bwrap started; one started again got none, its keeper
// ended, and the session with it before its first command ran (which
// the shim then ran another way).
func TestSessionStartAgainKeepsKeeper(t *testing.T) {
	b := newBattery(t, "bwrap")
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { churnSockets(ctx, t) })
	defer func() { stop(); wg.Wait() }()
	const sessions = 20
	for i := range sessions {
		name := fmt.Sprintf("CORDON_SESSION=churn-%s-%d", filepath.Base(b.base), i)
		out, code := b.run("off", "echo ran", name)
		if code != 0 || out != "ran\n" && !strings.HasSuffix(out, "\nran\n") {
			t.Fatalf("session %d: exit %d: %q", i, code, out)
		}
	}
	n, err := sessionbox.Stop(filepath.Join(b.home, ".local", "state", "cordon"))
	if err != nil {
		t.Fatal(err)
	}
	if n != sessions {
		t.Errorf("%d of %d sessions were running after their first command", n, sessions)
	}
}

// churnSockets makes and removes, until ctx ends, directories in /tmp
// that each hold a listening Unix socket for a few milliseconds.
func churnSockets(ctx context.Context, t *testing.T) {
	for ctx.Err() == nil {
		d, err := os.MkdirTemp("/tmp", "battery-churn-")
		if err != nil {
			t.Error(err)
			return
		}
		l, err := net.Listen("unix", filepath.Join(d, "s"))
		if err == nil {
			select {
			case <-ctx.Done():
			case <-time.After(3 * time.Millisecond):
			}
			l.Close()
		}
		os.RemoveAll(d)
	}
}

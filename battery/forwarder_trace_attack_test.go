//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// findForwarder is Python that sets nf to the pid of the session's
// network forwarder (a child of the keeper above the program), or None;
// it needs os imported.
const findForwarder = `def ppid(p):
    st = open('/proc/%s/status' % p).read()
    return int([l.split()[1] for l in st.splitlines() if l.startswith('PPid:')][0])
k = os.getppid()
while open('/proc/%d/comm' % k).read().strip() != 'cordon-keeper':
    k = ppid(k)
nf = None
for p in os.listdir('/proc'):
    try:
        if p.isdigit() and ppid(p) == k and open('/proc/%s/cmdline' % p).read().startswith('cordon-netfwd'):
            nf = int(p)
    except OSError:
        pass
`

// traceForwarder is a command's program: it looks for the session's
// network forwarder (a process of the sandbox at rest, which runs as
// the command's user and outlives it) and tries to take it over: attach
// to it with ptrace, open its memory for writing.
const traceForwarder = "import os, ctypes\n" + findForwarder + `if nf is None:
    print('none')
else:
    try:
        os.close(os.open('/proc/%d/mem' % nf, os.O_RDWR))
        print('mem')
    except OSError:
        pass
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, nf, 0, 0) == 0:  # PTRACE_ATTACH
        print('attached')
        libc.ptrace(17, nf, 0, 0)  # PTRACE_DETACH
`

// TestSessionForwarderNotTraceable: a session's network forwarder is one
// of its sandbox's processes at rest, which the manager does not count
// as left running by a command; a command that could attach to it
// (ptrace, /proc/PID/mem) could have it write the guarded places after
// the command's end, at any time. It is not dumpable, as the keeper is
// not.
func TestSessionForwarderNotTraceable(t *testing.T) {
	python := needPython(t)
	atOnce(t, []string{"bwrap", "landlock"}, func(t *testing.T, backend string) {
		r := newSessionRig(t, backend)
		r.sh("true")
		os.WriteFile(filepath.Join(r.ws, "trace.py"), []byte(traceForwarder), 0o644)
		out, errs, code := r.sh(python + " trace.py")
		switch {
		case code != 0:
			t.Fatalf("exit %d: %q %s", code, out, errs)
		case out == "none\n":
			t.Skip("no forwarder in the session")
		case strings.TrimSpace(out) != "":
			t.Errorf("a command took over the session's network forwarder: %q", out)
		}
	})
}

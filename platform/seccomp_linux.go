package platform

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter is a classic BPF program over struct seccomp_data
// (nr at offset 0, arch at 4, args[i] at 16+8i), written out by hand: it
// is short, and the kernel checks it when it is loaded. It refuses:
//
//   - every system call made through another architecture's table (i386
//     from an amd64 process, x32), which would bypass the numbers below;
//   - ioctl(TIOCSTI) and ioctl(TIOCLINUX), which push characters into
//     the terminal's input, to be run by the shell outside the sandbox
//     once the command exits;
//   - io_uring, which performs system calls (socket, connect) that the
//     filter never sees;
//   - new user namespaces (unshare or clone with CLONE_NEWUSER; clone3,
//     whose flags a filter cannot read, answers ENOSYS so that the C
//     library falls back to clone): they open kernel code that is no
//     use to a build (bwrap's --disable-userns does the same);
//   - with the network off, socket(2) for any family but AF_UNIX; with
//     the allowlist, for any family but AF_UNIX, AF_INET, AF_INET6 and
//     AF_NETLINK, which the sandbox's network namespace holds: others
//     are not the namespace's (AF_VSOCK reaches the hypervisor or the
//     machine that runs the VM, WSL's Windows, past the proxy);
//   - prlimit on another process, to set its limits: without a pid
//     namespace (Landlock), the guard process, the session's manager and
//     the shim that reconcile after a command are the same user's, and
//     a limit of 4 descriptors (or of a file's size, or of CPU time)
//     keeps them from putting back what the command planted
//     (battery TestSessionPrlimitGuards); its own limits (pid 0, what
//     setrlimit and ulimit use) and reading another's stay allowed.
//
// Everything else is allowed.

// seccompData offsets.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
	offArg2 = 32
)

// tiocLinux is TIOCLINUX, which x/sys does not name.
const tiocLinux = 0x541C

// seccompArch is the AUDIT_ARCH_ value of the running architecture, and
// whether its system call numbers are known here.
func seccompArch() (uint32, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, true
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, true
	case "riscv64":
		return unix.AUDIT_ARCH_RISCV64, true
	}
	return 0, false
}

// x32SyscallBit marks amd64's x32 system calls.
const x32SyscallBit = 0x40000000

// A bpfProgram is assembled from instructions whose jumps name labels.
type bpfProgram struct {
	ins    []unix.SockFilter
	labels map[string]int
	fixups map[int][2]string // instruction index → true/false labels
}

func (p *bpfProgram) stmt(code uint16, k uint32) {
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

// jump adds a conditional jump on k to the labels yes and no ("" is the
// next instruction).
func (p *bpfProgram) jump(code uint16, k uint32, yes, no string) {
	p.fixups[len(p.ins)] = [2]string{yes, no}
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

func (p *bpfProgram) label(name string) { p.labels[name] = len(p.ins) }

func (p *bpfProgram) assemble() ([]unix.SockFilter, error) {
	for i, l := range p.fixups {
		for j, name := range l {
			if name == "" {
				continue
			}
			at, ok := p.labels[name]
			off := at - i - 1
			if !ok || off < 0 || off > 255 {
				return nil, fmt.Errorf("seccomp: jump to %s out of range", name)
			}
			if j == 0 {
				p.ins[i].Jt = uint8(off)
			} else {
				p.ins[i].Jf = uint8(off)
			}
		}
	}
	return p.ins, nil
}

const (
	bpfLdAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge    = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJset   = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet    = unix.BPF_RET | unix.BPF_K
)

// seccompFilter returns the filter for a policy with the given network
// setting.
func seccompFilter(network Network) ([]unix.SockFilter, error) {
	arch, ok := seccompArch()
	if !ok {
		return nil, fmt.Errorf("no seccomp filter for %s: the terminal and network guards are not available on this architecture", runtime.GOARCH)
	}
	p := &bpfProgram{labels: map[string]int{}, fixups: map[int][2]string{}}
	p.stmt(bpfLdAbsW, offArch)
	p.jump(bpfJeq, arch, "", "eperm")
	p.stmt(bpfLdAbsW, offNr)
	if runtime.GOARCH == "amd64" {
		p.jump(bpfJge, x32SyscallBit, "eperm", "")
	}
	p.jump(bpfJeq, unix.SYS_IOCTL, "ioctl", "")
	p.jump(bpfJeq, unix.SYS_IO_URING_SETUP, "eperm", "")
	p.jump(bpfJeq, unix.SYS_IO_URING_ENTER, "eperm", "")
	p.jump(bpfJeq, unix.SYS_IO_URING_REGISTER, "eperm", "")
	p.jump(bpfJeq, unix.SYS_UNSHARE, "nsflags", "")
	p.jump(bpfJeq, unix.SYS_CLONE, "nsflags", "")
	p.jump(bpfJeq, unix.SYS_CLONE3, "enosys", "")
	p.jump(bpfJeq, unix.SYS_PRLIMIT64, "prlimit", "")
	if network == NetworkOff || network == NetworkAllowlist {
		p.jump(bpfJeq, unix.SYS_SOCKET, "socket", "")
	}
	p.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)

	// The request is an unsigned int: the kernel ignores the upper half.
	p.label("ioctl")
	p.stmt(bpfLdAbsW, offArg1)
	p.jump(bpfJeq, unix.TIOCSTI, "eperm", "")
	p.jump(bpfJeq, tiocLinux, "eperm", "allow")

	// unshare(flags) and clone(flags, ...) take the flags first.
	p.label("nsflags")
	p.stmt(bpfLdAbsW, offArg0)
	p.jump(bpfJset, unix.CLONE_NEWUSER, "eperm", "allow")

	// prlimit64(pid, resource, new, old): pid is an int (the upper half
	// ignored); new a pointer, NULL when only reading.
	p.label("prlimit")
	p.stmt(bpfLdAbsW, offArg0)
	p.jump(bpfJeq, 0, "allow", "")
	p.stmt(bpfLdAbsW, offArg2)
	p.jump(bpfJeq, 0, "", "eperm")
	p.stmt(bpfLdAbsW, offArg2+4)
	p.jump(bpfJeq, 0, "allow", "eperm")

	switch network {
	case NetworkOff:
		p.label("socket")
		p.stmt(bpfLdAbsW, offArg0)
		p.jump(bpfJeq, unix.AF_UNIX, "allow", "")
		p.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES))
	case NetworkAllowlist:
		// socket(domain, type, protocol): domain an int.
		p.label("socket")
		p.stmt(bpfLdAbsW, offArg0)
		p.jump(bpfJeq, unix.AF_UNIX, "allow", "")
		p.jump(bpfJeq, unix.AF_INET, "allow", "")
		p.jump(bpfJeq, unix.AF_INET6, "allow", "")
		p.jump(bpfJeq, unix.AF_NETLINK, "allow", "")
		p.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.EAFNOSUPPORT))
	}
	// Jumps go forward only: the returns they reach come last.
	p.label("allow")
	p.stmt(bpfRet, unix.SECCOMP_RET_ALLOW)
	p.label("eperm")
	p.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	p.label("enosys")
	p.stmt(bpfRet, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	return p.assemble()
}

// seccompBytes is the filter as bwrap's --seccomp reads it: the raw
// sock_filter records in native byte order.
func seccompBytes(filter []unix.SockFilter) []byte {
	b := make([]byte, 0, 8*len(filter))
	for _, f := range filter {
		b = binary.NativeEndian.AppendUint16(b, f.Code)
		b = append(b, f.Jt, f.Jf)
		b = binary.NativeEndian.AppendUint32(b, f.K)
	}
	return b
}

// loadSeccomp installs filter on the calling thread, which must be
// locked to its goroutine and must have no_new_privs set.
func loadSeccomp(filter []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("cannot load the seccomp filter: %w", errno)
	}
	return nil
}

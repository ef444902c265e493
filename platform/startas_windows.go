package platform

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A program started with a restricted token must be told which window
// station and desktop it runs on: left to inherit them, PowerShell (and
// other programs that load user32 at start) can fail with
// STATUS_DLL_INIT_FAILED (0xC0000142). Go's os/exec cannot name one, so
// the token backend calls CreateProcessAsUserW itself, naming cordon's
// own station and desktop (WinSta0\Default on a person's desktop; the
// station of a service or an SSH session where cordon runs there).

var (
	user32                        = windows.NewLazySystemDLL("user32.dll")
	procGetProcessWindowStation   = user32.NewProc("GetProcessWindowStation")
	procGetThreadDesktop          = user32.NewProc("GetThreadDesktop")
	procGetUserObjectInformationW = user32.NewProc("GetUserObjectInformationW")
)

// uoiName is GetUserObjectInformation's UOI_NAME.
const uoiName = 2

// ownDesktop is "STATION\DESKTOP" for this process, or "" when either
// cannot be read (then the child inherits them, as before).
func ownDesktop() string {
	station, _, _ := procGetProcessWindowStation.Call()
	desk, _, _ := procGetThreadDesktop.Call(uintptr(windows.GetCurrentThreadId()))
	s, d := objectName(station), objectName(desk)
	if s == "" || d == "" {
		return ""
	}
	return s + `\` + d
}

// objectName is the name of the window station or desktop h, or "".
func objectName(h uintptr) string {
	if h == 0 || procGetUserObjectInformationW.Find() != nil {
		return ""
	}
	buf := make([]uint16, 256)
	var n uint32
	r, _, _ := procGetUserObjectInformationW.Call(h, uoiName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)*2), uintptr(unsafe.Pointer(&n)))
	if r == 0 {
		return ""
	}
	return windows.UTF16ToString(buf)
}

// envBlock is env as CreateProcess takes it: each "NAME=value" ended by
// a NUL, the whole ended by another.
func envBlock(env []string) []uint16 {
	var b []uint16
	for _, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			continue
		}
		b = append(b, utf16.Encode([]rune(kv))...)
		b = append(b, 0)
	}
	if len(b) == 0 {
		b = append(b, 0)
	}
	return append(b, 0)
}

// started is a program started suspended: its process and its one
// thread.
type started struct {
	process, thread windows.Handle
	pid             int
}

// startAs starts path with token, suspended, with command line line,
// environment env and directory dir ("" for cordon's), on cordon's own
// window station and desktop; its standard handles are stdin, stdout and
// stderr, and no other handle of cordon's is passed on.
func startAs(token windows.Token, path, line string, env []string, dir string, stdin, stdout, stderr *os.File) (*started, error) {
	self := windows.CurrentProcess()
	// The standard handles, made inheritable (copies: cordon's own stay
	// as they are), each passed once.
	var std [3]windows.Handle
	var list []windows.Handle
	for i, f := range []*os.File{stdin, stdout, stderr} {
		if f == nil {
			continue
		}
		h := windows.Handle(f.Fd())
		if h == 0 || h == windows.InvalidHandle {
			continue
		}
		var dup windows.Handle
		if err := windows.DuplicateHandle(self, h, self, &dup, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
			closeAll(list)
			return nil, fmt.Errorf("cannot pass %s on to %s: %w", f.Name(), path, err)
		}
		std[i] = dup
		list = append(list, dup)
	}
	defer closeAll(list)

	si := &windows.StartupInfoEx{}
	si.Cb = uint32(unsafe.Sizeof(*si))
	si.Flags = windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = std[0], std[1], std[2]
	if d := ownDesktop(); d != "" {
		desk, err := windows.UTF16PtrFromString(d)
		if err != nil {
			return nil, err
		}
		si.Desktop = desk
	}
	flags := uint32(windows.CREATE_SUSPENDED | windows.CREATE_UNICODE_ENVIRONMENT)
	if len(list) > 0 {
		attrs, err := windows.NewProcThreadAttributeList(1)
		if err != nil {
			return nil, fmt.Errorf("cannot start %s: %w", path, err)
		}
		defer attrs.Delete()
		if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&list[0]), uintptr(len(list))*unsafe.Sizeof(list[0])); err != nil {
			return nil, fmt.Errorf("cannot start %s: %w", path, err)
		}
		si.ProcThreadAttributeList = attrs.List()
		flags |= windows.EXTENDED_STARTUPINFO_PRESENT
	}
	app, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", path, err)
	}
	cmdline, err := windows.UTF16FromString(line)
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", path, err)
	}
	var cwd *uint16
	if dir != "" {
		if cwd, err = windows.UTF16PtrFromString(dir); err != nil {
			return nil, fmt.Errorf("cannot start %s in %s: %w", path, dir, err)
		}
	}
	block := envBlock(env)
	var pi windows.ProcessInformation
	if err := windows.CreateProcessAsUser(token, app, &cmdline[0], nil, nil, len(list) > 0, flags, &block[0], cwd, &si.StartupInfo, &pi); err != nil {
		return nil, err
	}
	return &started{process: pi.Process, thread: pi.Thread, pid: int(pi.ProcessId)}, nil
}

// closeAll closes hs.
func closeAll(hs []windows.Handle) {
	for _, h := range hs {
		windows.CloseHandle(h)
	}
}

// wait waits for s to end and returns its exit code; it closes s's
// handles.
func (s *started) wait() (int, error) {
	defer windows.CloseHandle(s.process)
	if _, err := windows.WaitForSingleObject(s.process, windows.INFINITE); err != nil {
		return 126, err
	}
	var code uint32
	if err := windows.GetExitCodeProcess(s.process, &code); err != nil {
		return 126, err
	}
	return int(code), nil
}

// kill ends s, never let run, and closes its process handle (its
// thread's is joinAndResume's).
func (s *started) kill() {
	windows.TerminateProcess(s.process, 1)
	windows.CloseHandle(s.process)
}

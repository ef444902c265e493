package platform

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Sandbox returns the backend that confines programs by p: the
// restricted-token backend (auto or token), or none. It refuses a policy
// whose network is off: nothing here could enforce that.
func Sandbox(name string, p *Policy, stateDir string) (Backend, error) {
	if err := CheckBackend(name); err != nil {
		return nil, err
	}
	switch name {
	case BackendNone:
		return Direct, nil
	case BackendAuto, BackendToken:
	default:
		return nil, &SandboxError{Backend: name, Reasons: []string{name + " is not a Windows sandbox: use auto or token"}}
	}
	if p.Network == NetworkOff {
		return nil, &SandboxError{Backend: name, Reasons: []string{"network: off cannot be enforced on Windows without elevation (see docs/windows.md); set network: on"}}
	}
	if err := allowlistFallback(p, BackendToken, "the bwrap or Landlock backend on Linux (a network namespace of its own)"); err != nil {
		return nil, &SandboxError{Backend: name, Reasons: []string{err.Error()}}
	}
	return &tokenBackend{policy: p, plan: PlanWindows(p)}, nil
}

// Confined reports whether this process already runs inside a sandbox
// that holds p: a token restricted to p's workspace SID (another
// restricted token, another tool's sandbox, is not cordon's).
func Confined(p *Policy) bool {
	t := windows.GetCurrentProcessToken()
	if ok, err := t.IsRestricted(); err != nil || !ok {
		return false
	}
	var n uint32
	windows.GetTokenInformation(t, windows.TokenRestrictedSids, nil, 0, &n)
	if n == 0 {
		return false
	}
	buf := make([]byte, n)
	if windows.GetTokenInformation(t, windows.TokenRestrictedSids, &buf[0], n, &n) != nil {
		return false
	}
	want := WorkspaceSID(p.Workspace)
	for _, g := range (*windows.Tokengroups)(unsafe.Pointer(&buf[0])).AllGroups() {
		if g.Sid.String() == want {
			return true
		}
	}
	return false
}

// Filtered reports whether this process runs under no_new_privs and a
// seccomp filter; only Linux has them.
func Filtered() bool { return false }

// Describe reports how b confines a program.
func Describe(b Backend, path string, argv []string) *Report {
	r := &Report{Backend: b.Name()}
	switch t := b.(type) {
	case *tokenBackend:
		r.Detail = "write-restricted token, workspace SID " + t.plan.SID + ", job object"
		r.Degraded = t.plan.NotEnforced
	default:
		if b == Direct {
			r.Degraded = []string{"nothing is confined: the settings ask for no sandbox (backend: none)"}
		}
	}
	return r
}

// tokenBackend runs programs with a write-restricted token in a job
// object (see [PlanWindows]).
type tokenBackend struct {
	policy *Policy
	plan   *WindowsPlan
}

func (b *tokenBackend) Name() string { return BackendToken }

// Exec runs the program confined, as cordon's child (Windows has no
// exec), and exits with its exit status. cordon stays the job's owner:
// when it ends, however it ends, the job and every process in it end.
func (b *tokenBackend) Exec(path string, argv, env []string, dir string) error {
	c, err := b.start(path, env, dir, os.Stdin, rawCommandLine(path))
	if err != nil {
		return err
	}
	// Ctrl+C reaches the program from the console it shares; cordon
	// waits for it to decide.
	signal.Ignore(os.Interrupt)
	code, err := c.Wait()
	if err != nil {
		// Started, but its end is unknown: say so, and never run it again.
		fmt.Fprintf(os.Stderr, "cordon: %v\n", err)
		os.Exit(126)
	}
	os.Exit(code)
	return nil
}

// Start starts the program confined, as cordon's child.
func (b *tokenBackend) Start(path string, argv, env []string, stdin *os.File) (*Child, error) {
	line, err := commandLine(argv)
	if err != nil {
		return nil, err
	}
	return b.start(path, env, "", stdin, line)
}

// commandLine joins argv as the C runtime splits it.
func commandLine(argv []string) (string, error) {
	var parts []string
	for _, a := range argv {
		parts = append(parts, windows.EscapeArg(a))
	}
	return strings.Join(parts, " "), nil
}

// start makes the ACEs, the token and the job, starts the program
// suspended with the token, puts it in the job and lets it run.
func (b *tokenBackend) start(path string, env []string, dir string, stdin *os.File, line string) (*Child, error) {
	if b.plan.Temp != "" {
		if err := os.MkdirAll(b.plan.Temp, 0o700); err != nil {
			return nil, fmt.Errorf("cannot make the workspace's temporary folder: %w", err)
		}
		env = b.plan.Env(env)
	}
	if err := applyACEs(b.plan); err != nil {
		return nil, err
	}
	token, err := restrictedToken(b.plan)
	if err != nil {
		return nil, err
	}
	defer token.Close()
	job, err := newJob(&b.plan.Job)
	if err != nil {
		return nil, err
	}
	p, err := startAs(token, path, line, env, dir, stdin, os.Stdout, os.Stderr)
	if err != nil {
		windows.CloseHandle(job)
		return nil, fmt.Errorf("cannot start %s with a restricted token: %w", path, err)
	}
	if err := joinAndResume(job, p); err != nil {
		p.kill()
		windows.CloseHandle(job)
		return nil, err
	}
	c := &Child{pid: p.pid, done: make(chan childEnd, 1)}
	go func() {
		defer windows.CloseHandle(job) // kill-on-close: what is left of the command ends
		code, err := p.wait()
		if err != nil {
			c.done <- childEnd{code: 126, err: fmt.Errorf("cannot wait for %s: %w", path, err)}
			return
		}
		c.done <- childEnd{code: code, raw: uint32(code)}
	}()
	return c, nil
}

var (
	advapi32                  = windows.NewLazySystemDLL("advapi32.dll")
	procCreateRestrictedToken = advapi32.NewProc("CreateRestrictedToken")
)

// restrictedToken makes the program's primary token from cordon's own:
// plan's flags, and plan's restricting SIDs (the logon SID read from
// cordon's token), with a default DACL that lets the program use what it
// creates.
func restrictedToken(plan *WindowsPlan) (windows.Token, error) {
	var self windows.Token
	err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_DUPLICATE|windows.TOKEN_QUERY|windows.TOKEN_ASSIGN_PRIMARY|windows.TOKEN_ADJUST_DEFAULT|windows.READ_CONTROL|windows.WRITE_DAC, &self)
	if err != nil {
		return 0, fmt.Errorf("cannot open cordon's own token: %w", err)
	}
	defer self.Close()
	logon, err := logonSID(self)
	if err != nil {
		return 0, err
	}
	var sids []windows.SIDAndAttributes
	for _, s := range plan.Restricting {
		if s == sidLogon {
			sids = append(sids, windows.SIDAndAttributes{Sid: logon})
			continue
		}
		sid, err := windows.StringToSid(s)
		if err != nil {
			return 0, fmt.Errorf("restricting SID %s: %w", s, err)
		}
		sids = append(sids, windows.SIDAndAttributes{Sid: sid})
	}
	var token windows.Token
	r, _, err := procCreateRestrictedToken.Call(uintptr(self), uintptr(plan.Flags), 0, 0, 0, 0,
		uintptr(len(sids)), uintptr(unsafe.Pointer(&sids[0])), uintptr(unsafe.Pointer(&token)))
	if r == 0 {
		return 0, fmt.Errorf("CreateRestrictedToken: %w", err)
	}
	if err := setDefaultDACL(token, self, logon, plan.SID); err != nil {
		token.Close()
		return 0, err
	}
	if err := allowOwnToken(token, plan.SID); err != nil {
		token.Close()
		return 0, err
	}
	return token, nil
}

// logonSID is the logon session's SID in token's groups.
func logonSID(token windows.Token) (*windows.SID, error) {
	groups, err := token.GetTokenGroups()
	if err != nil {
		return nil, fmt.Errorf("cannot read cordon's token groups: %w", err)
	}
	for _, g := range groups.AllGroups() {
		if g.Attributes&windows.SE_GROUP_LOGON_ID != 0 {
			return g.Sid.Copy()
		}
	}
	return nil, errors.New("cordon's token has no logon SID (a service or a session without a desktop?): the restricted token needs one to use the console")
}

// setDefaultDACL gives objects the program creates without a security
// descriptor of their own (pipes, events) a DACL that its restricting
// SIDs can write, or it could not use them.
func setDefaultDACL(token, self windows.Token, logon *windows.SID, sid string) error {
	user, err := self.GetTokenUser()
	if err != nil {
		return fmt.Errorf("cannot read cordon's token user: %w", err)
	}
	sd, err := windows.SecurityDescriptorFromString(fmt.Sprintf("D:(A;;GA;;;%s)(A;;GA;;;SY)(A;;GA;;;%s)(A;;GA;;;%s)", user.User.Sid, logon, sid))
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	info := struct{ DefaultDacl *windows.ACL }{dacl}
	return windows.SetTokenInformation(token, windows.TokenDefaultDacl, (*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
}

// ownTokenRights are what a program may do to its own token: read it and
// set its default DACL (TOKEN_QUERY, TOKEN_QUERY_SOURCE,
// TOKEN_ADJUST_DEFAULT, READ_CONTROL).
const ownTokenRights = 0x8 | 0x10 | 0x80 | 0x20000

// allowOwnToken lets the programs that run with token read it and set
// its default DACL, which every MSYS2 program (Git Bash, its sh.exe, the
// tools in Git's usr\bin) does first and dies without ("couldn't create
// signal pipe"): setting it is a write, which a write-restricted token
// makes only where one of its restricting SIDs is granted it, so the
// token object's DACL gains an entry for sid, the workspace's.
func allowOwnToken(token windows.Token, sid string) error {
	sd, err := windows.GetSecurityInfo(windows.Handle(token), windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("cannot read the restricted token's security: %w", err)
	}
	text := sd.String()
	if !strings.HasPrefix(text, "D:") || strings.Contains(text, "NO_ACCESS_CONTROL") {
		return nil // no DACL: nothing is denied
	}
	next, err := windows.SecurityDescriptorFromString(text + fmt.Sprintf("(A;;0x%x;;;%s)", ownTokenRights, sid))
	if err != nil {
		return fmt.Errorf("the restricted token's DACL: %w", err)
	}
	dacl, _, err := next.DACL()
	if err != nil {
		return err
	}
	if err := windows.SetSecurityInfo(windows.Handle(token), windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		return fmt.Errorf("cannot let the sandbox's programs use their own token: %w", err)
	}
	return nil
}

// newJob makes the job object with lim's limits.
func newJob(lim *WindowsJob) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("cannot create a job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = lim.LimitFlags
	info.BasicLimitInformation.PerProcessUserTimeLimit = lim.ProcessTime
	info.ProcessMemoryLimit = uintptr(lim.ProcessMemory)
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("cannot set the job object's limits: %w", err)
	}
	return job, nil
}

// joinAndResume puts the suspended program p in job, then resumes its
// one thread: it runs nothing before it is in the job.
func joinAndResume(job windows.Handle, p *started) error {
	defer windows.CloseHandle(p.thread)
	if err := windows.AssignProcessToJobObject(job, p.process); err != nil {
		return fmt.Errorf("cannot put the program in its job object: %w", err)
	}
	if _, err := windows.ResumeThread(p.thread); err != nil {
		return fmt.Errorf("cannot resume the program: %w", err)
	}
	return nil
}

// applyACEs adds plan's ACEs to the paths' DACLs (see [WindowsPlan.Apply]);
// what it had to leave out is said on stderr.
func applyACEs(plan *WindowsPlan) error {
	skipped, err := plan.Apply(addACEs)
	for _, msg := range skipped {
		fmt.Fprintln(os.Stderr, "cordon: "+msg)
	}
	return err
}

func addACEs(path, aces, sid string) error {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return err
	}
	merged, err := mergeDACL(sd.String(), aces, sid)
	if err != nil || merged == "" {
		return err
	}
	next, err := windows.SecurityDescriptorFromString(merged)
	if err != nil {
		return err
	}
	dacl, _, err := next.DACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}

package platform

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The workspace SID is a well-formed SID of the machine/domain form,
// the same for the same workspace (in any case) and different for
// another one.
func TestWorkspaceSID(t *testing.T) {
	a, b := WorkspaceSID(`C:\src\proj`), WorkspaceSID(`c:\SRC\proj`)
	if !regexp.MustCompile(`^S-1-5-21(-[0-9]{1,10}){4}$`).MatchString(a) {
		t.Fatalf("WorkspaceSID = %q, not a SID", a)
	}
	if a != b {
		t.Errorf("the same workspace in another case: %q, %q", a, b)
	}
	if c := WorkspaceSID(`C:\src\other`); c == a {
		t.Errorf("two workspaces share the SID %q", a)
	}
}

// The plan grants the workspace SID write on the writable roots and
// scratch (inherited into what is below), denies it writing and
// deleting the read-only paths and renaming the directories that hold
// them, and says what it cannot enforce.
func TestPlanWindows(t *testing.T) {
	ws := t.TempDir()
	tmp := t.TempDir()
	for _, d := range []string{".git/hooks"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644)
	p := &Policy{
		Workspace: ws, Writable: []string{ws}, Scratch: []string{tmp},
		ReadOnly: []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".git", "config"), filepath.Join(ws, "gone")},
		Hidden:   []string{"/home/u/.ssh"}, Missing: []string{"/home/u/.netrc"},
		Limits: Limits{Memory: 1 << 30, CPU: 60, Files: 10}, Network: NetworkOn,
		GitConfig: []string{filepath.Join(ws, ".git", "config"), filepath.Join(ws, ".git", "config.worktree")},
	}
	w := PlanWindows(p)
	sid := WorkspaceSID(ws)
	if w.SID != sid || w.Flags != 0xd || strings.Join(w.Restricting, " ") != sid+" logon S-1-1-0" {
		t.Errorf("token: flags %#x, SID %s, restricting %q", w.Flags, w.SID, w.Restricting)
	}
	want := map[string]string{
		ws:                                  "(A;OICI;0x1301bf;;;" + sid + ")",
		tmp:                                 "(A;OICI;0x1301bf;;;" + sid + ")",
		filepath.Join(ws, ".git", "hooks"):  "(D;OICI;0xd0156;;;" + sid + ")",
		filepath.Join(ws, ".git", "config"): "(D;;0xd0156;;;" + sid + ")",
		filepath.Join(ws, ".git"):           "(D;;0x10000;;;" + sid + ")",
		filepath.Join(ws, "gone"):           "",
	}
	for path, ace := range want {
		if got := w.SDDL(path); got != ace {
			t.Errorf("ACEs on %s: %q, want %q", path, got, ace)
		}
	}
	if len(w.ACEs) != 5 {
		t.Errorf("%d ACEs, want 5 (the .git directory once): %+v", len(w.ACEs), w.ACEs)
	}
	if w.Job.LimitFlags != 0x2000|0x400|0x100|0x2 || w.Job.ProcessMemory != 1<<30 || w.Job.ProcessTime != 600_000_000 {
		t.Errorf("job: %+v", w.Job)
	}
	all := strings.Join(w.NotEnforced, "\n")
	for _, s := range []string{"reading the 1 hidden paths", "1 protected paths that do not exist", "open files", "the network"} {
		if !strings.Contains(all, s) {
			t.Errorf("not enforced does not say %q:\n%s", s, all)
		}
	}
}

func TestMergeDACL(t *testing.T) {
	sid := "S-1-5-21-1-2-3-4"
	add := "(A;OICI;0x1301bf;;;" + sid + ")(D;;0x10000;;;" + sid + ")"
	tests := []struct{ sd, want string }{
		// Windows' order: explicit denies, explicit allows, inherited.
		{"O:BAG:SYD:PAI(D;;WD;;;S-1-5-32-546)(A;OICI;FA;;;SY)(A;OICIID;FA;;;BU)",
			"D:PAI(D;;0x10000;;;" + sid + ")(D;;WD;;;S-1-5-32-546)(A;OICI;0x1301bf;;;" + sid + ")(A;OICI;FA;;;SY)(A;OICIID;FA;;;BU)"},
		{"D:(A;;FA;;;SY)S:(ML;;NW;;;LW)", "D:(D;;0x10000;;;" + sid + ")(A;OICI;0x1301bf;;;" + sid + ")(A;;FA;;;SY)"},
		// Already there (explicit): nothing to do.
		{"D:AI(A;OICI;0x1301bf;;;" + sid + ")(A;OICIID;FA;;;SY)", ""},
		// Inherited from the workspace above: still added on this path.
		{"D:AI(A;OICIID;0x1301bf;;;" + sid + ")", "D:AI(D;;0x10000;;;" + sid + ")(A;OICI;0x1301bf;;;" + sid + ")(A;OICIID;0x1301bf;;;" + sid + ")"},
		// A conditional entry with parentheses of its own.
		{"D:(XA;;FR;;;WD;(Member_of {SID(BA)}))", "D:(D;;0x10000;;;" + sid + ")(A;OICI;0x1301bf;;;" + sid + ")(XA;;FR;;;WD;(Member_of {SID(BA)}))"},
	}
	for _, tt := range tests {
		got, err := mergeDACL(tt.sd, add, sid)
		if err != nil || got != tt.want {
			t.Errorf("mergeDACL(%q)\n got %q, %v\nwant %q", tt.sd, got, err, tt.want)
		}
	}
	for _, bad := range []string{"O:BA", "D:(A;;FA;;;SY", "D:x(A;;FA;;;SY)", "D:NO_ACCESS_CONTROL"} {
		if got, err := mergeDACL(bad, add, sid); err == nil {
			t.Errorf("mergeDACL(%q) = %q, want an error", bad, got)
		}
	}
}

// TestWindowsPlanApplySkipsLockedScratch: a scratch folder whose
// permissions cordon may not change (C:\tmp owned by Administrators) is
// left out with a message saying what to do, and the command still
// runs; the same refusal on a read-only path, or any other error, stops
// it.
func TestWindowsPlanApplySkipsLockedScratch(t *testing.T) {
	denied := &fs.PathError{Op: "SetNamedSecurityInfo", Path: `C:\tmp`, Err: fs.ErrPermission}
	plan := &WindowsPlan{SID: "S-1-5-21-1-2-3-4", ACEs: []WindowsACE{
		{`C:\tmp`, "(A;OICI;0x1301bf;;;S-1-5-21-1-2-3-4)", "scratch"},
		{`C:\Users\dev\src\app`, "(A;OICI;0x1301bf;;;S-1-5-21-1-2-3-4)", "writable"},
		{`C:\Users\dev\src\app\.git\hooks`, "(D;OICI;0x40116;;;S-1-5-21-1-2-3-4)", "read-only"},
	}}
	var applied []string
	skipped, err := plan.Apply(func(path, aces, sid string) error {
		if path == `C:\tmp` {
			return denied
		}
		applied = append(applied, path)
		return nil
	})
	if err != nil || len(skipped) != 1 || !strings.Contains(skipped[0], `C:\tmp`) || !strings.Contains(skipped[0], "takeown") {
		t.Errorf("a locked scratch folder: skipped %q, err %v; want it said, and no error", skipped, err)
	}
	if len(applied) != 2 {
		t.Errorf("the other paths were not all given their ACEs: %q", applied)
	}
	for _, c := range []struct {
		name string
		path string
		err  error
	}{
		{"a read-only path", `C:\Users\dev\src\app\.git\hooks`, denied},
		{"the workspace", `C:\Users\dev\src\app`, denied},
		{"another error on scratch", `C:\tmp`, errors.New("the disk is gone")},
	} {
		_, err := plan.Apply(func(path, aces, sid string) error {
			if path == c.path {
				return c.err
			}
			return nil
		})
		if err == nil {
			t.Errorf("%s that cannot get its ACEs: no error", c.name)
		}
	}
	// A scratch folder that also holds a read-only path is no scratch
	// to skip.
	plan.ACEs = append(plan.ACEs, WindowsACE{`C:\tmp`, "(D;OICI;0x40116;;;S-1-5-21-1-2-3-4)", "read-only"})
	if _, err := plan.Apply(func(path, aces, sid string) error {
		if path == `C:\tmp` {
			return denied
		}
		return nil
	}); err == nil {
		t.Errorf("a scratch folder with a read-only ACE was skipped")
	}
}

// TestPlanWindowsTemp: the person's %TEMP% gets no ACE (set on it, an
// inheritable entry would reach every file in it on each workspace's
// first command); the program gets a temporary folder of the
// workspace's own, named by TEMP and TMP. Other scratch folders keep
// theirs.
func TestPlanWindowsTemp(t *testing.T) {
	ws, temp, other, lad := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	p := &Policy{Workspace: ws, Writable: []string{ws}, Scratch: []string{temp, other}, Network: NetworkOn, PrivateTmp: true,
		Env: []string{"TEMP=" + temp, "TMP=" + temp + string(filepath.Separator), "LOCALAPPDATA=" + lad}}
	w := PlanWindows(p)
	if w.SDDL(temp) != "" {
		t.Errorf("the person's %%TEMP%% gets %q", w.SDDL(temp))
	}
	if w.SDDL(other) == "" {
		t.Errorf("another scratch folder gets no ACE")
	}
	if !strings.HasPrefix(w.Temp, filepath.Join(lad, "cordon", "tmp")+string(filepath.Separator)) || !strings.HasPrefix(w.SDDL(w.Temp), "(A;OICI;") {
		t.Errorf("temporary folder %q, ACEs %q", w.Temp, w.SDDL(w.Temp))
	}
	env := w.Env([]string{"PATH=x", "temp=" + temp, "TMP=" + temp})
	if Getenv(env, "TEMP") != w.Temp || Getenv(env, "TMP") != w.Temp || len(env) != 3 {
		t.Errorf("env %q", env)
	}
	if strings.Contains(strings.Join(w.NotEnforced, "\n"), "%TEMP% is shared") {
		t.Errorf("says %%TEMP%% is shared: %q", w.NotEnforced)
	}
	// Without LOCALAPPDATA, as before.
	p.Env = []string{"TEMP=" + temp}
	if w := PlanWindows(p); w.Temp != "" || w.SDDL(temp) == "" {
		t.Errorf("without LOCALAPPDATA: temp %q, %%TEMP%% ACEs %q", w.Temp, w.SDDL(temp))
	}
}

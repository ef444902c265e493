package platform

import (
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

// TestGrantsOnly: a path whose entries only allow may be left without
// them (the sandbox then has less); one with a deny may not.
func TestGrantsOnly(t *testing.T) {
	for aces, want := range map[string]bool{
		"(A;OICI;0x1301bf;;;S-1-5-21-1-2-3-4)":                                true,
		"(A;OICI;0x1301bf;;;S-1-5-21-1-2-3-4)(A;;0x1;;;S-1-5-21-1-2-3-4)":     true,
		"(D;OICI;0xd0156;;;S-1-5-21-1-2-3-4)":                                 false,
		"(A;OICI;0x1301bf;;;S-1-5-21-1-2-3-4)(D;;0x10000;;;S-1-5-21-1-2-3-4)": false,
		"": false,
	} {
		if got := grantsOnly(aces); got != want {
			t.Errorf("grantsOnly(%q) = %v, want %v", aces, got, want)
		}
	}
}

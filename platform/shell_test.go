package platform

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// shellDirs builds a temporary tree for FindShell: a cordon binary, and
// one directory per entry of kinds, holding a "bash" of that kind.
func shellDirs(t *testing.T, kinds ...string) (self string, dirs []string) {
	t.Helper()
	root := t.TempDir()
	self = filepath.Join(root, "cordon")
	writeExe(t, self, "cordon binary")
	for i, kind := range kinds {
		dir := filepath.Join(root, "d"+string(rune('a'+i)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		makeShell(t, kind, self, filepath.Join(dir, "bash"))
		dirs = append(dirs, dir)
	}
	return self, dirs
}

func makeShell(t *testing.T, kind, self, p string) {
	t.Helper()
	var err error
	switch kind {
	case "symlink":
		err = os.Symlink(self, p)
	case "hardlink":
		err = os.Link(self, p)
	case "copy":
		writeExe(t, p, "cordon binary")
	case "real":
		writeExe(t, p, "the real bash")
	case "samesize":
		writeExe(t, p, "other  binary")
	case "noexec":
		err = os.WriteFile(p, []byte("the real bash"), 0o644)
	case "dir":
		err = os.Mkdir(p, 0o755)
	case "none":
	default:
		t.Fatalf("unknown kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func writeExe(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func withFallback(t *testing.T, dirs ...string) {
	old := fallbackDirs
	fallbackDirs = dirs
	t.Cleanup(func() { fallbackDirs = old })
}

func TestFindShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix file modes and symlinks")
	}
	tests := []struct {
		name    string
		kinds   []string
		want    int // index of the directory expected, -1 for none
		skipped int
	}{
		{"first", []string{"real", "real"}, 0, 0},
		{"skip-symlink", []string{"symlink", "real"}, 1, 1},
		{"skip-hardlink", []string{"hardlink", "real"}, 1, 1},
		{"skip-copy", []string{"copy", "real"}, 1, 1},
		{"same-size-other-content", []string{"samesize", "real"}, 0, 0},
		{"skip-all-selves", []string{"symlink", "hardlink", "copy", "real"}, 3, 3},
		{"skip-not-executable", []string{"noexec", "real"}, 1, 0},
		{"skip-directory", []string{"dir", "real"}, 1, 0},
		{"skip-missing", []string{"none", "real"}, 1, 0},
		{"only-selves", []string{"symlink", "copy"}, -1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withFallback(t)
			self, dirs := shellDirs(t, tt.kinds...)
			got, err := FindShell("bash", strings.Join(dirs, string(os.PathListSeparator)), self, agentLater)
			if tt.want < 0 {
				checkNotFound(t, err, len(dirs), tt.skipped)
				return
			}
			if want := filepath.Join(dirs[tt.want], "bash"); got != want || err != nil {
				t.Fatalf("FindShell = %q, %v; want %q", got, err, want)
			}
		})
	}
}

func checkNotFound(t *testing.T, err error, dirs, skipped int) {
	t.Helper()
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("err = %v, want a *NotFoundError", err)
	}
	if len(nf.Dirs) != dirs || len(nf.Skipped) != skipped {
		t.Fatalf("searched %q, skipped %q; want %d dirs, %d skipped", nf.Dirs, nf.Skipped, dirs, skipped)
	}
	if !strings.Contains(err.Error(), "bash: real shell not found in ") {
		t.Fatalf("message %q", err)
	}
}

func TestFindShellFallback(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix file modes")
	}
	self, dirs := shellDirs(t, "symlink", "real")
	withFallback(t, dirs[1])
	got, err := FindShell("bash", dirs[0], self, agentLater)
	if want := filepath.Join(dirs[1], "bash"); got != want || err != nil {
		t.Fatalf("FindShell = %q, %v; want %q", got, err, want)
	}
}

func TestFindShellIgnoresRelative(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix file modes")
	}
	withFallback(t)
	self, dirs := shellDirs(t, "real")
	t.Chdir(dirs[0])
	_, err := FindShell("bash", ".::bin", self, agentLater)
	checkNotFound(t, err, 0, 0)
}

func TestFindShellUnreadableSelf(t *testing.T) {
	_, err := FindShell("bash", "", filepath.Join(t.TempDir(), "gone"), agentLater)
	if err == nil || !strings.Contains(err.Error(), "cannot tell cordon apart") {
		t.Fatalf("err = %v", err)
	}
}

func TestSearchDirs(t *testing.T) {
	withFallback(t, "/bin", "/usr/bin")
	got := strings.Join(searchDirs("/a::rel:/bin/:/a:/usr/bin"), " ")
	if want := "/a /bin/ /usr/bin"; got != want {
		t.Fatalf("searchDirs = %q, want %q", got, want)
	}
}

// A bash an agent dropped in a directory sandboxed commands can write
// (node_modules/.bin, a venv) is never taken for the real shell.
func TestFindShellSkipsWritable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix file modes")
	}
	withFallback(t)
	self, dirs := shellDirs(t, "real", "real")
	path := strings.Join(dirs, string(os.PathListSeparator))
	got, err := FindShell("bash", path, self, agentLater, filepath.Dir(dirs[0]))
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Writable) != 2 {
		t.Fatalf("FindShell with every directory writable = %q, %v; want not found, 2 passed over", got, err)
	}
	real0, _ := filepath.EvalSymlinks(dirs[0])
	got, err = FindShell("bash", path, self, agentLater, real0)
	if want := filepath.Join(dirs[1], "bash"); got != want || err != nil {
		t.Fatalf("FindShell = %q, %v; want %q (the first directory is writable)", got, err, want)
	}
}

// TestFindProgramSkipsUntrusted plants git in a writable directory first
// on PATH, directly and through a link, and checks that the trusted one
// is found instead.
func TestFindProgramSkipsUntrusted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, trusted := filepath.Join(base, "ws"), filepath.Join(base, "sys")
	for _, d := range []string{ws + "/node_modules/.bin", ws + "/venv/bin", trusted} {
		os.MkdirAll(d, 0o755)
	}
	for _, p := range []string{ws + "/node_modules/.bin/git", trusted + "/git"} {
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	}
	// A link outside the workspace to a git inside it is not trusted either.
	link := filepath.Join(base, "link")
	os.MkdirAll(link, 0o755)
	os.Symlink(ws+"/node_modules/.bin/git", link+"/git")
	path := strings.Join([]string{ws + "/node_modules/.bin", link, "relative", trusted}, string(os.PathListSeparator))
	got, err := FindProgram("git", path, []string{ws}, agentLater)
	if err != nil || got != trusted+"/git" {
		t.Errorf("FindProgram = %q, %v; want %s", got, err, trusted+"/git")
	}
	if got, err := FindProgram("git", ws+"/node_modules/.bin", []string{ws, "/bin", "/usr/bin"}, agentLater); err == nil {
		t.Errorf("FindProgram = %q, want an error when only the planted git is left", got)
	}
}

// TestWindowsShellDirs: cmd.exe and Windows PowerShell come only from
// the system directory, never from PATH (where cordon's shims and
// folders anyone can write are); pwsh and Git Bash from PATH, then
// their install folders, never from the Store's alias folder.
func TestWindowsShellDirs(t *testing.T) {
	sys, pf := `C:\Windows\system32`, `C:\Program Files`
	path := []string{`C:\Users\dev\cordon\shims`, `relative\bin`, `c:\users\DEV\cordon\shims\`, `C:\Users\dev\AppData\Local\Microsoft\WindowsApps`, `C:\Program Files\PowerShell\7`, `c:\users\dev\appdata\local\microsoft\windowsapps\`, ``}
	tests := []struct {
		name, file string
		dirs       []string
	}{
		{"cmd", "cmd.exe", []string{sys}},
		{"powershell", "powershell.exe", []string{sys + `\WindowsPowerShell\v1.0`}},
		{"pwsh", "pwsh.exe", []string{`C:\Users\dev\cordon\shims`, `C:\Program Files\PowerShell\7`}},
		{"pwsh-preview", "pwsh.exe", []string{`C:\Program Files\PowerShell\7-preview`}},
		{"bash", "bash.exe", []string{`C:\Users\dev\cordon\shims`, `C:\Program Files\PowerShell\7`, `C:\Program Files\Git\bin`, `C:\Program Files\Git\usr\bin`}},
	}
	for _, tt := range tests {
		file, dirs := windowsShellDirs(tt.name, sys, pf, path)
		if file != tt.file || strings.Join(dirs, "|") != strings.Join(tt.dirs, "|") {
			t.Errorf("windowsShellDirs(%q) = %q, %q; want %q, %q", tt.name, file, dirs, tt.file, tt.dirs)
		}
	}
	// Without a system directory, cmd.exe is nowhere: not on PATH.
	if _, dirs := windowsShellDirs("cmd", "", pf, path); len(dirs) != 0 {
		t.Errorf("cmd without a system directory: %q, want none", dirs)
	}
}

// TestHostProgramsNotTheAgents: a program of this user's that changed
// since the agent started is never the one cordon runs on the host (nor
// the real shell): its file tools write as this user, outside cordon, and
// a git they put in ~/.local/bin would run unjudged and unconfined. A new
// one in a directory of its own, one written over an old one in place,
// and a directory with a new entry in it, are all passed over; the
// user's older git is found.
func TestHostProgramsNotTheAgents(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("change times are not read on Windows")
	}
	parent := heldDir(t)
	base, err := filepath.EvalSymlinks(parent)
	if err != nil {
		t.Fatal(err)
	}
	old, rewritten, fresh, sys := base+"/old", base+"/rewritten", base+"/fresh", base+"/sys"
	for _, d := range []string{old, rewritten, sys} {
		os.MkdirAll(d, 0o755)
	}
	for _, p := range []string{rewritten + "/git", sys + "/git", sys + "/bash", old + "/tool"} {
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	}
	// File change times come from a coarse clock: a pause on each side.
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	since := func() time.Time { return start }
	time.Sleep(50 * time.Millisecond)
	os.MkdirAll(fresh, 0o755)
	os.WriteFile(fresh+"/git", []byte("#!/bin/sh\nrm -rf ~\n"), 0o755)
	os.WriteFile(fresh+"/bash", []byte("#!/bin/sh\nrm -rf ~\n"), 0o755)
	f, err := os.OpenFile(rewritten+"/git", os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("#!/bin/sh\nrm -rf ~\n")
	f.Close()
	os.WriteFile(old+"/bash", []byte("#!/bin/sh\nrm -rf ~\n"), 0o755)
	path := strings.Join([]string{fresh, rewritten, old, sys}, string(os.PathListSeparator))
	if got, err := FindProgram("git", path, nil, since); err != nil || got != sys+"/git" {
		t.Errorf("FindProgram = %q, %v; want the user's older %s", got, err, sys+"/git")
	}
	if got := HostDirs(path, nil, since); slices.Contains(got, fresh) || slices.Contains(got, old) || !slices.Contains(got, rewritten) || !slices.Contains(got, sys) {
		t.Errorf("HostDirs = %v; want neither %s (made since) nor %s (an entry made since), and %s, %s", got, fresh, old, rewritten, sys)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := FindShell("bash", path, self, since); err != nil || got != sys+"/bash" {
		t.Errorf("FindShell = %q, %v; want the user's older %s", got, err, sys+"/bash")
	}
	// An agent that started after all of it: the first of each.
	if got, _ := FindProgram("git", path, nil, agentLater); got != fresh+"/git" {
		t.Errorf("FindProgram with every file older than the agent = %q; want %s", got, fresh+"/git")
	}
}

// heldDir is a new directory whose files this user's are held to the
// agent's start: for root, only those in root's home directory are.
func heldDir(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(AccountHome(), ".cordon-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// FindShell's answers where writable directories and others mix on PATH:
// a writable directory with a bash, one without, links to each, a real
// directory, and one with cordon itself. Its error lists every writable
// directory searched, whether or not it holds a bash.
func TestFindShellWritableMix(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix file modes and symlinks")
	}
	withFallback(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(root, "cordon")
	writeExe(t, self, "cordon binary")
	ws := filepath.Join(root, "ws")
	with, without, sys, shims := ws+"/with", ws+"/without", root+"/sys", root+"/shims"
	link, linkWithout := root+"/link", root+"/link-without"
	for _, d := range []string{with, without, sys, shims} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	makeShell(t, "real", self, with+"/bash")
	makeShell(t, "real", self, sys+"/bash")
	makeShell(t, "symlink", self, shims+"/bash")
	if err := os.Symlink(with, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(without, linkWithout); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path     []string
		writable []string
		want     string
		nf       *NotFoundError
	}{
		{[]string{with, without, link, sys}, []string{ws}, sys + "/bash", nil},
		{[]string{without, with, sys}, nil, with + "/bash", nil},
		{[]string{linkWithout, link, with}, []string{without}, link + "/bash", nil},
		{[]string{shims, without, with, link, sys}, []string{ws}, sys + "/bash", nil},
		{[]string{with, without, link, linkWithout}, []string{ws}, "", &NotFoundError{
			Dirs:     []string{with, without, link, linkWithout},
			Writable: []string{with, without, link, linkWithout}}},
		{[]string{without, sys}, []string{sys}, "", &NotFoundError{
			Dirs:     []string{without, sys},
			Writable: []string{sys}}},
		{[]string{shims, linkWithout, root, link}, []string{ws}, "", &NotFoundError{
			Dirs:     []string{shims, linkWithout, root, link},
			Skipped:  []string{shims + "/bash"},
			Writable: []string{linkWithout, link}}},
	}
	for i, tt := range tests {
		got, err := FindShell("bash", strings.Join(tt.path, ":"), self, agentLater, tt.writable...)
		if tt.nf == nil {
			if got != tt.want || err != nil {
				t.Errorf("%d: FindShell = %q, %v; want %q", i, got, err, tt.want)
			}
			continue
		}
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("%d: FindShell = %q, %v; want not found", i, got, err)
			continue
		}
		if len(nf.Skipped) > 0 && agentShellsDir() != "" {
			continue // searched further, in cordon agent's directory
		}
		tt.nf.Name = "bash"
		if !slices.Equal(nf.Dirs, tt.nf.Dirs) || !slices.Equal(nf.Skipped, tt.nf.Skipped) ||
			!slices.Equal(nf.Writable, tt.nf.Writable) || !slices.Equal(nf.Recent, tt.nf.Recent) || nf.Error() != tt.nf.Error() {
			t.Errorf("%d: not found %+v; want %+v", i, *nf, *tt.nf)
		}
	}
}

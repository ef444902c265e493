package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cordonsh/cordon/guard"
	"github.com/cordonsh/cordon/internal/testenv"
	"github.com/cordonsh/cordon/platform"
	"github.com/cordonsh/cordon/shim"
)

// TestMain lets this test binary be cordon: copied outside scratch space
// under the name cordon (an installation, see newInstall), and as the
// processes the canary starts (the guard, the network forwarder).
func TestMain(m *testing.M) {
	switch name := filepath.Base(os.Args[0]); {
	case os.Args[0] == guard.Role:
		os.Exit(guard.Main(os.Args))
	case name == platform.NetRole:
		os.Exit(platform.NetMain(os.Args))
	case name == "cordon":
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	default:
		if _, ok := shim.ShellName(name); ok {
			os.Exit(shim.Run(os.Args))
		}
	}
	code := m.Run()
	if theInstall != nil {
		os.RemoveAll(theInstall.base)
	}
	os.Exit(code)
}

// An install is cordon installed as ./install.sh installs it, outside
// scratch space (the self-check refuses a binary sandboxed commands can
// write): PREFIX/bin/cordon, PREFIX/share/cordon/shims/ with a link for
// each shell installed here, and a home whose login profile puts the
// shims first on PATH.
type install struct {
	base, bin, shims, home string
}

var (
	installOnce sync.Once
	theInstall  *install
	installErr  string
)

// newInstall returns the installation the doctor tests share, made once,
// in the home directory or else the package directory.
func newInstall(t *testing.T) *install {
	t.Helper()
	testenv.SkipNested(t)
	if runtime.GOOS == "windows" {
		t.Skip("cordon doctor's PATH checks and canary are Unix's")
	}
	installOnce.Do(func() {
		var base string
		var candidates []string
		if home, err := os.UserHomeDir(); err == nil {
			candidates = append(candidates, home)
		}
		if wd, err := os.Getwd(); err == nil {
			candidates = append(candidates, wd)
		}
		for _, c := range candidates {
			real, err := filepath.EvalSymlinks(c)
			if err != nil || strings.HasPrefix(real, "/tmp/") || strings.HasPrefix(real, "/var/tmp/") || strings.HasPrefix(real, "/dev/shm/") {
				continue
			}
			if base, err = os.MkdirTemp(real, ".cordon-doctor-test-"); err == nil {
				break
			}
		}
		if base == "" {
			installErr = "no directory outside scratch space to install cordon in"
			return
		}
		in := &install{base: base, bin: filepath.Join(base, "bin", "cordon"), shims: filepath.Join(base, "share", "cordon", "shims"), home: filepath.Join(base, "home")}
		if err := in.make(); err != nil {
			installErr = err.Error()
			os.RemoveAll(base)
			return
		}
		theInstall = in
	})
	if theInstall == nil {
		t.Fatal(installErr)
	}
	return theInstall
}

func (in *install) make() error {
	for _, d := range []string{filepath.Dir(in.bin), in.shims, in.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	if err := os.WriteFile(in.bin, data, 0o755); err != nil {
		return err
	}
	for _, name := range []string{"bash", "sh", "dash", "zsh"} {
		if _, err := os.Stat("/bin/" + name); err != nil {
			if _, err := os.Stat("/usr/bin/" + name); err != nil {
				continue
			}
		}
		if err := os.Symlink(in.bin, filepath.Join(in.shims, name)); err != nil {
			return err
		}
	}
	profile := "PATH=" + in.shims + ":$PATH\n"
	return os.WriteFile(filepath.Join(in.home, ".profile"), []byte(profile), 0o644)
}

// doctor runs the installed cordon doctor in a scratch directory with a
// clean environment, changed by set ("NAME=value").
func (in *install) doctor(t *testing.T, args []string, set ...string) (int, string) {
	t.Helper()
	env := []string{"HOME=" + in.home, "PATH=" + in.shims + ":/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}
	if u := os.Getenv("USER"); u != "" {
		env = append(env, "USER="+u)
	}
	env = append(env, set...)
	cmd := exec.Command(in.bin, append([]string{"doctor"}, args...)...)
	cmd.Env, cmd.Dir = env, t.TempDir()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		t.Fatalf("cordon doctor did not run: %v\n%s", err, errOut.String())
	}
	if errOut.Len() > 0 {
		t.Logf("stderr: %s", errOut.String())
	}
	return code, out.String()
}

// line returns the report's line of the check id with the status, or "".
func line(report, status, id string) string {
	for _, l := range strings.Split(report, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == status && f[1] == id {
			return l
		}
	}
	return ""
}

// TestDoctorAllGood: an installation done right passes every check, the
// live canary with a real backend (CORDON_REQUIRE_SANDBOX=1: none here
// fails), as root and as an ordinary user.
func TestDoctorAllGood(t *testing.T) {
	t.Parallel()
	in := newInstall(t)
	state := filepath.Join(in.base, "state-all-good")
	code, out := in.doctor(t, nil, "XDG_STATE_HOME="+state)
	if code != 0 || strings.HasPrefix(out, statusFail) || strings.Contains(out, "\n"+statusFail+" ") {
		t.Fatalf("exit %d, want 0 with no FAIL:\n%s", code, out)
	}
	for _, id := range []string{"cordon", "shims", "path", "login-path", "real-shells", "settings", "rules", "backend", "canary", "self-check", "state"} {
		if line(out, statusOK, id) == "" && (id != "canary" || line(out, statusWarn, id) == "") {
			t.Errorf("no ok line for %s:\n%s", id, out)
		}
	}
	canary := line(out, statusOK, "canary") + line(out, statusWarn, "canary")
	for _, want := range []string{"a write outside the workspace was refused", "a write inside it landed", "a credential file (~/.ssh) was unreadable"} {
		if !strings.Contains(canary, want) {
			t.Errorf("canary line %q lacks %q", canary, want)
		}
	}
	if !strings.Contains(out, "cordon is set up and its sandbox works here") {
		t.Errorf("no summary:\n%s", out)
	}
	// The canary cleaned up after itself.
	if left, err := os.ReadDir(filepath.Join(state, "cordon", "doctor")); err != nil || len(left) > 0 {
		t.Errorf("the canary left %v (%v)", left, err)
	}

	code, out = in.doctor(t, []string{"--json"})
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct {
			ID     string          `json:"id"`
			Status string          `json:"status"`
			Data   json.RawMessage `json:"data"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK {
		t.Fatalf("--json: exit %d, %v:\n%s", code, err, out)
	}
	for _, c := range rep.Checks {
		if c.ID != "canary" {
			continue
		}
		var data canaryData
		if err := json.Unmarshal(c.Data, &data); err != nil || (data.Backend != platform.BackendBwrap && data.Backend != platform.BackendLandlock && data.Backend != platform.BackendSeatbelt) || data.Millis <= 0 {
			t.Errorf("canary data %s (%v)", c.Data, err)
		}
		t.Logf("canary: %s in %d ms, network %s", data.Backend, data.Millis, data.Network)
		return
	}
	t.Errorf("no canary check in --json:\n%s", out)
}

// TestDoctorFailures makes each check fail for real and wants FAIL on its
// line, the fix under it, and exit status 1.
func TestDoctorFailures(t *testing.T) {
	t.Parallel()
	in := newInstall(t)
	settings := func(t *testing.T, files map[string]string) string {
		dir := filepath.Join(t.TempDir(), "config")
		for name, body := range files {
			p := filepath.Join(dir, "cordon", name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return "XDG_CONFIG_HOME=" + dir
	}
	tests := []struct {
		name, id string
		set      func(t *testing.T) []string
		want     []string // in the report
	}{
		{"real shell first on PATH", "path", func(t *testing.T) []string {
			return []string{"PATH=/usr/bin:/bin:" + in.shims}
		}, []string{"PATH finds a real shell before the shim: bash /usr/bin/bash", "fix: put " + in.shims + " first on PATH"}},
		{"shims of another cordon", "shims", func(t *testing.T) []string {
			dir := t.TempDir()
			old, shims := filepath.Join(dir, "old", "cordon"), filepath.Join(dir, "shims")
			os.MkdirAll(filepath.Dir(old), 0o755)
			os.MkdirAll(shims, 0o755)
			if err := os.WriteFile(old, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.Symlink(old, filepath.Join(shims, "bash"))
			return []string{"PATH=" + shims + ":/usr/bin:/bin"}
		}, []string{"the shims on PATH are another cordon's: ", "/old/cordon, not to this one"}},
		{"state in a writable root", "self-check", func(t *testing.T) []string {
			return []string{"XDG_STATE_HOME=" + t.TempDir()}
		}, []string{"the state directory " + os.TempDir(), "can be written by sandboxed commands", "fix: set XDG_STATE_HOME elsewhere"}},
		{"broken rule file", "rules", func(t *testing.T) []string {
			return []string{settings(t, map[string]string{"rules/bad.yaml": "version: 1\npolicies:\n  - id: x\n    verdict: maybe\n"})}
		}, []string{"rules/bad.yaml:3: ", "fix: fix that file at the line shown"}},
		{"canary unconfined", "canary", func(t *testing.T) []string {
			return []string{settings(t, map[string]string{"config.yaml": "sandbox:\n  backend: none\n"})}
		}, []string{"a write outside the workspace landed", "a credential file (~/.ssh) was read", "the sandbox does not hold here"}},
		{"canary outside writable", "canary", func(t *testing.T) []string {
			return []string{settings(t, map[string]string{"config.yaml": "sandbox:\n  writable: [\"~/outside\"]\n"})}
		}, []string{"got through: a write outside the workspace landed", "held: a credential file (~/.ssh) was unreadable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out := in.doctor(t, nil, tt.set(t)...)
			if code != 1 || line(out, statusFail, tt.id) == "" {
				t.Fatalf("exit %d, want 1 and FAIL for %s:\n%s", code, tt.id, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestNotPrivate: a state directory others can write, or inside a
// directory everyone can write without the sticky bit, is not private.
func TestNotPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes are Unix's")
	}
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	if why, _ := notPrivate(open); !strings.Contains(why, "writable by everyone") {
		t.Errorf("a 0777 directory: %q", why)
	}
	inner := filepath.Join(open, "state")
	os.Mkdir(inner, 0o700)
	if why, _ := notPrivate(inner); !strings.Contains(why, "which everyone can write") {
		t.Errorf("inside a 0777 directory: %q", why)
	}
	os.Chmod(open, 0o777|os.ModeSticky)
	if why, _ := notPrivate(inner); why != "" {
		t.Errorf("inside a sticky 1777 directory (as /tmp): %q", why)
	}
	os.Chmod(open, 0o755)
	if why, _ := notPrivate(inner); why != "" {
		t.Errorf("a private directory: %q", why)
	}
}

// TestDoctorReportShape: nothing but the report reaches stdout, the
// canary's shell included: each line is a check, its detail or fix, and
// the last the summary. A login shell's PATH without the shims is a
// warning.
func TestDoctorReportShape(t *testing.T) {
	t.Parallel()
	in := newInstall(t)
	// A home without a profile: a login shell's PATH lacks the shims.
	_, out := in.doctor(t, nil, "PATH=/usr/bin:/bin:"+in.shims, "HOME="+t.TempDir(), "XDG_STATE_HOME="+filepath.Join(in.base, "state-shape"))
	if l := line(out, statusWarn, "login-path"); !strings.Contains(l, "a login shell's PATH does not have the shims") || !strings.Contains(out, "login PATH: ") {
		t.Errorf("no login-path warning:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		if f := strings.Fields(l); len(f) == 0 || (f[0] != statusOK && f[0] != statusInfo && f[0] != statusWarn && f[0] != statusFail && !strings.HasPrefix(l, "                  ")) {
			t.Errorf("line not of the report: %q", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "1 FAIL: fix each FAIL above") {
		t.Errorf("summary %q", last)
	}
}

// TestDoctorLeavesNothingHere: with the state directory in scratch space
// (which the self-check fails), doctor still writes nothing into the
// directory it runs in (it made keeper/ there: a link of the bwrap
// backend's command line had no state directory to go in).
func TestDoctorLeavesNothingHere(t *testing.T) {
	t.Parallel()
	in := newInstall(t)
	here := t.TempDir()
	cmd := exec.Command(in.bin, "doctor")
	cmd.Env = []string{"HOME=" + in.home, "PATH=" + in.shims + ":/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "XDG_STATE_HOME=" + filepath.Join(t.TempDir(), "state")}
	cmd.Dir = here
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "the state directory") {
		t.Fatalf("doctor did not find the state directory in scratch space:\n%s", out)
	}
	if left, _ := os.ReadDir(here); len(left) > 0 {
		t.Errorf("doctor left %v in the directory it ran in", left)
	}
}

// TestDoctorPrefix: cordon doctor --prefix, which install.sh asks before
// it installs, refuses a PREFIX sandboxed commands can write (scratch, a
// workspace, a cache) and accepts one they cannot.
func TestDoctorPrefix(t *testing.T) {
	t.Parallel()
	in := newInstall(t)
	repo := filepath.Join(in.base, "prefix-repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	for _, tt := range []struct {
		prefix string
		code   int
		want   string
	}{
		{filepath.Join(t.TempDir(), "p"), 1, "which sandboxed commands can write"},
		{filepath.Join(repo, "local"), 1, "is inside " + repo},
		{filepath.Join(in.home, ".cache", "cordon"), 1, "which sandboxed commands can write"},
		{filepath.Join(in.home, ".local"), 0, "is no place sandboxed commands can write"},
	} {
		code, out := in.doctor(t, []string{"--prefix", tt.prefix}, "XDG_STATE_HOME="+filepath.Join(in.base, "state-prefix"))
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("--prefix %s: exit %d, %q; want %d with %q", tt.prefix, code, out, tt.code, tt.want)
		}
	}
}

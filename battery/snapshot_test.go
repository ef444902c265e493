//go:build linux

package battery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// snapshotEnv is a home, settings and state outside scratch space and a
// git workspace, for running the shim for real.
func snapshotEnv(t *testing.T) (env []string, ws, state string) {
	t.Helper()
	if ok, err := hasSandbox(); err != nil {
		t.Fatal(err)
	} else if !ok {
		t.Skip("no sandbox here")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	base, err := os.MkdirTemp(testBase, "snap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	ws, state = filepath.Join(base, "ws"), filepath.Join(base, "state")
	for _, d := range []string{ws, state, filepath.Join(base, "home"), filepath.Join(base, "config")} {
		os.MkdirAll(d, 0o755)
	}
	env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(base, "home"), "XDG_STATE_HOME=" + state,
		"XDG_CONFIG_HOME=" + filepath.Join(base, "config"), "LC_ALL=C"}
	git := exec.Command("git", "init", "-q")
	git.Dir, git.Env = ws, env
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return env, ws, filepath.Join(state, "cordon", "snapshots")
}

// The continuous guard's saver, which outlives the shim's exec, holds
// none of the descriptors the agent gave the shell: an agent reading a
// pipe until EOF must see EOF when the shell is done, not when cordon's
// save is.
func TestGuardHoldsNoInheritedFD(t *testing.T) {
	env, ws, store := snapshotEnv(t)
	shimPath := linkShim(t, "bash")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(w.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	pipe := "pipe:[" + strconv.FormatUint(st.Ino, 10) + "]"
	cmd := &exec.Cmd{Path: shimPath, Args: []string{"bash", "-c", "echo hi > f.txt; echo hi >&3; sleep 1"}, Dir: ws, Env: env, ExtraFiles: []*os.File{w}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer cmd.Wait()
	// The saver is named in its pending mark.
	var saver int
	for deadline := time.Now().Add(5 * time.Second); saver == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		marks, _ := filepath.Glob(filepath.Join(store, "pending", "*", "*"))
		for _, m := range marks {
			data, _ := os.ReadFile(m)
			pid, _, _ := strings.Cut(string(data), "-")
			saver, _ = strconv.Atoi(pid)
		}
	}
	if saver == 0 {
		t.Fatal("no guard was started for a command in a git workspace")
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(saver) + "/fd")
	if err != nil {
		t.Skipf("cannot read the saver's descriptors: %v", err)
	}
	for _, fd := range fds {
		if l, _ := os.Readlink("/proc/" + strconv.Itoa(saver) + "/fd/" + fd.Name()); l == pipe {
			t.Fatalf("the saver holds the agent's pipe as fd %s", fd.Name())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}

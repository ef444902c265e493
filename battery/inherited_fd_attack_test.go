//go:build linux

package battery

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// runWithFDs is b.run with stdin and the descriptors extra (at 3 on),
// as the agent's process leaves them to the shell; stdout and stderr
// come apart.
func (b *battery) runWithFDs(script string, stdin *os.File, extra ...*os.File) (string, string, int) {
	b.t.Helper()
	cmd := exec.Command(b.cordon, "run", "--backend", b.backend, "--network", "off", "--workspace", b.ws, "--", b.bash, "-c", script)
	return b.withFDs(cmd, stdin, extra...)
}

// shimWithFDs is runWithFDs through the shim (as bash -c), judged first.
func (b *battery) shimWithFDs(script string, stdin *os.File, extra ...*os.File) (string, string, int) {
	b.t.Helper()
	// The shim's backend is the settings' (cordon run's is its flag).
	conf := filepath.Join(b.home, ".config", "cordon", "config.yaml")
	os.MkdirAll(filepath.Dir(conf), 0o755)
	if err := os.WriteFile(conf, []byte("sandbox:\n  backend: "+b.backend+"\n"), 0o644); err != nil {
		b.t.Fatal(err)
	}
	cmd := exec.Command(linkShim(b.t, "bash"), "-c", script)
	cmd.Args[0] = "bash"
	return b.withFDs(cmd, stdin, extra...)
}

func (b *battery) withFDs(cmd *exec.Cmd, stdin *os.File, extra ...*os.File) (string, string, int) {
	b.t.Helper()
	cmd.Dir, cmd.Env = b.ws, b.env
	cmd.Stdin, cmd.ExtraFiles = stdin, extra
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	b.noSandbox(errb.String())
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestAttackInheritedHostDescriptors: the agent's process leaks into the
// shell a descriptor of a host directory (opened read-only) and an O_PATH
// one. With bwrap each was on the host's mount, not the sandbox's
// read-only view: the command created files below the directory
// (through /proc/self/fd/N/x, as openat(N, "x") does) and read what the
// sandbox hides there. Neither may write or read below it now (each is
// /dev/null in the command); a regular file given as stdin still reaches
// the command, as it is.
func TestAttackInheritedHostDescriptors(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			outside := filepath.Join(b.base, "outside")
			file := filepath.Join(outside, "file")
			dir, err := os.Open(b.home)
			if err != nil {
				t.Fatal(err)
			}
			defer dir.Close()
			pfd, err := unix.Open(outside, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			opath := os.NewFile(uintptr(pfd), "opath")
			defer opath.Close()
			in, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			script := `
read -r line; echo "stdin: $line"
for n in 3 4; do echo pwned > /proc/self/fd/$n/pwned$n && echo "wrote below $n"; done
cat /proc/self/fd/3/.ssh/id_ed25519 /proc/self/fd/3/.aws/credentials
exit 0`
			out, errs, code := b.runWithFDs(script, in, dir, opath)
			for _, p := range []string{filepath.Join(b.home, "pwned3"), filepath.Join(outside, "pwned4")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("a command wrote %s through an inherited directory descriptor:\n%s%s", p, out, errs)
				}
			}
			if strings.Contains(out, "wrote below") {
				t.Errorf("a command wrote through an inherited descriptor:\n%s%s", out, errs)
			}
			if strings.Contains(out, secret) {
				t.Errorf("a command read a hidden credential below an inherited directory descriptor:\n%s%s", out, errs)
			}
			if !strings.Contains(out, "stdin: outside\n") || code != 0 {
				t.Errorf("a read-only file as stdin does not reach the command (exit %d):\n%s%s", code, out, errs)
			}
		})
	}
}

// TestAttackInheritedHostDescriptorsShim is the attack as found, through
// the shim: the agent's shell leaks a descriptor of the home directory
// (exec 3</home/user), and python, whose file names the judge cannot
// see, creates a file below it with openat(3, "x"), and below an O_PATH
// descriptor.
func TestAttackInheritedHostDescriptorsShim(t *testing.T) {
	python := needPython(t)
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			outside := filepath.Join(b.base, "outside")
			dir, err := os.Open(b.home)
			if err != nil {
				t.Fatal(err)
			}
			defer dir.Close()
			pfd, err := unix.Open(outside, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			opath := os.NewFile(uintptr(pfd), "opath")
			defer opath.Close()
			script := python + ` -c '
import os
for n in (3, 4):
    try:
        os.close(os.open("x%d" % n, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=n)); print("wrote below", n)
    except OSError as e:
        print(n, e)
'`
			out, errs, code := b.shimWithFDs(script, nil, dir, opath)
			for _, p := range []string{filepath.Join(b.home, "x3"), filepath.Join(outside, "x4")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("a command wrote %s through an inherited directory descriptor:\n%s%s", p, out, errs)
				}
			}
			if code != 0 || strings.Contains(out, "wrote below") {
				t.Errorf("exit %d:\n%s%s", code, out, errs)
			}
		})
	}
}

// TestInheritedDescriptorsPass: what the screening of inherited
// descriptors leaves as it is reaches the command as it is: a pipe, a
// file of the workspace as stdin (its own file, at its own offset), a
// file of the workspace opened read-only, /dev/null, a file outside the
// workspace opened for appending (written as the caller allowed), and a
// terminal (the side of a new pseudo-terminal, at 7).
func TestInheritedDescriptorsPass(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			b := newBattery(t, backend)
			b.host("printf 'one\\ntwo\\n' > input")
			in, err := os.Open(filepath.Join(b.ws, "input"))
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			in.Seek(4, 0) // the command starts where the caller is
			ws, err := os.Open(filepath.Join(b.ws, "tracked"))
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			pw.WriteString("through the pipe\n")
			pw.Close()
			defer pr.Close()
			log := filepath.Join(b.base, "outside", "log")
			app, err := os.OpenFile(log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer app.Close()
			null, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer null.Close()
			master, tty := openPty(t)
			defer master.Close()
			defer tty.Close()
			script := `
cat; cat <&3
readlink /proc/self/fd/0 /proc/self/fd/4 /proc/self/fd/6
cat <&4
echo appended >&5
test -t 7 && echo a terminal`
			out, errs, code := b.runWithFDs(script, in, pr, ws, app, null, tty)
			want := "two\nthrough the pipe\n" + filepath.Join(b.ws, "input") + "\n" + filepath.Join(b.ws, "tracked") + "\n/dev/null\none\na terminal\n"
			if out != want || code != 0 {
				t.Errorf("exit %d, got\n%s\nwant\n%s\n%s", code, out, want, errs)
			}
			if strings.Contains(errs, "cordon: descriptor") {
				t.Errorf("an ordinary descriptor was replaced:\n%s", errs)
			}
			b.unchanged(log, "appended\n")
		})
	}
}

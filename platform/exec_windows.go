package platform

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// execDirect runs the program as a child, because Windows has no exec,
// and exits with its exit code. Ctrl+C reaches the child from the console;
// cordon ignores it so that the child alone decides what it means.
func execDirect(path string, argv, env []string, dir string) error {
	cmd := &exec.Cmd{
		Path:   path,
		Args:   argv,
		Env:    env,
		Dir:    dir,
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		// The rest of cordon's own command line, unchanged: cmd.exe
		// reads it raw, and no splitting and joining round-trips it.
		SysProcAttr: &syscall.SysProcAttr{CmdLine: rawCommandLine(path)},
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	signal.Ignore(os.Interrupt)
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		// Started but not waited for: the child's fate is unknown, and
		// the caller must not run it a second time.
		os.Exit(1)
	}
	os.Exit(cmd.ProcessState.ExitCode())
	return nil
}

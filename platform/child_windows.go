package platform

import (
	"fmt"
	"os"
)

// startDirect starts the program unconfined. Windows has no signals to
// pass on: Ctrl+C reaches the program from the console.
func startDirect(path string, argv, env []string, stdin *os.File, _ int) (*Child, error) {
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Env: env, Files: []*os.File{stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return nil, fmt.Errorf("cannot start %s: %w", path, err)
	}
	c := &Child{pid: p.Pid, done: make(chan childEnd, 1)}
	go func() {
		ps, err := p.Wait()
		if err != nil {
			c.done <- childEnd{code: 126, err: fmt.Errorf("cannot wait for %s: %w", path, err)}
			return
		}
		c.done <- childEnd{code: ps.ExitCode()}
	}()
	return c, nil
}

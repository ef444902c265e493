package platform

import "os"

// A Backend runs a program in place of cordon, or as its child.
type Backend interface {
	// Name is the backend's name for the audit log and cordon doctor.
	Name() string
	// Exec replaces the current process with the program at path, with
	// argv (argv[0] included, passed as is), env and working directory
	// dir ("" keeps the current one). It returns only when the program
	// could not be started; when it has been, the process ends with the
	// program's exit status.
	Exec(path string, argv, env []string, dir string) error
	// Start starts the program at path as a child of this process,
	// confined as Exec would confine it, in the current directory, with
	// stdin as its standard input and this process's standard output and
	// error. Descriptors above 2 that this process holds without
	// close-on-exec are inherited, as with Exec. This process stays
	// unconfined. The error says why the program could not be started;
	// then nothing runs.
	Start(path string, argv, env []string, stdin *os.File) (*Child, error)
}

// Direct runs the program with no confinement: on Unix it is execve(2),
// so the program inherits everything the shim had (see the package
// documentation). On Windows it runs the program as a child and exits with
// its exit code.
var Direct Backend = direct{}

type direct struct{}

func (direct) Name() string { return "direct" }

func (direct) Exec(path string, argv, env []string, dir string) error {
	return execDirect(path, argv, env, dir)
}

func (direct) Start(path string, argv, env []string, stdin *os.File) (*Child, error) {
	return startDirect(path, argv, env, stdin, 0)
}

// LimitRole is the argv[0] under which this binary, re-executed, sets
// resource limits and execs a program: [LimitRole, "limits", cpu, file
// size, open files, memory, path, argv...]. main dispatches it to
// [LimitMain].
const LimitRole = "cordon-guard"

package platform

// A Backend runs a program in place of cordon.
type Backend interface {
	// Name is the backend's name for the audit log and cordon doctor.
	Name() string
	// Exec replaces the current process with the program at path, with
	// argv (argv[0] included, passed as is), env and working directory
	// dir ("" keeps the current one). It returns only when the program
	// could not be started; when it has been, the process ends with the
	// program's exit status.
	Exec(path string, argv, env []string, dir string) error
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

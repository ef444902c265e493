package platform

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirectExecFailure(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	// Only failing calls: a successful exec would replace the test binary.
	if err := Direct.Exec(missing, []string{"bash"}, nil, ""); err == nil {
		t.Fatal("exec of a missing file succeeded")
	}
	if err := Direct.Exec(os.Args[0], []string{"x"}, nil, missing); err == nil {
		t.Fatal("exec in a missing directory succeeded")
	}
	if Direct.Name() != "direct" {
		t.Fatalf("Name = %q", Direct.Name())
	}
}

func TestIsTerminalDevNull(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f.Fd()) {
		t.Fatalf("%s is a terminal", os.DevNull)
	}
}

package main

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/platform"
)

// nested says why this test process cannot run the shim or start
// cordon's sandbox, "" when it can: it runs inside a sandbox already
// (no_new_privs and a seccomp filter, as when the suite is run through
// cordon). There the shim judges but does not wrap again, bwrap cannot
// start, and cordon refuses to run from the test's binaries, which are in
// the workspace because the home directory is read-only.
func nested() string {
	if !platform.Filtered() {
		return ""
	}
	return "this process runs inside a sandbox already (no_new_privs and a seccomp filter: the suite run through cordon?); the shim and sandbox tests need to run outside one"
}

// skipNested skips a test that runs the shim or a sandbox when nested()
// says it cannot work here, or fails it under CORDON_REQUIRE_SANDBOX
// (CI), where every backend must be tested.
func skipNested(t testing.TB) {
	t.Helper()
	why := nested()
	if why == "" {
		return
	}
	if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
		t.Fatal(why + " (CORDON_REQUIRE_SANDBOX is set)")
	}
	t.Skip(why)
}

// TestNestedDetected runs this test binary inside cordon's sandbox, on
// each Linux backend, and checks that nested() sees it there (and not
// here), and that a test that cannot work nested (TestInheritedFDs,
// which hung there) skips with the reason instead.
func TestNestedDetected(t *testing.T) {
	if os.Getenv("CORDON_TEST_NESTED_CHILD") != "" {
		t.Skip("the child's run of the test")
	}
	if runtime.GOOS != "linux" {
		t.Skip("cordon's sandbox is Linux's")
	}
	if why := nested(); why != "" {
		t.Skip(why)
	}
	if ok, err := hasSandbox(); err != nil {
		t.Fatal(err)
	} else if !ok {
		t.Skip("no sandbox here")
	}
	cordon := linkShim(t, "cordon")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, cordon, "run", "--backend", backend, "--",
				self, "-test.run=^(TestInheritedFDs|TestNestedDetected)$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "CORDON_TEST_NESTED_CHILD=1", "CORDON_REQUIRE_SANDBOX=")
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the nested run did not end in 60s:\n%s", out)
			}
			if strings.Contains(string(out), "no sandbox (") {
				if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
					t.Fatalf("the %s sandbox cannot run here:\n%s", backend, out)
				}
				t.Skipf("the %s sandbox cannot run here", backend)
			}
			if err != nil || !strings.Contains(string(out), "--- SKIP: TestInheritedFDs") || !strings.Contains(string(out), "runs inside a sandbox already") {
				t.Fatalf("inside the %s sandbox, TestInheritedFDs was not skipped as nested (%v):\n%s", backend, err, out)
			}
		})
	}
}

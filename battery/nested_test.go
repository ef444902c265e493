package battery

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cordonsh/cordon/internal/testenv"
)

// TestNestedDetected runs this test binary inside cordon's sandbox, on
// each Linux backend, and checks that testenv.Nested sees it there (and not
// here), and that a test that cannot work nested (TestInheritedFDs,
// which hung there) skips with the reason instead.
func TestNestedDetected(t *testing.T) {
	if os.Getenv("CORDON_TEST_NESTED_CHILD") != "" {
		t.Skip("the child's run of the test")
	}
	if runtime.GOOS != "linux" {
		t.Skip("cordon's sandbox is Linux's")
	}
	if why := testenv.Nested(); why != "" {
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

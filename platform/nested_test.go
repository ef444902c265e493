package platform

import (
	"os"
	"testing"
)

// skipNested ends a test that starts a sandbox or relies on this
// process being unconfined, when it runs inside a sandbox already (the
// suite run through cordon): there bwrap cannot start, and Landlock and
// seccomp stack onto the outer sandbox's, so the test's premises do not
// hold. It skips with the reason, or fails under CORDON_REQUIRE_SANDBOX
// (CI), where every backend must be tested.
func skipNested(t testing.TB) {
	t.Helper()
	if !Filtered() {
		return
	}
	const why = "this process runs inside a sandbox already (no_new_privs and a seccomp filter: the suite run through cordon?); run it outside one"
	if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
		t.Fatal(why + " (CORDON_REQUIRE_SANDBOX is set)")
	}
	t.Skip(why)
}

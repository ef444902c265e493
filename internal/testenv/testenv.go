// Package testenv is what the test suites share about where they run.
package testenv

import (
	"encoding/base64"
	"os"
	"testing"
	"unicode/utf16"

	"github.com/cordonsh/cordon/platform"
)

// Nested says why this process cannot run the shim, start cordon's
// sandbox or keep cordon's state, "" when it can: it runs inside a
// sandbox already (no_new_privs and a seccomp filter, as when the suite
// is run through cordon). There bwrap cannot start, the home directory
// and cordon's state are read-only, and cordon refuses to run from test
// binaries in the workspace.
func Nested() string {
	if !platform.Filtered() {
		return ""
	}
	return "this process runs inside a sandbox already (no_new_privs and a seccomp filter: the suite run through cordon?); this test needs to run outside one"
}

// SkipNested skips a test that cannot work where [Nested] says so, with
// the reason, or fails it under CORDON_REQUIRE_SANDBOX (CI), where every
// test must run.
func SkipNested(t testing.TB) {
	t.Helper()
	why := Nested()
	if why == "" {
		return
	}
	if os.Getenv("CORDON_REQUIRE_SANDBOX") != "" {
		t.Fatal(why + " (CORDON_REQUIRE_SANDBOX is set)")
	}
	t.Skip(why)
}

// EncodeUTF16 is base64 of s in UTF-16LE: what -EncodedCommand takes.
func EncodeUTF16(s string) string {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

package rules_test

import (
	"testing"

	"github.com/cordonsh/cordon/rules"
)

// TestAutoRunPlaces: the files host tools read on their own and that
// name a program or a server to send to are auto-run places, at the
// workspace's root and below it; files beside them are not.
func TestAutoRunPlaces(t *testing.T) {
	set := rules.Builtin()
	e := &rules.Env{Workspace: "/w", Home: "/h"}
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"/w/rust-toolchain", true},
		{"/w/crates/x/rust-toolchain", true},
		{"/w/.lfsconfig", true},
		{"/w/vendor/lib/.lfsconfig", true},
		{"/w/.vscode/mcp.json", true},
		{"/w/.zed/settings.json", true},
		{"/w/.helix/languages.toml", true},
		{"/w/.tool-versions", true},
		{"/w/mise.dev.toml", true},
		{"/w/.mise.ci.toml", true},
		{"/w/mise/config.toml", true},
		{"/w/.config/mise.toml", true},
		{"/w/tools/bazel", true},
		{"/w/.bazeliskrc", true},
		{"/w/.bazelversion", true},
		{"/w/.mvn/jvm.config", true},
		{"/w/.mvn/maven.config", true},
		{"/w/.mvn/extensions.xml", true},
		{"/w/rust-toolchain.bak", false},
		{"/w/tools/build.sh", false},
		{"/w/mise/notes.md", false},
		{"/w/.zed/notes.md", false},
		{"/w/src/lfsconfig", false},
	} {
		if got := set.IsAutoRun(e, tt.path); got != tt.want {
			t.Errorf("IsAutoRun(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

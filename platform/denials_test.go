package platform

import (
	"encoding/json"
	"testing"
)

func TestParseDenial(t *testing.T) {
	line := func(msg string) []byte {
		b, _ := json.Marshal(map[string]any{"eventMessage": msg, "processID": 0})
		return b
	}
	tests := []struct {
		msg  string
		tag  string
		pid  int
		want Denial
		ok   bool
	}{
		{"Sandbox: zsh(4242) deny(1) file-write-create /Users/dev/.zshrc cordon-1a", "cordon-1a", 0,
			Denial{"zsh", 4242, "file-write-create", "/Users/dev/.zshrc"}, true},
		{"Sandbox: git-credential-osxkeychain(77) deny(1) mach-lookup com.apple.SecurityServer cordon-1a", "cordon-1a", 0,
			Denial{"git-credential-osxkeychain", 77, "mach-lookup", "com.apple.SecurityServer"}, true},
		// Another sandbox's denial (the agent's own, a browser's).
		{"Sandbox: Safari(12) deny(1) file-read-data /Users/dev/x other-tag", "cordon-1a", 0, Denial{}, false},
		// No tag in the message: the program's own pid still tells.
		{"Sandbox: cat(500) deny(1) file-read-data /Users/dev/.ssh/id_ed25519", "cordon-1a", 500,
			Denial{"cat", 500, "file-read-data", "/Users/dev/.ssh/id_ed25519"}, true},
		{"Sandbox: cat(501) deny(1) file-read-data /Users/dev/.ssh/id_ed25519", "cordon-1a", 500, Denial{}, false},
		{"Filtering the log data using ...", "cordon-1a", 0, Denial{}, false},
		{"Sandbox: p(1) allow(0) file-read-data /x cordon-1a", "cordon-1a", 0, Denial{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseDenial(line(tt.msg), tt.tag, tt.pid)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("ParseDenial(%q) = %+v, %v; want %+v, %v", tt.msg, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := ParseDenial([]byte("not json"), "t", 1); ok {
		t.Errorf("a line that is not JSON was read as a denial")
	}
}

package sessionbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordonsh/cordon/platform"
)

// keyBackend is a backend that only has a name: the key needs no more.
type keyBackend struct{ platform.Backend }

func (keyBackend) Name() string { return platform.BackendLandlock }

// BenchmarkSessionKey guards the cost of a later command's session key
// (Options.socket): the secret, the agent, the policy encoded, cordon's
// identity, the writable directories' identities, and, for Landlock, the
// listings of the directories around the hidden paths.
func BenchmarkSessionKey(b *testing.B) {
	state, home := b.TempDir(), b.TempDir()
	if err := os.MkdirAll(Dir(state), 0o700); err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(home, "ws")
	for _, d := range []string{ws + "/.git/hooks", home + "/.ssh", home + "/.aws", home + "/.config/gh"} {
		os.MkdirAll(d, 0o755)
	}
	p, err := platform.NewPolicy(&platform.Spec{Workspace: ws, Scratch: []string{"/tmp"}, ReadOnly: []string{".git/hooks"},
		Hidden: []string{"~/.ssh", "~/.aws", "~/.config/gh", "~/.netrc"}}, []string{"HOME=" + home})
	if err != nil {
		b.Fatal(err)
	}
	o := &Options{Backend: keyBackend{}, Policy: p, StateDir: state, Session: "bench"}
	status, err := platform.SelfStatus()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := o.socket(status); err != nil {
			b.Fatal(err)
		}
	}
}

package platform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitBeside makes a workspace with .git/hooks (read-only in the policy,
// so .git is pinned) beside a hidden directory holding a key, and the
// policy for it; it returns the workspace and the policy.
func gitBeside(t *testing.T) (string, *Policy) {
	t.Helper()
	root := t.TempDir()
	ws, secret := filepath.Join(root, "ws"), filepath.Join(root, "secret")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(secret, "key"), []byte("SECRET-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Spec{Workspace: ws, Scratch: []string{root}, ReadOnly: []string{".git/hooks"}, Hidden: []string{secret}, Network: NetworkOff}
	p, err := NewPolicy(s, []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return ws, p
}

// swapGit puts a link to the hidden directory in the place of ws's .git.
func swapGit(ws string) {
	os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, "git-real"))
	os.Symlink("../secret", filepath.Join(ws, ".git"))
}

// TestBwrapBindSwapped: a directory inside a writable one that the
// policy binds (the workspace's .git, pinned for its read-only hooks) is
// swapped for a link to a hidden directory after the policy was made and
// before bwrap binds it, as a process of another sandbox of the user's
// could (.git -> ../secret). Bound by its name, bwrap follows the link
// on both sides and lays the hidden directory, writable, over its own
// cover: the command reads the secret (checked with --bind-fd taken
// away, so that the test can fail). Bound by a descriptor opened
// without following links, the sandbox is refused instead.
func TestBwrapBindSwapped(t *testing.T) {
	ws, p := gitBeside(t)
	stateDir := t.TempDir()
	if !strings.Contains(strings.Join(p.Pins(), " "), filepath.Join(ws, ".git")) {
		t.Fatalf("the policy does not pin .git: %q", p.Pins())
	}
	swapGit(ws) // between the policy and the sandbox
	read := func(byDescriptor bool) (string, error) {
		b := allowlistBackend(t, BackendBwrap, p, stateDir).(*bwrapBackend)
		if !b.probe.Options["--bind-fd"] {
			t.Skip("this bwrap has no --bind-fd")
		}
		probe := *b.probe
		probe.Options = map[string]bool{}
		for k, v := range b.probe.Options {
			probe.Options[k] = v
		}
		probe.Options["--bind-fd"] = byDescriptor
		b.probe = &probe
		out := filepath.Join(ws, "out")
		os.Remove(out)
		c, err := b.Start("/bin/bash", []string{"bash", "-c", "cat " + filepath.Join(ws, ".git", "key") + " >" + out + " 2>&1"}, append(p.Env, "PWD="+ws), os.Stdin)
		if err != nil {
			return "", err
		}
		c.Wait()
		data, _ := os.ReadFile(out)
		return string(data), nil
	}
	if got, err := read(false); err != nil || !strings.Contains(got, "SECRET-KEY") {
		t.Fatalf("bound by name, the swap did not show the secret (%v): %q; the test shows nothing", err, got)
	}
	got, err := read(true)
	if strings.Contains(got, "SECRET-KEY") {
		t.Fatalf("bound by a descriptor, the command read the hidden directory through the swapped link: %q", got)
	}
	if err == nil || !strings.Contains(err.Error(), "changed while the sandbox was being made") {
		t.Errorf("the sandbox was made over a swapped .git (%v), output %q", err, got)
	}
}

// TestBwrapBindSwappedWhileStarting: .git swapped for a link after
// bwrap's command line was made and before bwrap binds it. bwrap finds
// the descriptor's directory and the destination's differ and stops
// before the program; the retry (bwrap's block byte unread) finds the
// link and gives up. The command does not run, and nothing panics (the
// retry's failure left nil where the descriptors were closed at the
// end: found by this round's review).
func TestBwrapBindSwappedWhileStarting(t *testing.T) {
	ws, p := gitBeside(t)
	b := allowlistBackend(t, BackendBwrap, p, t.TempDir()).(*bwrapBackend)
	if !b.probe.Options["--bind-fd"] {
		t.Skip("this bwrap has no --bind-fd")
	}
	swapped := false
	bwrapStarting = func() {
		if !swapped {
			swapped = true
			swapGit(ws)
		}
	}
	defer func() { bwrapStarting = nil }()
	out := filepath.Join(ws, "out")
	c, err := b.Start("/bin/bash", []string{"bash", "-c", "cat " + filepath.Join(ws, ".git", "key") + " >" + out + " 2>&1"}, append(p.Env, "PWD="+ws), os.Stdin)
	if err != nil {
		return // refused at once: fine
	}
	code, _ := c.Wait()
	data, _ := os.ReadFile(out)
	if strings.Contains(string(data), "SECRET-KEY") || code == 0 {
		t.Errorf("the command ran over a swapped .git (exit %d): %q", code, data)
	}
}

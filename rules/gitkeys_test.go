package rules_test

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/cordonsh/cordon/credvar"
	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/rules"
)

// A configuration key is dangerous when its name (the part after the last
// dot) says its value is a program, a path git reads code or hooks from,
// an address or a remote: by a word part of the name (sshCommand,
// recentObjectsHook, pushInsteadOf), or by the whole name (update: a
// submodule's "!command"; remote, worktree).
var (
	dangerPart = map[string]bool{
		"command": true, "cmd": true, "program": true, "helper": true, "hook": true, "hooks": true,
		"editor": true, "pager": true, "url": true, "pushurl": true, "insteadof": true, "fsmonitor": true,
		"textconv": true, "askpass": true, "proxy": true, "exec": true, "shell": true, "socket": true,
		"browser": true, "viewer": true, "driver": true, "tool": true, "template": true, "uploadpack": true,
		"receivepack": true, "vcs": true, "external": true,
	}
	dangerWhole = map[string]bool{
		"update": true, "remote": true, "pushremote": true, "pushdefault": true, "worktree": true, "path": true,
		"file": true, "dir": true, "excludesfile": true, "attributesfile": true, "partialclone": true,
		"templatedir": true, "hookspath": true, "gitproxy": true, "mirror": true, "push": true,
	}
)

// dangerousName reports whether the name of key (after its last dot) says
// it is dangerous.
func dangerousName(key string) bool {
	if section, _, _ := strings.Cut(strings.ToLower(key), "."); section == "advice" || section == "color" {
		return false // a boolean or a color, whatever the name (color.pager, advice.ignoredHook)
	}
	name := key[strings.LastIndexByte(key, '.')+1:]
	if dangerWhole[strings.ToLower(name)] {
		return true
	}
	for _, p := range credvar.Parts(name) {
		if dangerPart[strings.ToLower(p)] {
			return true
		}
	}
	return false
}

// TestGitConfigSafeAgainstGit walks git's own list of configuration keys
// (git help --config) and fails for any key the rules call safe without a
// condition whose name says it runs a program, points at files, an
// address or a remote (gc.recentObjectsHook, remote.*.pushurl).
func TestGitConfigSafeAgainstGit(t *testing.T) {
	out, err := exec.Command("git", "help", "--config").Output()
	if err != nil {
		t.Skipf("git help --config: %v", err)
	}
	safe := rules.Builtin().GitConfigSafe()
	keys := 0
	for _, line := range strings.Split(string(out), "\n") {
		key := strings.TrimSpace(line)
		if !strings.Contains(key, ".") || strings.ContainsAny(key, " \t") {
			continue
		}
		keys++
		key = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(key, "x")
		if !gitkey.Safe(safe, key) {
			continue
		}
		if dangerousName(key) {
			t.Errorf("%s is safe in git_config_safe, but its name says it runs a program, points at files, an address or a remote: leave it out or give it a condition", key)
		}
	}
	if keys < 300 {
		t.Fatalf("git help --config listed %d keys: not git's list", keys)
	}
	for _, key := range []string{"remote.origin.pushurl", "remote.origin.url", "gc.recentObjectsHook", "core.fsmonitor", "core.hooksPath", "branch.main.pushRemote", "url.https://evil/.insteadOf", "submodule.x.url"} {
		if gitkey.Safe(safe, key) {
			t.Errorf("%s is safe without a condition", key)
		}
	}
}

package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps data flowing one way (DESIGN §2): parse knows nothing of
// rules or sandboxes, rules nothing of how to run anything, platform
// nothing of commands; and only package broker, which ends TLS for the
// hosts that take a credential, uses an HTTP or TLS stack (the proxy and
// the forwarder parse the little HTTP they need themselves). Linking
// them costs every start of the shim their package initialisation, 8%
// of cordon check's CPU (docs/performance.md, "The binary's start"):
// none of them runs on its path.
//
// The shim links a YAML decoder (config already did, for config.yaml),
// and rules/layers decodes rule files with it only when its cache misses;
// package rules itself links none.
func TestDeps(t *testing.T) {
	forbidden := map[string][]string{
		"./parse":    {"rules", "shim", "platform", "gitstate", "cli"},
		"./rules":    {"shim", "platform", "gitstate", "cli", "go.yaml.in/yaml/v3"},
		"./platform": {"parse", "rules", "shim", "gitstate", "cli"},
		"./gitstate": {"shim", "platform", "cli"},
		"./winargs":  {"parse", "rules", "shim", "platform", "gitstate", "cli"},
		// invocation reads an argv as a shell would: it knows the rules'
		// shells and nothing of judging, sandboxes or git.
		"./invocation": {"shim", "decide", "platform", "gitstate", "cli", "approval", "audit", "review"},
		// decide is the one decision point: the shim, the hooks, the
		// terminal judge and cordon check call it, never the other way.
		"./decide": {"shim", "cli", "installer", "termhook", "winpipe"},
		// stream and tamper read statements; they neither judge nor run them.
		"./stream": {"shim", "decide", "rules", "platform", "cli"},
		"./tamper": {"shim", "decide", "rules", "platform", "cli"},
		// printable is a leaf every message uses.
		"./internal/printable": {"parse", "rules", "platform"},
		"./winpath":            {"parse", "rules", "shim", "platform", "gitstate", "cli", "winargs"},
		".":                    {"net/rpc"},
	}
	// rules must not run anything itself: no direct use of os/exec.
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", "./rules", "./parse").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if imp == "os/exec" {
			t.Errorf("rules or parse imports os/exec")
		}
	}
	out, err = exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		// The e2e harness's mock model is a program of its own, never
		// linked into cordon (scripts/e2e).
		if len(f) == 0 || f[0] == "github.com/cordonsh/cordon/broker" || f[0] == "github.com/cordonsh/cordon/scripts/e2e/mockmodel" {
			continue
		}
		for _, imp := range f[1:] {
			if imp == "net/http" || imp == "crypto/tls" || strings.HasPrefix(imp, "net/http/") {
				t.Errorf("%s imports %s: only package broker may", f[0], imp)
			}
		}
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, dep := range deps {
			for _, b := range bad {
				if dep == b || dep == "github.com/cordonsh/cordon/"+b {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

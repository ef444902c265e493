package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps data flowing one way (DESIGN §2): parse knows nothing of
// rules or sandboxes, rules nothing of how to run anything, platform
// nothing of commands; and the binary links no HTTP or TLS stack (package
// net only, for the network allowlist's proxy and forwarder, which
// parse the little HTTP they need themselves).
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
		"./winpath":  {"parse", "rules", "shim", "platform", "gitstate", "cli", "winargs"},
		".":          {"net/http", "net/rpc", "crypto/tls"},
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

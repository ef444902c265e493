package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGenerated checks that rules/zbuiltin.go is what the YAML files
// generate today, and so that the shim runs the rules the YAML says.
func TestGenerated(t *testing.T) {
	want, err := generate(os.DirFS("../.."), "builtin")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../zbuiltin.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("rules/zbuiltin.go is out of date with rules/builtin/*.yaml: run go generate ./rules")
	}
}

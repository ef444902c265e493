// Package battery is the test battery of the whole cordon binary: each
// test runs cordon as an agent would (under a shell's name, as cordon
// agent, through a hook) on every sandbox backend the machine has, and
// tries for real what the sandbox, the guard, the snapshots and the
// judge claim. It has no code of its own outside its tests; the harness
// they share is in main_test.go (TestMain registers the binary's names,
// and testdata/script holds the testscript files).
package battery

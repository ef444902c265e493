//go:build !race

package rules

// RaceDetector: see race_on_test.go.
const RaceDetector = false

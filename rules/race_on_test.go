//go:build race

package rules

// RaceDetector: the tests run under the race detector, which makes code
// five to twenty times slower; a test that measures time says nothing
// there. (Exported for the rules_test package's tests.)
const RaceDetector = true

// Package rules judges the commands found by package parse against YAML
// rule files: command knowledge (which arguments of a tool are targets and
// which flags make it destructive) and policy (which effect on which kind
// of target gets which verdict, with which message).
//
// The built-in rules are embedded in the binary. Go code here knows effects,
// path classes and matching; it never knows a command by name.
package rules

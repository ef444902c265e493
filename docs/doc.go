// Package docs holds cordon's reference documentation and the tests that
// keep it true: every rule file in rules.md loads, the commands it says
// are judged a certain way are judged that way, and rules.schema.json
// describes exactly the keys package rules decodes.
package docs

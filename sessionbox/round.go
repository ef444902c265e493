package sessionbox

import "github.com/cordonsh/cordon/snapshot"

// A Round is what the continuous guard's round after a command needs
// (see shim.SnapshotMain): the shim sends it with the command.
type Round struct {
	Workspace string   `json:"ws"`
	Snapshot  string   `json:"snapshot,omitempty"` // the command's snapshot (saved before it), or ""
	Dir       string   `json:"dir"`
	Command   string   `json:"command"`
	Start     int64    `json:"start"` // the command's start, Unix nanoseconds
	Env       []string `json:"env"`   // the shim's environment, which the saver reads its settings with
	// Budgets are the snapshot store's (the settings'), for what the
	// manager keeps itself before the command (see keepChanged).
	Budgets snapshot.Budgets `json:"budgets"`
}

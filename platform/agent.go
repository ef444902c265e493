package platform

// An AgentSetup is what cordon agent lays out in the mount namespace of
// the program it runs (Linux only, see [RunAgent]).
type AgentSetup struct {
	// Shells are the names of the shells cordon stands in for; Dir is
	// where the real ones are mounted (made when missing).
	Shells []string
	Dir    string
	// ReadOnly are paths the program sees read-only: the auto-run places
	// of the workspace it starts in, as a sandbox sees them
	// ([Policy.ReadOnly]), so that its own file tools cannot write them
	// either. Pins are the directories between the workspace and them,
	// made mount points that cannot be renamed away ([Policy.Pins]).
	ReadOnly, Pins []string
}

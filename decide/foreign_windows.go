package decide

// stateReadOnly is false: [Sandboxed] finds no other sandbox on Windows,
// so nothing asks.
func stateReadOnly(string) bool { return false }

// privateDir is false on Windows (see stateReadOnly).
func privateDir(string) bool { return false }

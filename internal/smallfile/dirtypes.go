package smallfile

// A Type is what [ReadDirTypes] says an entry is.
type Type int

// The types of entries.
const (
	Other  Type = iota // a file, a link, a device, or one that vanished
	Dir                // a directory (not a link to one)
	Socket             // a Unix socket
)

package platform

// ReadOwnFile reads a file of cordon's state directory the way its
// caches are read: a regular file (not followed through a link) of the
// effective user's, that no one else can read or write, of at most max
// bytes. Outside Linux none is read.
func ReadOwnFile(file string, max int64) ([]byte, bool) { return readOwnFile(file, max) }

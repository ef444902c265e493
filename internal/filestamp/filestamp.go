// Package filestamp tells whether a file is still the one that was read,
// by its metadata alone: its device, inode, size, modification and
// change times. No process without privileges can set a change time
// back (a write, a chmod, a rename over the file all move it on; git's
// index has long relied on as much), so the same stamp later means the
// same content, and the content need not be read again.
//
// A file changed within [Margin] of the moment its stamp is taken gets
// none: a second change in the same tick of the file system's clock
// (2 s on FAT, the kernel's coarse clock elsewhere) could leave its times
// as they were.
package filestamp

import "time"

// Margin is how long ago a file's last change must be for it to get a
// stamp.
const Margin = 3 * time.Second

// fresh reports whether a change at mtime or ctime is too recent at now
// for a stamp.
func fresh(mtime, ctime, now time.Time) bool {
	return now.Sub(ctime) < Margin || now.Sub(mtime) < Margin
}

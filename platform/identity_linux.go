package platform

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Identity names the file at path (links followed) for as long as it
// exists, and differs for a file made again under the same name: its
// device, inode number and birth time. The inode number alone is not
// enough: a file system gives a freed inode number to the next file made,
// so rm -rf app && mkdir app usually keeps it. Where the file system
// records no birth time, the identity is the device and inode number
// alone (and says so: "nobirth"). "" when path cannot be read.
func Identity(path string) string {
	var st unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, path, unix.AT_STATX_SYNC_AS_STAT, unix.STATX_INO|unix.STATX_BTIME, &st) != nil {
		return ""
	}
	dev := unix.Mkdev(st.Dev_major, st.Dev_minor)
	if st.Mask&unix.STATX_BTIME == 0 {
		return fmt.Sprintf("%d %d nobirth", dev, st.Ino)
	}
	return fmt.Sprintf("%d %d %d.%09d", dev, st.Ino, st.Btime.Sec, st.Btime.Nsec)
}

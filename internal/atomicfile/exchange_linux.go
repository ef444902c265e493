package atomicfile

import "golang.org/x/sys/unix"

// exchange swaps the files at names a and b (renameat2 with
// RENAME_EXCHANGE); an error when either is missing or the file system
// cannot (then nothing changed).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

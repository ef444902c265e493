package platform

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// What a sandboxed command may not get from its caller as it is.
//
// A descriptor keeps the mount it was opened on: the host's, not the
// sandbox's read-only view of the same place. Under bwrap a directory's
// descriptor (even one opened read-only) or an O_PATH one lets a command
// create and write files anywhere below it (openat(fd, "x", O_CREAT), or
// /proc/self/fd/N/x) and read what the sandbox lays masks over; a
// regular file's, opened read-only, can be reopened for writing through
// /proc/self/fd/N. Landlock checks each open by the path the descriptor
// stands for, and refused all of it in the battery's attack
// (TestAttackInheritedHostDescriptors); directories and O_PATH
// descriptors are kept from it all the same: a hidden path inside a
// writable directory is covered by a mount of its own mount namespace
// (see [MayHole]), which a descriptor from the host's namespace goes
// around.
//
// Such a descriptor is replaced at its own number by /dev/null opened
// read-only (nothing to read, no write), said on stderr, so that the
// numbering stays what the caller made it (a closed 0, 1 or 2 would be
// the number of the command's next open file, and a command that
// expects its descriptor open gets no EBADF).
//
// A regular file passes as it is, pipes, sockets, terminals and other
// character devices too. Under bwrap a file opened read-only outside
// the places the sandbox lets a command write can be reopened for
// writing through /proc/self/fd/N (the magic link resolves on the host's
// mount): what the caller's shell gave the command (cmd < file) stays
// seekable and at its offset, as the real shell's, and such a file is
// the caller's choice to pass. A version that fed such a file through a
// pipe instead shared the caller's offset with the copy, so a command
// started again after a failed start read nothing; it was left out (see
// docs/security.md, "Open").

// fdVerdict is what becomes of an inherited descriptor.
type fdVerdict int

const (
	fdPass fdVerdict = iota // as it is
	fdNull                  // /dev/null, read-only
)

// screenFD says what becomes of descriptor fd, inherited by a
// sandboxed command, and why says what it is, for a note.
func screenFD(fd int) (v fdVerdict, why string) {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fdPass, ""
	}
	if fl&unix.O_PATH != 0 {
		return fdNull, "an O_PATH descriptor"
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return fdNull, "a directory"
	}
	return fdPass, ""
}

// UnsafeFD reports whether descriptor fd is one no sandboxed command may
// get, whatever its policy: a directory or an O_PATH descriptor.
func UnsafeFD(fd int) bool {
	v, _ := screenFD(fd)
	return v == fdNull
}

// ScreenInherited replaces, at their own numbers in this process, the
// descriptors not marked close-on-exec that must not reach a sandboxed
// command as they are (see the top of this file). Each replaced one is
// said on stderr (when stderr is not itself among them).
func ScreenInherited() {
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	var notes []string
	quiet := false
	for _, d := range des {
		fd, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue
		}
		v, why := screenFD(fd)
		if v == fdPass {
			continue
		}
		if nullAt(fd) != nil {
			// Never as it is: closed, at worst.
			unix.Close(fd)
			why += ", closed"
		}
		if fd == 2 {
			quiet = true
		}
		notes = append(notes, fmt.Sprintf("cordon: descriptor %d (%s) reaches the sandboxed command as /dev/null\n", fd, why))
	}
	if !quiet {
		for _, n := range notes {
			os.Stderr.WriteString(n)
		}
	}
}

// nullAt puts /dev/null, opened read-only, at fd.
func nullAt(fd int) error {
	null, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	// (dup2 clears close-on-exec on fd.)
	err = unix.Dup2(null, fd)
	unix.Close(null)
	return err
}

// screenStdin is stdin, or /dev/null in its place when it is a
// descriptor [ScreenInherited] did not see (marked close-on-exec) that
// no sandboxed command may get.
func screenStdin(stdin *os.File) *os.File {
	if stdin == nil {
		return nil
	}
	fd := int(stdin.Fd())
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		return stdin // (done, at its own number)
	}
	if v, _ := screenFD(fd); v == fdPass {
		return stdin
	}
	null, _ := os.Open(os.DevNull) // never as it is
	return null
}

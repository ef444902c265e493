package platform

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// The standard error trampoline: a program of a few dozen instructions
// that bwrap runs in the sandbox instead of the command, for a one-shot
// command (see [bwrapBackend.start]). bwrap's own standard error is then
// a pipe of cordon's, so that what bwrap prints when it fails to set up
// a sandbox (a directory in /tmp removed meanwhile), after which cordon
// starts it again, is not on the command's standard error; the caller's
// standard error reaches the command through descriptor K.
//
// Run as [path, K, program, argv...], it does dup2(K, 2) and close(K),
// then execve(program, argv, envp): argv[0] is kept exactly as given,
// which bwrap before 0.9 cannot do. When any of these fails it writes
// "cordon: PROGRAM: not found" (ENOENT, exit 127) or "cordon: PROGRAM:
// cannot execute" (exit 126) to its standard error. The assembly is in
// testdata/trampoline/ARCH.s, which TestTrampolineAssembles assembles
// and compares with the bytes here.

// trampolineAMD64 is the trampoline's code for linux/amd64.
var trampolineAMD64 = []byte{
	// _start:
	0x48, 0x8b, 0x74, 0x24, 0x10, // mov rsi, [rsp+16]  ; argv[1]: K, in decimal
	0x31, 0xff, // xor edi, edi  ; K = 0
	// digit:
	0x0f, 0xb6, 0x06, // movzx eax, byte ptr [rsi]  ; c = *s
	0x83, 0xe8, 0x30, // sub eax, 48  ; c - '0'
	0x83, 0xf8, 0x09, // cmp eax, 9
	0x77, 0x0a, // ja parsed  ; not a digit (the NUL): done
	0x6b, 0xff, 0x0a, // imul edi, edi, 10  ; K = K*10 + c-'0'
	0x01, 0xc7, // add edi, eax
	0x48, 0xff, 0xc6, // inc rsi  ; s++
	0xeb, 0xeb, // jmp digit
	// parsed:
	0x89, 0xfb, // mov ebx, edi  ; keep K
	0xbe, 0x02, 0x00, 0x00, 0x00, // mov esi, 2
	0xb8, 0x21, 0x00, 0x00, 0x00, // mov eax, 33  ; dup2(K, 2)
	0x0f, 0x05, // syscall
	0x48, 0x85, 0xc0, // test rax, rax
	0x78, 0x23, // js fail
	0x89, 0xdf, // mov edi, ebx
	0xb8, 0x03, 0x00, 0x00, 0x00, // mov eax, 3  ; close(K)
	0x0f, 0x05, // syscall
	0x48, 0x8b, 0x7c, 0x24, 0x18, // mov rdi, [rsp+24]  ; argv[2]: the program's path
	0x48, 0x8d, 0x74, 0x24, 0x20, // lea rsi, [rsp+32]  ; &argv[3]: its argv
	0x48, 0x8b, 0x0c, 0x24, // mov rcx, [rsp]  ; argc
	0x48, 0x8d, 0x54, 0xcc, 0x10, // lea rdx, [rsp+rcx*8+16]  ; envp: past argv's NULL
	0xb8, 0x3b, 0x00, 0x00, 0x00, // mov eax, 59  ; execve(path, argv, envp)
	0x0f, 0x05, // syscall
	// fail:
	0x48, 0x89, 0xc3, // mov rbx, rax  ; -errno
	0x48, 0x8d, 0x35, 0x66, 0x00, 0x00, 0x00, // lea rsi, [rip+prefix]
	0xba, 0x08, 0x00, 0x00, 0x00, // mov edx, 8
	0xe8, 0x4f, 0x00, 0x00, 0x00, // call say  ; "cordon: "
	0x48, 0x8b, 0x74, 0x24, 0x18, // mov rsi, [rsp+24]  ; the program's path
	0x31, 0xd2, // xor edx, edx  ; its length
	// length:
	0x80, 0x3c, 0x16, 0x00, // cmp byte ptr [rsi+rdx], 0
	0x74, 0x04, // je counted
	0xff, 0xc2, // inc edx
	0xeb, 0xf6, // jmp length
	// counted:
	0xe8, 0x39, 0x00, 0x00, 0x00, // call say  ; the path
	0x48, 0x8d, 0x35, 0x47, 0x00, 0x00, 0x00, // lea rsi, [rip+notfound]
	0xba, 0x0c, 0x00, 0x00, 0x00, // mov edx, 12
	0x41, 0xbc, 0x7f, 0x00, 0x00, 0x00, // mov r12d, 127
	0x48, 0x83, 0xfb, 0xfe, // cmp rbx, -2  ; ENOENT
	0x74, 0x12, // je last
	0x48, 0x8d, 0x35, 0x3b, 0x00, 0x00, 0x00, // lea rsi, [rip+cannot]
	0xba, 0x11, 0x00, 0x00, 0x00, // mov edx, 17
	0x41, 0xbc, 0x7e, 0x00, 0x00, 0x00, // mov r12d, 126
	// last:
	0xe8, 0x0a, 0x00, 0x00, 0x00, // call say  ; why
	0x44, 0x89, 0xe7, // mov edi, r12d
	0xb8, 0xe7, 0x00, 0x00, 0x00, // mov eax, 231  ; exit_group(127 or 126)
	0x0f, 0x05, // syscall
	// say:
	0xbf, 0x02, 0x00, 0x00, 0x00, // mov edi, 2
	0xb8, 0x01, 0x00, 0x00, 0x00, // mov eax, 1  ; write(2, rsi, rdx)
	0x0f, 0x05, // syscall
	0xc3, // ret
	// prefix:
	0x63, 0x6f, 0x72, 0x64, 0x6f, 0x6e, 0x3a, 0x20, // .ascii "cordon: "
	// notfound:
	0x3a, 0x20, 0x6e, 0x6f, 0x74, 0x20, 0x66, 0x6f, 0x75, 0x6e, 0x64, 0x0a, // .ascii ": not found\n"
	// cannot:
	0x3a, 0x20, 0x63, 0x61, 0x6e, 0x6e, 0x6f, 0x74, 0x20, 0x65, 0x78, 0x65, 0x63, 0x75, 0x74, 0x65, 0x0a, // .ascii ": cannot execute\n"
}

// trampolineARM64 is the trampoline's code for linux/arm64.
var trampolineARM64 = []byte{
	// _start:
	0xe1, 0x0b, 0x40, 0xf9, // ldr x1, [sp, #16]  ; argv[1]: K, in decimal
	0x00, 0x00, 0x80, 0xd2, // mov x0, #0  ; K = 0
	0x43, 0x01, 0x80, 0xd2, // mov x3, #10
	// digit:
	0x22, 0x14, 0x40, 0x38, // ldrb w2, [x1], #1  ; c = *s++
	0x42, 0xc0, 0x00, 0x51, // sub w2, w2, #48  ; c - '0'
	0x5f, 0x24, 0x00, 0x71, // cmp w2, #9
	0x68, 0x00, 0x00, 0x54, // b.hi parsed  ; not a digit (the NUL): done
	0x00, 0x08, 0x03, 0x9b, // madd x0, x0, x3, x2  ; K = K*10 + c-'0'
	0xfb, 0xff, 0xff, 0x17, // b digit
	// parsed:
	0xf3, 0x03, 0x00, 0xaa, // mov x19, x0  ; keep K
	0x41, 0x00, 0x80, 0xd2, // mov x1, #2
	0x02, 0x00, 0x80, 0xd2, // mov x2, #0
	0x08, 0x03, 0x80, 0xd2, // mov x8, #24  ; dup3(K, 2, 0)
	0x01, 0x00, 0x00, 0xd4, // svc #0
	0x60, 0x01, 0xf8, 0xb7, // tbnz x0, #63, fail
	0xe0, 0x03, 0x13, 0xaa, // mov x0, x19
	0x28, 0x07, 0x80, 0xd2, // mov x8, #57  ; close(K)
	0x01, 0x00, 0x00, 0xd4, // svc #0
	0xe0, 0x0f, 0x40, 0xf9, // ldr x0, [sp, #24]  ; argv[2]: the program's path
	0xe1, 0x83, 0x00, 0x91, // add x1, sp, #32  ; &argv[3]: its argv
	0xe2, 0x03, 0x40, 0xf9, // ldr x2, [sp]  ; argc
	0xe2, 0x6f, 0x22, 0x8b, // add x2, sp, x2, lsl #3
	0x42, 0x40, 0x00, 0x91, // add x2, x2, #16  ; envp: past argv's NULL
	0xa8, 0x1b, 0x80, 0xd2, // mov x8, #221  ; execve(path, argv, envp)
	0x01, 0x00, 0x00, 0xd4, // svc #0
	// fail:
	0xf4, 0x03, 0x00, 0xaa, // mov x20, x0  ; -errno
	0x41, 0x03, 0x00, 0x10, // adr x1, prefix
	0x02, 0x01, 0x80, 0xd2, // mov x2, #8
	0x14, 0x00, 0x00, 0x94, // bl say  ; "cordon: "
	0xe1, 0x0f, 0x40, 0xf9, // ldr x1, [sp, #24]  ; the program's path
	0x02, 0x00, 0x80, 0xd2, // mov x2, #0  ; its length
	// length:
	0x23, 0x68, 0x62, 0x38, // ldrb w3, [x1, x2]
	0x63, 0x00, 0x00, 0x34, // cbz w3, counted
	0x42, 0x04, 0x00, 0x91, // add x2, x2, #1
	0xfd, 0xff, 0xff, 0x17, // b length
	// counted:
	0x0d, 0x00, 0x00, 0x94, // bl say  ; the path
	0x41, 0x02, 0x00, 0x10, // adr x1, notfound
	0x82, 0x01, 0x80, 0xd2, // mov x2, #12
	0xf5, 0x0f, 0x80, 0xd2, // mov x21, #127
	0x9f, 0x0a, 0x00, 0xb1, // cmn x20, #2  ; ENOENT
	0x80, 0x00, 0x00, 0x54, // b.eq last
	0x01, 0x02, 0x00, 0x10, // adr x1, cannot
	0x22, 0x02, 0x80, 0xd2, // mov x2, #17
	0xd5, 0x0f, 0x80, 0xd2, // mov x21, #126
	// last:
	0x04, 0x00, 0x00, 0x94, // bl say  ; why
	0xe0, 0x03, 0x15, 0xaa, // mov x0, x21
	0xc8, 0x0b, 0x80, 0xd2, // mov x8, #94  ; exit_group(127 or 126)
	0x01, 0x00, 0x00, 0xd4, // svc #0
	// say:
	0x40, 0x00, 0x80, 0xd2, // mov x0, #2
	0x08, 0x08, 0x80, 0xd2, // mov x8, #64  ; write(2, x1, x2)
	0x01, 0x00, 0x00, 0xd4, // svc #0
	0xc0, 0x03, 0x5f, 0xd6, // ret
	// prefix:
	0x63, 0x6f, 0x72, 0x64, 0x6f, 0x6e, 0x3a, 0x20, // .ascii "cordon: "
	// notfound:
	0x3a, 0x20, 0x6e, 0x6f, 0x74, 0x20, 0x66, 0x6f, 0x75, 0x6e, 0x64, 0x0a, // .ascii ": not found\n"
	// cannot:
	0x3a, 0x20, 0x63, 0x61, 0x6e, 0x6e, 0x6f, 0x74, 0x20, 0x65, 0x78, 0x65, 0x63, 0x75, 0x74, 0x65, 0x0a, // .ascii ": cannot execute\n"
}

// trampolineCode is the trampoline's code for goarch, and its ELF
// machine; nil for an architecture without one.
func trampolineCode(goarch string) (code []byte, machine uint16) {
	switch goarch {
	case "amd64":
		return trampolineAMD64, 62 // EM_X86_64
	case "arm64":
		return trampolineARM64, 183 // EM_AARCH64
	}
	return nil, 0
}

// trampolineELF is the trampoline for goarch as a static ELF executable:
// the file header, two program headers (the one segment, which is the
// whole file, and a stack that is not executable), then the code. nil
// for an architecture without one.
func trampolineELF(goarch string) []byte {
	code, machine := trampolineCode(goarch)
	if code == nil {
		return nil
	}
	const (
		base   = 0x400000 // where the file is mapped
		ehsize = 64       // the file header's size
		phsize = 56       // a program header's size
		phnum  = 2
		entry  = base + ehsize + phnum*phsize // the code follows the headers
	)
	size := uint64(ehsize + phnum*phsize + len(code))
	var b bytes.Buffer
	le := binary.LittleEndian
	u16 := func(v uint16) { b.Write(le.AppendUint16(nil, v)) }
	u32 := func(v uint32) { b.Write(le.AppendUint32(nil, v)) }
	u64 := func(v uint64) { b.Write(le.AppendUint64(nil, v)) }
	// The file header (Elf64_Ehdr).
	b.WriteString("\x7fELF")    // e_ident: magic
	b.Write([]byte{2, 1, 1, 0}) // ELFCLASS64, ELFDATA2LSB, EV_CURRENT, ELFOSABI_NONE
	b.Write(make([]byte, 8))    // ABI version, padding
	u16(2)                      // e_type: ET_EXEC
	u16(machine)                // e_machine
	u32(1)                      // e_version: EV_CURRENT
	u64(entry)                  // e_entry
	u64(ehsize)                 // e_phoff: the program headers follow
	u64(0)                      // e_shoff: no section headers
	u32(0)                      // e_flags
	u16(ehsize)                 // e_ehsize
	u16(phsize)                 // e_phentsize
	u16(phnum)                  // e_phnum
	u16(0)                      // e_shentsize
	u16(0)                      // e_shnum
	u16(0)                      // e_shstrndx
	// The one segment (Elf64_Phdr): the whole file, readable and
	// executable.
	u32(1)      // p_type: PT_LOAD
	u32(5)      // p_flags: PF_R|PF_X
	u64(0)      // p_offset
	u64(base)   // p_vaddr
	u64(base)   // p_paddr
	u64(size)   // p_filesz
	u64(size)   // p_memsz
	u64(0x1000) // p_align
	// The stack: readable and writable, not executable (without this
	// header the kernel may make it, and the program's, executable).
	u32(0x6474e551) // p_type: PT_GNU_STACK
	u32(6)          // p_flags: PF_R|PF_W
	u64(0)          // p_offset
	u64(0)          // p_vaddr
	u64(0)          // p_paddr
	u64(0)          // p_filesz
	u64(0)          // p_memsz
	u64(16)         // p_align
	b.Write(code)
	return b.Bytes()
}

// trampolineName is the trampoline's file name in the state directory.
const trampolineName = "cordon-stderr"

// trampoline returns the path of the trampoline for this process's
// architecture in stateDir (in the directory of [RoleLink]'s links,
// read-only in every sandbox), written there when missing or not the
// same, and executable; "" when it cannot be had: no state directory,
// an architecture without one, a file system that executes nothing
// (noexec), or any error. Then a command is run as before.
func trampoline(stateDir string) string {
	if !filepath.IsAbs(stateDir) {
		return ""
	}
	want := trampolineELF(runtime.GOARCH)
	if want == nil {
		return ""
	}
	dir := filepath.Join(stateDir, "keeper")
	p := filepath.Join(dir, trampolineName+"-"+runtime.GOARCH)
	if !holdsExactly(p, want) {
		if os.MkdirAll(dir, 0o700) != nil {
			return ""
		}
		tmp, err := os.CreateTemp(dir, trampolineName+".*")
		if err != nil {
			return ""
		}
		_, err = tmp.Write(want)
		if err == nil {
			err = tmp.Chmod(0o555)
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), p)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return ""
		}
		if !holdsExactly(p, want) {
			return ""
		}
	}
	// access(2) refuses X_OK on a file system mounted noexec.
	if unix.Access(p, unix.X_OK) != nil {
		return ""
	}
	return p
}

// holdsExactly reports whether path is a regular file (not a link) that
// holds exactly want.
func holdsExactly(path string, want []byte) bool {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != int64(len(want)) {
		return false
	}
	got := make([]byte, len(want)+1)
	n, _ := unix.Read(fd, got)
	return n == len(want) && bytes.Equal(got[:n], want)
}

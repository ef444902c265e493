// cordon's standard error trampoline for linux/arm64: see
// platform/trampoline_linux.go, which holds these instructions' bytes.
// Run as [path, K, program, argv...]: makes descriptor K its standard
// error, closes K, and executes program with argv and its environment;
// on failure writes "cordon: PROGRAM: ..." to standard error and exits
// 127 (not found) or 126.
	.text
	.globl _start
_start:
	ldr x1, [sp, #16]             // argv[1]: K, in decimal
	mov x0, #0                    // K = 0
	mov x3, #10
digit:
	ldrb w2, [x1], #1             // c = *s++
	sub w2, w2, #48               // c - '0'
	cmp w2, #9
	b.hi parsed                   // not a digit (the NUL): done
	madd x0, x0, x3, x2           // K = K*10 + c-'0'
	b digit
parsed:
	mov x19, x0                   // keep K
	mov x1, #2
	mov x2, #0
	mov x8, #24                   // dup3(K, 2, 0)
	svc #0
	tbnz x0, #63, fail
	mov x0, x19
	mov x8, #57                   // close(K)
	svc #0
	ldr x0, [sp, #24]             // argv[2]: the program's path
	add x1, sp, #32               // &argv[3]: its argv
	ldr x2, [sp]                  // argc
	add x2, sp, x2, lsl #3
	add x2, x2, #16               // envp: past argv's NULL
	mov x8, #221                  // execve(path, argv, envp)
	svc #0
fail:
	mov x20, x0                   // -errno
	adr x1, prefix
	mov x2, #8
	bl say                        // "cordon: "
	ldr x1, [sp, #24]             // the program's path
	mov x2, #0                    // its length
length:
	ldrb w3, [x1, x2]
	cbz w3, counted
	add x2, x2, #1
	b length
counted:
	bl say                        // the path
	adr x1, notfound
	mov x2, #12
	mov x21, #127
	cmn x20, #2                   // ENOENT
	b.eq last
	adr x1, cannot
	mov x2, #17
	mov x21, #126
last:
	bl say                        // why
	mov x0, x21
	mov x8, #94                   // exit_group(127 or 126)
	svc #0
say:
	mov x0, #2
	mov x8, #64                   // write(2, x1, x2)
	svc #0
	ret
prefix:
	.ascii "cordon: "
notfound:
	.ascii ": not found\n"
cannot:
	.ascii ": cannot execute\n"

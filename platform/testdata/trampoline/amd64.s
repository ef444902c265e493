# cordon's standard error trampoline for linux/amd64: see
# platform/trampoline_linux.go, which holds these instructions' bytes.
# Run as [path, K, program, argv...]: makes descriptor K its standard
# error, closes K, and executes program with argv and its environment;
# on failure writes "cordon: PROGRAM: ..." to standard error and exits
# 127 (not found) or 126.
	.intel_syntax noprefix
	.text
	.globl _start
_start:
	mov rsi, [rsp+16]             # argv[1]: K, in decimal
	xor edi, edi                  # K = 0
digit:
	movzx eax, byte ptr [rsi]     # c = *s
	sub eax, 48                   # c - '0'
	cmp eax, 9
	ja parsed                     # not a digit (the NUL): done
	imul edi, edi, 10             # K = K*10 + c-'0'
	add edi, eax
	inc rsi                       # s++
	jmp digit
parsed:
	mov ebx, edi                  # keep K
	mov esi, 2
	mov eax, 33                   # dup2(K, 2)
	syscall
	test rax, rax
	js fail
	mov edi, ebx
	mov eax, 3                    # close(K)
	syscall
	mov rdi, [rsp+24]             # argv[2]: the program's path
	lea rsi, [rsp+32]             # &argv[3]: its argv
	mov rcx, [rsp]                # argc
	lea rdx, [rsp+rcx*8+16]       # envp: past argv's NULL
	mov eax, 59                   # execve(path, argv, envp)
	syscall
fail:
	mov rbx, rax                  # -errno
	lea rsi, [rip+prefix]
	mov edx, 8
	call say                      # "cordon: "
	mov rsi, [rsp+24]             # the program's path
	xor edx, edx                  # its length
length:
	cmp byte ptr [rsi+rdx], 0
	je counted
	inc edx
	jmp length
counted:
	call say                      # the path
	lea rsi, [rip+notfound]
	mov edx, 12
	mov r12d, 127
	cmp rbx, -2                   # ENOENT
	je last
	lea rsi, [rip+cannot]
	mov edx, 17
	mov r12d, 126
last:
	call say                      # why
	mov edi, r12d
	mov eax, 231                  # exit_group(127 or 126)
	syscall
say:
	mov edi, 2
	mov eax, 1                    # write(2, rsi, rdx)
	syscall
	ret
prefix:
	.ascii "cordon: "
notfound:
	.ascii ": not found\n"
cannot:
	.ascii ": cannot execute\n"

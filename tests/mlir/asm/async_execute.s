	.file	"LLVMDialectModule"
	.text
	.globl	main                            # -- Begin function main
	.p2align	4
	.type	main,@function
main:                                   # @main
	.cfi_startproc
# %bb.0:
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	subq	$120, %rsp
	.cfi_def_cfa_offset 176
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movl	$8, %edi
	callq	malloc@PLT
	movq	%rax, 80(%rsp)
	movq	%rax, 88(%rsp)
	movq	%rax, %r12
	movq	$0, 96(%rsp)
	movq	$2, 104(%rsp)
	movq	$1, 112(%rsp)
	leaq	80(%rsp), %rsi
	movl	$1, %edi
	movl	$4, %edx
	callq	mgpuMemHostRegisterMemRef@PLT
	movabsq	$180388626474, %rax             # imm = 0x2A0000002A
	movq	%rax, (%r12)
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %r13
	movl	$40, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r15
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %rbx
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r14
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movl	$8, %edi
	movl	$96, %esi
	callq	aligned_alloc@PLT
	leaq	async_execute_fn.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%r14, 80(%rax)
	movq	%rbx, 72(%rax)
	movq	%r15, 64(%rax)
	movq	%r13, 56(%rax)
	movq	%r12, 72(%rsp)                  # 8-byte Spill
	movq	%r12, 16(%rax)
	movq	%r12, 24(%rax)
	movq	$0, 32(%rax)
	movq	$2, 40(%rax)
	movq	$1, 48(%rax)
	movb	$0, 88(%rax)
	movq	__resume@GOTPCREL(%rip), %rsi
	movq	%rax, %rdi
	callq	mlirAsyncRuntimeExecute@PLT
	movl	$1, %esi
	movq	%r13, %rdi
	movq	%r13, %r14
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	%rbx, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %r12
	movq	%rax, 16(%rsp)                  # 8-byte Spill
	movl	$40, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r13
	movq	%rax, 56(%rsp)                  # 8-byte Spill
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %rbp
	movq	%rax, 64(%rsp)                  # 8-byte Spill
	movl	$8, %edi
	movl	$88, %esi
	callq	aligned_alloc@PLT
	leaq	async_execute_fn_0.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn_0.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%rbp, 56(%rax)
	movq	%r13, 48(%rax)
	movq	%r12, 40(%rax)
	movq	%rbx, 32(%rax)
	movq	%r15, 24(%rax)
	movq	%r14, 16(%rax)
	movb	$0, 80(%rax)
	movq	%rax, %rdi
	movq	__resume@GOTPCREL(%rip), %rsi
	callq	mlirAsyncRuntimeExecute@PLT
	movl	$1, %esi
	movq	%rbx, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r14, %rdi
	movq	%r14, %rbp
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	8(%rsp), %r14                   # 8-byte Reload
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %r13
	movl	$40, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r12
	movq	%rax, 40(%rsp)                  # 8-byte Spill
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %rbx
	movq	%rax, 48(%rsp)                  # 8-byte Spill
	movl	$8, %edi
	movl	$88, %esi
	callq	aligned_alloc@PLT
	leaq	async_execute_fn_1.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn_1.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%rbx, 56(%rax)
	movq	%r12, 48(%rax)
	movq	%r13, 40(%rax)
	movq	%r13, 32(%rsp)                  # 8-byte Spill
	movq	%r14, 32(%rax)
	movq	%r15, 24(%rax)
	movq	%rbp, 16(%rax)
	movb	$0, 80(%rax)
	movq	%rax, %rdi
	movq	__resume@GOTPCREL(%rip), %rsi
	callq	mlirAsyncRuntimeExecute@PLT
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	16(%rsp), %rdi                  # 8-byte Reload
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	56(%rsp), %rbx                  # 8-byte Reload
	movq	%rbx, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	64(%rsp), %rbp                  # 8-byte Reload
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	40(%rsp), %r13                  # 8-byte Reload
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	movl	$1, %esi
	movq	48(%rsp), %r15                  # 8-byte Reload
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeAddRef@PLT
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %r12
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r14
	movl	$8, %edi
	movl	$456, %esi                      # imm = 0x1C8
	callq	aligned_alloc@PLT
	leaq	async_execute_fn_2.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn_2.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%r14, 24(%rsp)                  # 8-byte Spill
	movq	%r14, 352(%rax)
	movq	%r12, 344(%rax)
	movq	72(%rsp), %rcx                  # 8-byte Reload
	movq	%rcx, 256(%rax)
	movq	%rcx, 264(%rax)
	movq	$0, 272(%rax)
	movq	$2, 280(%rax)
	movq	$1, 288(%rax)
	movq	%r15, 336(%rax)
	movq	%r15, %r14
	movq	%rbp, 328(%rax)
	movq	%r13, 320(%rax)
	movq	%rbx, 312(%rax)
	movq	%rbx, %r15
	movq	32(%rsp), %rbx                  # 8-byte Reload
	movq	%rbx, 304(%rax)
	movq	16(%rsp), %r12                  # 8-byte Reload
	movq	%r12, 296(%rax)
	movb	$0, 448(%rax)
	movq	%rax, %rdi
	movq	__resume@GOTPCREL(%rip), %rsi
	callq	mlirAsyncRuntimeExecute@PLT
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%rbx, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movq	8(%rsp), %r14                   # 8-byte Reload
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeAwaitToken@PLT
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeIsTokenError@PLT
	movl	%eax, %ebx
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	testb	$1, %bl
	jne	.LBB0_3
# %bb.1:
	movq	24(%rsp), %r14                  # 8-byte Reload
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeAwaitValue@PLT
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	jne	.LBB0_4
# %bb.2:
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	(%rax), %rbx
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movq	%rbx, %rdi
	callq	mgpuEventSynchronize@PLT
	movq	%rbx, %rdi
	callq	mgpuEventDestroy@PLT
	leaq	80(%rsp), %rsi
	movl	$1, %edi
	callq	printMemrefI32@PLT
	xorl	%eax, %eax
	addq	$120, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	retq
.LBB0_3:
	.cfi_def_cfa_offset 176
	leaq	.Lassert_msg(%rip), %rdi
	callq	puts@PLT
	callq	abort@PLT
.LBB0_4:
	leaq	.Lassert_msg_0(%rip), %rdi
	callq	puts@PLT
	callq	abort@PLT
.Lfunc_end0:
	.size	main, .Lfunc_end0-main
	.cfi_endproc
                                        # -- End function
	.globl	async_execute_fn                # -- Begin function async_execute_fn
	.p2align	4
	.type	async_execute_fn,@function
async_execute_fn:                       # @async_execute_fn
	.cfi_startproc
# %bb.0:                                # %AfterCoroEnd
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	subq	$40, %rsp
	.cfi_def_cfa_offset 96
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%r9, 32(%rsp)                   # 8-byte Spill
	movq	%r8, 24(%rsp)                   # 8-byte Spill
	movq	%rcx, 16(%rsp)                  # 8-byte Spill
	movq	%rdx, 8(%rsp)                   # 8-byte Spill
	movq	%rsi, %r12
	movq	%rdi, %rbx
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %r14
	movl	$40, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %rbp
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r13
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r15
	movl	$8, %edi
	movl	$96, %esi
	callq	aligned_alloc@PLT
	leaq	async_execute_fn.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%r15, 80(%rax)
	movq	%r13, 72(%rax)
	movq	%rbp, 64(%rax)
	movq	%r14, 56(%rax)
	movq	%r12, 16(%rax)
	movq	8(%rsp), %rcx                   # 8-byte Reload
	movq	%rcx, 24(%rax)
	movq	16(%rsp), %rcx                  # 8-byte Reload
	movq	%rcx, 32(%rax)
	movq	24(%rsp), %rcx                  # 8-byte Reload
	movq	%rcx, 40(%rax)
	movq	32(%rsp), %rcx                  # 8-byte Reload
	movq	%rcx, 48(%rax)
	movb	$0, 88(%rax)
	movq	__resume@GOTPCREL(%rip), %rsi
	movq	%rax, %rdi
	callq	mlirAsyncRuntimeExecute@PLT
	movq	%r15, 24(%rbx)
	movq	%r13, 16(%rbx)
	movq	%rbp, 8(%rbx)
	movq	%r14, (%rbx)
	movq	%rbx, %rax
	addq	$40, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end1:
	.size	async_execute_fn, .Lfunc_end1-async_execute_fn
	.cfi_endproc
                                        # -- End function
	.globl	async_execute_fn_0              # -- Begin function async_execute_fn_0
	.p2align	4
	.type	async_execute_fn_0,@function
async_execute_fn_0:                     # @async_execute_fn_0
	.cfi_startproc
# %bb.0:                                # %AfterCoroEnd
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	pushq	%rax
	.cfi_def_cfa_offset 64
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%rdx, %r14
	movq	%rsi, %r15
	movq	%rdi, %r12
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %rbx
	movl	$40, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r13
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %rbp
	movl	$8, %edi
	movl	$88, %esi
	callq	aligned_alloc@PLT
	leaq	async_execute_fn_0.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn_0.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%rbp, 56(%rax)
	movq	%r13, 48(%rax)
	movq	%rbx, 40(%rax)
	movq	%r14, 32(%rax)
	movq	%r15, 24(%rax)
	movq	%r12, 16(%rax)
	movb	$0, 80(%rax)
	movq	__resume@GOTPCREL(%rip), %rsi
	movq	%rax, %rdi
	callq	mlirAsyncRuntimeExecute@PLT
	movq	%rbx, %rax
	movq	%r13, %rdx
	movq	%rbp, %rcx
	addq	$8, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end2:
	.size	async_execute_fn_0, .Lfunc_end2-async_execute_fn_0
	.cfi_endproc
                                        # -- End function
	.globl	async_execute_fn_1              # -- Begin function async_execute_fn_1
	.p2align	4
	.type	async_execute_fn_1,@function
async_execute_fn_1:                     # @async_execute_fn_1
	.cfi_startproc
# %bb.0:                                # %AfterCoroEnd
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	pushq	%rax
	.cfi_def_cfa_offset 64
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%rdx, %r14
	movq	%rsi, %r15
	movq	%rdi, %r12
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %rbx
	movl	$40, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r13
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %rbp
	movl	$8, %edi
	movl	$88, %esi
	callq	aligned_alloc@PLT
	leaq	async_execute_fn_1.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn_1.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%rbp, 56(%rax)
	movq	%r13, 48(%rax)
	movq	%rbx, 40(%rax)
	movq	%r14, 32(%rax)
	movq	%r15, 24(%rax)
	movq	%r12, 16(%rax)
	movb	$0, 80(%rax)
	movq	__resume@GOTPCREL(%rip), %rsi
	movq	%rax, %rdi
	callq	mlirAsyncRuntimeExecute@PLT
	movq	%rbx, %rax
	movq	%r13, %rdx
	movq	%rbp, %rcx
	addq	$8, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end3:
	.size	async_execute_fn_1, .Lfunc_end3-async_execute_fn_1
	.cfi_endproc
                                        # -- End function
	.globl	async_execute_fn_2              # -- Begin function async_execute_fn_2
	.p2align	4
	.type	async_execute_fn_2,@function
async_execute_fn_2:                     # @async_execute_fn_2
	.cfi_startproc
# %bb.0:                                # %AfterCoroEnd
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	subq	$24, %rsp
	.cfi_def_cfa_offset 80
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%r9, 8(%rsp)                    # 8-byte Spill
	movq	%r8, %rbp
	movq	%rcx, %r13
	movq	%rdx, %r12
	movq	%rsi, %r15
	movq	%rdi, 16(%rsp)                  # 8-byte Spill
	callq	mlirAsyncRuntimeCreateToken@PLT
	movq	%rax, %rbx
	movl	$8, %edi
	callq	mlirAsyncRuntimeCreateValue@PLT
	movq	%rax, %r14
	movl	$8, %edi
	movl	$456, %esi                      # imm = 0x1C8
	callq	aligned_alloc@PLT
	leaq	async_execute_fn_2.resume(%rip), %rcx
	movq	%rcx, (%rax)
	leaq	async_execute_fn_2.destroy(%rip), %rcx
	movq	%rcx, 8(%rax)
	movq	%r14, 352(%rax)
	movq	%rbx, 344(%rax)
	movaps	80(%rsp), %xmm0
	movups	%xmm0, 256(%rax)
	movaps	96(%rsp), %xmm0
	movups	%xmm0, 272(%rax)
	movq	112(%rsp), %rcx
	movq	%rcx, 288(%rax)
	movq	8(%rsp), %rcx                   # 8-byte Reload
	movq	%rcx, 336(%rax)
	movq	%rbp, 328(%rax)
	movq	%r13, 320(%rax)
	movq	%r12, 312(%rax)
	movq	%r15, 304(%rax)
	movq	16(%rsp), %rcx                  # 8-byte Reload
	movq	%rcx, 296(%rax)
	movb	$0, 448(%rax)
	movq	__resume@GOTPCREL(%rip), %rsi
	movq	%rax, %rdi
	callq	mlirAsyncRuntimeExecute@PLT
	movq	%rbx, %rax
	movq	%r14, %rdx
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end4:
	.size	async_execute_fn_2, .Lfunc_end4-async_execute_fn_2
	.cfi_endproc
                                        # -- End function
	.globl	__resume                        # -- Begin function __resume
	.p2align	4
	.type	__resume,@function
__resume:                               # @__resume
	.cfi_startproc
# %bb.0:
	jmpq	*(%rdi)                         # TAILCALL
.Lfunc_end5:
	.size	__resume, .Lfunc_end5-__resume
	.cfi_endproc
                                        # -- End function
	.section	.text.startup,"ax",@progbits
	.p2align	4                               # -- Begin function main_kernel_load
	.type	main_kernel_load,@function
main_kernel_load:                       # @main_kernel_load
	.cfi_startproc
# %bb.0:                                # %entry
	pushq	%rax
	.cfi_def_cfa_offset 16
	leaq	main_kernel_binary(%rip), %rdi
	movl	$2, %esi
	callq	mgpuModuleLoadJIT@PLT
	movq	%rax, main_kernel_module(%rip)
	popq	%rax
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end6:
	.size	main_kernel_load, .Lfunc_end6-main_kernel_load
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function main_kernel_unload
	.type	main_kernel_unload,@function
main_kernel_unload:                     # @main_kernel_unload
	.cfi_startproc
# %bb.0:                                # %entry
	movq	main_kernel_module(%rip), %rdi
	jmp	mgpuModuleUnload@PLT            # TAILCALL
.Lfunc_end7:
	.size	main_kernel_unload, .Lfunc_end7-main_kernel_unload
	.cfi_endproc
                                        # -- End function
	.text
	.p2align	4                               # -- Begin function async_execute_fn.resume
	.type	async_execute_fn.resume,@function
async_execute_fn.resume:                # @async_execute_fn.resume
	.cfi_startproc
# %bb.0:                                # %CoroEnd
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	subq	$24, %rsp
	.cfi_def_cfa_offset 80
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%rdi, %rbx
	movq	80(%rdi), %rax
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movq	72(%rdi), %rax
	movq	%rax, (%rsp)                    # 8-byte Spill
	movq	64(%rdi), %rbp
	movq	56(%rdi), %rax
	movq	%rax, 16(%rsp)                  # 8-byte Spill
	movq	24(%rdi), %r14
	movq	40(%rdi), %r15
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r13
	movl	$8, %edi
	movq	%rax, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r12
	shlq	$2, %r15
	movq	%rax, %rdi
	movq	%r14, %rsi
	movq	%r15, %rdx
	movq	%r13, %rcx
	callq	mgpuMemcpy@PLT
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r12, (%rax)
	movq	%r12, 8(%rax)
	movq	$0, 16(%rax)
	movq	$2, 24(%rax)
	movq	$1, 32(%rax)
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	(%rsp), %r14                    # 8-byte Reload
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r13, (%rax)
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	8(%rsp), %r14                   # 8-byte Reload
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r13, (%rax)
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	16(%rsp), %rdi                  # 8-byte Reload
	callq	mlirAsyncRuntimeEmplaceToken@PLT
	movq	%rbx, %rdi
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	free@PLT                        # TAILCALL
.Lfunc_end8:
	.size	async_execute_fn.resume, .Lfunc_end8-async_execute_fn.resume
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function async_execute_fn.destroy
	.type	async_execute_fn.destroy,@function
async_execute_fn.destroy:               # @async_execute_fn.destroy
# %bb.0:                                # %CoroEnd
	jmp	free@PLT                        # TAILCALL
.Lfunc_end9:
	.size	async_execute_fn.destroy, .Lfunc_end9-async_execute_fn.destroy
                                        # -- End function
	.p2align	4                               # -- Begin function async_execute_fn_0.resume
	.type	async_execute_fn_0.resume,@function
async_execute_fn_0.resume:              # @async_execute_fn_0.resume
	.cfi_startproc
# %bb.0:                                # %resume.entry
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	subq	$24, %rsp
	.cfi_def_cfa_offset 80
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%rdi, %rbx
	movzbl	80(%rdi), %eax
	leaq	.LJTI10_0(%rip), %rcx
	movslq	(%rcx,%rax,4), %rax
	addq	%rcx, %rax
	jmpq	*%rax
.LBB10_1:                               # %AfterCoroSuspend27.thread
	movb	$1, 80(%rbx)
	movq	16(%rbx), %rdi
	movq	__resume@GOTPCREL(%rip), %rdx
	movq	%rbx, %rsi
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	mlirAsyncRuntimeAwaitTokenAndExecute@PLT # TAILCALL
.LBB10_5:                               # %AfterCoroSuspend31
	.cfi_def_cfa_offset 80
	movq	24(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	jne	.LBB10_10
# %bb.6:                                # %AfterCoroSuspend35.thread
	movq	24(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	8(%rax), %rcx
	movq	%rcx, 64(%rbx)
	movq	24(%rax), %rax
	movq	%rax, 72(%rbx)
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movb	$3, 80(%rbx)
	movq	32(%rbx), %rdi
	jmp	.LBB10_4
.LBB10_7:                               # %AfterCoroSuspend35
	movq	32(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	je	.LBB10_9
# %bb.8:                                # %.from.
	leaq	32(%rbx), %rdx
	leaq	56(%rbx), %rax
	leaq	48(%rbx), %rcx
	leaq	40(%rbx), %rsi
	jmp	.LBB10_11
.LBB10_2:                               # %AfterCoroSuspend27
	movq	16(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeIsTokenError@PLT
	movl	%eax, %ebp
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	testb	$1, %bpl
	je	.LBB10_3
.LBB10_10:                              # %.from..sink.split23
	movq	56(%rbx), %rdi
	movl	$1, %esi
	callq	mlirAsyncRuntimeDropRef@PLT
	leaq	48(%rbx), %rax
	leaq	40(%rbx), %rcx
	leaq	32(%rbx), %rsi
	leaq	24(%rbx), %rdx
.LBB10_11:
	movq	(%rdx), %r15
	movq	(%rsi), %r12
	movq	(%rcx), %r13
	movq	(%rax), %rdi
	movq	56(%rbx), %rax
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movq	40(%rbx), %rbp
	movq	48(%rbx), %r14
	movl	$1, %esi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeSetTokenError@PLT
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeSetValueError@PLT
	movq	8(%rsp), %rdi                   # 8-byte Reload
	callq	mlirAsyncRuntimeSetValueError@PLT
	jmp	.LBB10_12
.LBB10_9:
	movq	72(%rbx), %rbp
	movq	64(%rbx), %rax
	movq	%rax, 16(%rsp)                  # 8-byte Spill
	movq	56(%rbx), %r15
	movq	48(%rbx), %r12
	movq	32(%rbx), %r13
	movq	40(%rbx), %rax
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	(%rax), %r14
	movl	$1, %esi
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r13
	movq	%rax, %rdi
	movq	%r14, %rsi
	callq	mgpuStreamWaitEvent@PLT
	movq	%r14, %rdi
	callq	mgpuEventDestroy@PLT
	movl	$8, %edi
	movq	%r13, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r14
	shlq	$2, %rbp
	movq	%rax, %rdi
	movq	16(%rsp), %rsi                  # 8-byte Reload
	movq	%rbp, %rdx
	movq	%r13, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r14, (%rax)
	movq	%r14, 8(%rax)
	movq	$0, 16(%rax)
	movq	$2, 24(%rax)
	movq	$1, 32(%rax)
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r13, (%rax)
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	8(%rsp), %rdi                   # 8-byte Reload
	callq	mlirAsyncRuntimeEmplaceToken@PLT
.LBB10_12:                              # %.sink.split
	movq	%rbx, %rdi
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	free@PLT                        # TAILCALL
.LBB10_3:                               # %AfterCoroSuspend31.thread
	.cfi_def_cfa_offset 80
	movb	$2, 80(%rbx)
	movq	24(%rbx), %rdi
.LBB10_4:                               # %AfterCoroSuspend31.thread
	movq	__resume@GOTPCREL(%rip), %rdx
	movq	%rbx, %rsi
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	mlirAsyncRuntimeAwaitValueAndExecute@PLT # TAILCALL
.Lfunc_end10:
	.size	async_execute_fn_0.resume, .Lfunc_end10-async_execute_fn_0.resume
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	2, 0x0
.LJTI10_0:
	.long	.LBB10_1-.LJTI10_0
	.long	.LBB10_2-.LJTI10_0
	.long	.LBB10_5-.LJTI10_0
	.long	.LBB10_7-.LJTI10_0
                                        # -- End function
	.text
	.p2align	4                               # -- Begin function async_execute_fn_0.destroy
	.type	async_execute_fn_0.destroy,@function
async_execute_fn_0.destroy:             # @async_execute_fn_0.destroy
# %bb.0:                                # %resume.entry
	jmp	free@PLT                        # TAILCALL
.Lfunc_end11:
	.size	async_execute_fn_0.destroy, .Lfunc_end11-async_execute_fn_0.destroy
                                        # -- End function
	.p2align	4                               # -- Begin function async_execute_fn_1.resume
	.type	async_execute_fn_1.resume,@function
async_execute_fn_1.resume:              # @async_execute_fn_1.resume
	.cfi_startproc
# %bb.0:                                # %resume.entry
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	subq	$24, %rsp
	.cfi_def_cfa_offset 80
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%rdi, %rbx
	movzbl	80(%rdi), %eax
	leaq	.LJTI12_0(%rip), %rcx
	movslq	(%rcx,%rax,4), %rax
	addq	%rcx, %rax
	jmpq	*%rax
.LBB12_1:                               # %AfterCoroSuspend27.thread
	movb	$1, 80(%rbx)
	movq	16(%rbx), %rdi
	movq	__resume@GOTPCREL(%rip), %rdx
	movq	%rbx, %rsi
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	mlirAsyncRuntimeAwaitTokenAndExecute@PLT # TAILCALL
.LBB12_5:                               # %AfterCoroSuspend31
	.cfi_def_cfa_offset 80
	movq	24(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	jne	.LBB12_10
# %bb.6:                                # %AfterCoroSuspend35.thread
	movq	24(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	8(%rax), %rcx
	movq	%rcx, 64(%rbx)
	movq	24(%rax), %rax
	movq	%rax, 72(%rbx)
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movb	$3, 80(%rbx)
	movq	32(%rbx), %rdi
	jmp	.LBB12_4
.LBB12_7:                               # %AfterCoroSuspend35
	movq	32(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	je	.LBB12_9
# %bb.8:                                # %.from.
	leaq	32(%rbx), %rdx
	leaq	56(%rbx), %rax
	leaq	48(%rbx), %rcx
	leaq	40(%rbx), %rsi
	jmp	.LBB12_11
.LBB12_2:                               # %AfterCoroSuspend27
	movq	16(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeIsTokenError@PLT
	movl	%eax, %ebp
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	testb	$1, %bpl
	je	.LBB12_3
.LBB12_10:                              # %.from..sink.split23
	movq	56(%rbx), %rdi
	movl	$1, %esi
	callq	mlirAsyncRuntimeDropRef@PLT
	leaq	48(%rbx), %rax
	leaq	40(%rbx), %rcx
	leaq	32(%rbx), %rsi
	leaq	24(%rbx), %rdx
.LBB12_11:
	movq	(%rdx), %r15
	movq	(%rsi), %r12
	movq	(%rcx), %r13
	movq	(%rax), %rdi
	movq	56(%rbx), %rax
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movq	40(%rbx), %rbp
	movq	48(%rbx), %r14
	movl	$1, %esi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeSetTokenError@PLT
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeSetValueError@PLT
	movq	8(%rsp), %rdi                   # 8-byte Reload
	callq	mlirAsyncRuntimeSetValueError@PLT
	jmp	.LBB12_12
.LBB12_9:
	movq	72(%rbx), %rbp
	movq	64(%rbx), %rax
	movq	%rax, 16(%rsp)                  # 8-byte Spill
	movq	56(%rbx), %r15
	movq	48(%rbx), %r12
	movq	32(%rbx), %r13
	movq	40(%rbx), %rax
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	(%rax), %r14
	movl	$1, %esi
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r13
	movq	%rax, %rdi
	movq	%r14, %rsi
	callq	mgpuStreamWaitEvent@PLT
	movq	%r14, %rdi
	callq	mgpuEventDestroy@PLT
	movl	$8, %edi
	movq	%r13, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r14
	shlq	$2, %rbp
	movq	%rax, %rdi
	movq	16(%rsp), %rsi                  # 8-byte Reload
	movq	%rbp, %rdx
	movq	%r13, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r14, (%rax)
	movq	%r14, 8(%rax)
	movq	$0, 16(%rax)
	movq	$2, 24(%rax)
	movq	$1, 32(%rax)
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r13, (%rax)
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	8(%rsp), %rdi                   # 8-byte Reload
	callq	mlirAsyncRuntimeEmplaceToken@PLT
.LBB12_12:                              # %.sink.split
	movq	%rbx, %rdi
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	free@PLT                        # TAILCALL
.LBB12_3:                               # %AfterCoroSuspend31.thread
	.cfi_def_cfa_offset 80
	movb	$2, 80(%rbx)
	movq	24(%rbx), %rdi
.LBB12_4:                               # %AfterCoroSuspend31.thread
	movq	__resume@GOTPCREL(%rip), %rdx
	movq	%rbx, %rsi
	addq	$24, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	mlirAsyncRuntimeAwaitValueAndExecute@PLT # TAILCALL
.Lfunc_end12:
	.size	async_execute_fn_1.resume, .Lfunc_end12-async_execute_fn_1.resume
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	2, 0x0
.LJTI12_0:
	.long	.LBB12_1-.LJTI12_0
	.long	.LBB12_2-.LJTI12_0
	.long	.LBB12_5-.LJTI12_0
	.long	.LBB12_7-.LJTI12_0
                                        # -- End function
	.text
	.p2align	4                               # -- Begin function async_execute_fn_1.destroy
	.type	async_execute_fn_1.destroy,@function
async_execute_fn_1.destroy:             # @async_execute_fn_1.destroy
# %bb.0:                                # %resume.entry
	jmp	free@PLT                        # TAILCALL
.Lfunc_end13:
	.size	async_execute_fn_1.destroy, .Lfunc_end13-async_execute_fn_1.destroy
                                        # -- End function
	.p2align	4                               # -- Begin function async_execute_fn_2.resume
	.type	async_execute_fn_2.resume,@function
async_execute_fn_2.resume:              # @async_execute_fn_2.resume
	.cfi_startproc
# %bb.0:                                # %resume.entry
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%r15
	.cfi_def_cfa_offset 24
	pushq	%r14
	.cfi_def_cfa_offset 32
	pushq	%r13
	.cfi_def_cfa_offset 40
	pushq	%r12
	.cfi_def_cfa_offset 48
	pushq	%rbx
	.cfi_def_cfa_offset 56
	subq	$136, %rsp
	.cfi_def_cfa_offset 192
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movq	%rdi, %rbx
	movzbl	448(%rdi), %eax
	leaq	.LJTI14_0(%rip), %rcx
	movslq	(%rcx,%rax,4), %rax
	addq	%rcx, %rax
	jmpq	*%rax
.LBB14_1:                               # %AfterCoroSuspend30.thread
	movb	$1, 448(%rbx)
	movq	296(%rbx), %rdi
	jmp	.LBB14_2
.LBB14_12:                              # %AfterCoroSuspend42
	movq	320(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	je	.LBB14_14
# %bb.13:                               # %.sink.split.sink.split.from.
	movq	352(%rbx), %rbp
	movq	344(%rbx), %r13
	movq	336(%rbx), %r12
	movq	320(%rbx), %r14
	movq	328(%rbx), %r15
	jmp	.LBB14_23
.LBB14_5:                               # %AfterCoroSuspend34
	movq	304(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeIsTokenError@PLT
	movl	%eax, %ebp
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	testb	$1, %bpl
	je	.LBB14_7
# %bb.6:                                # %.sink.split.sink.split.sink.split.from.56
	leaq	352(%rbx), %rax
	leaq	344(%rbx), %rcx
	leaq	336(%rbx), %rdx
	leaq	328(%rbx), %rsi
	leaq	320(%rbx), %r8
	leaq	312(%rbx), %rdi
	jmp	.LBB14_22
.LBB14_9:                               # %AfterCoroSuspend38
	movq	312(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	je	.LBB14_11
# %bb.10:                               # %.sink.split.sink.split.sink.split.from.
	leaq	312(%rbx), %rdi
	leaq	352(%rbx), %rax
	leaq	344(%rbx), %rcx
	leaq	336(%rbx), %rdx
	leaq	328(%rbx), %rsi
	leaq	320(%rbx), %r8
	jmp	.LBB14_22
.LBB14_3:                               # %AfterCoroSuspend30
	movq	296(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeIsTokenError@PLT
	movl	%eax, %ebp
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	testb	$1, %bpl
	je	.LBB14_4
# %bb.21:                               # %.sink.split.sink.split.sink.split.from.63
	movq	352(%rbx), %rdi
	movl	$1, %esi
	callq	mlirAsyncRuntimeDropRef@PLT
	leaq	344(%rbx), %rax
	leaq	336(%rbx), %rcx
	leaq	328(%rbx), %rdx
	leaq	320(%rbx), %rsi
	leaq	312(%rbx), %r8
	leaq	304(%rbx), %rdi
.LBB14_22:                              # %.sink.split.sink.split.from..sink.split.sink.split.sink.split
	movq	(%rdi), %r14
	movq	(%r8), %r15
	movq	(%rsi), %r12
	movq	(%rdx), %r13
	movq	(%rcx), %rbp
	movq	(%rax), %rdi
	movl	$1, %esi
	callq	mlirAsyncRuntimeDropRef@PLT
.LBB14_23:                              # %.sink.split.from..sink.split.sink.split
	movl	$1, %esi
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
.LBB14_24:                              # %.from..sink.split
	movl	$1, %esi
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movq	344(%rbx), %rbp
	movq	352(%rbx), %r13
.LBB14_25:
	movl	$1, %esi
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movq	%rbp, %rdi
	callq	mlirAsyncRuntimeSetTokenError@PLT
	movq	%r13, %rdi
	callq	mlirAsyncRuntimeSetValueError@PLT
.LBB14_26:
	movq	%rbx, %rdi
	addq	$136, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	free@PLT                        # TAILCALL
.LBB14_15:                              # %AfterCoroSuspend46
	.cfi_def_cfa_offset 192
	movq	328(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	je	.LBB14_17
# %bb.16:                               # %.sink.split.from.
	movq	352(%rbx), %r13
	movq	344(%rbx), %r12
	movq	328(%rbx), %r14
	movq	336(%rbx), %r15
	jmp	.LBB14_24
.LBB14_18:                              # %AfterCoroSuspend50
	movq	336(%rbx), %rdi
	callq	mlirAsyncRuntimeIsValueError@PLT
	testb	$1, %al
	je	.LBB14_20
# %bb.19:                               # %.from.
	movq	352(%rbx), %r13
	movq	336(%rbx), %r14
	movq	344(%rbx), %rbp
	movq	%r13, %r12
	movq	%rbp, %r15
	jmp	.LBB14_25
.LBB14_14:                              # %AfterCoroSuspend46.thread
	movq	320(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	(%rax), %rcx
	movq	%rcx, 400(%rbx)
	movq	8(%rax), %rcx
	movq	%rcx, 408(%rbx)
	movq	16(%rax), %rcx
	movq	%rcx, 416(%rbx)
	movq	24(%rax), %rcx
	movq	%rcx, 424(%rbx)
	movq	32(%rax), %rax
	movq	%rax, 432(%rbx)
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movb	$5, 448(%rbx)
	movq	328(%rbx), %rdi
	jmp	.LBB14_8
.LBB14_7:                               # %AfterCoroSuspend38.thread
	movb	$3, 448(%rbx)
	movq	312(%rbx), %rdi
	jmp	.LBB14_8
.LBB14_11:                              # %AfterCoroSuspend42.thread
	movq	312(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	(%rax), %rcx
	movq	%rcx, 360(%rbx)
	movq	8(%rax), %rcx
	movq	%rcx, 368(%rbx)
	movq	16(%rax), %rcx
	movq	%rcx, 376(%rbx)
	movq	24(%rax), %rcx
	movq	%rcx, 384(%rbx)
	movq	32(%rax), %rax
	movq	%rax, 392(%rbx)
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movb	$4, 448(%rbx)
	movq	320(%rbx), %rdi
	jmp	.LBB14_8
.LBB14_4:                               # %AfterCoroSuspend34.thread
	movb	$2, 448(%rbx)
	movq	304(%rbx), %rdi
.LBB14_2:                               # %AfterCoroSuspend30.thread
	movq	__resume@GOTPCREL(%rip), %rdx
	movq	%rbx, %rsi
	addq	$136, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	mlirAsyncRuntimeAwaitTokenAndExecute@PLT # TAILCALL
.LBB14_17:                              # %AfterCoroSuspend50.thread
	.cfi_def_cfa_offset 192
	movq	328(%rbx), %r14
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	(%rax), %rax
	movq	%rax, 440(%rbx)
	movl	$1, %esi
	movq	%r14, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	movb	$6, 448(%rbx)
	movq	336(%rbx), %rdi
.LBB14_8:                               # %AfterCoroSuspend38.thread
	movq	__resume@GOTPCREL(%rip), %rdx
	movq	%rbx, %rsi
	addq	$136, %rsp
	.cfi_def_cfa_offset 56
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%r12
	.cfi_def_cfa_offset 40
	popq	%r13
	.cfi_def_cfa_offset 32
	popq	%r14
	.cfi_def_cfa_offset 24
	popq	%r15
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	jmp	mlirAsyncRuntimeAwaitValueAndExecute@PLT # TAILCALL
.LBB14_20:
	.cfi_def_cfa_offset 192
	movq	440(%rbx), %r13
	movq	432(%rbx), %rax
	movq	%rax, 8(%rsp)                   # 8-byte Spill
	movq	392(%rbx), %r14
	movq	352(%rbx), %r15
	movq	344(%rbx), %rax
	movq	%rax, 24(%rsp)                  # 8-byte Spill
	movq	288(%rbx), %rax
	movq	%rax, 16(%rsp)                  # 8-byte Spill
	movq	336(%rbx), %r12
	movups	376(%rbx), %xmm0
	movaps	%xmm0, 64(%rsp)                 # 16-byte Spill
	movups	416(%rbx), %xmm0
	movaps	%xmm0, 96(%rsp)                 # 16-byte Spill
	movups	256(%rbx), %xmm0
	movaps	%xmm0, 80(%rsp)                 # 16-byte Spill
	movups	272(%rbx), %xmm0
	movaps	%xmm0, 112(%rsp)                # 16-byte Spill
	movups	360(%rbx), %xmm0
	movaps	%xmm0, 32(%rsp)                 # 16-byte Spill
	movups	400(%rbx), %xmm0
	movaps	%xmm0, 48(%rsp)                 # 16-byte Spill
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	(%rax), %rbp
	movl	$1, %esi
	movq	%r12, %rdi
	callq	mlirAsyncRuntimeDropRef@PLT
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r12
	movq	%rax, %rdi
	movq	%rbp, %rsi
	callq	mgpuStreamWaitEvent@PLT
	movq	%r12, %rdi
	movq	%r13, %rsi
	callq	mgpuStreamWaitEvent@PLT
	movq	%rbp, %rdi
	callq	mgpuEventDestroy@PLT
	movq	%r13, %rdi
	callq	mgpuEventDestroy@PLT
	leaq	16(%rbx), %rax
	movq	%rax, 136(%rbx)
	movaps	32(%rsp), %xmm0                 # 16-byte Reload
	movups	%xmm0, 16(%rbx)
	leaq	24(%rbx), %rax
	movq	%rax, 144(%rbx)
	leaq	32(%rbx), %rax
	movq	%rax, 152(%rbx)
	movaps	64(%rsp), %xmm0                 # 16-byte Reload
	movups	%xmm0, 32(%rbx)
	leaq	40(%rbx), %rax
	movq	%rax, 160(%rbx)
	movq	%r14, 48(%rbx)
	leaq	48(%rbx), %rax
	movq	%rax, 168(%rbx)
	leaq	56(%rbx), %rax
	movq	%rax, 176(%rbx)
	movaps	48(%rsp), %xmm0                 # 16-byte Reload
	movups	%xmm0, 56(%rbx)
	leaq	64(%rbx), %rax
	movq	%rax, 184(%rbx)
	leaq	72(%rbx), %rax
	movq	%rax, 192(%rbx)
	movaps	96(%rsp), %xmm0                 # 16-byte Reload
	movups	%xmm0, 72(%rbx)
	leaq	80(%rbx), %rax
	movq	%rax, 200(%rbx)
	movq	8(%rsp), %rax                   # 8-byte Reload
	movq	%rax, 88(%rbx)
	leaq	88(%rbx), %rax
	movq	%rax, 208(%rbx)
	leaq	96(%rbx), %rax
	movq	%rax, 216(%rbx)
	movaps	80(%rsp), %xmm0                 # 16-byte Reload
	movups	%xmm0, 96(%rbx)
	leaq	104(%rbx), %rax
	movq	%rax, 224(%rbx)
	leaq	112(%rbx), %rax
	movq	%rax, 232(%rbx)
	movaps	112(%rsp), %xmm0                # 16-byte Reload
	movups	%xmm0, 112(%rbx)
	leaq	120(%rbx), %rax
	movq	%rax, 240(%rbx)
	movq	16(%rsp), %rax                  # 8-byte Reload
	movq	%rax, 128(%rbx)
	leaq	128(%rbx), %rax
	movq	%rax, 248(%rbx)
	movq	main_kernel_module(%rip), %rdi
	leaq	.Lmain_kernel_main_kernel_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$2, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$15
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	leaq	136(%rbx), %rax
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	$1
	.cfi_adjust_cfa_offset 8
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	.cfi_adjust_cfa_offset -48
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeGetValueStorage@PLT
	movq	%r12, (%rax)
	movq	%r15, %rdi
	callq	mlirAsyncRuntimeEmplaceValue@PLT
	movq	24(%rsp), %rdi                  # 8-byte Reload
	callq	mlirAsyncRuntimeEmplaceToken@PLT
	jmp	.LBB14_26
.Lfunc_end14:
	.size	async_execute_fn_2.resume, .Lfunc_end14-async_execute_fn_2.resume
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	2, 0x0
.LJTI14_0:
	.long	.LBB14_1-.LJTI14_0
	.long	.LBB14_3-.LJTI14_0
	.long	.LBB14_5-.LJTI14_0
	.long	.LBB14_9-.LJTI14_0
	.long	.LBB14_12-.LJTI14_0
	.long	.LBB14_15-.LJTI14_0
	.long	.LBB14_18-.LJTI14_0
                                        # -- End function
	.text
	.p2align	4                               # -- Begin function async_execute_fn_2.destroy
	.type	async_execute_fn_2.destroy,@function
async_execute_fn_2.destroy:             # @async_execute_fn_2.destroy
# %bb.0:                                # %resume.entry
	jmp	free@PLT                        # TAILCALL
.Lfunc_end15:
	.size	async_execute_fn_2.destroy, .Lfunc_end15-async_execute_fn_2.destroy
                                        # -- End function
	.type	.Lassert_msg_0,@object          # @assert_msg_0
	.section	.rodata,"a",@progbits
	.p2align	4, 0x0
.Lassert_msg_0:
	.asciz	"Awaited async operand is in error state"
	.size	.Lassert_msg_0, 40

	.type	.Lassert_msg,@object            # @assert_msg
	.p2align	4, 0x0
.Lassert_msg:
	.asciz	"Awaited async operand is in error state"
	.size	.Lassert_msg, 40

	.type	main_kernel_binary,@object      # @main_kernel_binary
	.p2align	3, 0x0
main_kernel_binary:
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\tmain_kernel\n\n.visible .entry main_kernel(\n\t.param .u64 .ptr .align 1 main_kernel_param_0,\n\t.param .u64 .ptr .align 1 main_kernel_param_1,\n\t.param .u64 main_kernel_param_2,\n\t.param .u64 main_kernel_param_3,\n\t.param .u64 main_kernel_param_4,\n\t.param .u64 .ptr .align 1 main_kernel_param_5,\n\t.param .u64 .ptr .align 1 main_kernel_param_6,\n\t.param .u64 main_kernel_param_7,\n\t.param .u64 main_kernel_param_8,\n\t.param .u64 main_kernel_param_9,\n\t.param .u64 .ptr .align 1 main_kernel_param_10,\n\t.param .u64 .ptr .align 1 main_kernel_param_11,\n\t.param .u64 main_kernel_param_12,\n\t.param .u64 main_kernel_param_13,\n\t.param .u64 main_kernel_param_14\n)\n.maxntid 2, 1, 1\n{\n\t.reg .b32 \t%r<5>;\n\t.reg .b64 \t%rd<11>;\n\n\tld.param.b64 \t%rd1, [main_kernel_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.param.b64 \t%rd3, [main_kernel_param_6];\n\tcvta.to.global.u64 \t%rd4, %rd3;\n\tld.param.b64 \t%rd5, [main_kernel_param_11];\n\tcvta.to.global.u64 \t%rd6, %rd5;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd7, %r1, 4;\n\tadd.s64 \t%rd8, %rd2, %rd7;\n\tld.global.b32 \t%r2, [%rd8];\n\tadd.s64 \t%rd9, %rd4, %rd7;\n\tld.global.b32 \t%r3, [%rd9];\n\tadd.s32 \t%r4, %r3, %r2;\n\tadd.s64 \t%rd10, %rd6, %rd7;\n\tst.global.b32 \t[%rd10], %r4;\n\tret;\n\n}\n"
	.size	main_kernel_binary, 1293

	.type	main_kernel_module,@object      # @main_kernel_module
	.local	main_kernel_module
	.comm	main_kernel_module,8,8
	.section	.init_array.123,"aw",@init_array
	.p2align	3, 0x0
	.quad	main_kernel_load
	.section	.fini_array.123,"aw",@fini_array
	.p2align	3, 0x0
	.quad	main_kernel_unload
	.type	.Lmain_kernel_main_kernel_name,@object # @main_kernel_main_kernel_name
	.section	.rodata.str1.1,"aMS",@progbits,1
.Lmain_kernel_main_kernel_name:
	.asciz	"main_kernel"
	.size	.Lmain_kernel_main_kernel_name, 12

	.section	".note.GNU-stack","",@progbits

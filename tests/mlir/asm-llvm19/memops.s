	.file	"LLVMDialectModule"
	.section	.rodata.cst16,"aM",@progbits,16
	.p2align	4, 0x0                          # -- Begin function main
.LCPI0_0:
	.long	0x00000000                      # float 0
	.long	0x3f800000                      # float 1
	.long	0x40000000                      # float 2
	.long	0x40400000                      # float 3
.LCPI0_1:
	.long	0x3f000000                      # float 0.5
	.long	0x3f000000                      # float 0.5
	.long	0x3f000000                      # float 0.5
	.long	0x3f000000                      # float 0.5
	.text
	.globl	main
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
	subq	$424, %rsp                      # imm = 0x1A8
	.cfi_def_cfa_offset 480
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	movl	$16, %edi
	callq	malloc@PLT
	movq	%rax, %r14
	movaps	.LCPI0_0(%rip), %xmm0           # xmm0 = [0.0E+0,1.0E+0,2.0E+0,3.0E+0]
	movups	%xmm0, (%rax)
	callq	mgpuStreamCreate@PLT
	movq	%rax, %rbx
	movl	$16, %edi
	movq	%rax, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r15
	movl	$16, %edx
	movq	%rax, %rdi
	movq	%rax, 16(%rsp)                  # 8-byte Spill
	movq	%r14, %rsi
	movq	%rbx, %rcx
	callq	mgpuMemcpy@PLT
	movl	$16, %edi
	movq	%rbx, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r14
	movl	$16, %edx
	movq	%rax, %rdi
	movq	%r15, %rsi
	movq	%rbx, %rcx
	callq	mgpuMemcpy@PLT
	movl	$16, %edi
	movq	%rbx, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r12
	movl	$4, %edx
	movq	%rax, %rdi
	movl	$1092616192, %esi               # imm = 0x41200000
	movq	%rbx, %rcx
	callq	mgpuMemset32@PLT
	movl	$8, %edi
	movq	%rbx, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r13
	movl	$4, %edx
	movq	%rax, %rdi
	movl	$65535, %esi                    # imm = 0xFFFF
	movq	%rbx, %rcx
	callq	mgpuMemset16@PLT
	movl	$16, %edi
	movq	%rbx, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %rbp
	movq	%r14, 8(%rsp)                   # 8-byte Spill
	movq	%r14, 24(%rsp)
	leaq	24(%rsp), %rax
	movq	%rax, 264(%rsp)
	leaq	32(%rsp), %rax
	movq	%r14, 32(%rsp)
	movq	%rax, 272(%rsp)
	leaq	40(%rsp), %rax
	movq	$0, 40(%rsp)
	movq	%rax, 280(%rsp)
	leaq	48(%rsp), %rax
	movq	$4, 48(%rsp)
	movq	%rax, 288(%rsp)
	leaq	56(%rsp), %rax
	movq	$1, 56(%rsp)
	movq	%rax, 296(%rsp)
	leaq	64(%rsp), %rax
	movq	%r12, 64(%rsp)
	movq	%rax, 304(%rsp)
	leaq	72(%rsp), %rax
	movq	%r12, 72(%rsp)
	movq	%rax, 312(%rsp)
	leaq	80(%rsp), %rax
	movq	$0, 80(%rsp)
	movq	%rax, 320(%rsp)
	leaq	88(%rsp), %rax
	movq	$4, 88(%rsp)
	movq	%rax, 328(%rsp)
	leaq	96(%rsp), %rax
	movq	$1, 96(%rsp)
	movq	%rax, 336(%rsp)
	leaq	104(%rsp), %rax
	movq	%r13, 104(%rsp)
	movq	%rax, 344(%rsp)
	leaq	112(%rsp), %rax
	movq	%r13, 112(%rsp)
	movq	%rax, 352(%rsp)
	leaq	120(%rsp), %rax
	movq	$0, 120(%rsp)
	movq	%rax, 360(%rsp)
	leaq	128(%rsp), %rax
	movq	$4, 128(%rsp)
	movq	%rax, 368(%rsp)
	leaq	136(%rsp), %rax
	movq	$1, 136(%rsp)
	movq	%rax, 376(%rsp)
	leaq	144(%rsp), %rax
	movq	%rbp, 144(%rsp)
	movq	%rax, 384(%rsp)
	leaq	152(%rsp), %rax
	movq	%rbp, 152(%rsp)
	movq	%rax, 392(%rsp)
	leaq	160(%rsp), %rax
	movq	$0, 160(%rsp)
	movq	%rax, 400(%rsp)
	leaq	168(%rsp), %rax
	movq	$4, 168(%rsp)
	movq	%rax, 408(%rsp)
	leaq	176(%rsp), %rax
	movq	$1, 176(%rsp)
	movq	%rax, 416(%rsp)
	leaq	kernels_bin_cst(%rip), %rdi
	movl	$2, %esi
	callq	mgpuModuleLoadJIT@PLT
	movq	%rax, %r14
	leaq	.Lkernels_combine_kernel_name(%rip), %rsi
	movq	%rax, %rdi
	callq	mgpuModuleGetFunction@PLT
	leaq	264(%rsp), %r10
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$4, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$20
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	$1
	.cfi_adjust_cfa_offset 8
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	.cfi_adjust_cfa_offset -48
	movq	%r14, %rdi
	callq	mgpuModuleUnload@PLT
	movl	$16, %edi
	callq	malloc@PLT
	movq	%rax, %r15
	movl	$16, %edi
	callq	malloc@PLT
	movq	%rax, %r14
	movl	$16, %edx
	movq	%r15, %rdi
	movq	%r12, %rsi
	movq	%rbx, %rcx
	callq	mgpuMemcpy@PLT
	movl	$16, %edx
	movq	%r14, %rdi
	movq	%rbp, %rsi
	movq	%rbx, %rcx
	callq	mgpuMemcpy@PLT
	movq	16(%rsp), %rdi                  # 8-byte Reload
	movq	%rbx, %rsi
	callq	mgpuMemFree@PLT
	movq	8(%rsp), %rdi                   # 8-byte Reload
	movq	%rbx, %rsi
	callq	mgpuMemFree@PLT
	movq	%r12, %rdi
	movq	%rbx, %rsi
	callq	mgpuMemFree@PLT
	movq	%r13, %rdi
	movq	%rbx, %rsi
	callq	mgpuMemFree@PLT
	movq	%rbp, %rdi
	movq	%rbx, %rsi
	callq	mgpuMemFree@PLT
	movq	%rbx, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%rbx, %rdi
	callq	mgpuStreamDestroy@PLT
	movups	(%r15), %xmm0
	addps	.LCPI0_1(%rip), %xmm0
	movups	%xmm0, (%r15)
	movq	%r15, 224(%rsp)
	movq	%r15, 232(%rsp)
	movq	$0, 240(%rsp)
	movq	$4, 248(%rsp)
	movq	$1, 256(%rsp)
	leaq	224(%rsp), %rsi
	movl	$1, %edi
	callq	printMemrefF32@PLT
	movq	%r14, 184(%rsp)
	movq	%r14, 192(%rsp)
	movq	$0, 200(%rsp)
	movq	$4, 208(%rsp)
	movq	$1, 216(%rsp)
	leaq	184(%rsp), %rsi
	movl	$1, %edi
	callq	printMemrefI32@PLT
	xorl	%eax, %eax
	addq	$424, %rsp                      # imm = 0x1A8
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
.Lfunc_end0:
	.size	main, .Lfunc_end0-main
	.cfi_endproc
                                        # -- End function
	.type	kernels_bin_cst,@object         # @kernels_bin_cst
	.section	.rodata,"a",@progbits
	.p2align	3, 0x0
kernels_bin_cst:
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\tcombine\n\n.visible .entry combine(\n\t.param .u64 combine_param_0,\n\t.param .u64 combine_param_1,\n\t.param .u64 combine_param_2,\n\t.param .u64 combine_param_3,\n\t.param .u64 combine_param_4,\n\t.param .u64 combine_param_5,\n\t.param .u64 combine_param_6,\n\t.param .u64 combine_param_7,\n\t.param .u64 combine_param_8,\n\t.param .u64 combine_param_9,\n\t.param .u64 combine_param_10,\n\t.param .u64 combine_param_11,\n\t.param .u64 combine_param_12,\n\t.param .u64 combine_param_13,\n\t.param .u64 combine_param_14,\n\t.param .u64 combine_param_15,\n\t.param .u64 combine_param_16,\n\t.param .u64 combine_param_17,\n\t.param .u64 combine_param_18,\n\t.param .u64 combine_param_19\n)\n{\n\t.reg .b16 \t%rs<2>;\n\t.reg .b32 \t%r<3>;\n\t.reg .f32 \t%f<4>;\n\t.reg .b64 \t%rd<15>;\n\n\tld.param.u64 \t%rd1, [combine_param_16];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.param.u64 \t%rd3, [combine_param_1];\n\tld.param.u64 \t%rd4, [combine_param_11];\n\tcvta.to.global.u64 \t%rd5, %rd4;\n\tld.param.u64 \t%rd6, [combine_param_6];\n\tcvta.to.global.u64 \t%rd7, %rd6;\n\tcvta.to.global.u64 \t%rd8, %rd3;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd9, %r1, 4;\n\tadd.s64 \t%rd10, %rd8, %rd9;\n\tld.global.f32 \t%f1, [%rd10];\n\tadd.s64 \t%rd11, %rd7, %rd9;\n\tld.global.f32 \t%f2, [%rd11];\n\tadd.rn.f32 \t%f3, %f1, %f2;\n\tst.global.f32 \t[%rd11], %f3;\n\tmul.wide.u32 \t%rd12, %r1, 2;\n\tadd.s64 \t%rd13, %rd5, %rd12;\n\tld.global.u16 \t%rs1, [%rd13];\n\tmul.wide.s16 \t%r2, %rs1, 2;\n\tadd.s64 \t%rd14, %rd2, %rd9;\n\tst.global.u32 \t[%rd14], %r2;\n\tret;\n\n}\n"
	.size	kernels_bin_cst, 1537

	.type	.Lkernels_combine_kernel_name,@object # @kernels_combine_kernel_name
	.section	.rodata.str1.1,"aMS",@progbits,1
.Lkernels_combine_kernel_name:
	.asciz	"combine"
	.size	.Lkernels_combine_kernel_name, 8

	.section	".note.GNU-stack","",@progbits

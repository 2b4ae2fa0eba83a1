	.file	"LLVMDialectModule"
	.section	.rodata.cst16,"aM",@progbits,16
	.p2align	4, 0x0                          # -- Begin function main
.LCPI0_0:
	.long	0                               # 0x0
	.long	1                               # 0x1
	.long	2                               # 0x2
	.long	3                               # 0x3
.LCPI0_1:
	.long	10                              # 0xa
	.long	10                              # 0xa
	.long	10                              # 0xa
	.long	10                              # 0xa
.LCPI0_2:
	.long	1                               # 0x1
	.long	1                               # 0x1
	.long	1                               # 0x1
	.long	1                               # 0x1
.LCPI0_3:
	.long	3                               # 0x3
	.long	3                               # 0x3
	.long	3                               # 0x3
	.long	3                               # 0x3
.LCPI0_4:
	.long	2                               # 0x2
	.long	2                               # 0x2
	.long	2                               # 0x2
	.long	2                               # 0x2
.LCPI0_5:
	.long	4                               # 0x4
	.long	4                               # 0x4
	.long	4                               # 0x4
	.long	4                               # 0x4
.LCPI0_6:
	.long	5                               # 0x5
	.long	5                               # 0x5
	.long	5                               # 0x5
	.long	5                               # 0x5
.LCPI0_7:
	.long	7                               # 0x7
	.long	7                               # 0x7
	.long	7                               # 0x7
	.long	7                               # 0x7
.LCPI0_8:
	.long	6                               # 0x6
	.long	6                               # 0x6
	.long	6                               # 0x6
	.long	6                               # 0x6
	.text
	.globl	main
	.p2align	4
	.type	main,@function
main:                                   # @main
	.cfi_startproc
# %bb.0:                                # %vector.ph
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%r15
	pushq	%r14
	pushq	%r12
	pushq	%rbx
	.cfi_offset %rbx, -48
	.cfi_offset %r12, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	movl	$640, %edi                      # imm = 0x280
	callq	malloc@PLT
	movq	%rax, %rbx
	movdqa	.LCPI0_0(%rip), %xmm0           # xmm0 = [0,1,2,3]
	xorl	%eax, %eax
	movdqa	.LCPI0_1(%rip), %xmm1           # xmm1 = [10,10,10,10]
	movdqa	.LCPI0_5(%rip), %xmm5           # xmm5 = [4,4,4,4]
	.p2align	4
.LBB0_1:                                # %vector.body
                                        # =>This Inner Loop Header: Depth=1
	movdqa	%xmm0, %xmm2
	pmuludq	%xmm1, %xmm2
	pshufd	$232, %xmm2, %xmm9              # xmm9 = xmm2[0,2,2,3]
	pshufd	$245, %xmm0, %xmm2              # xmm2 = xmm0[1,1,3,3]
	pmuludq	%xmm1, %xmm2
	pshufd	$232, %xmm2, %xmm2              # xmm2 = xmm2[0,2,2,3]
	punpckldq	%xmm2, %xmm9            # xmm9 = xmm9[0],xmm2[0],xmm9[1],xmm2[1]
	movdqa	%xmm9, %xmm14
	por	.LCPI0_2(%rip), %xmm14
	movdqa	%xmm9, %xmm2
	paddd	.LCPI0_3(%rip), %xmm2
	movdqa	%xmm9, %xmm8
	paddd	.LCPI0_4(%rip), %xmm8
	movdqa	%xmm9, %xmm10
	paddd	%xmm5, %xmm10
	movdqa	%xmm9, %xmm6
	paddd	.LCPI0_6(%rip), %xmm6
	movdqa	%xmm9, %xmm7
	paddd	.LCPI0_7(%rip), %xmm7
	movdqa	%xmm9, %xmm3
	paddd	.LCPI0_8(%rip), %xmm3
	movdqa	%xmm3, %xmm4
	punpckhdq	%xmm7, %xmm4            # xmm4 = xmm4[2],xmm7[2],xmm4[3],xmm7[3]
	movdqa	%xmm10, %xmm11
	punpckhdq	%xmm6, %xmm11           # xmm11 = xmm11[2],xmm6[2],xmm11[3],xmm6[3]
	movdqa	%xmm11, %xmm15
	punpckhqdq	%xmm4, %xmm15           # xmm15 = xmm15[1],xmm4[1]
	movdqa	%xmm8, %xmm12
	punpckhdq	%xmm2, %xmm12           # xmm12 = xmm12[2],xmm2[2],xmm12[3],xmm2[3]
	movdqa	%xmm9, %xmm13
	punpckhdq	%xmm14, %xmm13          # xmm13 = xmm13[2],xmm14[2],xmm13[3],xmm14[3]
	punpcklqdq	%xmm4, %xmm11           # xmm11 = xmm11[0],xmm4[0]
	movdqa	%xmm13, %xmm4
	punpckhqdq	%xmm12, %xmm4           # xmm4 = xmm4[1],xmm12[1]
	punpcklqdq	%xmm12, %xmm13          # xmm13 = xmm13[0],xmm12[0]
	punpckldq	%xmm7, %xmm3            # xmm3 = xmm3[0],xmm7[0],xmm3[1],xmm7[1]
	punpckldq	%xmm6, %xmm10           # xmm10 = xmm10[0],xmm6[0],xmm10[1],xmm6[1]
	punpckldq	%xmm2, %xmm8            # xmm8 = xmm8[0],xmm2[0],xmm8[1],xmm2[1]
	punpckldq	%xmm14, %xmm9           # xmm9 = xmm9[0],xmm14[0],xmm9[1],xmm14[1]
	movdqa	%xmm10, %xmm2
	punpckhqdq	%xmm3, %xmm2            # xmm2 = xmm2[1],xmm3[1]
	punpcklqdq	%xmm3, %xmm10           # xmm10 = xmm10[0],xmm3[0]
	movdqa	%xmm9, %xmm3
	punpckhqdq	%xmm8, %xmm3            # xmm3 = xmm3[1],xmm8[1]
	punpcklqdq	%xmm8, %xmm9            # xmm9 = xmm9[0],xmm8[0]
	cvtdq2ps	%xmm15, %xmm6
	movups	%xmm6, 112(%rbx,%rax)
	cvtdq2ps	%xmm4, %xmm4
	movups	%xmm4, 96(%rbx,%rax)
	cvtdq2ps	%xmm11, %xmm4
	movups	%xmm4, 80(%rbx,%rax)
	cvtdq2ps	%xmm13, %xmm4
	movups	%xmm4, 64(%rbx,%rax)
	cvtdq2ps	%xmm2, %xmm2
	movups	%xmm2, 48(%rbx,%rax)
	cvtdq2ps	%xmm3, %xmm2
	movups	%xmm2, 32(%rbx,%rax)
	cvtdq2ps	%xmm10, %xmm2
	movups	%xmm2, 16(%rbx,%rax)
	cvtdq2ps	%xmm9, %xmm2
	movups	%xmm2, (%rbx,%rax)
	paddd	%xmm5, %xmm0
	subq	$-128, %rax
	cmpq	$640, %rax                      # imm = 0x280
	jne	.LBB0_1
# %bb.2:                                # %middle.block
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r12
	movl	$640, %edi                      # imm = 0x280
	movq	%rax, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r15
	movl	$512, %edi                      # imm = 0x200
	movq	%r12, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r14
	movl	$640, %edx                      # imm = 0x280
	movq	%r15, %rdi
	movq	%rbx, %rsi
	movq	%r12, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r12, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r12, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	%rsp, %rax
	leaq	-64(%rax), %rsi
	movq	%rsi, %rsp
	movq	%r15, -64(%rax)
	movq	%r15, -56(%rax)
	movq	$0, -48(%rax)
	movq	$20, -40(%rax)
	movq	$8, -32(%rax)
	movq	$8, -24(%rax)
	movq	$1, -16(%rax)
	movq	%rsp, %rax
	leaq	-48(%rax), %r10
	movq	%r10, %rsp
	movq	$16, -48(%rax)
	movq	$8, -40(%rax)
	movl	$2, %edi
	movl	$7, %edx
	xorl	%ecx, %ecx
	xorl	%r8d, %r8d
	xorl	%r9d, %r9d
	pushq	%r10
	pushq	$0
	callq	mgpuTensorMapEncodeTiledMemref@PLT
	addq	$16, %rsp
	movq	%rsp, %rcx
	leaq	-64(%rcx), %rdx
	movq	%rdx, %rsp
	movq	%rsp, %rsi
	leaq	-64(%rsi), %r12
	movq	%r12, %rsp
	movq	%rax, -64(%rcx)
	movq	%rdx, -64(%rsi)
	leaq	-56(%rcx), %rax
	movq	%r14, -56(%rcx)
	movq	%rax, -56(%rsi)
	leaq	-48(%rcx), %rax
	movq	%r14, -48(%rcx)
	movq	%rax, -48(%rsi)
	leaq	-40(%rcx), %rax
	movq	$0, -40(%rcx)
	movq	%rax, -40(%rsi)
	leaq	-32(%rcx), %rax
	movq	$16, -32(%rcx)
	movq	%rax, -32(%rsi)
	leaq	-24(%rcx), %rax
	movq	$8, -24(%rcx)
	movq	%rax, -24(%rsi)
	leaq	-16(%rcx), %rax
	movq	$8, -16(%rcx)
	movq	%rax, -16(%rsi)
	movq	$1, -8(%rcx)
	addq	$-8, %rcx
	movq	%rcx, -8(%rsi)
	movq	main_kernel_module(%rip), %rdi
	leaq	.Lmain_kernel_main_kernel_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	movq	%rax, %rbx
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r15
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$128, %r8d
	movl	$1, %r9d
	movq	%rbx, %rdi
	pushq	$8
	pushq	$0
	pushq	%r12
	pushq	%rax
	pushq	$0
	pushq	$1
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	movq	%r15, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r15, %rdi
	callq	mgpuStreamDestroy@PLT
	movl	$512, %edi                      # imm = 0x200
	callq	malloc@PLT
	movq	%rax, %rbx
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r15
	movl	$512, %edx                      # imm = 0x200
	movq	%rbx, %rdi
	movq	%r14, %rsi
	movq	%rax, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r15, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r15, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	%rsp, %rax
	leaq	-64(%rax), %rsi
	movq	%rsi, %rsp
	movq	%rbx, -64(%rax)
	movq	%rbx, -56(%rax)
	movq	$0, -48(%rax)
	movq	$16, -40(%rax)
	movq	$8, -32(%rax)
	movq	$8, -24(%rax)
	movq	$1, -16(%rax)
	movl	$2, %edi
	callq	printMemrefF32@PLT
	xorl	%eax, %eax
	leaq	-32(%rbp), %rsp
	popq	%rbx
	popq	%r12
	popq	%r14
	popq	%r15
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	retq
.Lfunc_end0:
	.size	main, .Lfunc_end0-main
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
.Lfunc_end1:
	.size	main_kernel_load, .Lfunc_end1-main_kernel_load
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function main_kernel_unload
	.type	main_kernel_unload,@function
main_kernel_unload:                     # @main_kernel_unload
	.cfi_startproc
# %bb.0:                                # %entry
	movq	main_kernel_module(%rip), %rdi
	jmp	mgpuModuleUnload@PLT            # TAILCALL
.Lfunc_end2:
	.size	main_kernel_unload, .Lfunc_end2-main_kernel_unload
	.cfi_endproc
                                        # -- End function
	.type	main_kernel_binary,@object      # @main_kernel_binary
	.section	.rodata,"a",@progbits
	.p2align	3, 0x0
main_kernel_binary:
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_90\n.address_size 64\n\n\t// .globl\tmain_kernel\n// tile has been demoted\n// __mbarrier has been demoted\n\n.visible .entry main_kernel(\n\t.param .u64 .ptr .align 1 main_kernel_param_0,\n\t.param .u64 .ptr .align 1 main_kernel_param_1,\n\t.param .u64 .ptr .align 1 main_kernel_param_2,\n\t.param .u64 main_kernel_param_3,\n\t.param .u64 main_kernel_param_4,\n\t.param .u64 main_kernel_param_5,\n\t.param .u64 main_kernel_param_6,\n\t.param .u64 main_kernel_param_7\n)\n.maxntid 128, 1, 1\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b16 \t%rs<2>;\n\t.reg .b32 \t%r<9>;\n\t.reg .b64 \t%rd<13>;\n\t// demoted variable\n\t.shared .align 4 .b8 tile[512];\n\t// demoted variable\n\t.shared .align 8 .b8 __mbarrier[8];\n\tld.param.b64 \t%rd3, [main_kernel_param_2];\n\tcvta.to.global.u64 \t%rd1, %rd3;\n\tmov.u32 \t%r1, %tid.x;\n\tsetp.ne.b32 \t%p1, %r1, 0;\n\t@%p1 bra \t$L__BB0_2;\n\tmov.b32 \t%r2, 1;\n\tmbarrier.init.shared.b64 \t[__mbarrier], %r2;\n$L__BB0_2:\n\tbar.sync \t0;\n\tmov.b64 \t%rd12, tile;\n\t@%p1 bra \t$L__BB0_4;\n\tld.param.b64 \t%rd2, [main_kernel_param_0];\n\tcvta.shared.u64 \t%rd4, %rd12;\n\tcvta.to.shared::cluster.u64 \t%rd5, %rd4;\n\tmov.b64 \t%rd6, 0;\n\tmov.b16 \t%rs1, 0;\n\tmov.b32 \t%r3, 8;\n\tmov.b32 \t%r4, 0;\n\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd5], [%rd2, {%r4, %r3}], [__mbarrier];\n\tmov.b32 \t%r5, 512;\n\tmbarrier.arrive.expect_tx.shared.b64 %rd7, [__mbarrier], %r5;\n$L__BB0_4:\n\tmov.b64 \t%rd8, __mbarrier;\n\tcvt.u32.u64 \t%r6, %rd8;\n\tmov.b32 \t%r7, 10000000;\n\t// begin inline asm\n\t{\n\t.reg .pred       P1; \n\tLAB_WAIT: \n\tmbarrier.try_wait.parity.shared.b64 P1, [%r6], 0, %r7; \n\t@P1 bra.uni DONE; \n\tbra.uni     LAB_WAIT; \n\tDONE: \n\t}\n\t// end inline asm\n\tmul.wide.u32 \t%rd9, %r1, 4;\n\tadd.s64 \t%rd10, %rd12, %rd9;\n\tld.shared.b32 \t%r8, [%rd10];\n\tadd.s64 \t%rd11, %rd1, %rd9;\n\tst.global.b32 \t[%rd11], %r8;\n\tret;\n\n}\n"
	.size	main_kernel_binary, 1843

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

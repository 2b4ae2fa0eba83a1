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
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%rbx
	subq	$88, %rsp
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	movl	$8192, %edi                     # imm = 0x2000
	callq	malloc@PLT
	movq	%rax, %rbx
	movl	$8192, %edi                     # imm = 0x2000
	callq	malloc@PLT
	movl	$-1, %r14d
	movl	$2, %r15d
	movl	$-3, %r13d
	movl	$1, %ecx
	xorl	%edx, %edx
	movabsq	$2635249153387078803, %rsi      # imm = 0x2492492492492493
	movabsq	$-2049638230412172401, %rdi     # imm = 0xE38E38E38E38E38F
	movq	%rbx, -104(%rbp)                # 8-byte Spill
	movq	%rax, -112(%rbp)                # 8-byte Spill
	.p2align	4
.LBB0_1:                                # %.preheader50
                                        # =>This Loop Header: Depth=1
                                        #     Child Loop BB0_2 Depth 2
	movq	%rbx, -64(%rbp)                 # 8-byte Spill
	movq	%rdx, -56(%rbp)                 # 8-byte Spill
	movq	%rcx, -80(%rbp)                 # 8-byte Spill
	movl	%r13d, -88(%rbp)                # 4-byte Spill
	movq	%r15, -96(%rbp)                 # 8-byte Spill
	movl	%r14d, -44(%rbp)                # 4-byte Spill
	xorl	%ebx, %ebx
	movq	%rax, -72(%rbp)                 # 8-byte Spill
	.p2align	4
.LBB0_2:                                #   Parent Loop BB0_1 Depth=1
                                        # =>  This Inner Loop Header: Depth=2
	movq	%rcx, -128(%rbp)                # 8-byte Spill
	movq	%r15, %rax
	mulq	%rsi
	movq	%r15, %r12
	subq	%rdx, %r12
	shrq	%r12
	addq	%rdx, %r12
	shrq	$2, %r12
	leal	(,%r12,8), %eax
	subl	%eax, %r12d
	addl	%r14d, %r12d
	movq	%rcx, %rax
	mulq	%rdi
	shrq	$3, %rdx
	leal	(%rdx,%rdx,8), %eax
	movl	%r13d, %ecx
	subl	%eax, %ecx
	xorps	%xmm0, %xmm0
	cvtsi2ss	%ecx, %xmm0
	callq	__truncsfhf2@PLT
	pextrw	$0, %xmm0, %eax
	movq	-64(%rbp), %rcx                 # 8-byte Reload
	movw	%ax, (%rcx,%rbx,2)
	xorps	%xmm0, %xmm0
	cvtsi2ss	%r12d, %xmm0
	callq	__truncsfhf2@PLT
	movabsq	$-2049638230412172401, %rdi     # imm = 0xE38E38E38E38E38F
	movabsq	$2635249153387078803, %rsi      # imm = 0x2492492492492493
	pextrw	$0, %xmm0, %eax
	movq	-72(%rbp), %rcx                 # 8-byte Reload
	movw	%ax, (%rcx,%rbx,2)
	movq	-128(%rbp), %rcx                # 8-byte Reload
	movq	-72(%rbp), %rax                 # 8-byte Reload
	incq	%rbx
	addl	$3, %r14d
	addq	$3, %r15
	addl	$3, %r13d
	addq	$3, %rcx
	cmpq	$64, %rbx
	jne	.LBB0_2
# %bb.3:                                #   in Loop: Header=BB0_1 Depth=1
	movq	-56(%rbp), %rdx                 # 8-byte Reload
	incq	%rdx
	movl	-44(%rbp), %r14d                # 4-byte Reload
	addl	$5, %r14d
	movq	-96(%rbp), %r15                 # 8-byte Reload
	addq	$5, %r15
	movl	-88(%rbp), %r13d                # 4-byte Reload
	addl	$7, %r13d
	movq	-80(%rbp), %rcx                 # 8-byte Reload
	addq	$7, %rcx
	subq	$-128, %rax
	movq	-64(%rbp), %rbx                 # 8-byte Reload
	subq	$-128, %rbx
	cmpq	$64, %rdx
	jne	.LBB0_1
# %bb.4:
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r15
	xorl	%r13d, %r13d
	movl	$8192, %edi                     # imm = 0x2000
	movq	%rax, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r12
	movl	$8192, %edi                     # imm = 0x2000
	movq	%r15, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %rbx
	movl	$16384, %edi                    # imm = 0x4000
	movq	%r15, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r14
	movl	$8192, %edx                     # imm = 0x2000
	movq	%r12, %rdi
	movq	-104(%rbp), %rsi                # 8-byte Reload
	movq	%r15, %rcx
	callq	mgpuMemcpy@PLT
	movl	$8192, %edx                     # imm = 0x2000
	movq	%rbx, %rdi
	movq	-112(%rbp), %rsi                # 8-byte Reload
	movq	%r15, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r15, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r15, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	%rsp, %rax
	leaq	-64(%rax), %rsi
	movq	%rsi, %rsp
	movq	%r12, -64(%rax)
	movq	%r12, -56(%rax)
	movq	$0, -48(%rax)
	movq	$64, -40(%rax)
	movq	$64, -32(%rax)
	movq	$64, -24(%rax)
	movq	$1, -16(%rax)
	movq	%rsp, %rax
	leaq	-64(%rax), %r15
	movq	%r15, %rsp
	movq	%rbx, -64(%rax)
	movq	%rbx, -56(%rax)
	movq	$0, -48(%rax)
	movq	$64, -40(%rax)
	movq	$64, -32(%rax)
	movq	$64, -24(%rax)
	movq	$1, -16(%rax)
	movq	%rsp, %rax
	leaq	-48(%rax), %r10
	movq	%r10, %rsp
	movq	$64, -48(%rax)
	movq	$64, -40(%rax)
	movl	$2, %edi
	movl	$6, %edx
	movl	$3, %r8d
	xorl	%ecx, %ecx
	xorl	%r9d, %r9d
	pushq	%r10
	pushq	$0
	callq	mgpuTensorMapEncodeTiledMemref@PLT
	addq	$16, %rsp
	movq	%rax, %r12
	movq	%rsp, %rax
	leaq	-48(%rax), %r10
	movq	%r10, %rsp
	movq	$64, -48(%rax)
	movq	$64, -40(%rax)
	movl	$2, %edi
	movl	$6, %edx
	movl	$3, %r8d
	movq	%r15, %rsi
	xorl	%ecx, %ecx
	xorl	%r9d, %r9d
	pushq	%r10
	pushq	$0
	callq	mgpuTensorMapEncodeTiledMemref@PLT
	addq	$16, %rsp
	movq	%rsp, %rcx
	leaq	-80(%rcx), %rsi
	movq	%rsi, %rsp
	movq	%rsp, %rdx
	leaq	-80(%rdx), %rbx
	movq	%rbx, %rsp
	movq	%r12, -80(%rcx)
	movq	%rsi, -80(%rdx)
	leaq	-72(%rcx), %rsi
	movq	%rax, -72(%rcx)
	movq	%rsi, -72(%rdx)
	leaq	-64(%rcx), %rax
	movq	%r14, -64(%rcx)
	movq	%rax, -64(%rdx)
	leaq	-56(%rcx), %rax
	movq	%r14, -56(%rcx)
	movq	%rax, -56(%rdx)
	leaq	-48(%rcx), %rax
	movq	$0, -48(%rcx)
	movq	%rax, -48(%rdx)
	leaq	-40(%rcx), %rax
	movq	$64, -40(%rcx)
	movq	%rax, -40(%rdx)
	leaq	-32(%rcx), %rax
	movq	$64, -32(%rcx)
	movq	%rax, -32(%rdx)
	leaq	-24(%rcx), %rax
	movq	$64, -24(%rcx)
	movq	%rax, -24(%rdx)
	movq	$1, -16(%rcx)
	addq	$-16, %rcx
	movq	%rcx, -16(%rdx)
	movq	main_kernel_module(%rip), %rdi
	leaq	.Lmain_kernel_main_kernel_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	movq	%rax, %r15
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r12
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$128, %r8d
	movl	$1, %r9d
	movq	%r15, %rdi
	pushq	$9
	pushq	$0
	pushq	%rbx
	pushq	%rax
	pushq	$0
	pushq	$1
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	movq	%r12, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r12, %rdi
	callq	mgpuStreamDestroy@PLT
	movl	$16384, %edi                    # imm = 0x4000
	callq	malloc@PLT
	movq	%rax, %rbx
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r15
	movl	$16384, %edx                    # imm = 0x4000
	movq	%rbx, -56(%rbp)                 # 8-byte Spill
	movq	%rbx, %rdi
	movq	%r14, %rsi
	movq	%rax, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r15, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r15, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	-104(%rbp), %r14                # 8-byte Reload
	pxor	%xmm0, %xmm0
	movd	%xmm0, -44(%rbp)                # 4-byte Folded Spill
	xorl	%ebx, %ebx
	.p2align	4
.LBB0_5:                                # %.preheader49
                                        # =>This Loop Header: Depth=1
                                        #     Child Loop BB0_6 Depth 2
                                        #       Child Loop BB0_7 Depth 3
	movq	%r13, -80(%rbp)                 # 8-byte Spill
	shlq	$8, %r13
	addq	-56(%rbp), %r13                 # 8-byte Folded Reload
	movq	%r13, -88(%rbp)                 # 8-byte Spill
	movq	-112(%rbp), %r13                # 8-byte Reload
	xorl	%r12d, %r12d
	.p2align	4
.LBB0_6:                                # %.preheader
                                        #   Parent Loop BB0_5 Depth=1
                                        # =>  This Loop Header: Depth=2
                                        #       Child Loop BB0_7 Depth 3
	movl	%ebx, -96(%rbp)                 # 4-byte Spill
	pxor	%xmm1, %xmm1
	movq	%r13, %r15
	xorl	%ebx, %ebx
	.p2align	4
.LBB0_7:                                #   Parent Loop BB0_5 Depth=1
                                        #     Parent Loop BB0_6 Depth=2
                                        # =>    This Inner Loop Header: Depth=3
	movd	%xmm1, -72(%rbp)                # 4-byte Folded Spill
	pinsrw	$0, (%r14,%rbx,2), %xmm0
	pinsrw	$0, (%r15), %xmm1
	movdqa	%xmm1, -128(%rbp)               # 16-byte Spill
	callq	__extendhfsf2@PLT
	movd	%xmm0, -64(%rbp)                # 4-byte Folded Spill
	movaps	-128(%rbp), %xmm0               # 16-byte Reload
	callq	__extendhfsf2@PLT
	movss	-72(%rbp), %xmm1                # 4-byte Reload
                                        # xmm1 = mem[0],zero,zero,zero
	mulss	-64(%rbp), %xmm0                # 4-byte Folded Reload
	addss	%xmm0, %xmm1
	incq	%rbx
	subq	$-128, %r15
	cmpq	$64, %rbx
	jne	.LBB0_7
# %bb.8:                                #   in Loop: Header=BB0_6 Depth=2
	movq	-88(%rbp), %rax                 # 8-byte Reload
	movss	(%rax,%r12,4), %xmm0            # xmm0 = mem[0],zero,zero,zero
	cmpneqss	%xmm0, %xmm1
	movd	%xmm1, %eax
	movl	-96(%rbp), %ebx                 # 4-byte Reload
	subl	%eax, %ebx
	movss	-44(%rbp), %xmm1                # 4-byte Reload
                                        # xmm1 = mem[0],zero,zero,zero
	addss	%xmm0, %xmm1
	movss	%xmm1, -44(%rbp)                # 4-byte Spill
	incq	%r12
	addq	$2, %r13
	cmpq	$64, %r12
	jne	.LBB0_6
# %bb.9:                                #   in Loop: Header=BB0_5 Depth=1
	movq	-80(%rbp), %r13                 # 8-byte Reload
	incq	%r13
	subq	$-128, %r14
	cmpq	$64, %r13
	jne	.LBB0_5
# %bb.10:
	movl	$4, %edi
	callq	malloc@PLT
	movl	%ebx, (%rax)
	movq	%rsp, %rcx
	leaq	-48(%rcx), %rsi
	movq	%rsi, %rsp
	movq	%rax, -48(%rcx)
	movq	%rax, -40(%rcx)
	movq	$0, -32(%rcx)
	movq	$1, -24(%rcx)
	movq	$1, -16(%rcx)
	movl	$1, %edi
	callq	printMemrefI32@PLT
	movl	$32, %edi
	callq	malloc@PLT
	movq	-56(%rbp), %rcx                 # 8-byte Reload
	movups	(%rcx), %xmm0
	movups	16(%rcx), %xmm1
	movups	%xmm0, (%rax)
	movups	%xmm1, 16(%rax)
	movq	%rsp, %rcx
	leaq	-48(%rcx), %rsi
	movq	%rsi, %rsp
	movq	%rax, -48(%rcx)
	movq	%rax, -40(%rcx)
	movq	$0, -32(%rcx)
	movq	$8, -24(%rcx)
	movq	$1, -16(%rcx)
	movl	$1, %edi
	callq	printMemrefF32@PLT
	movl	$4, %edi
	callq	malloc@PLT
	movss	-44(%rbp), %xmm0                # 4-byte Reload
                                        # xmm0 = mem[0],zero,zero,zero
	movss	%xmm0, (%rax)
	movq	%rsp, %rcx
	leaq	-48(%rcx), %rsi
	movq	%rsi, %rsp
	movq	%rax, -48(%rcx)
	movq	%rax, -40(%rcx)
	movq	$0, -32(%rcx)
	movq	$1, -24(%rcx)
	movq	$1, -16(%rcx)
	movl	$1, %edi
	callq	printMemrefF32@PLT
	xorl	%eax, %eax
	leaq	-40(%rbp), %rsp
	popq	%rbx
	popq	%r12
	popq	%r13
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
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_90a\n.address_size 64\n\n\t// .globl\tmain_kernel\n// smemA has been demoted\n// smemB has been demoted\n// __mbarrier has been demoted\n\n.visible .entry main_kernel(\n\t.param .u64 .ptr .align 1 main_kernel_param_0,\n\t.param .u64 .ptr .align 1 main_kernel_param_1,\n\t.param .u64 .ptr .align 1 main_kernel_param_2,\n\t.param .u64 .ptr .align 1 main_kernel_param_3,\n\t.param .u64 main_kernel_param_4,\n\t.param .u64 main_kernel_param_5,\n\t.param .u64 main_kernel_param_6,\n\t.param .u64 main_kernel_param_7,\n\t.param .u64 main_kernel_param_8\n)\n.maxntid 128, 1, 1\n{\n\t.reg .pred \t%p<2>;\n\t.reg .b16 \t%rs<2>;\n\t.reg .b32 \t%r<46>;\n\t.reg .b64 \t%rd<30>;\n\t// demoted variable\n\t.shared .align 1024 .b8 smemA[8192];\n\t// demoted variable\n\t.shared .align 1024 .b8 smemB[8192];\n\t// demoted variable\n\t.shared .align 8 .b8 __mbarrier[8];\n\tld.param.b64 \t%rd4, [main_kernel_param_3];\n\tcvta.to.global.u64 \t%rd1, %rd4;\n\tmov.u32 \t%r1, %tid.x;\n\tsetp.ne.b32 \t%p1, %r1, 0;\n\t@%p1 bra \t$L__BB0_2;\n\tmov.b32 \t%r2, 1;\n\tmbarrier.init.shared.b64 \t[__mbarrier], %r2;\n$L__BB0_2:\n\tbar.sync \t0;\n\tmov.b64 \t%rd28, smemA;\n\tmov.b64 \t%rd29, smemB;\n\t@%p1 bra \t$L__BB0_4;\n\tld.param.b64 \t%rd3, [main_kernel_param_1];\n\tld.param.b64 \t%rd2, [main_kernel_param_0];\n\tcvta.shared.u64 \t%rd5, %rd28;\n\tcvta.to.shared::cluster.u64 \t%rd6, %rd5;\n\tmov.b64 \t%rd7, 0;\n\tmov.b16 \t%rs1, 0;\n\tmov.b32 \t%r3, 0;\n\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd6], [%rd2, {%r3, %r3}], [__mbarrier];\n\tcvta.shared.u64 \t%rd8, %rd29;\n\tcvta.to.shared::cluster.u64 \t%rd9, %rd8;\n\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd9], [%rd3, {%r3, %r3}], [__mbarrier];\n\tmov.b32 \t%r4, 16384;\n\tmbarrier.arrive.expect_tx.shared.b64 %rd10, [__mbarrier], %r4;\n$L__BB0_4:\n\tmov.b64 \t%rd19, __mbarrier;\n\tcvt.u32.u64 \t%r5, %rd19;\n\tmov.b32 \t%r6, 10000000;\n\t// begin inline asm\n\t{\n\t.reg .pred       P1; \n\tLAB_WAIT: \n\tmbarrier.try_wait.parity.shared.b64 P1, [%r5], 0, %r6; \n\t@P1 bra.uni DONE; \n\tbra.uni     LAB_WAIT; \n\tDONE: \n\t}\n\t// end inline asm\n\tshr.u64 \t%rd20, %rd28, 4;\n\tand.b64 \t%rd21, %rd20, 16320;\n\tor.b64 \t%rd11, %rd21, 4611686293338849280;\n\tshr.u64 \t%rd22, %rd29, 4;\n\tand.b64 \t%rd23, %rd22, 16320;\n\tor.b64 \t%rd12, %rd23, 4611686293338849280;\n\twgmma.fence.sync.aligned;\n\tmov.b32 \t%r38, 0;\n\tmov.b32 \t%r7, %r38;\n\tmov.b32 \t%r8, %r38;\n\tmov.b32 \t%r9, %r38;\n\tmov.b32 \t%r10, %r38;\n\tmov.b32 \t%r11, %r38;\n\tmov.b32 \t%r12, %r38;\n\tmov.b32 \t%r13, %r38;\n\tmov.b32 \t%r14, %r38;\n\tmov.b32 \t%r15, %r38;\n\tmov.b32 \t%r16, %r38;\n\tmov.b32 \t%r17, %r38;\n\tmov.b32 \t%r18, %r38;\n\tmov.b32 \t%r19, %r38;\n\tmov.b32 \t%r20, %r38;\n\tmov.b32 \t%r21, %r38;\n\tmov.b32 \t%r22, %r38;\n\tmov.b32 \t%r23, %r38;\n\tmov.b32 \t%r24, %r38;\n\tmov.b32 \t%r25, %r38;\n\tmov.b32 \t%r26, %r38;\n\tmov.b32 \t%r27, %r38;\n\tmov.b32 \t%r28, %r38;\n\tmov.b32 \t%r29, %r38;\n\tmov.b32 \t%r30, %r38;\n\tmov.b32 \t%r31, %r38;\n\tmov.b32 \t%r32, %r38;\n\tmov.b32 \t%r33, %r38;\n\tmov.b32 \t%r34, %r38;\n\tmov.b32 \t%r35, %r38;\n\tmov.b32 \t%r36, %r38;\n\tmov.b32 \t%r37, %r38;\n\t// begin inline asm\n\t{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, %r38}, %rd11, %rd12, p, 1,  1, 0,  1;\n}\n\n\t// end inline asm\n\tor.b64 \t%rd13, %rd21, 4611686293338849282;\n\tadd.s64 \t%rd14, %rd23, 4611686293338849408;\n\t// begin inline asm\n\t{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, %r38}, %rd13, %rd14, p, 1,  1, 0,  1;\n}\n\n\t// end inline asm\n\tor.b64 \t%rd15, %rd21, 4611686293338849284;\n\tadd.s64 \t%rd16, %rd23, 4611686293338849536;\n\t// begin inline asm\n\t{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, %r38}, %rd15, %rd16, p, 1,  1, 0,  1;\n}\n\n\t// end inline asm\n\tor.b64 \t%rd17, %rd21, 4611686293338849286;\n\tadd.s64 \t%rd18, %rd23, 4611686293338849664;\n\t// begin inline asm\n\t{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%r7, %r8, %r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29, %r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37, %r38}, %rd17, %rd18, p, 1,  1, 0,  1;\n}\n\n\t// end inline asm\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned \t1;\n\twgmma.wait_group.sync.aligned \t0;\n\tbfe.u32 \t%r39, %r1, 2, 3;\n\tshl.b32 \t%r40, %r1, 1;\n\tand.b32 \t%r41, %r40, 6;\n\tshr.u32 \t%r42, %r1, 1;\n\tand.b32 \t%r43, %r42, 48;\n\tor.b32 \t%r44, %r39, %r43;\n\tshl.b32 \t%r45, %r44, 6;\n\tmul.wide.u32 \t%rd24, %r45, 4;\n\tadd.s64 \t%rd25, %rd1, %rd24;\n\tmul.wide.u32 \t%rd26, %r41, 4;\n\tadd.s64 \t%rd27, %rd25, %rd26;\n\tst.global.b32 \t[%rd27], %r7;\n\tst.global.b32 \t[%rd27+4], %r8;\n\tst.global.b32 \t[%rd27+32], %r11;\n\tst.global.b32 \t[%rd27+36], %r12;\n\tst.global.b32 \t[%rd27+64], %r15;\n\tst.global.b32 \t[%rd27+68], %r16;\n\tst.global.b32 \t[%rd27+96], %r19;\n\tst.global.b32 \t[%rd27+100], %r20;\n\tst.global.b32 \t[%rd27+128], %r23;\n\tst.global.b32 \t[%rd27+132], %r24;\n\tst.global.b32 \t[%rd27+160], %r27;\n\tst.global.b32 \t[%rd27+164], %r28;\n\tst.global.b32 \t[%rd27+192], %r31;\n\tst.global.b32 \t[%rd27+196], %r32;\n\tst.global.b32 \t[%rd27+224], %r35;\n\tst.global.b32 \t[%rd27+228], %r36;\n\tst.global.b32 \t[%rd27+2048], %r9;\n\tst.global.b32 \t[%rd27+2052], %r10;\n\tst.global.b32 \t[%rd27+2080], %r13;\n\tst.global.b32 \t[%rd27+2084], %r14;\n\tst.global.b32 \t[%rd27+2112], %r17;\n\tst.global.b32 \t[%rd27+2116], %r18;\n\tst.global.b32 \t[%rd27+2144], %r21;\n\tst.global.b32 \t[%rd27+2148], %r22;\n\tst.global.b32 \t[%rd27+2176], %r25;\n\tst.global.b32 \t[%rd27+2180], %r26;\n\tst.global.b32 \t[%rd27+2208], %r29;\n\tst.global.b32 \t[%rd27+2212], %r30;\n\tst.global.b32 \t[%rd27+2240], %r33;\n\tst.global.b32 \t[%rd27+2244], %r34;\n\tst.global.b32 \t[%rd27+2272], %r37;\n\tst.global.b32 \t[%rd27+2276], %r38;\n\tret;\n\n}\n"
	.size	main_kernel_binary, 6228

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

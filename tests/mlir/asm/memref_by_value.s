	.file	"LLVMDialectModule"
	.section	.rodata.cst16,"aM",@progbits,16
	.p2align	4, 0x0                          # -- Begin function main
.LCPI0_0:
	.long	0x00000000                      # float 0
	.long	0x3f800000                      # float 1
	.long	0x40000000                      # float 2
	.long	0x40400000                      # float 3
.LCPI0_1:
	.long	0x40800000                      # float 4
	.long	0x40a00000                      # float 5
	.long	0x40c00000                      # float 6
	.long	0x40e00000                      # float 7
	.text
	.globl	main
	.p2align	4
	.type	main,@function
main:                                   # @main
	.cfi_startproc
# %bb.0:
	pushq	%r15
	.cfi_def_cfa_offset 16
	pushq	%r14
	.cfi_def_cfa_offset 24
	pushq	%r12
	.cfi_def_cfa_offset 32
	pushq	%rbx
	.cfi_def_cfa_offset 40
	subq	$232, %rsp
	.cfi_def_cfa_offset 272
	.cfi_offset %rbx, -40
	.cfi_offset %r12, -32
	.cfi_offset %r14, -24
	.cfi_offset %r15, -16
	movl	$32, %edi
	callq	malloc@PLT
	movq	%rax, %rbx
	movaps	.LCPI0_0(%rip), %xmm0           # xmm0 = [0.0E+0,1.0E+0,2.0E+0,3.0E+0]
	movups	%xmm0, (%rax)
	movaps	.LCPI0_1(%rip), %xmm0           # xmm0 = [4.0E+0,5.0E+0,6.0E+0,7.0E+0]
	movups	%xmm0, 16(%rax)
	movq	%rax, 80(%rsp)
	movq	%rax, 88(%rsp)
	movq	$0, 96(%rsp)
	movq	$8, 104(%rsp)
	movq	$1, 112(%rsp)
	leaq	80(%rsp), %r14
	movl	$1, %edi
	movl	$4, %edx
	movq	%r14, %rsi
	callq	mgpuMemHostRegisterMemRef@PLT
	movq	%rbx, 32(%rsp)
	movq	%rbx, 40(%rsp)
	movq	$1, 48(%rsp)
	movq	$4, 56(%rsp)
	movq	$2, 64(%rsp)
	leaq	32(%rsp), %rax
	movq	%rax, 16(%rsp)
	leaq	72(%rsp), %rax
	movl	$1073741824, 72(%rsp)           # imm = 0x40000000
	movq	%rax, 24(%rsp)
	movq	kernels_module(%rip), %rdi
	leaq	.Lkernels_scale_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	movq	%rax, %r15
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r12
	leaq	16(%rsp), %rax
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$4, %r8d
	movl	$1, %r9d
	movq	%r15, %rdi
	pushq	$2
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
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
	movq	%r12, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r12, %rdi
	callq	mgpuStreamDestroy@PLT
	movl	$1, %edi
	movq	%r14, %rsi
	callq	printMemrefF32@PLT
	movl	$1, %edi
	movl	$4, %edx
	movq	%r14, %rsi
	callq	mgpuMemHostUnregisterMemRef@PLT
	movq	%rbx, %rdi
	callq	free@PLT
	movl	$24, %edi
	callq	malloc@PLT
	movq	%rax, %rbx
	movq	%rax, 176(%rsp)
	movq	%rax, 184(%rsp)
	movq	$0, 192(%rsp)
	movq	$2, 200(%rsp)
	movq	$3, 208(%rsp)
	movq	$3, 216(%rsp)
	movq	$1, 224(%rsp)
	leaq	176(%rsp), %r14
	movl	$2, %edi
	movl	$4, %edx
	movq	%r14, %rsi
	callq	mgpuMemHostRegisterMemRef@PLT
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r15
	movq	%rbx, 120(%rsp)
	movq	%rbx, 128(%rsp)
	movq	$0, 136(%rsp)
	movq	$2, 144(%rsp)
	movq	$3, 152(%rsp)
	movq	$3, 160(%rsp)
	movq	$1, 168(%rsp)
	leaq	120(%rsp), %rax
	movq	%rax, 8(%rsp)
	movq	kernels_module(%rip), %rdi
	leaq	.Lkernels_fill_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	leaq	8(%rsp), %r10
	movl	$2, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$3, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$1
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	$1
	.cfi_adjust_cfa_offset 8
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	.cfi_adjust_cfa_offset -48
	movq	%r15, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r15, %rdi
	callq	mgpuStreamDestroy@PLT
	movl	$2, %edi
	movq	%r14, %rsi
	callq	printMemrefI32@PLT
	movl	$2, %edi
	movl	$4, %edx
	movq	%r14, %rsi
	callq	mgpuMemHostUnregisterMemRef@PLT
	movq	%rbx, %rdi
	callq	free@PLT
	xorl	%eax, %eax
	addq	$232, %rsp
	.cfi_def_cfa_offset 40
	popq	%rbx
	.cfi_def_cfa_offset 32
	popq	%r12
	.cfi_def_cfa_offset 24
	popq	%r14
	.cfi_def_cfa_offset 16
	popq	%r15
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end0:
	.size	main, .Lfunc_end0-main
	.cfi_endproc
                                        # -- End function
	.section	.text.startup,"ax",@progbits
	.p2align	4                               # -- Begin function kernels_load
	.type	kernels_load,@function
kernels_load:                           # @kernels_load
	.cfi_startproc
# %bb.0:                                # %entry
	pushq	%rax
	.cfi_def_cfa_offset 16
	leaq	kernels_binary(%rip), %rdi
	movl	$2, %esi
	callq	mgpuModuleLoadJIT@PLT
	movq	%rax, kernels_module(%rip)
	popq	%rax
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end1:
	.size	kernels_load, .Lfunc_end1-kernels_load
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function kernels_unload
	.type	kernels_unload,@function
kernels_unload:                         # @kernels_unload
	.cfi_startproc
# %bb.0:                                # %entry
	movq	kernels_module(%rip), %rdi
	jmp	mgpuModuleUnload@PLT            # TAILCALL
.Lfunc_end2:
	.size	kernels_unload, .Lfunc_end2-kernels_unload
	.cfi_endproc
                                        # -- End function
	.type	kernels_binary,@object          # @kernels_binary
	.section	.rodata,"a",@progbits
	.p2align	3, 0x0
kernels_binary:
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 6.0\n.target sm_50\n.address_size 64\n\n\t// .globl\tscale\n\n.visible .entry scale(\n\t.param .align 8 .b8 scale_param_0[40],\n\t.param .f32 scale_param_1\n)\n{\n\t.reg .b32 \t%r<5>;\n\t.reg .b64 \t%rd<10>;\n\n\tld.param.b64 \t%rd1, [scale_param_0+32];\n\tld.param.b64 \t%rd2, [scale_param_0+8];\n\tld.param.b64 \t%rd3, [scale_param_0+16];\n\tld.param.b32 \t%r1, [scale_param_1];\n\tmov.u32 \t%r2, %tid.x;\n\tcvt.u64.u32 \t%rd4, %r2;\n\tshl.b64 \t%rd5, %rd3, 2;\n\tadd.s64 \t%rd6, %rd2, %rd5;\n\tmul.lo.s64 \t%rd7, %rd1, %rd4;\n\tshl.b64 \t%rd8, %rd7, 2;\n\tadd.s64 \t%rd9, %rd6, %rd8;\n\tld.b32 \t%r3, [%rd9];\n\tmul.rn.f32 \t%r4, %r1, %r3;\n\tst.b32 \t[%rd9], %r4;\n\tret;\n\n}\n\t// .globl\tfill\n.visible .entry fill(\n\t.param .align 8 .b8 fill_param_0[56]\n)\n{\n\t.reg .b32 \t%r<6>;\n\t.reg .b64 \t%rd<6>;\n\n\tld.param.b64 \t%rd1, [fill_param_0+8];\n\tmov.u32 \t%r1, %ctaid.x;\n\tmov.u32 \t%r2, %tid.x;\n\tmul.lo.s32 \t%r3, %r2, 10;\n\tmad.lo.s32 \t%r4, %r1, 100, %r3;\n\tor.b32 \t%r5, %r4, 1;\n\tmul.wide.u32 \t%rd2, %r1, 12;\n\tadd.s64 \t%rd3, %rd1, %rd2;\n\tmul.wide.u32 \t%rd4, %r2, 4;\n\tadd.s64 \t%rd5, %rd3, %rd4;\n\tst.b32 \t[%rd5], %r5;\n\tret;\n\n}\n"
	.size	kernels_binary, 1102

	.type	kernels_module,@object          # @kernels_module
	.local	kernels_module
	.comm	kernels_module,8,8
	.section	.init_array.123,"aw",@init_array
	.p2align	3, 0x0
	.quad	kernels_load
	.section	.fini_array.123,"aw",@fini_array
	.p2align	3, 0x0
	.quad	kernels_unload
	.type	.Lkernels_scale_name,@object    # @kernels_scale_name
	.section	.rodata.str1.1,"aMS",@progbits,1
.Lkernels_scale_name:
	.asciz	"scale"
	.size	.Lkernels_scale_name, 6

	.type	.Lkernels_fill_name,@object     # @kernels_fill_name
.Lkernels_fill_name:
	.asciz	"fill"
	.size	.Lkernels_fill_name, 5

	.section	".note.GNU-stack","",@progbits

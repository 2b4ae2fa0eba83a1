	.file	"LLVMDialectModule"
	.section	.rodata.cst16,"aM",@progbits,16
	.p2align	4, 0x0                          # -- Begin function main
.LCPI0_0:
	.long	0                               # 0x0
	.long	1                               # 0x1
	.long	2                               # 0x2
	.long	3                               # 0x3
	.text
	.globl	main
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
	pushq	%rax
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	movl	$16, %edi
	callq	malloc@PLT
	movq	%rax, %rbx
	movaps	.LCPI0_0(%rip), %xmm0           # xmm0 = [0,1,2,3]
	movups	%xmm0, (%rax)
	movl	$16, %edi
	xorl	%esi, %esi
	movl	$1, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r14
	movq	%rbx, -48(%rbp)                 # 8-byte Spill
	movups	(%rbx), %xmm0
	movups	%xmm0, (%rax)
	movl	$20, %ebx
	leaq	.Lkernels_add_name(%rip), %r15
	.p2align	4
.LBB0_1:                                # =>This Inner Loop Header: Depth=1
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r13
	movq	%rsp, %rax
	leaq	-48(%rax), %rcx
	movq	%rcx, %rsp
	movq	%rsp, %rdx
	leaq	-48(%rdx), %r12
	movq	%r12, %rsp
	movq	%r14, -48(%rax)
	movq	%rcx, -48(%rdx)
	leaq	-40(%rax), %rcx
	movq	%r14, -40(%rax)
	movq	%rcx, -40(%rdx)
	leaq	-32(%rax), %rcx
	movq	$0, -32(%rax)
	movq	%rcx, -32(%rdx)
	leaq	-24(%rax), %rcx
	movq	$4, -24(%rax)
	movq	%rcx, -24(%rdx)
	leaq	-16(%rax), %rcx
	movq	$1, -16(%rax)
	movq	%rcx, -16(%rdx)
	movl	$1, -8(%rax)
	addq	$-8, %rax
	movq	%rax, -8(%rdx)
	movq	kernels_module(%rip), %rdi
	movq	%r15, %rsi
	callq	mgpuModuleGetFunction@PLT
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$4, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$6
	pushq	$0
	pushq	%r12
	pushq	%r13
	pushq	$0
	pushq	$1
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	movq	%rsp, %rax
	leaq	-48(%rax), %rcx
	movq	%rcx, %rsp
	movq	%rsp, %rdx
	leaq	-48(%rdx), %r12
	movq	%r12, %rsp
	movq	%r14, -48(%rax)
	movq	%rcx, -48(%rdx)
	leaq	-40(%rax), %rcx
	movq	%r14, -40(%rax)
	movq	%rcx, -40(%rdx)
	leaq	-32(%rax), %rcx
	movq	$0, -32(%rax)
	movq	%rcx, -32(%rdx)
	leaq	-24(%rax), %rcx
	movq	$4, -24(%rax)
	movq	%rcx, -24(%rdx)
	movq	$1, -16(%rax)
	addq	$-16, %rax
	movq	%rax, -16(%rdx)
	movq	kernels_module(%rip), %rdi
	leaq	.Lkernels_double_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$4, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$5
	pushq	$0
	pushq	%r12
	pushq	%r13
	pushq	$0
	pushq	$1
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	movq	%rsp, %rax
	leaq	-48(%rax), %rcx
	movq	%rcx, %rsp
	movq	%rsp, %rdx
	leaq	-48(%rdx), %r12
	movq	%r12, %rsp
	movq	%r14, -48(%rax)
	movq	%rcx, -48(%rdx)
	leaq	-40(%rax), %rcx
	movq	%r14, -40(%rax)
	movq	%rcx, -40(%rdx)
	leaq	-32(%rax), %rcx
	movq	$0, -32(%rax)
	movq	%rcx, -32(%rdx)
	leaq	-24(%rax), %rcx
	movq	$4, -24(%rax)
	movq	%rcx, -24(%rdx)
	leaq	-16(%rax), %rcx
	movq	$1, -16(%rax)
	movq	%rcx, -16(%rdx)
	movl	$-1, -8(%rax)
	addq	$-8, %rax
	movq	%rax, -8(%rdx)
	movq	kernels_module(%rip), %rdi
	movq	%r15, %rsi
	callq	mgpuModuleGetFunction@PLT
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$4, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$6
	pushq	$0
	pushq	%r12
	pushq	%r13
	pushq	$0
	pushq	$1
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	movq	%r13, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r13, %rdi
	callq	mgpuStreamDestroy@PLT
	decq	%rbx
	jne	.LBB0_1
# %bb.2:
	movups	(%r14), %xmm0
	movq	-48(%rbp), %rbx                 # 8-byte Reload
	movups	%xmm0, (%rbx)
	movq	%rsp, %rax
	leaq	-48(%rax), %rsi
	movq	%rsi, %rsp
	movq	%rbx, -48(%rax)
	movq	%rbx, -40(%rax)
	movq	$0, -32(%rax)
	movq	$4, -24(%rax)
	movq	$1, -16(%rax)
	movl	$1, %edi
	callq	printMemrefI32@PLT
	movq	%rbx, %rdi
	callq	free@PLT
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
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\tadd\n\n.visible .entry add(\n\t.param .u64 .ptr .align 1 add_param_0,\n\t.param .u64 .ptr .align 1 add_param_1,\n\t.param .u64 add_param_2,\n\t.param .u64 add_param_3,\n\t.param .u64 add_param_4,\n\t.param .u32 add_param_5\n)\n{\n\t.reg .b32 \t%r<5>;\n\t.reg .b64 \t%rd<5>;\n\n\tld.param.b64 \t%rd1, [add_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.b32 \t%r2, [%rd4];\n\tld.param.b32 \t%r3, [add_param_5];\n\tadd.s32 \t%r4, %r2, %r3;\n\tst.global.b32 \t[%rd4], %r4;\n\tret;\n\n}\n\t// .globl\tdouble\n.visible .entry double(\n\t.param .u64 .ptr .align 1 double_param_0,\n\t.param .u64 .ptr .align 1 double_param_1,\n\t.param .u64 double_param_2,\n\t.param .u64 double_param_3,\n\t.param .u64 double_param_4\n)\n{\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<5>;\n\n\tld.param.b64 \t%rd1, [double_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.b32 \t%r2, [%rd4];\n\tshl.b32 \t%r3, %r2, 1;\n\tst.global.b32 \t[%rd4], %r3;\n\tret;\n\n}\n"
	.size	kernels_binary, 1129

	.type	kernels_module,@object          # @kernels_module
	.local	kernels_module
	.comm	kernels_module,8,8
	.section	.init_array.123,"aw",@init_array
	.p2align	3, 0x0
	.quad	kernels_load
	.section	.fini_array.123,"aw",@fini_array
	.p2align	3, 0x0
	.quad	kernels_unload
	.type	.Lkernels_add_name,@object      # @kernels_add_name
	.section	.rodata.str1.1,"aMS",@progbits,1
.Lkernels_add_name:
	.asciz	"add"
	.size	.Lkernels_add_name, 4

	.type	.Lkernels_double_name,@object   # @kernels_double_name
.Lkernels_double_name:
	.asciz	"double"
	.size	.Lkernels_double_name, 7

	.section	".note.GNU-stack","",@progbits

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
	subq	$280, %rsp                      # imm = 0x118
	.cfi_def_cfa_offset 336
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	.cfi_offset %rbp, -16
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r14
	movl	$32, %edi
	movq	%rax, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %rbx
	movl	$8, %edx
	movq	%rax, %rdi
	movl	$1065353216, %esi               # imm = 0x3F800000
	movq	%r14, %rcx
	callq	mgpuMemset32@PLT
	callq	mgpuEventCreate@PLT
	movq	%rax, %r13
	movq	%rax, %rdi
	movq	%r14, %rsi
	callq	mgpuEventRecord@PLT
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r12
	movl	$32, %edi
	movq	%rax, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r14
	movl	$8, %edx
	movq	%rax, %rdi
	movl	$1073741824, %esi               # imm = 0x40000000
	movq	%r12, %rcx
	callq	mgpuMemset32@PLT
	movl	$32, %edi
	movq	%r12, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r15
	callq	mgpuEventCreate@PLT
	movq	%rax, %rbp
	movq	%rax, %rdi
	movq	%r12, %rsi
	callq	mgpuEventRecord@PLT
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r12
	movq	%rax, %rdi
	movq	%r13, %rsi
	callq	mgpuStreamWaitEvent@PLT
	movq	%r12, %rdi
	movq	%rbp, %rsi
	callq	mgpuStreamWaitEvent@PLT
	movq	%r13, %rdi
	callq	mgpuEventDestroy@PLT
	movq	%rbp, %rdi
	callq	mgpuEventDestroy@PLT
	movq	%rbx, (%rsp)
	movq	%rsp, %rax
	movq	%rax, 160(%rsp)
	leaq	8(%rsp), %rax
	movq	%rbx, 8(%rsp)
	movq	%rax, 168(%rsp)
	leaq	16(%rsp), %rax
	movq	$0, 16(%rsp)
	movq	%rax, 176(%rsp)
	leaq	24(%rsp), %rax
	movq	$8, 24(%rsp)
	movq	%rax, 184(%rsp)
	leaq	32(%rsp), %rax
	movq	$1, 32(%rsp)
	movq	%rax, 192(%rsp)
	leaq	40(%rsp), %rax
	movq	%r14, 40(%rsp)
	movq	%rax, 200(%rsp)
	leaq	48(%rsp), %rax
	movq	%r14, 48(%rsp)
	movq	%rax, 208(%rsp)
	leaq	56(%rsp), %rax
	movq	$0, 56(%rsp)
	movq	%rax, 216(%rsp)
	leaq	64(%rsp), %rax
	movq	$8, 64(%rsp)
	movq	%rax, 224(%rsp)
	leaq	72(%rsp), %rax
	movq	$1, 72(%rsp)
	movq	%rax, 232(%rsp)
	leaq	80(%rsp), %rax
	movq	%r15, 80(%rsp)
	movq	%rax, 240(%rsp)
	leaq	88(%rsp), %rax
	movq	%r15, 88(%rsp)
	movq	%rax, 248(%rsp)
	leaq	96(%rsp), %rax
	movq	$0, 96(%rsp)
	movq	%rax, 256(%rsp)
	leaq	104(%rsp), %rax
	movq	$8, 104(%rsp)
	movq	%rax, 264(%rsp)
	leaq	112(%rsp), %rax
	movq	$1, 112(%rsp)
	movq	%rax, 272(%rsp)
	movq	kernels_module(%rip), %rdi
	leaq	.Lkernels_add_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	leaq	160(%rsp), %r10
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$8, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$15
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%r10
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
	movl	$32, %edi
	callq	malloc@PLT
	movq	%rax, %r13
	movl	$32, %edx
	movq	%rax, %rdi
	movq	%r15, %rsi
	movq	%r12, %rcx
	callq	mgpuMemcpy@PLT
	movq	%rbx, %rdi
	movq	%r12, %rsi
	callq	mgpuMemFree@PLT
	movq	%r14, %rdi
	movq	%r12, %rsi
	callq	mgpuMemFree@PLT
	movq	%r15, %rdi
	movq	%r12, %rsi
	callq	mgpuMemFree@PLT
	movq	%r12, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r12, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	%r13, 120(%rsp)
	movq	%r13, 128(%rsp)
	movq	$0, 136(%rsp)
	movq	$8, 144(%rsp)
	movq	$1, 152(%rsp)
	leaq	120(%rsp), %rsi
	movl	$1, %edi
	callq	printMemrefF32@PLT
	movq	%r13, %rdi
	callq	free@PLT
	xorl	%eax, %eax
	addq	$280, %rsp                      # imm = 0x118
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
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\tadd\n\n.visible .entry add(\n\t.param .u64 .ptr .align 1 add_param_0,\n\t.param .u64 .ptr .align 1 add_param_1,\n\t.param .u64 add_param_2,\n\t.param .u64 add_param_3,\n\t.param .u64 add_param_4,\n\t.param .u64 .ptr .align 1 add_param_5,\n\t.param .u64 .ptr .align 1 add_param_6,\n\t.param .u64 add_param_7,\n\t.param .u64 add_param_8,\n\t.param .u64 add_param_9,\n\t.param .u64 .ptr .align 1 add_param_10,\n\t.param .u64 .ptr .align 1 add_param_11,\n\t.param .u64 add_param_12,\n\t.param .u64 add_param_13,\n\t.param .u64 add_param_14\n)\n{\n\t.reg .b32 \t%r<5>;\n\t.reg .b64 \t%rd<11>;\n\n\tld.param.b64 \t%rd1, [add_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.param.b64 \t%rd3, [add_param_6];\n\tcvta.to.global.u64 \t%rd4, %rd3;\n\tld.param.b64 \t%rd5, [add_param_11];\n\tcvta.to.global.u64 \t%rd6, %rd5;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd7, %r1, 4;\n\tadd.s64 \t%rd8, %rd2, %rd7;\n\tld.global.b32 \t%r2, [%rd8];\n\tadd.s64 \t%rd9, %rd4, %rd7;\n\tld.global.b32 \t%r3, [%rd9];\n\tadd.rn.f32 \t%r4, %r2, %r3;\n\tadd.s64 \t%rd10, %rd6, %rd7;\n\tst.global.b32 \t[%rd10], %r4;\n\tret;\n\n}\n"
	.size	kernels_binary, 1119

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

	.section	".note.GNU-stack","",@progbits

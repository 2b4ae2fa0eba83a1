	.file	"LLVMDialectModule"
	.text
	.globl	main                            # -- Begin function main
	.p2align	4
	.type	main,@function
main:                                   # @main
	.cfi_startproc
# %bb.0:
	pushq	%r15
	.cfi_def_cfa_offset 16
	pushq	%r14
	.cfi_def_cfa_offset 24
	pushq	%rbx
	.cfi_def_cfa_offset 32
	subq	$384, %rsp                      # imm = 0x180
	.cfi_def_cfa_offset 416
	.cfi_offset %rbx, -32
	.cfi_offset %r14, -24
	.cfi_offset %r15, -16
	xorl	%edi, %edi
	callq	mgpuSetDefaultDevice@PLT
	movl	$12, %edi
	xorl	%esi, %esi
	movl	$1, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %rbx
	movl	$0, (%rax)
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r14
	movq	%rbx, 120(%rsp)
	leaq	120(%rsp), %rax
	movq	%rax, 328(%rsp)
	leaq	128(%rsp), %rax
	movq	%rbx, 128(%rsp)
	movq	%rax, 336(%rsp)
	leaq	136(%rsp), %rax
	movq	$0, 136(%rsp)
	movq	%rax, 344(%rsp)
	leaq	144(%rsp), %rax
	movq	$3, 144(%rsp)
	movq	%rax, 352(%rsp)
	leaq	152(%rsp), %rax
	movq	$1, 152(%rsp)
	movq	%rax, 360(%rsp)
	leaq	160(%rsp), %rax
	movq	$0, 160(%rsp)
	movq	%rax, 368(%rsp)
	leaq	168(%rsp), %rax
	movl	$1, 168(%rsp)
	movq	%rax, 376(%rsp)
	movq	kernels_module(%rip), %rdi
	leaq	.Lkernels_step_name(%rip), %r15
	movq	%r15, %rsi
	callq	mgpuModuleGetFunction@PLT
	leaq	328(%rsp), %r10
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$1, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$7
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	$1
	.cfi_adjust_cfa_offset 8
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	.cfi_adjust_cfa_offset -48
	movq	%rbx, 64(%rsp)
	leaq	64(%rsp), %rax
	movq	%rax, 272(%rsp)
	leaq	72(%rsp), %rax
	movq	%rbx, 72(%rsp)
	movq	%rax, 280(%rsp)
	leaq	80(%rsp), %rax
	movq	$0, 80(%rsp)
	movq	%rax, 288(%rsp)
	leaq	88(%rsp), %rax
	movq	$3, 88(%rsp)
	movq	%rax, 296(%rsp)
	leaq	96(%rsp), %rax
	movq	$1, 96(%rsp)
	movq	%rax, 304(%rsp)
	leaq	104(%rsp), %rax
	movq	$1, 104(%rsp)
	movq	%rax, 312(%rsp)
	leaq	112(%rsp), %rax
	movl	$10, 112(%rsp)
	movq	%rax, 320(%rsp)
	movq	kernels_module(%rip), %rdi
	movq	%r15, %rsi
	callq	mgpuModuleGetFunction@PLT
	leaq	272(%rsp), %r10
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$1, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$7
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	$1
	.cfi_adjust_cfa_offset 8
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	.cfi_adjust_cfa_offset -48
	movq	%rbx, 8(%rsp)
	leaq	8(%rsp), %rax
	movq	%rax, 216(%rsp)
	leaq	16(%rsp), %rax
	movq	%rbx, 16(%rsp)
	movq	%rax, 224(%rsp)
	leaq	24(%rsp), %rax
	movq	$0, 24(%rsp)
	movq	%rax, 232(%rsp)
	leaq	32(%rsp), %rax
	movq	$3, 32(%rsp)
	movq	%rax, 240(%rsp)
	leaq	40(%rsp), %rax
	movq	$1, 40(%rsp)
	movq	%rax, 248(%rsp)
	leaq	48(%rsp), %rax
	movq	$2, 48(%rsp)
	movq	%rax, 256(%rsp)
	leaq	56(%rsp), %rax
	movl	$100, 56(%rsp)
	movq	%rax, 264(%rsp)
	movq	kernels_module(%rip), %rdi
	movq	%r15, %rsi
	callq	mgpuModuleGetFunction@PLT
	leaq	216(%rsp), %r10
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$1, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$7
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	$1
	.cfi_adjust_cfa_offset 8
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	.cfi_adjust_cfa_offset -48
	movq	%r14, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r14, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	%r14, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r14, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	%rbx, 176(%rsp)
	movq	%rbx, 184(%rsp)
	movq	$0, 192(%rsp)
	movq	$3, 200(%rsp)
	movq	$1, 208(%rsp)
	leaq	176(%rsp), %rsi
	movl	$1, %edi
	callq	printMemrefI32@PLT
	xorl	%eax, %eax
	addq	$384, %rsp                      # imm = 0x180
	.cfi_def_cfa_offset 32
	popq	%rbx
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
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\tstep\n\n.visible .entry step(\n\t.param .u64 .ptr .align 1 step_param_0,\n\t.param .u64 .ptr .align 1 step_param_1,\n\t.param .u64 step_param_2,\n\t.param .u64 step_param_3,\n\t.param .u64 step_param_4,\n\t.param .u64 step_param_5,\n\t.param .u32 step_param_6\n)\n{\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<6>;\n\n\tld.param.b64 \t%rd1, [step_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.global.b32 \t%r1, [%rd2];\n\tld.param.b32 \t%r2, [step_param_6];\n\tadd.s32 \t%r3, %r1, %r2;\n\tld.param.b64 \t%rd3, [step_param_5];\n\tshl.b64 \t%rd4, %rd3, 2;\n\tadd.s64 \t%rd5, %rd2, %rd4;\n\tst.global.b32 \t[%rd5], %r3;\n\tret;\n\n}\n"
	.size	kernels_binary, 676

	.type	kernels_module,@object          # @kernels_module
	.local	kernels_module
	.comm	kernels_module,8,8
	.section	.init_array.123,"aw",@init_array
	.p2align	3, 0x0
	.quad	kernels_load
	.section	.fini_array.123,"aw",@fini_array
	.p2align	3, 0x0
	.quad	kernels_unload
	.type	.Lkernels_step_name,@object     # @kernels_step_name
	.section	.rodata.str1.1,"aMS",@progbits,1
.Lkernels_step_name:
	.asciz	"step"
	.size	.Lkernels_step_name, 5

	.section	".note.GNU-stack","",@progbits

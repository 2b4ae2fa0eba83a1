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
	subq	$240, %rsp
	.cfi_def_cfa_offset 272
	.cfi_offset %rbx, -32
	.cfi_offset %r14, -24
	.cfi_offset %r15, -16
	movl	$64, %edi
	xorl	%esi, %esi
	movl	$1, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %rbx
	movq	%rax, 64(%rsp)
	leaq	64(%rsp), %rax
	movq	%rax, 144(%rsp)
	leaq	72(%rsp), %rax
	movq	%rbx, 72(%rsp)
	movq	%rax, 152(%rsp)
	leaq	80(%rsp), %rax
	movq	$0, 80(%rsp)
	movq	%rax, 160(%rsp)
	leaq	88(%rsp), %rax
	movq	$16, 88(%rsp)
	movq	%rax, 168(%rsp)
	leaq	96(%rsp), %rax
	movq	$1, 96(%rsp)
	movq	%rax, 176(%rsp)
	movq	producer_module(%rip), %rdi
	leaq	.Lproducer_iota_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	movq	%rax, %r14
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r15
	leaq	144(%rsp), %rax
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$16, %r8d
	movl	$1, %r9d
	movq	%r14, %rdi
	pushq	$5
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%rax
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
	movq	%rbx, 8(%rsp)
	leaq	8(%rsp), %rax
	movq	%rax, 184(%rsp)
	leaq	16(%rsp), %rax
	movq	%rbx, 16(%rsp)
	movq	%rax, 192(%rsp)
	leaq	24(%rsp), %rax
	movq	$0, 24(%rsp)
	movq	%rax, 200(%rsp)
	leaq	32(%rsp), %rax
	movq	$16, 32(%rsp)
	movq	%rax, 208(%rsp)
	leaq	40(%rsp), %rax
	movq	$1, 40(%rsp)
	movq	%rax, 216(%rsp)
	leaq	48(%rsp), %rax
	movl	$1077936128, 48(%rsp)           # imm = 0x40400000
	movq	%rax, 224(%rsp)
	leaq	56(%rsp), %rax
	movq	$1, 56(%rsp)
	movq	%rax, 232(%rsp)
	movq	consumer_module(%rip), %rdi
	leaq	.Lconsumer_scale_offset_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	movq	%rax, %r14
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r15
	leaq	184(%rsp), %rax
	movl	$1, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$16, %r8d
	movl	$1, %r9d
	movq	%r14, %rdi
	pushq	$7
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%rax
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
	movq	%rbx, 104(%rsp)
	movq	%rbx, 112(%rsp)
	movq	$0, 120(%rsp)
	movq	$16, 128(%rsp)
	movq	$1, 136(%rsp)
	leaq	104(%rsp), %rsi
	movl	$1, %edi
	callq	printMemrefF32@PLT
	xorl	%eax, %eax
	addq	$240, %rsp
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
	.p2align	4                               # -- Begin function producer_load
	.type	producer_load,@function
producer_load:                          # @producer_load
	.cfi_startproc
# %bb.0:                                # %entry
	pushq	%rax
	.cfi_def_cfa_offset 16
	leaq	producer_binary(%rip), %rdi
	movl	$2, %esi
	callq	mgpuModuleLoadJIT@PLT
	movq	%rax, producer_module(%rip)
	popq	%rax
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end1:
	.size	producer_load, .Lfunc_end1-producer_load
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function producer_unload
	.type	producer_unload,@function
producer_unload:                        # @producer_unload
	.cfi_startproc
# %bb.0:                                # %entry
	movq	producer_module(%rip), %rdi
	jmp	mgpuModuleUnload@PLT            # TAILCALL
.Lfunc_end2:
	.size	producer_unload, .Lfunc_end2-producer_unload
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function consumer_load
	.type	consumer_load,@function
consumer_load:                          # @consumer_load
	.cfi_startproc
# %bb.0:                                # %entry
	pushq	%rax
	.cfi_def_cfa_offset 16
	leaq	consumer_binary(%rip), %rdi
	movl	$2, %esi
	callq	mgpuModuleLoadJIT@PLT
	movq	%rax, consumer_module(%rip)
	popq	%rax
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end3:
	.size	consumer_load, .Lfunc_end3-consumer_load
	.cfi_endproc
                                        # -- End function
	.p2align	4                               # -- Begin function consumer_unload
	.type	consumer_unload,@function
consumer_unload:                        # @consumer_unload
	.cfi_startproc
# %bb.0:                                # %entry
	movq	consumer_module(%rip), %rdi
	jmp	mgpuModuleUnload@PLT            # TAILCALL
.Lfunc_end4:
	.size	consumer_unload, .Lfunc_end4-consumer_unload
	.cfi_endproc
                                        # -- End function
	.type	producer_binary,@object         # @producer_binary
	.section	.rodata,"a",@progbits
	.p2align	3, 0x0
producer_binary:
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\tiota\n\n.visible .entry iota(\n\t.param .u64 .ptr .align 1 iota_param_0,\n\t.param .u64 .ptr .align 1 iota_param_1,\n\t.param .u64 iota_param_2,\n\t.param .u64 iota_param_3,\n\t.param .u64 iota_param_4\n)\n{\n\t.reg .b32 \t%r<3>;\n\t.reg .b64 \t%rd<5>;\n\n\tld.param.b64 \t%rd1, [iota_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\tcvt.rn.f32.u32 \t%r2, %r1;\n\tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tst.global.b32 \t[%rd4], %r2;\n\tret;\n\n}\n"
	.size	producer_binary, 549

	.type	producer_module,@object         # @producer_module
	.local	producer_module
	.comm	producer_module,8,8
	.type	consumer_binary,@object         # @consumer_binary
	.p2align	3, 0x0
consumer_binary:
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\tscale_offset\n\n.visible .entry scale_offset(\n\t.param .u64 .ptr .align 1 scale_offset_param_0,\n\t.param .u64 .ptr .align 1 scale_offset_param_1,\n\t.param .u64 scale_offset_param_2,\n\t.param .u64 scale_offset_param_3,\n\t.param .u64 scale_offset_param_4,\n\t.param .f32 scale_offset_param_5,\n\t.param .u64 scale_offset_param_6\n)\n{\n\t.reg .b32 \t%r<8>;\n\t.reg .b64 \t%rd<5>;\n\n\tld.param.b64 \t%rd1, [scale_offset_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tld.global.b32 \t%r2, [%rd4];\n\tld.param.b32 \t%r3, [scale_offset_param_5];\n\tld.param.b32 \t%r4, [scale_offset_param_6];\n\tcvt.rn.f32.s32 \t%r5, %r4;\n\tmul.rn.f32 \t%r6, %r3, %r2;\n\tadd.rn.f32 \t%r7, %r6, %r5;\n\tst.global.b32 \t[%rd4], %r7;\n\tret;\n\n}\n"
	.size	consumer_binary, 856

	.type	consumer_module,@object         # @consumer_module
	.local	consumer_module
	.comm	consumer_module,8,8
	.section	.init_array.123,"aw",@init_array
	.p2align	3, 0x0
	.quad	producer_load
	.quad	consumer_load
	.section	.fini_array.123,"aw",@fini_array
	.p2align	3, 0x0
	.quad	producer_unload
	.quad	consumer_unload
	.type	.Lproducer_iota_name,@object    # @producer_iota_name
	.section	.rodata.str1.1,"aMS",@progbits,1
.Lproducer_iota_name:
	.asciz	"iota"
	.size	.Lproducer_iota_name, 5

	.type	.Lconsumer_scale_offset_name,@object # @consumer_scale_offset_name
.Lconsumer_scale_offset_name:
	.asciz	"scale_offset"
	.size	.Lconsumer_scale_offset_name, 13

	.section	".note.GNU-stack","",@progbits

	.file	"LLVMDialectModule"
	.section	.rodata.cst16,"aM",@progbits,16
	.p2align	4, 0x0                          # -- Begin function main
.LCPI0_0:
	.long	0                               # 0x0
	.long	1                               # 0x1
	.long	2                               # 0x2
	.long	3                               # 0x3
.LCPI0_1:
	.long	4                               # 0x4
	.long	5                               # 0x5
	.long	6                               # 0x6
	.long	7                               # 0x7
.LCPI0_2:
	.long	8                               # 0x8
	.long	9                               # 0x9
	.long	10                              # 0xa
	.long	11                              # 0xb
.LCPI0_3:
	.long	12                              # 0xc
	.long	13                              # 0xd
	.long	14                              # 0xe
	.long	15                              # 0xf
.LCPI0_4:
	.long	16                              # 0x10
	.long	17                              # 0x11
	.long	18                              # 0x12
	.long	19                              # 0x13
.LCPI0_5:
	.long	20                              # 0x14
	.long	21                              # 0x15
	.long	22                              # 0x16
	.long	23                              # 0x17
.LCPI0_6:
	.long	24                              # 0x18
	.long	25                              # 0x19
	.long	26                              # 0x1a
	.long	27                              # 0x1b
.LCPI0_7:
	.long	28                              # 0x1c
	.long	29                              # 0x1d
	.long	30                              # 0x1e
	.long	31                              # 0x1f
.LCPI0_8:
	.long	32                              # 0x20
	.long	33                              # 0x21
	.long	34                              # 0x22
	.long	35                              # 0x23
.LCPI0_9:
	.long	36                              # 0x24
	.long	37                              # 0x25
	.long	38                              # 0x26
	.long	39                              # 0x27
.LCPI0_10:
	.long	40                              # 0x28
	.long	41                              # 0x29
	.long	42                              # 0x2a
	.long	43                              # 0x2b
.LCPI0_11:
	.long	44                              # 0x2c
	.long	45                              # 0x2d
	.long	46                              # 0x2e
	.long	47                              # 0x2f
.LCPI0_12:
	.long	48                              # 0x30
	.long	49                              # 0x31
	.long	50                              # 0x32
	.long	51                              # 0x33
.LCPI0_13:
	.long	52                              # 0x34
	.long	53                              # 0x35
	.long	54                              # 0x36
	.long	55                              # 0x37
.LCPI0_14:
	.long	56                              # 0x38
	.long	57                              # 0x39
	.long	58                              # 0x3a
	.long	59                              # 0x3b
.LCPI0_15:
	.long	60                              # 0x3c
	.long	61                              # 0x3d
	.long	62                              # 0x3e
	.long	63                              # 0x3f
	.text
	.globl	main
	.p2align	4
	.type	main,@function
main:                                   # @main
	.cfi_startproc
# %bb.0:                                # %vector.ph
	pushq	%r15
	.cfi_def_cfa_offset 16
	pushq	%r14
	.cfi_def_cfa_offset 24
	pushq	%rbx
	.cfi_def_cfa_offset 32
	subq	$208, %rsp
	.cfi_def_cfa_offset 240
	.cfi_offset %rbx, -32
	.cfi_offset %r14, -24
	.cfi_offset %r15, -16
	movl	$256, %edi                      # imm = 0x100
	callq	malloc@PLT
	movq	%rax, %rbx
	movaps	.LCPI0_0(%rip), %xmm0           # xmm0 = [0,1,2,3]
	movups	%xmm0, (%rax)
	movaps	.LCPI0_1(%rip), %xmm0           # xmm0 = [4,5,6,7]
	movups	%xmm0, 16(%rax)
	movaps	.LCPI0_2(%rip), %xmm0           # xmm0 = [8,9,10,11]
	movups	%xmm0, 32(%rax)
	movaps	.LCPI0_3(%rip), %xmm0           # xmm0 = [12,13,14,15]
	movups	%xmm0, 48(%rax)
	movaps	.LCPI0_4(%rip), %xmm0           # xmm0 = [16,17,18,19]
	movups	%xmm0, 64(%rax)
	movaps	.LCPI0_5(%rip), %xmm0           # xmm0 = [20,21,22,23]
	movups	%xmm0, 80(%rax)
	movaps	.LCPI0_6(%rip), %xmm0           # xmm0 = [24,25,26,27]
	movups	%xmm0, 96(%rax)
	movaps	.LCPI0_7(%rip), %xmm0           # xmm0 = [28,29,30,31]
	movups	%xmm0, 112(%rax)
	movaps	.LCPI0_8(%rip), %xmm0           # xmm0 = [32,33,34,35]
	movups	%xmm0, 128(%rax)
	movaps	.LCPI0_9(%rip), %xmm0           # xmm0 = [36,37,38,39]
	movups	%xmm0, 144(%rax)
	movaps	.LCPI0_10(%rip), %xmm0          # xmm0 = [40,41,42,43]
	movups	%xmm0, 160(%rax)
	movaps	.LCPI0_11(%rip), %xmm0          # xmm0 = [44,45,46,47]
	movups	%xmm0, 176(%rax)
	movaps	.LCPI0_12(%rip), %xmm0          # xmm0 = [48,49,50,51]
	movups	%xmm0, 192(%rax)
	movaps	.LCPI0_13(%rip), %xmm0          # xmm0 = [52,53,54,55]
	movups	%xmm0, 208(%rax)
	movaps	.LCPI0_14(%rip), %xmm0          # xmm0 = [56,57,58,59]
	movups	%xmm0, 224(%rax)
	movaps	.LCPI0_15(%rip), %xmm0          # xmm0 = [60,61,62,63]
	movups	%xmm0, 240(%rax)
	callq	mgpuStreamCreate@PLT
	movq	%rax, %r14
	movl	$256, %edi                      # imm = 0x100
	movq	%rax, %rsi
	xorl	%edx, %edx
	callq	mgpuMemAlloc@PLT
	movq	%rax, %r15
	movl	$256, %edx                      # imm = 0x100
	movq	%rax, %rdi
	movq	%rbx, %rsi
	movq	%r14, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r15, 48(%rsp)
	leaq	48(%rsp), %rax
	movq	%rax, 168(%rsp)
	leaq	56(%rsp), %rax
	movq	%r15, 56(%rsp)
	movq	%rax, 176(%rsp)
	leaq	64(%rsp), %rax
	movq	$0, 64(%rsp)
	movq	%rax, 184(%rsp)
	leaq	72(%rsp), %rax
	movq	$64, 72(%rsp)
	movq	%rax, 192(%rsp)
	leaq	80(%rsp), %rax
	movq	$1, 80(%rsp)
	movq	%rax, 200(%rsp)
	movq	kernels_module(%rip), %rdi
	leaq	.Lkernels_reverse_block_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	leaq	168(%rsp), %r10
	movl	$2, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$32, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$5
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
	movq	%r15, 8(%rsp)
	leaq	8(%rsp), %rax
	movq	%rax, 128(%rsp)
	leaq	16(%rsp), %rax
	movq	%r15, 16(%rsp)
	movq	%rax, 136(%rsp)
	leaq	24(%rsp), %rax
	movq	$0, 24(%rsp)
	movq	%rax, 144(%rsp)
	leaq	32(%rsp), %rax
	movq	$64, 32(%rsp)
	movq	%rax, 152(%rsp)
	leaq	40(%rsp), %rax
	movq	$1, 40(%rsp)
	movq	%rax, 160(%rsp)
	movq	kernels_module(%rip), %rdi
	leaq	.Lkernels_rotate_block_name(%rip), %rsi
	callq	mgpuModuleGetFunction@PLT
	leaq	128(%rsp), %r10
	movl	$2, %esi
	movl	$1, %edx
	movl	$1, %ecx
	movl	$32, %r8d
	movl	$1, %r9d
	movq	%rax, %rdi
	pushq	$5
	.cfi_adjust_cfa_offset 8
	pushq	$0
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	$128
	.cfi_adjust_cfa_offset 8
	pushq	$1
	.cfi_adjust_cfa_offset 8
	callq	mgpuLaunchKernel@PLT
	addq	$48, %rsp
	.cfi_adjust_cfa_offset -48
	movl	$256, %edx                      # imm = 0x100
	movq	%rbx, %rdi
	movq	%r15, %rsi
	movq	%r14, %rcx
	callq	mgpuMemcpy@PLT
	movq	%r15, %rdi
	movq	%r14, %rsi
	callq	mgpuMemFree@PLT
	movq	%r14, %rdi
	callq	mgpuStreamSynchronize@PLT
	movq	%r14, %rdi
	callq	mgpuStreamDestroy@PLT
	movq	%rbx, 88(%rsp)
	movq	%rbx, 96(%rsp)
	movq	$0, 104(%rsp)
	movq	$64, 112(%rsp)
	movq	$1, 120(%rsp)
	leaq	88(%rsp), %rsi
	movl	$1, %edi
	callq	printMemrefI32@PLT
	xorl	%eax, %eax
	addq	$208, %rsp
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
	.asciz	"//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.0\n.target sm_80\n.address_size 64\n\n\t// .globl\treverse_block\n// __dynamic_shmem__0 has been demoted\n// __wg_reverse_block_0 has been demoted\n\n.visible .entry reverse_block(\n\t.param .u64 .ptr .align 1 reverse_block_param_0,\n\t.param .u64 .ptr .align 1 reverse_block_param_1,\n\t.param .u64 reverse_block_param_2,\n\t.param .u64 reverse_block_param_3,\n\t.param .u64 reverse_block_param_4\n)\n{\n\t.reg .b32 \t%r<5>;\n\t.reg .b64 \t%rd<10>;\n\t// demoted variable\n\t.shared .align 4 .b8 __wg_reverse_block_0[128];\n\tld.param.b64 \t%rd1, [reverse_block_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %ctaid.x;\n\tmov.u32 \t%r2, %tid.x;\n\tmul.wide.u32 \t%rd3, %r1, 128;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n\tmul.wide.u32 \t%rd5, %r2, 4;\n\tadd.s64 \t%rd6, %rd4, %rd5;\n\tld.global.b32 \t%r3, [%rd6];\n\tmov.b64 \t%rd7, __wg_reverse_block_0;\n\tadd.s64 \t%rd8, %rd7, %rd5;\n\tst.shared.b32 \t[%rd8], %r3;\n\tbar.sync \t0;\n\tsub.s64 \t%rd9, %rd7, %rd5;\n\tld.shared.b32 \t%r4, [%rd9+124];\n\tst.global.b32 \t[%rd6], %r4;\n\tret;\n\n}\n\t// .globl\trotate_block\n.visible .entry rotate_block(\n\t.param .u64 .ptr .align 1 rotate_block_param_0,\n\t.param .u64 .ptr .align 1 rotate_block_param_1,\n\t.param .u64 rotate_block_param_2,\n\t.param .u64 rotate_block_param_3,\n\t.param .u64 rotate_block_param_4\n)\n{\n\t.reg .b32 \t%r<5>;\n\t.reg .b64 \t%rd<14>;\n\t// demoted variable\n\t.shared .align 16 .b8 __dynamic_shmem__0;\n\tld.param.b64 \t%rd1, [rotate_block_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %ctaid.x;\n\tmov.u32 \t%r2, %tid.x;\n\tcvt.u64.u32 \t%rd3, %r2;\n\tmul.wide.u32 \t%rd4, %r1, 128;\n\tadd.s64 \t%rd5, %rd2, %rd4;\n\tmul.wide.u32 \t%rd6, %r2, 4;\n\tadd.s64 \t%rd7, %rd5, %rd6;\n\tld.global.b32 \t%r3, [%rd7];\n\tmov.b64 \t%rd8, __dynamic_shmem__0;\n\tadd.s64 \t%rd9, %rd8, %rd6;\n\tst.shared.b32 \t[%rd9], %r3;\n\tbar.sync \t0;\n\tadd.s64 \t%rd10, %rd3, 1;\n\tand.b64 \t%rd11, %rd10, 31;\n\tshl.b64 \t%rd12, %rd11, 2;\n\tadd.s64 \t%rd13, %rd8, %rd12;\n\tld.shared.b32 \t%r4, [%rd13];\n\tst.global.b32 \t[%rd7], %r4;\n\tret;\n\n}\n"
	.size	kernels_binary, 1973

	.type	kernels_module,@object          # @kernels_module
	.local	kernels_module
	.comm	kernels_module,8,8
	.section	.init_array.123,"aw",@init_array
	.p2align	3, 0x0
	.quad	kernels_load
	.section	.fini_array.123,"aw",@fini_array
	.p2align	3, 0x0
	.quad	kernels_unload
	.type	.Lkernels_reverse_block_name,@object # @kernels_reverse_block_name
	.section	.rodata.str1.1,"aMS",@progbits,1
.Lkernels_reverse_block_name:
	.asciz	"reverse_block"
	.size	.Lkernels_reverse_block_name, 14

	.type	.Lkernels_rotate_block_name,@object # @kernels_rotate_block_name
.Lkernels_rotate_block_name:
	.asciz	"rotate_block"
	.size	.Lkernels_rotate_block_name, 13

	.section	".note.GNU-stack","",@progbits

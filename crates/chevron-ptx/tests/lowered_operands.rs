//! `lowered::Op::operands` and `Op::relocate` on decoded kernels: registers, accesses, control
//! and meetings of each instruction family, and, over every corpus file, operands that name
//! only the function's registers and that relocation moves exactly.

use std::path::Path;
use std::sync::Arc;

use chevron_ptx::interp::{DeviceMemory, Program};
use chevron_ptx::lowered::{Access, AccessKind, Flow, Inst, Meeting, Op, Space, Src};

/// The decoded instructions of kernel `k` with `body` (registers `%r<16>`, `%rd<8>`,
/// `%p<4>`), and its register count.
fn decode(body: &str) -> (Vec<Inst>, u32) {
    let text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n\
         {{ .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<8>; .shared .b32 s[32];\n{body}\nret; }}"
    );
    let module = chevron_ptx::parse(&text).expect("parses");
    let program = Program::load(&module, &Arc::new(DeviceMemory::new(0))).expect("loads");
    let kernel = program.kernel("k").unwrap();
    let (code, _) = program.decoded(&kernel).unwrap();
    (code.insts.clone(), code.num_regs)
}

fn regs(inst: &Inst) -> (Vec<u32>, Vec<u32>) {
    let operands = inst.operands();
    (operands.registers_read().collect(), operands.writes)
}

#[test]
fn memory_instructions_name_their_address_and_access() {
    let (insts, _) = decode(
        "ld.param.u64 %rd1, [p];\n\
         ld.global.u32 %r1, [%rd1+4];\n\
         st.shared.u32 [s], %r1;\n\
         atom.global.add.u32 %r2, [%rd1], %r1;",
    );
    let ld = insts[1].operands();
    assert_eq!(
        ld.accesses,
        [Access {
            space: Space::Global,
            kind: AccessKind::Load
        }]
    );
    assert_eq!(ld.reads.len(), 1, "the address register only: {ld:?}");
    assert_eq!(ld.writes.len(), 1);
    let st = insts[2].operands();
    assert_eq!(st.accesses[0].kind, AccessKind::Store);
    assert!(st.writes.is_empty());
    let atom = insts[3].operands();
    assert_eq!(
        atom.accesses[0],
        Access {
            space: Space::Global,
            kind: AccessKind::Atomic
        }
    );
    let (read, written) = regs(&insts[3]);
    assert_eq!(read.len(), 2, "address and operand: {atom:?}");
    assert_eq!(written.len(), 1);
}

#[test]
fn control_flow_and_guards() {
    let (insts, _) = decode(
        "L: setp.eq.u32 %p1, %r1, 0;\n\
         @%p1 bra L;\n\
         @!%p1 exit;\n\
         trap;",
    );
    assert_eq!(insts[1].operands().flow, Flow::Jump(vec![0]));
    assert!(insts[1].operands().guarded);
    assert_eq!(insts[1].successors(1, insts.len()), [0, 2]);
    assert_eq!(insts[2].operands().flow, Flow::Exit);
    assert_eq!(
        insts[2].successors(2, insts.len()),
        [3],
        "a guarded exit goes on"
    );
    assert!(insts[3].successors(3, insts.len()).is_empty());
    // The guard is read.
    let (read, _) = regs(&insts[1]);
    assert_eq!(read.len(), 1);
}

#[test]
fn collectives_and_barriers_are_meetings_that_read_their_operands() {
    let (insts, _) = decode(
        "mov.u32 %r1, -1;\n\
         shfl.sync.bfly.b32 %r2|%p1, %r3, 1, 31, %r1;\n\
         bar.sync 0;\n\
         barrier.cluster.arrive;\n\
         fence.sc.gpu;",
    );
    let shfl = insts[1].operands();
    assert_eq!(shfl.meets, Some(Meeting::Warp));
    let (read, written) = regs(&insts[1]);
    assert_eq!(read.len(), 2, "value and member mask: {shfl:?}");
    assert_eq!(written.len(), 2, "value and predicate: {shfl:?}");
    assert_eq!(insts[2].operands().meets, Some(Meeting::Block));
    assert_eq!(insts[3].operands().meets, Some(Meeting::Cluster));
    assert!(insts[4].operands().fence);
}

#[test]
fn carry_chains_read_and_write_the_carry_register() {
    let (insts, _) = decode("add.cc.u32 %r1, %r2, %r3;\naddc.u32 %r4, %r5, %r6;");
    let (read, first) = regs(&insts[0]);
    assert_eq!(
        (read.len(), first.len()),
        (2, 2),
        "add.cc writes the carry: {first:?}"
    );
    let carry = first[1];
    let (second, written) = regs(&insts[1]);
    assert_eq!(second.len(), 3);
    assert!(second.contains(&carry), "addc reads it: {second:?}");
    assert_eq!(written.len(), 1, "addc without .cc writes no carry");
    // Relocated once, though both read and written.
    let mut op = insts[0].op.clone();
    op.relocate(10, 0);
    assert_eq!(
        regs(&Inst { guard: None, op }).1,
        [first[0] + 10, carry + 10]
    );
}

#[test]
fn relocation_moves_registers_and_frame_offsets_but_not_the_sink() {
    let (insts, _) = decode(
        ".local .b32 v[4];\n\
         mov.u64 %rd1, v;\n\
         st.local.u32 [v+4], %r1;\n\
         setp.eq.u32 %p1, %r1, 0;",
    );
    for inst in &insts {
        let before = inst.op.operands();
        let mut op = inst.op.clone();
        op.relocate(100, 64);
        let after = op.operands();
        let moved: Vec<u32> = before.writes.iter().map(|r| r + 100).collect();
        assert_eq!(after.writes, moved, "{:?}", inst.op);
        let read = |o: &chevron_ptx::lowered::Operands| o.registers_read().collect::<Vec<_>>();
        let moved: Vec<u32> = read(&before).iter().map(|r| r + 100).collect();
        assert_eq!(read(&after), moved, "{:?}", inst.op);
    }
    // `setp` without a second predicate writes the sink, which stays the sink.
    let Op::Setp { q, .. } = &insts[2].op else {
        panic!("not a setp: {:?}", insts[2].op)
    };
    let mut op = insts[2].op.clone();
    op.relocate(100, 64);
    assert!(matches!(op, Op::Setp { q: moved, .. } if moved == *q));
    // Frame addresses move with the frame.
    let mut mov = insts[0].op.clone();
    mov.relocate(0, 64);
    match (&insts[0].op, &mov) {
        (
            Op::Mov {
                a: Src::Frame(from),
                ..
            },
            Op::Mov {
                a: Src::Frame(to), ..
            },
        ) => {
            assert_eq!(*to, from + 64)
        }
        other => panic!("expected a frame address: {other:?}"),
    }
}

/// Over every function of every corpus file: operands name only the function's registers
/// (and its carry register), and relocation moves each of them by the same amount.
#[test]
fn corpus_operands_stay_in_their_function_and_relocate_exactly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("corpus folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    assert!(!files.is_empty(), "no PTX under corpus/");
    let mut checked = 0usize;
    for file in files {
        let Ok(module) = chevron_ptx::parse_bytes(&std::fs::read(&file).unwrap()) else {
            continue;
        };
        let Ok(program) = Program::load(&module, &Arc::new(DeviceMemory::new(0))) else {
            continue;
        };
        for name in program.kernel_names() {
            let kernel = program.kernel(name).unwrap();
            let (_, functions) = program.decoded(&kernel).unwrap();
            for code in functions {
                for inst in &code.insts {
                    let operands = inst.operands();
                    for r in operands
                        .registers_read()
                        .chain(operands.writes.iter().copied())
                    {
                        assert!(r < code.num_regs, "{file:?} {}: {:?}", code.name, inst.op);
                    }
                    let mut op = inst.op.clone();
                    op.relocate(1000, 0);
                    let after = op.operands();
                    let shifted: Vec<u32> =
                        inst.op.operands().writes.iter().map(|r| r + 1000).collect();
                    assert_eq!(after.writes, shifted, "{:?}", inst.op);
                    let shifted: Vec<u32> = operands.registers_read().map(|r| r + 1000).collect();
                    let moved: Vec<u32> = after.registers_read().collect();
                    // The guard is the caller's to move (inlining negates it, too).
                    let own = moved.len();
                    assert_eq!(moved, shifted[..own], "{:?}", inst.op);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} instructions checked");
}

//! Faults on the CPU device: named by kernel and device, sticky, cancelling later work; the
//! process and the device's other streams carry on.

mod cpu_support;

use chevron::{Error, FaultKind};
use cpu_support::{device, finishes, kernel, launch, read_u32, Arg, OUT_OF_BOUNDS};

#[test]
fn a_fault_names_the_kernel_and_cancels_later_work() {
    let device = device();
    let oob = kernel(&device, OUT_OF_BOUNDS, "oob_store");
    let faulty = device.create_stream().unwrap();
    let healthy = device.create_stream().unwrap();
    let small = device.alloc(16).unwrap();
    let marker = device.alloc(4).unwrap();
    healthy.memset(marker, 0, 4, 1).unwrap();
    healthy.synchronize().unwrap();

    launch(&faulty, &oob, 1, 1, &[Arg::U64(small)]).unwrap();
    faulty.memset(marker, 0x5555_5555, 4, 1).unwrap();
    let (faulty, err) = finishes(120, move || {
        let result = faulty.synchronize();
        (faulty, result)
    });
    let Err(Error::Fault {
        kernel,
        device: where_,
        kind,
        message,
    }) = &err
    else {
        panic!("expected a fault, got {err:?}");
    };
    assert_eq!(kernel, "oob_store");
    assert_eq!(*kind, FaultKind::IllegalAddress);
    assert!(where_.starts_with("cpu:0"), "{where_}");
    assert!(message.contains("line 14"), "{message}");
    // The memset queued after the fault did not run; the device and other streams still work.
    assert_eq!(read_u32(&healthy, marker, 1).unwrap(), vec![0]);
    healthy.memset(marker, 9, 4, 1).unwrap();
    assert_eq!(read_u32(&healthy, marker, 1).unwrap(), vec![9]);
    assert!(matches!(device.synchronize(), Err(Error::Fault { .. })));
    drop(faulty);
}

#[test]
fn a_faulted_stream_stays_faulted() {
    let device = device();
    let oob = kernel(&device, OUT_OF_BOUNDS, "oob_store");
    let stream = device.create_stream().unwrap();
    let small = device.alloc(16).unwrap();
    launch(&stream, &oob, 1, 1, &[Arg::U64(small)]).unwrap();
    let stream = finishes(120, move || {
        let _ = stream.synchronize();
        stream
    });
    assert!(matches!(stream.query(), Err(Error::Fault { .. })));
    assert!(matches!(stream.synchronize(), Err(Error::Fault { .. })));
    let err = read_u32(&stream, small, 1).unwrap_err();
    assert!(matches!(err, Error::Fault { .. }), "{err}");
}

/// Warp 0 waits at barrier 0, warp 1 at barrier 1: neither barrier ever fills.
const DEADLOCK: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry split_barriers()
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<2>;

	mov.u32 	%r1, %tid.x;
	setp.lt.u32 	%p1, %r1, 32;
	@%p1 bra 	$L__first;
	bar.sync 	1;
	ret;
$L__first:
	bar.sync 	0;
	ret;
}
"#;

#[test]
fn a_block_stuck_at_a_barrier_is_a_fault_not_a_hang() {
    let device = device();
    let stuck = kernel(&device, DEADLOCK, "split_barriers");
    let stream = device.create_stream().unwrap();
    launch(&stream, &stuck, 1, 64, &[]).unwrap();
    let result = finishes(120, move || stream.synchronize());
    match result {
        Err(Error::Fault { kernel, kind, .. }) => {
            assert_eq!(kernel, "split_barriers");
            assert_eq!(kind, FaultKind::Deadlock);
        }
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// `misaligned` loads a word one byte into its buffer; `trapped` executes `trap`.
const MISALIGNED_AND_TRAP: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry misaligned(.param .u64 p)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [p];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.u32 	%r1, [%rd2+1];
	st.global.u32 	[%rd2+4], %r1;
	ret;
}

.visible .entry trapped()
{
	trap;
	ret;
}
"#;

#[test]
fn a_fault_carries_its_kind_whatever_its_message_says() {
    let device = device();
    let buffer = device.alloc(16).unwrap();
    let cases = [
        ("misaligned", vec![Arg::U64(buffer)], FaultKind::Misaligned),
        ("trapped", vec![], FaultKind::Trap),
    ];
    for (name, args, expected) in cases {
        let function = kernel(&device, MISALIGNED_AND_TRAP, name);
        let stream = device.create_stream().unwrap();
        launch(&stream, &function, 1, 1, &args).unwrap();
        match finishes(120, move || stream.synchronize()) {
            Err(Error::Fault { kind, message, .. }) => {
                assert_eq!(kind, expected, "{name}: {message}");
            }
            other => panic!("{name}: expected a fault, got {other:?}"),
        }
    }
}

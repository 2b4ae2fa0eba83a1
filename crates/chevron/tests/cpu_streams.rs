//! Streams and events of CPU devices: true concurrency, ordering across streams and devices.

mod cpu_support;

use std::sync::Arc;

use chevron::backend::{Device, Stream};
use chevron::Error;
use cpu_support::{devices, finishes, kernel, launch, read_u32, Arg, OUT_OF_BOUNDS};

/// `handshake(mine, theirs)` sets `*mine = 1` and spins until `*theirs != 0`;
/// `wait_then_write(flag, out, value)` spins until `*flag != 0`, then stores `value` at `out`.
const SPIN: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry handshake(
	.param .u64 handshake_param_0,
	.param .u64 handshake_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [handshake_param_0];
	ld.param.u64 	%rd2, [handshake_param_1];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
	mov.u32 	%r1, 1;
	st.volatile.global.u32 	[%rd3], %r1;
$L__spin:
	ld.volatile.global.u32 	%r2, [%rd4];
	setp.eq.s32 	%p1, %r2, 0;
	@%p1 bra 	$L__spin;
	ret;
}

.visible .entry wait_then_write(
	.param .u64 wait_then_write_param_0,
	.param .u64 wait_then_write_param_1,
	.param .u32 wait_then_write_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [wait_then_write_param_0];
	ld.param.u64 	%rd2, [wait_then_write_param_1];
	ld.param.u32 	%r1, [wait_then_write_param_2];
	cvta.to.global.u64 	%rd3, %rd1;
	cvta.to.global.u64 	%rd4, %rd2;
$L__spin:
	ld.volatile.global.u32 	%r2, [%rd3];
	setp.eq.s32 	%p1, %r2, 0;
	@%p1 bra 	$L__spin;
	st.global.u32 	[%rd4], %r1;
	ret;
}
"#;

/// A zeroed `u32` on `device`.
fn zeroed_word(device: &Arc<dyn Device>, stream: &Arc<dyn Stream>) -> u64 {
    let ptr = device.alloc(4).unwrap();
    stream.memset(ptr, 0, 4, 1).unwrap();
    stream.synchronize().unwrap();
    ptr
}

#[test]
fn kernels_on_two_streams_run_concurrently() {
    // One interpreter thread per launch: only separate stream threads let both kernels progress.
    let device = devices(1, 1).remove(0);
    let handshake = kernel(&device, SPIN, "handshake");
    let a = device.create_stream().unwrap();
    let b = device.create_stream().unwrap();
    let flag_a = zeroed_word(&device, &a);
    let flag_b = zeroed_word(&device, &a);
    launch(&a, &handshake, 1, 1, &[Arg::U64(flag_a), Arg::U64(flag_b)]).unwrap();
    launch(&b, &handshake, 1, 1, &[Arg::U64(flag_b), Arg::U64(flag_a)]).unwrap();
    finishes(120, move || {
        a.synchronize().unwrap();
        b.synchronize().unwrap();
        device.synchronize().unwrap();
    });
}

#[test]
fn a_wait_orders_work_after_an_event_of_another_stream() {
    let device = devices(1, 1).remove(0);
    let wait_then_write = kernel(&device, SPIN, "wait_then_write");
    let producer = device.create_stream().unwrap();
    let consumer = device.create_stream().unwrap();
    let releaser = device.create_stream().unwrap();
    let flag = zeroed_word(&device, &producer);
    let data = zeroed_word(&device, &producer);
    let copy = zeroed_word(&device, &producer);

    let event = device.create_event().unwrap();
    assert!(
        event.query().unwrap(),
        "an event never recorded counts as done"
    );
    let args = [Arg::U64(flag), Arg::U64(data), Arg::U32(42)];
    launch(&producer, &wait_then_write, 1, 1, &args).unwrap();
    producer.record(event.as_ref()).unwrap();
    consumer.wait(event.as_ref()).unwrap();
    consumer.copy_on_device(copy, data, 4).unwrap();

    // The producer spins until released, so neither the event nor the consumer can be done.
    assert!(!event.query().unwrap());
    assert!(!producer.query().unwrap());
    assert!(!consumer.query().unwrap());
    // Re-recording and dropping the event does not release the pending wait.
    releaser.record(event.as_ref()).unwrap();
    assert!(event.query().unwrap());
    drop(event);
    assert!(!consumer.query().unwrap());

    releaser.copy_to_device(flag, &1u32.to_le_bytes()).unwrap();
    let copied = finishes(120, move || {
        consumer.synchronize().unwrap();
        read_u32(&consumer, copy, 1).unwrap()
    });
    assert_eq!(copied, vec![42]);
}

#[test]
fn a_stream_of_one_device_waits_for_an_event_of_another() {
    let devices = devices(2, 1);
    let wait_then_write = kernel(&devices[0], SPIN, "wait_then_write");
    let producer = devices[0].create_stream().unwrap();
    let releaser = devices[0].create_stream().unwrap();
    let consumer = devices[1].create_stream().unwrap();
    let observer = devices[1].create_stream().unwrap();
    let flag = zeroed_word(&devices[0], &producer);
    let data = zeroed_word(&devices[0], &producer);
    let target = zeroed_word(&devices[1], &observer);

    let event = devices[0].create_event().unwrap();
    let args = [Arg::U64(flag), Arg::U64(data), Arg::U32(7)];
    launch(&producer, &wait_then_write, 1, 1, &args).unwrap();
    producer.record(event.as_ref()).unwrap();
    consumer.wait(event.as_ref()).unwrap();
    consumer.memset(target, 5, 4, 1).unwrap();

    // Device 1's memset waits behind device 0's spinning kernel.
    assert_eq!(read_u32(&observer, target, 1).unwrap(), vec![0]);
    assert!(!consumer.query().unwrap());

    releaser.copy_to_device(flag, &1u32.to_le_bytes()).unwrap();
    let (event, consumer) = finishes(120, move || {
        event.synchronize().unwrap();
        consumer.synchronize().unwrap();
        (event, consumer)
    });
    assert!(event.query().unwrap());
    assert!(consumer.query().unwrap());
    assert_eq!(read_u32(&observer, target, 1).unwrap(), vec![5]);
    assert_eq!(read_u32(&producer, data, 1).unwrap(), vec![7]);
}

#[test]
fn a_fault_reaches_streams_that_wait_for_it() {
    let device = devices(1, 1).remove(0);
    let oob = kernel(&device, OUT_OF_BOUNDS, "oob_store");
    let faulty = device.create_stream().unwrap();
    let waiter = device.create_stream().unwrap();
    let small = device.alloc(16).unwrap();
    let event = device.create_event().unwrap();
    launch(&faulty, &oob, 1, 1, &[Arg::U64(small)]).unwrap();
    faulty.record(event.as_ref()).unwrap();
    waiter.wait(event.as_ref()).unwrap();
    let (event, result) = finishes(120, move || {
        let result = waiter.synchronize();
        (event, result)
    });
    match result {
        Err(Error::Fault { kernel, .. }) => assert_eq!(kernel, "oob_store"),
        other => panic!("expected the fault of oob_store, got {other:?}"),
    }
    assert!(matches!(event.synchronize(), Err(Error::Fault { .. })));
    assert!(matches!(event.query(), Err(Error::Fault { .. })));
}

#[test]
fn work_of_a_dropped_stream_still_runs_and_the_device_waits_for_it() {
    let device = devices(1, 1).remove(0);
    let wait_then_write = kernel(&device, SPIN, "wait_then_write");
    let doomed = device.create_stream().unwrap();
    let releaser = device.create_stream().unwrap();
    let flag = zeroed_word(&device, &releaser);
    let data = zeroed_word(&device, &releaser);
    let args = [Arg::U64(flag), Arg::U64(data), Arg::U32(11)];
    launch(&doomed, &wait_then_write, 1, 1, &args).unwrap();
    drop(doomed);
    releaser.copy_to_device(flag, &1u32.to_le_bytes()).unwrap();
    let device = finishes(120, move || {
        device.synchronize().unwrap();
        device
    });
    assert_eq!(read_u32(&releaser, data, 1).unwrap(), vec![11]);
    drop(device);
}

#[test]
fn a_value_relayed_through_many_streams_arrives_in_order() {
    let device = devices(1, 1).remove(0);
    let streams: Vec<_> = (0..12).map(|_| device.create_stream().unwrap()).collect();
    let events: Vec<_> = (0..12).map(|_| device.create_event().unwrap()).collect();
    let slots: Vec<u64> = (0..=12).map(|_| device.alloc(4).unwrap()).collect();
    for round in 1..=25u32 {
        // Stream 0 writes the round's value into slot 0; stream i copies slot i to slot i + 1
        // after stream i - 1 is done. Without the waits the copies would race.
        streams[0].memset(slots[0], round, 4, 1).unwrap();
        for (i, stream) in streams.iter().enumerate() {
            if i > 0 {
                stream.wait(events[i - 1].as_ref()).unwrap();
            }
            stream.copy_on_device(slots[i + 1], slots[i], 4).unwrap();
            stream.record(events[i].as_ref()).unwrap();
        }
    }
    let last = streams.last().unwrap();
    let value = read_u32(last, slots[12], 1).unwrap();
    assert_eq!(value, vec![25]);
    device.synchronize().unwrap();
}

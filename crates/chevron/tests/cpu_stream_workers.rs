//! CPU streams served by a bounded set of worker threads: many live streams, waits that park
//! instead of holding a thread, host functions in stream order, and bounded queues.

mod cpu_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use chevron::backend::{Device, Stream};
use chevron::Error;
use cpu_support::{devices, finishes, kernel, launch, read_u32, Arg, OUT_OF_BOUNDS};

/// `wait_then_write(flag, out, value)` spins until `*flag != 0`, then stores `value` at `out`.
const SPIN: &str = r#"
.version 7.0
.target sm_70
.address_size 64

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

/// The most work a CPU stream queues before a submission waits (docs/streams.md).
const QUEUE_DEPTH: usize = 1024;

/// Threads of this process, from /proc.
fn process_threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|count| count.trim().parse().ok())
        .expect("a Threads: line")
}

/// A zeroed `u32` array of `count` words on `device`.
fn zeroed_words(device: &Arc<dyn Device>, stream: &Arc<dyn Stream>, count: u64) -> u64 {
    let ptr = device.alloc(4 * count).unwrap();
    stream.memset(ptr, 0, 4, count).unwrap();
    stream.synchronize().unwrap();
    ptr
}

#[test]
fn a_hundred_thousand_live_streams_run_on_a_bounded_set_of_threads() {
    const STREAMS: usize = 100_000;
    let device = devices(1, 1).remove(0);
    let setup = device.create_stream().unwrap();
    let words = zeroed_words(&device, &setup, STREAMS as u64);
    let streams: Vec<Arc<dyn Stream>> = (0..STREAMS)
        .map(|i| {
            device
                .create_stream()
                .unwrap_or_else(|e| panic!("stream {i}: {e}"))
        })
        .collect();
    for (i, stream) in streams.iter().enumerate() {
        stream
            .memset(words + 4 * i as u64, i as u32 + 1, 4, 1)
            .unwrap();
    }
    let threads = process_threads();
    // 256 workers at most, the device's helper threads, and the test harness's threads.
    assert!(threads < 400, "{threads} threads for {STREAMS} streams");
    let streams = finishes(300, move || {
        for stream in &streams {
            stream.synchronize().unwrap();
        }
        streams
    });
    let values = read_u32(&setup, words, STREAMS).unwrap();
    assert!(values.iter().enumerate().all(|(i, &v)| v == i as u32 + 1));
    drop(streams);
}

#[test]
fn streams_waiting_for_another_stream_hold_no_worker() {
    // More waiting streams than workers: a wait that held its worker would leave none for the
    // stream that releases them all.
    const WAITERS: usize = 600;
    let device = devices(1, 1).remove(0);
    let wait_then_write = kernel(&device, SPIN, "wait_then_write");
    let producer = device.create_stream().unwrap();
    let releaser = device.create_stream().unwrap();
    let flag = zeroed_words(&device, &releaser, 1);
    let data = zeroed_words(&device, &releaser, 1);
    let copies = zeroed_words(&device, &releaser, WAITERS as u64);
    launch(
        &producer,
        &wait_then_write,
        1,
        1,
        &[Arg::U64(flag), Arg::U64(data), Arg::U32(9)],
    )
    .unwrap();
    let event = device.create_event().unwrap();
    producer.record(event.as_ref()).unwrap();
    let waiters: Vec<Arc<dyn Stream>> = (0..WAITERS)
        .map(|i| {
            let stream = device.create_stream().unwrap();
            stream.wait(event.as_ref()).unwrap();
            stream
                .copy_on_device(copies + 4 * i as u64, data, 4)
                .unwrap();
            stream
        })
        .collect();
    releaser.copy_to_device(flag, &1u32.to_le_bytes()).unwrap();
    finishes(120, move || {
        for stream in &waiters {
            stream.synchronize().unwrap();
        }
    });
    let values = read_u32(&releaser, copies, WAITERS).unwrap();
    assert!(values.iter().all(|&v| v == 9), "{values:?}");
}

#[test]
fn a_host_function_runs_in_stream_order_without_blocking_the_caller() {
    let device = devices(1, 1).remove(0);
    let stream = device.create_stream().unwrap();
    let word = zeroed_words(&device, &stream, 1);
    let log = Arc::new(Mutex::new(Vec::new()));
    let (go, wait_for_go) = mpsc::channel::<()>();
    stream.memset(word, 7, 4, 1).unwrap();
    {
        let log = Arc::clone(&log);
        stream
            .launch_host_function(Box::new(move |status| {
                // Waits for what the caller does after this call returns.
                wait_for_go.recv().unwrap();
                log.lock().unwrap().push(format!("first {status:?}"));
            }))
            .unwrap();
    }
    stream.memset(word, 8, 4, 1).unwrap();
    {
        let log = Arc::clone(&log);
        stream
            .launch_host_function(Box::new(move |status| {
                log.lock().unwrap().push(format!("second {status:?}"));
            }))
            .unwrap();
    }
    assert!(!stream.query().unwrap(), "the first host function waits");
    log.lock().unwrap().push("caller".into());
    go.send(()).unwrap();
    let stream = finishes(120, move || {
        stream.synchronize().unwrap();
        stream
    });
    assert_eq!(
        *log.lock().unwrap(),
        ["caller", "first Ok(())", "second Ok(())"]
    );
    assert_eq!(read_u32(&stream, word, 1).unwrap(), [8]);
}

#[test]
fn a_host_function_after_a_fault_is_told_of_it() {
    let device = devices(1, 1).remove(0);
    let oob = kernel(&device, OUT_OF_BOUNDS, "oob_store");
    let stream = device.create_stream().unwrap();
    let small = device.alloc(16).unwrap();
    launch(&stream, &oob, 1, 1, &[Arg::U64(small)]).unwrap();
    let (sender, status) = mpsc::channel();
    stream
        .launch_host_function(Box::new(move |result| {
            sender.send(result).unwrap();
        }))
        .unwrap();
    let status = finishes(120, move || status.recv().unwrap());
    match status {
        Err(Error::Fault { kernel, .. }) => assert_eq!(kernel, "oob_store"),
        other => panic!("expected the fault of oob_store, got {other:?}"),
    }
    assert!(matches!(stream.synchronize(), Err(Error::Fault { .. })));
}

#[test]
fn a_full_queue_blocks_the_submitting_thread_until_the_worker_takes_work() {
    const SUBMISSIONS: usize = 3 * QUEUE_DEPTH;
    let device = devices(1, 1).remove(0);
    let wait_then_write = kernel(&device, SPIN, "wait_then_write");
    let stream = device.create_stream().unwrap();
    let releaser = device.create_stream().unwrap();
    let flag = zeroed_words(&device, &releaser, 1);
    let data = zeroed_words(&device, &releaser, 1);
    // The stream's worker spins in this kernel until released.
    let args = [Arg::U64(flag), Arg::U64(data), Arg::U32(1)];
    launch(&stream, &wait_then_write, 1, 1, &args).unwrap();
    let queued = Arc::new(AtomicUsize::new(0));
    let submitter = {
        let stream = Arc::clone(&stream);
        let queued = Arc::clone(&queued);
        std::thread::spawn(move || {
            for i in 0..SUBMISSIONS {
                stream.memset(data, i as u32, 4, 1).unwrap();
                queued.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    while queued.load(Ordering::SeqCst) < QUEUE_DEPTH - 1 {
        std::thread::yield_now();
    }
    // The queue is full (the spinning kernel, taken by the worker, is not in it): however
    // long the submitter runs, it cannot get further until the kernel ends.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let held = queued.load(Ordering::SeqCst);
    assert!(
        held <= QUEUE_DEPTH,
        "{held} submissions queued behind a running kernel"
    );
    releaser.copy_to_device(flag, &1u32.to_le_bytes()).unwrap();
    finishes(120, move || submitter.join().unwrap());
    stream.synchronize().unwrap();
    assert_eq!(
        read_u32(&stream, data, 1).unwrap(),
        [SUBMISSIONS as u32 - 1]
    );
}

#[test]
fn a_deadline_ends_a_wait_for_another_streams_endless_kernel() {
    use chevron::{LaunchConfig, Module, Runtime};
    use std::time::Duration;
    let runtime = Runtime::from_devices(devices(1, 1));
    let device = runtime.default_device().unwrap();
    let spin = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry spin() {\n\
                .reg .b32 %r<2>;\nLOOP:\nadd.u32 %r1, %r1, 1;\nbra LOOP;\n}\n\
                .visible .entry nothing() { ret; }";
    let module = Module::from_ptx(device, spin).unwrap();
    let producer = device.create_stream().unwrap();
    let consumer = device.create_stream().unwrap();
    let endless = module
        .kernel("spin")
        .unwrap()
        .launch(&producer, LaunchConfig::new(1, 1), ())
        .unwrap();
    consumer.wait_for(&[&endless]).unwrap();
    let after = module
        .kernel("nothing")
        .unwrap()
        .launch(&consumer, LaunchConfig::new(1, 1), ())
        .unwrap();
    // The consumer is parked on the producer's kernel, which never ends: the deadline stops
    // the wait itself.
    let err = after
        .wait_timeout(Duration::from_millis(200))
        .unwrap_err()
        .to_string();
    assert!(err.contains("waiting for another stream"), "{err}");
    let err = endless
        .wait_timeout(Duration::from_millis(200))
        .unwrap_err()
        .to_string();
    assert!(err.contains("kernel `spin`"), "{err}");
}

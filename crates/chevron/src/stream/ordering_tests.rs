//! Unit tests of tokens, dependencies, deferred frees and launch checks, on the scripted
//! backend (whose streams finish work only when a test says so).

use std::sync::Arc;

use crate::backend::scripted::{Counters, ScriptedDevice};
use crate::{Buffer, Device, Error, LaunchConfig, Module, Token};

const PTX: &str = r#"
.version 7.0
.target sm_50
.address_size 64
.visible .entry scale(.param .u64 data, .param .f32 factor, .param .u32 n)
{
    ret;
}
.visible .func helper()
{
    ret;
}
"#;

fn scripted(ordinal: u32) -> (Device, Arc<ScriptedDevice>) {
    let backend = Arc::new(ScriptedDevice::new(ordinal));
    (Device::from_backend(backend.clone()), backend)
}

fn submit(device: &Device, stream: &crate::Stream) -> Token {
    let buffer = Buffer::<u32>::new(device, 4).unwrap();
    stream.fill(&buffer, 7).unwrap()
}

#[test]
fn a_buffer_dropped_during_pending_work_is_freed_after_it() {
    let (device, backend) = scripted(0);
    let stream = device.create_stream().unwrap();
    let buffer = Buffer::<f32>::new(&device, 16).unwrap();
    let ptr = buffer.device_ptr();
    stream.fill(&buffer, 1.0).unwrap();
    drop(buffer);
    assert!(backend.is_live(ptr), "freed while the fill may still run");
    backend.finish_all();
    stream.synchronize().unwrap();
    assert!(
        backend.freed_soon(ptr),
        "not freed after the stream passed the drop"
    );
}

#[test]
fn a_buffer_dropped_on_an_idle_device_is_freed_at_once() {
    let (device, backend) = scripted(0);
    let stream = device.create_stream().unwrap();
    let buffer = Buffer::<u8>::new(&device, 16).unwrap();
    let ptr = buffer.device_ptr();
    stream.fill(&buffer, 0).unwrap();
    stream.synchronize().unwrap();
    drop(buffer);
    assert!(backend.freed_soon(ptr));
}

#[test]
fn a_free_that_blocks_does_not_block_the_dropping_thread() {
    let (device, backend) = scripted(0);
    let buffer = Buffer::<u8>::new(&device, 16).unwrap();
    let ptr = buffer.device_ptr();
    let kernel = Module::from_ptx(&device, PTX)
        .unwrap()
        .kernel("scale")
        .unwrap();
    backend.block_frees();
    let (done, finished) = std::sync::mpsc::channel();
    let user = device.clone();
    std::thread::spawn(move || {
        drop(buffer);
        drop(kernel);
        let stream = user.create_stream().unwrap();
        let data = Buffer::<f32>::new(&user, 8).unwrap();
        stream.fill(&data, 0.0).unwrap();
        let _ = done.send(());
    });
    let returned = finished.recv_timeout(std::time::Duration::from_secs(5));
    let still_live = backend.is_live(ptr);
    backend.unblock_frees();
    assert!(
        returned.is_ok(),
        "dropping a buffer and a module stalled the dropping thread"
    );
    assert!(still_live, "freed although frees were blocked");
    assert!(
        backend.freed_soon(ptr),
        "not freed once frees were unblocked"
    );
    device.synchronize().unwrap();
}

#[test]
fn many_small_frees_behind_a_blocked_free_do_not_block_the_dropping_thread() {
    // As while a kernel spins on a GPU: the worker's free waits, and a thousand small buffers
    // dropped meanwhile (other threads' frees, say) still leave the dropping thread free.
    let (device, backend) = scripted(0);
    let buffers: Vec<Buffer<u32>> = (0..1000)
        .map(|_| Buffer::<u32>::new(&device, 64).unwrap())
        .collect();
    let pointers: Vec<u64> = buffers.iter().map(Buffer::device_ptr).collect();
    backend.block_frees();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(buffers);
        let _ = done.send(());
    });
    let returned = finished.recv_timeout(std::time::Duration::from_secs(10));
    backend.unblock_frees();
    assert!(
        returned.is_ok(),
        "dropping 1,000 small buffers behind a blocked free stalled the dropping thread"
    );
    assert!(pointers.iter().all(|&ptr| backend.freed_soon(ptr)));
    device.synchronize().unwrap();
}

#[test]
fn frees_holding_back_an_eighth_of_the_memory_are_made_by_the_caller() {
    // The scripted device has 1 GiB: queued frees may hold 128 MiB; past that, the dropping
    // thread frees itself (and waits, as `cuMemFree` does).
    let (device, backend) = scripted(0);
    let sizes = [64 << 20, 64 << 20, 1 << 20];
    let buffers: Vec<Buffer<u8>> = sizes
        .iter()
        .map(|&bytes| Buffer::<u8>::new(&device, bytes).unwrap())
        .collect();
    let last = buffers[2].device_ptr();
    backend.block_frees();
    let (dropped, drops) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for buffer in buffers {
            drop(buffer);
            let _ = dropped.send(());
        }
    });
    let wait = std::time::Duration::from_secs(10);
    let within_limit = drops.recv_timeout(wait).is_ok() && drops.recv_timeout(wait).is_ok();
    // Blocked for as long as frees are: only `unblock_frees` lets this drop return.
    let past_limit = drops.recv_timeout(std::time::Duration::from_millis(200));
    backend.unblock_frees();
    assert!(
        within_limit,
        "frees within the limit stalled the dropping thread"
    );
    assert!(
        past_limit.is_err(),
        "a free past the limit was queued, holding more than an eighth of the memory"
    );
    assert!(drops.recv_timeout(wait).is_ok());
    assert!(!backend.is_live(last), "the caller's own free was not made");
    device.synchronize().unwrap();
}

#[test]
fn raw_launches_check_count_null_values_and_given_sizes() {
    let (device, _) = scripted(0);
    let stream = device.create_stream().unwrap();
    let kernel = Module::from_ptx(&device, PTX)
        .unwrap()
        .kernel("scale")
        .unwrap();
    let (mut data, mut factor, mut n) = (0x1000u64, 2.0f32, 8u32);
    let pointers = [
        (&mut data as *mut u64).cast::<std::ffi::c_void>(),
        (&mut factor as *mut f32).cast(),
        (&mut n as *mut u32).cast(),
    ];
    let config = LaunchConfig::new(1, 32);
    let raw = |pointers: &[*mut std::ffi::c_void]| {
        // SAFETY: each pointer points to a live value of its parameter's size, or the launch
        // is refused before any is read.
        unsafe { kernel.launch_raw(&stream, config, pointers, &[]) }
    };
    let with_sizes = |sizes: &[usize], cluster: Option<[u32; 3]>| {
        let args = crate::RawArgs::with_sizes(&pointers, sizes).unwrap();
        // SAFETY: as above.
        unsafe { kernel.launch_raw_args(&stream, config, cluster, args, &[]) }
    };
    assert_eq!(raw(&pointers).unwrap().sequence(), 1);
    let err = raw(&pointers[..2]).unwrap_err();
    assert!(err.to_string().contains("takes 3 parameters"), "{err}");
    let mut with_null = pointers;
    with_null[1] = std::ptr::null_mut();
    let err = raw(&with_null).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Argument {
                parameter: Some(1),
                ..
            }
        ),
        "{err}"
    );
    let err = with_sizes(&[8, 8, 4], None).unwrap_err();
    assert!(
        err.to_string()
            .contains("parameter 1 (`factor`) is 4 bytes, got 8 bytes"),
        "{err}"
    );
    assert_eq!(with_sizes(&[8, 4, 4], None).unwrap().sequence(), 2);
    let err = with_sizes(&[8, 4, 4], Some([0, 1, 1])).unwrap_err();
    assert!(matches!(err, Error::LaunchConfig { .. }), "{err}");
}

#[test]
fn same_stream_and_completed_dependencies_cost_nothing() {
    let (device, backend) = scripted(0);
    let (a, b) = (
        device.create_stream().unwrap(),
        device.create_stream().unwrap(),
    );
    let on_a = submit(&device, &a);
    a.wait_for(&[&on_a, &on_a, &Token::ready()]).unwrap();
    a.synchronize().unwrap();
    b.wait_for(&[&on_a]).unwrap();
    assert_eq!(Counters::get(&backend.counters.records), 0);
    assert_eq!(Counters::get(&backend.counters.waits), 0);
}

#[test]
fn a_cross_stream_dependency_is_one_record_and_one_wait() {
    let (device, backend) = scripted(0);
    let (a, b) = (
        device.create_stream().unwrap(),
        device.create_stream().unwrap(),
    );
    let on_a = submit(&device, &a);
    b.wait_for(&[&on_a, &on_a]).unwrap();
    b.wait_for(&[&on_a]).unwrap();
    assert_eq!(Counters::get(&backend.counters.records), 1);
    assert_eq!(Counters::get(&backend.counters.waits), 1);
    // Another stream reuses the recorded event.
    let c = device.create_stream().unwrap();
    c.wait_for(&[&on_a]).unwrap();
    assert_eq!(Counters::get(&backend.counters.records), 1);
    assert_eq!(Counters::get(&backend.counters.waits), 2);
}

#[test]
fn many_dependencies_from_many_streams() {
    let (device, backend) = scripted(0);
    let streams: Vec<_> = (0..6).map(|_| device.create_stream().unwrap()).collect();
    let tokens: Vec<Token> = streams.iter().map(|s| submit(&device, s)).collect();
    let deps: Vec<&Token> = tokens.iter().collect();
    streams[0].wait_for(&deps).unwrap();
    assert_eq!(Counters::get(&backend.counters.waits), 5);
}

#[test]
fn events_come_from_the_pool_and_are_recycled() {
    let (device, backend) = scripted(0);
    let (a, b) = (
        device.create_stream().unwrap(),
        device.create_stream().unwrap(),
    );
    let created_with_streams = Counters::get(&backend.counters.events_created);
    for _ in 0..50 {
        let on_a = submit(&device, &a);
        b.wait_for(&[&on_a]).unwrap();
        backend.finish_all();
        on_a.wait().unwrap();
    }
    assert_eq!(Counters::get(&backend.counters.records), 50);
    assert_eq!(
        Counters::get(&backend.counters.events_created),
        created_with_streams,
        "events were created on the dependency path"
    );
}

#[test]
fn tokens_outlive_their_stream_and_report_completion() {
    let (device, backend) = scripted(0);
    let stream = device.create_stream().unwrap();
    let first = submit(&device, &stream);
    let second = submit(&device, &stream);
    drop(stream);
    assert!(!first.is_done().unwrap());
    assert!(!second.is_done().unwrap());
    backend.finish_all();
    assert!(first.is_done().unwrap());
    second.wait().unwrap();
    assert!(Token::ready().is_done().unwrap());
}

#[test]
fn a_dependency_on_another_device_of_the_backend_is_an_event_wait() {
    let (d0, b0) = scripted(0);
    let (d1, b1) = scripted(1);
    let (s0, s1) = (d0.create_stream().unwrap(), d1.create_stream().unwrap());
    let on_d0 = submit(&d0, &s0);
    s1.wait_for(&[&on_d0]).unwrap();
    assert_eq!(Counters::get(&b0.counters.records), 1);
    assert_eq!(Counters::get(&b1.counters.waits), 1);
}

#[test]
fn kernels_are_found_by_name_and_device_functions_are_not_kernels() {
    let (device, _) = scripted(0);
    let module = Module::from_ptx(&device, PTX).unwrap();
    assert_eq!(module.kernel("scale").unwrap().name(), "scale");
    let err = module.kernel("helper").unwrap_err().to_string();
    assert!(err.contains("device function"), "{err}");
    match module.kernel("scael").unwrap_err() {
        Error::NotFound {
            what, candidates, ..
        } => {
            assert_eq!(what, "kernel");
            assert!(candidates.iter().any(|c| c == "scale"), "{candidates:?}");
        }
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn launch_arguments_are_checked_by_count_size_and_device() {
    let (device, backend) = scripted(0);
    let (other, _) = scripted(1);
    let stream = device.create_stream().unwrap();
    let kernel = Module::from_ptx(&device, PTX)
        .unwrap()
        .kernel("scale")
        .unwrap();
    let data = Buffer::<f32>::new(&device, 8).unwrap();
    let foreign = Buffer::<f32>::new(&other, 8).unwrap();
    let cfg = LaunchConfig::for_elements(8, 32);

    kernel.launch(&stream, cfg, (&data, 2.0f32, 8u32)).unwrap();
    assert_eq!(Counters::get(&backend.counters.launches), 1);

    let err = kernel.launch(&stream, cfg, (&data, 2.0f32)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Argument {
                parameter: None,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("takes 3 parameters (`data`, `factor`, `n`), got 2"),
        "{err}"
    );

    let err = kernel
        .launch(&stream, cfg, (&data, 2.0f64, 8u32))
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Argument {
                parameter: Some(1),
                ..
            }
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("`scale`") && text.contains("`factor`") && text.contains("f64"),
        "{text}"
    );

    let err = kernel
        .launch(&stream, cfg, (&foreign, 2.0f32, 8u32))
        .unwrap_err();
    assert!(err.to_string().contains("buffer of scripted:1"), "{err}");
    assert_eq!(
        Counters::get(&backend.counters.launches),
        1,
        "a bad launch reached the backend"
    );
}

#[test]
fn launch_configurations_are_checked_against_device_and_kernel_limits() {
    let (device, _) = scripted(0);
    let stream = device.create_stream().unwrap();
    let kernel = Module::from_ptx(&device, PTX)
        .unwrap()
        .kernel("scale")
        .unwrap();
    let data = Buffer::<f32>::new(&device, 8).unwrap();
    let launch = |cfg: LaunchConfig| {
        kernel
            .launch(&stream, cfg, (&data, 1.0f32, 8u32))
            .unwrap_err()
            .to_string()
    };
    let err = launch(LaunchConfig::new(1, 2048));
    assert!(
        err.contains("block x = 2048") && err.contains("scripted:0"),
        "{err}"
    );
    let err = launch(LaunchConfig::new(1, 1024));
    assert!(err.contains("this kernel's maximum of 512"), "{err}");
    let err = launch(LaunchConfig::new((1, 0), 32));
    assert!(err.contains("empty dimension"), "{err}");
    let err = launch(LaunchConfig::new(1, 32).with_shared_bytes(200 * 1024));
    assert!(err.contains("shared memory"), "{err}");
    let err = launch(LaunchConfig::new((1, 70000), 32));
    assert!(err.contains("grid y = 70000"), "{err}");
}

#[test]
fn a_kernel_launched_on_another_devices_stream_is_refused() {
    let (device, _) = scripted(0);
    let (other, _) = scripted(1);
    let kernel = Module::from_ptx(&device, PTX)
        .unwrap()
        .kernel("scale")
        .unwrap();
    let data = Buffer::<f32>::new(&device, 8).unwrap();
    let err = kernel
        .launch(
            &other.create_stream().unwrap(),
            LaunchConfig::new(1, 32),
            (&data, 1.0f32, 8u32),
        )
        .unwrap_err();
    assert!(err.to_string().contains("loaded on scripted:0"), "{err}");
}

#[test]
fn a_buffer_passed_to_a_launch_is_freed_after_the_launch() {
    let (device, backend) = scripted(0);
    let stream = device.create_stream().unwrap();
    let kernel = Module::from_ptx(&device, PTX)
        .unwrap()
        .kernel("scale")
        .unwrap();
    let data = Buffer::<f32>::new(&device, 8).unwrap();
    let ptr = data.device_ptr();
    kernel
        .launch(&stream, LaunchConfig::new(1, 32), (&data, 1.0f32, 8u32))
        .unwrap();
    drop(kernel);
    drop(data);
    assert!(backend.is_live(ptr));
    backend.finish_all();
    device.synchronize().unwrap();
    assert!(
        !backend.is_live(ptr),
        "device synchronization waits for releases"
    );
}

#[test]
fn public_handles_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<crate::Runtime>();
    check::<Device>();
    check::<crate::Stream>();
    check::<Token>();
    check::<Buffer<f32>>();
    check::<Module>();
    check::<crate::Kernel>();
}

#[test]
fn pending_releases_are_collected_by_the_next_allocation() {
    let (device, backend) = scripted(0);
    let stream = device.create_stream().unwrap();
    let mut pointers = Vec::new();
    for _ in 0..10 {
        let buffer = Buffer::<u32>::new(&device, 8).unwrap();
        stream.fill(&buffer, 1).unwrap();
        pointers.push(buffer.device_ptr());
    }
    assert!(pointers.iter().all(|&p| backend.is_live(p)));
    backend.finish_all();
    let _fresh = Buffer::<u32>::new(&device, 8).unwrap();
    assert!(pointers.iter().all(|&p| backend.freed_soon(p)));
}

#[test]
fn a_kernel_is_found_even_when_a_device_function_shares_its_plain_name() {
    const SHADOWED: &str = r#"
.version 7.0
.target sm_50
.address_size 64
.visible .func (.param .b32 r) _Z5scalef(.param .b32 x)
{
    ret;
}
.visible .entry scale(.param .u64 data)
{
    ret;
}
.visible .global .align 4 .u32 scale_count;
"#;
    let (device, _) = scripted(0);
    let module = Module::from_ptx(&device, SHADOWED).unwrap();
    assert_eq!(module.kernel("scale").unwrap().name(), "scale");
    let err = module.kernel("scale(float)").unwrap_err().to_string();
    assert!(err.contains("device function"), "{err}");
}

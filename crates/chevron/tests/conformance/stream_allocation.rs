//! Stream-ordered allocation (`Buffer::new_in_stream_order`, what `cudaMallocAsync` allocates
//! with): a buffer allocated and used on one stream while another stream is held by a host
//! function. On CUDA a plain allocation (`cuMemAlloc`) is an implicit synchronization: every
//! stream's later work waits for all earlier work, the held stream's included, so the working
//! stream would finish only once the host function gave up.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use chevron::{Buffer, Device, Result};

use crate::harness::on_every_device;

const N: usize = 1 << 16;
/// How long the host function holds its stream at most.
const HOLD: Duration = Duration::from_secs(3);
/// The most the working stream may take while the other one is held.
const NO_WAIT: Duration = Duration::from_millis(1500);

#[test]
fn a_stream_ordered_allocation_does_not_wait_for_a_held_stream() {
    on_every_device(|device| {
        // On a GPU, another test's thread allocating meanwhile orders the working stream
        // behind the held one just as a plain allocation here would: up to three attempts, one
        // of which must not wait.
        let mut waits = Vec::new();
        for _ in 0..3 {
            let took = allocate_while_held(device)?;
            if took < NO_WAIT {
                return Ok(());
            }
            waits.push(format!("{took:?}"));
        }
        panic!(
            "on {device}: the working stream waited for the held one every time ({})",
            waits.join(", ")
        );
    });
}

/// Holds one stream with a host function that waits (up to [`HOLD`]) until the working
/// stream's allocation, fill and copy back are done; returns how long those took.
fn allocate_while_held(device: &Device) -> Result<Duration> {
    let (held, working) = (device.create_stream()?, device.create_stream()?);
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    let waiting = Arc::clone(&gate);
    held.launch_host_function(move |_| {
        let (open, changed) = &*waiting;
        let mut open = open.lock().unwrap();
        let until = Instant::now() + HOLD;
        while !*open && Instant::now() < until {
            open = changed
                .wait_timeout(open, until - Instant::now())
                .unwrap()
                .0;
        }
    })?;
    let started = Instant::now();
    let buffer = Buffer::<u32>::new_in_stream_order(&working, N)?;
    working.memset_at(buffer.device_ptr(), 7, 4, N as u64)?;
    let mut back = vec![0u8; N * 4];
    working.copy_to_host_at(&mut back, buffer.device_ptr())?;
    working.synchronize()?;
    let took = started.elapsed();
    {
        let (open, changed) = &*gate;
        *open.lock().unwrap() = true;
        changed.notify_all();
    }
    held.synchronize()?;
    assert!(
        back.chunks(4).all(|word| word == 7u32.to_ne_bytes()),
        "on {device}: the stream-ordered buffer's fill did not read back"
    );
    drop(buffer);
    device.synchronize()?;
    Ok(took)
}

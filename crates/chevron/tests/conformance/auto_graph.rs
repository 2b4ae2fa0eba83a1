//! Automatic graph replay: sequences repeated between synchronizations replay as graphs, and
//! the results are those of eager launches in every case (divergence mid-sequence, buffers
//! freed between and within repetitions, an error in one kernel, host waits in the middle).
//! The tests that count replays run on a runtime of their own, which no other test
//! synchronizes.

use chevron::{
    AutoGraphStats, BackendKind, Buffer, Device, Error, Kernel, LaunchConfig, Result, Stream,
};

use crate::harness::{basics, on_every_device_of_its_own, on_every_device_of_its_own_and_noop};

const N: u32 = 64;

fn config() -> LaunchConfig {
    LaunchConfig::new(1, N)
}

struct Kernels {
    add_one: Kernel,
    copy_plus: Kernel,
    fill_index: Kernel,
    store_to: Kernel,
}

fn kernels(device: &Device) -> Result<Kernels> {
    let module = basics(device)?;
    Ok(Kernels {
        add_one: module.kernel("add_one")?,
        copy_plus: module.kernel("copy_plus")?,
        fill_index: module.kernel("fill_index")?,
        store_to: module.kernel("store_to")?,
    })
}

/// Runs `body` on a stream without and with automatic replay; asserts equal results and
/// returns the replaying stream's statistics.
fn same_as_eager<T: PartialEq + std::fmt::Debug>(
    device: &Device,
    body: impl Fn(&Stream) -> Result<T>,
) -> Result<AutoGraphStats> {
    let eager = device.create_stream()?;
    eager.auto_graph(false)?; // Whatever CHEVRON_AUTO_GRAPH says.
    let expected = body(&eager)?;
    let auto = device.create_stream()?;
    auto.auto_graph(true)?;
    let got = body(&auto)?;
    if got != expected {
        let g = format!("{got:?}");
        let e = format!("{expected:?}");
        let at = g
            .bytes()
            .zip(e.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        let rows = e[..at].matches("], [").count();
        eprintln!(
            "first difference in row {rows}; stats {:?}",
            auto.auto_graph_stats()
        );
    }
    assert_eq!(got, expected, "automatic replay changed the results");
    assert_eq!(eager.auto_graph_stats(), AutoGraphStats::default());
    Ok(auto.auto_graph_stats())
}

#[test]
fn a_repeated_sequence_replays_as_a_graph_with_updated_arguments() {
    on_every_device_of_its_own_and_noop(|device| {
        let k = kernels(device)?;
        let stats = same_as_eager(device, |stream| {
            let a = Buffer::<u32>::zeroed(device, N as usize)?;
            let b = Buffer::<u32>::zeroed(device, N as usize)?;
            let mut seen = Vec::new();
            for rep in 0..5u32 {
                k.add_one.launch(stream, config(), (&a, N))?;
                k.copy_plus
                    .launch(stream, config(), (&a, &b, rep * 10, N))?;
                k.add_one.launch(stream, config(), (&b, N - rep))?;
                stream.synchronize()?;
                seen.push(b.to_vec()?);
            }
            Ok(seen)
        })?;
        assert_eq!(stats.instantiations, 1, "{stats:?}");
        assert_eq!(stats.replays, 4, "{stats:?}");
        assert_eq!((stats.replayed_launches, stats.eager_launches), (12, 3));
        Ok(())
    });
}

#[test]
fn a_sequence_that_diverges_mid_way_falls_back_to_eager_launches() {
    on_every_device_of_its_own_and_noop(|device| {
        let k = kernels(device)?;
        let stats = same_as_eager(device, |stream| {
            let a = Buffer::<u32>::zeroed(device, N as usize)?;
            let mut seen = Vec::new();
            for rep in 0..6u32 {
                k.add_one.launch(stream, config(), (&a, N))?;
                k.add_one.launch(stream, config(), (&a, N / 2))?;
                if rep == 3 {
                    // A different kernel in the middle: the two held launches run eagerly.
                    k.fill_index.launch(stream, config(), (&a, 8u32))?;
                }
                k.add_one.launch(stream, config(), (&a, N / 4))?;
                stream.synchronize()?;
                seen.push(a.to_vec()?);
            }
            Ok(seen)
        })?;
        // 0: learn; 1, 2: replay; 3: diverges (4 eager) and becomes the candidate; 4: learns
        // the old shape again (3 eager, mismatching the 4-launch candidate); 5: replays.
        assert_eq!(stats.replays, 3, "{stats:?}");
        assert_eq!(stats.instantiations, 2, "{stats:?}");
        assert_eq!(stats.eager_launches, 3 + 4 + 3, "{stats:?}");
        Ok(())
    });
}

#[test]
fn buffers_freed_between_and_within_repetitions_stay_correct() {
    on_every_device_of_its_own_and_noop(|device| {
        let k = kernels(device)?;
        let stats = same_as_eager(device, |stream| {
            let out = Buffer::<u32>::zeroed(device, N as usize)?;
            let mut seen = Vec::new();
            for rep in 0..4u32 {
                let scratch = Buffer::<u32>::zeroed(device, N as usize)?;
                k.fill_index.launch(stream, config(), (&scratch, N))?;
                k.copy_plus
                    .launch(stream, config(), (&scratch, &out, rep, N))?;
                if rep == 2 {
                    // Dropped while its launches may be held: they must run before it is freed.
                    drop(scratch);
                    let other = Buffer::<u32>::zeroed(device, N as usize)?;
                    k.add_one.launch(stream, config(), (&other, N))?;
                    stream.synchronize()?;
                } else {
                    stream.synchronize()?;
                    drop(scratch);
                }
                seen.push(out.to_vec()?);
            }
            Ok(seen)
        })?;
        assert!(stats.replays >= 1, "{stats:?}");
        Ok(())
    });
}

#[test]
fn host_waits_queries_and_other_streams_in_the_middle_see_held_launches_done() {
    on_every_device_of_its_own_and_noop(|device| {
        let k = kernels(device)?;
        let stats = same_as_eager(device, |stream| {
            let a = Buffer::<u32>::zeroed(device, N as usize)?;
            let b = Buffer::<u32>::zeroed(device, N as usize)?;
            let other = device.create_stream()?;
            let mut seen = Vec::new();
            for rep in 0..4u32 {
                let first = k.add_one.launch(stream, config(), (&a, N))?;
                // In the middle of a matched (held) sequence from the second repetition on.
                match rep {
                    2 => first.wait()?,
                    3 => {
                        while !first.is_done()? {
                            std::thread::yield_now();
                        }
                    }
                    _ => {}
                }
                k.add_one.launch(stream, config(), (&a, N))?;
                let last = k.add_one.launch(stream, config(), (&a, N))?;
                // Another stream ordered after the held launches reads what they wrote.
                k.copy_plus
                    .launch_after(&other, config(), (&a, &b, 0u32, N), &[&last])?
                    .wait()?;
                seen.push(b.to_vec()?);
                stream.synchronize()?;
            }
            Ok(seen)
        })?;
        // The second repetition replays; the waits in the middle of the third and fourth end
        // their matches early.
        assert!(stats.replays >= 1, "{stats:?}");
        Ok(())
    });
}

#[test]
fn an_error_in_one_kernel_is_reported_as_eagerly() {
    on_every_device_of_its_own(|device| {
        if device.backend() == BackendKind::Cuda {
            return Ok(()); // A fault would poison the CUDA context (`gpu_only` faults apart).
        }
        let k = kernels(device)?;
        let outcome = |stream: &Stream| -> Result<(Vec<Vec<u32>>, String, String)> {
            let a = Buffer::<u32>::zeroed(device, N as usize)?;
            let mut seen = Vec::new();
            let mut launch_error = String::new();
            let mut fault = String::new();
            for rep in 0..4u64 {
                k.add_one.launch(stream, config(), (&a, N))?;
                // A wrong argument is refused at the call, replay or not.
                if rep == 1 {
                    let err = k.add_one.launch(stream, config(), (&a,)).unwrap_err();
                    launch_error = err.to_string();
                }
                let target = if rep == 3 {
                    0x10
                } else {
                    a.device_ptr() + 4 * rep
                };
                k.store_to
                    .launch(stream, LaunchConfig::new(1, 1), (target,))?;
                k.add_one.launch(stream, config(), (&a, N))?;
                match stream.synchronize() {
                    Ok(()) => seen.push(a.to_vec()?),
                    // Named like the eager launch's fault (a replay adds the graph node).
                    Err(Error::Fault { kernel, .. }) => fault = kernel,
                    Err(other) => return Err(other),
                }
            }
            Ok((seen, launch_error, fault))
        };
        let stats = same_as_eager(device, outcome)?;
        assert!(stats.replays >= 1, "{stats:?}");
        let (_, launch_error, fault) = outcome(&device.create_stream()?)?;
        assert!(launch_error.contains("`add_one`"), "{launch_error}");
        assert_eq!(fault, "store_to");
        Ok(())
    });
}

#[test]
fn device_bookkeeping_of_other_threads_does_not_end_a_match() {
    on_every_device_of_its_own(|device| {
        let k = kernels(device)?;
        let stream = device.create_stream()?;
        stream.auto_graph(true)?;
        let a = Buffer::<u32>::zeroed(device, N as usize)?;
        for _ in 0..4 {
            k.add_one.launch(&stream, config(), (&a, N))?;
            // While the launch above is held, another thread drops a buffer: the device asks
            // every stream with pending work whether it is done, which must not count as a
            // boundary of this stream (it once released held launches and broke the match).
            std::thread::scope(|scope| {
                scope
                    .spawn(|| Buffer::<u32>::zeroed(device, 4).map(drop))
                    .join()
                    .expect("the thread ran")
            })?;
            k.add_one.launch(&stream, config(), (&a, N))?;
            stream.synchronize()?;
        }
        assert_eq!(a.to_vec()?, vec![8; N as usize]);
        let stats = stream.auto_graph_stats();
        // Three replays (this runtime is the test's own: no other test synchronizes its
        // device); bookkeeping queries ending the match gave no replay at all.
        assert_eq!(stats.instantiations, 1, "{stats:?}");
        assert_eq!(stats.replays, 3, "{stats:?}");
        assert_eq!(
            stats.eager_launches + 2 * stats.replays,
            8,
            "every launch is either replayed or eager: {stats:?}"
        );
        Ok(())
    });
}

/// Long sequences replay in segments, the first launched while later launches are still being
/// matched: a divergence inside the first segment, right after it went out, inside the last
/// segment, a host wait in the middle, and changed values all give eager results, and every
/// launch runs exactly once (replayed or eager).
#[test]
fn long_sequences_replay_segment_by_segment_and_diverge_anywhere() {
    const LEN: u32 = 300;
    on_every_device_of_its_own_and_noop(|device| {
        let k = kernels(device)?;
        let launches = std::cell::Cell::new(0u64);
        let stats = same_as_eager(device, |stream| {
            let a = Buffer::<u32>::zeroed(device, N as usize)?;
            let b = Buffer::<u32>::zeroed(device, N as usize)?;
            let mut seen = Vec::new();
            let mut count = 0u64;
            for rep in 0..15u32 {
                for i in 0..LEN {
                    let token = match i % 3 {
                        0 => k.add_one.launch(stream, config(), (&a, N - i % N))?,
                        1 => k
                            .copy_plus
                            .launch(stream, config(), (&a, &b, rep * (i % 7), N))?,
                        _ => k.add_one.launch(stream, config(), (&b, 1 + i % N))?,
                    };
                    count += 1;
                    // Each divergence after the sequence replayed (segmented) again.
                    let diverge_at = match rep {
                        4 => Some(5),
                        8 => Some(16),
                        12 => Some(LEN - 2),
                        _ => None,
                    };
                    if diverge_at == Some(i) {
                        k.fill_index.launch(stream, config(), (&a, 3u32))?;
                        count += 1;
                    }
                    if rep == 14 && i == LEN / 2 {
                        // A host wait for a launch in the middle of a matched sequence.
                        token.wait()?;
                        seen.push(b.to_vec()?);
                    }
                }
                stream.synchronize()?;
                seen.push(a.to_vec()?);
                seen.push(b.to_vec()?);
            }
            launches.set(count);
            Ok(seen)
        })?;
        // Replayed: 1-3, 6-7, 10-11 (then 12's first 298 launches went out as segments).
        assert!(stats.replays >= 7, "{stats:?}");
        assert_eq!(
            stats.replayed_launches + stats.eager_launches,
            launches.get(),
            "every launch runs once: {stats:?}"
        );
        Ok(())
    });
}

/// `add_one(a)`, `copy_plus(a → b)`, `add_one(b)` on `stream`, `between` after the first.
fn three_launches(
    k: &Kernels,
    stream: &Stream,
    (a, b): (&Buffer<u32>, &Buffer<u32>),
    rep: u32,
    between: impl FnOnce() -> Result<()>,
) -> Result<()> {
    k.add_one.launch(stream, config(), (a, N))?;
    between()?;
    k.copy_plus.launch(stream, config(), (a, b, rep, N))?;
    k.add_one.launch(stream, config(), (b, 1u32))?;
    Ok(())
}

/// A device synchronization made by another thread must submit the launches a stream holds
/// back, but it is no boundary of that stream: the sequence being learned goes on, so only
/// the repetitions it interrupts run eagerly (taken as a boundary, it made the stream learn a
/// part of its sequence, replay that, and instantiate twice).
#[test]
fn another_threads_device_synchronization_costs_only_the_repetitions_it_interrupts() {
    on_every_device_of_its_own_and_noop(|device| {
        let k = kernels(device)?;
        let stats = same_as_eager(device, |stream| {
            let (a, b) = (
                Buffer::<u32>::zeroed(device, N as usize)?,
                Buffer::<u32>::zeroed(device, N as usize)?,
            );
            let mut seen = Vec::new();
            for rep in 0..6u32 {
                three_launches(&k, stream, (&a, &b), rep, || {
                    if rep == 0 || rep == 2 {
                        // While the stream learns the sequence (0), and while the first
                        // launch of a matching repetition is held (2).
                        std::thread::scope(|scope| {
                            scope.spawn(|| device.synchronize()).join().expect("ran")
                        })?;
                    }
                    Ok(())
                })?;
                stream.synchronize()?;
                seen.push(b.to_vec()?);
            }
            Ok(seen)
        })?;
        // 0: learns (nothing is held); 1: instantiates and replays; 2: its held launch goes
        // out, the rest runs eagerly, the same sequence again (the graph stays); 3-5 replay.
        assert_eq!(stats.instantiations, 1, "{stats:?}");
        assert_eq!(stats.replays, 4, "{stats:?}");
        assert_eq!(stats.eager_launches, 6, "{stats:?}");
        Ok(())
    });
}

/// A device synchronization made by the thread that launches is a boundary of its streams, as
/// the stream's own synchronization is (`cudaDeviceSynchronize` between repetitions).
#[test]
fn the_launching_threads_device_synchronization_is_a_boundary() {
    on_every_device_of_its_own_and_noop(|device| {
        let k = kernels(device)?;
        let stats = same_as_eager(device, |stream| {
            let (a, b) = (
                Buffer::<u32>::zeroed(device, N as usize)?,
                Buffer::<u32>::zeroed(device, N as usize)?,
            );
            let mut seen = Vec::new();
            for rep in 0..4u32 {
                three_launches(&k, stream, (&a, &b), rep, || Ok(()))?;
                device.synchronize()?;
                seen.push(b.to_vec()?);
            }
            Ok(seen)
        })?;
        assert_eq!(stats.instantiations, 1, "{stats:?}");
        assert_eq!(stats.replays, 3, "{stats:?}");
        assert_eq!(stats.eager_launches, 3, "{stats:?}");
        Ok(())
    });
}

//! Tokens: dependencies within a stream, across streams, many at once; tokens outliving their
//! stream; buffers dropped while work may still use them.

use chevron::{Buffer, LaunchConfig, Token};

use crate::harness::{basics, on_every_device, on_every_device_and_noop};

const N: u32 = 4096;

fn config() -> LaunchConfig {
    LaunchConfig::for_elements(N as usize, 256)
}

#[test]
fn a_dependency_on_another_stream_orders_the_launch() {
    on_every_device(|device| {
        let module = basics(device)?;
        let (fill, add) = (module.kernel("fill_index")?, module.kernel("add_one")?);
        for _ in 0..5 {
            let (producer, consumer) = (device.create_stream()?, device.create_stream()?);
            let data = Buffer::<u32>::zeroed(device, N as usize)?;
            let filled = fill.launch(&producer, config(), (&data, N))?;
            let added = add.launch_after(&consumer, config(), (&data, N), &[&filled])?;
            added.wait()?;
            assert!(
                filled.is_done()?,
                "the dependency is not done after its dependent"
            );
            let expected: Vec<u32> = (1..=N).collect();
            assert_eq!(data.to_vec()?, expected);
        }
        Ok(())
    });
}

#[test]
fn same_stream_dependencies_and_ready_tokens_are_accepted() {
    on_every_device(|device| {
        let module = basics(device)?;
        let stream = device.create_stream()?;
        let data = Buffer::<u32>::zeroed(device, N as usize)?;
        let first = module
            .kernel("fill_index")?
            .launch(&stream, config(), (&data, N))?;
        let add = module.kernel("add_one")?;
        let second = add.launch_after(&stream, config(), (&data, N), &[&first, &Token::ready()])?;
        let third = add.launch_after(&stream, config(), (&data, N), &[&second, &first])?;
        third.wait()?;
        assert!(first.is_done()? && second.is_done()?);
        assert_eq!(data.to_vec()?[10], 12);
        Ok(())
    });
}

#[test]
fn one_launch_may_depend_on_many_streams() {
    on_every_device(|device| {
        let module = basics(device)?;
        let (fill, copy) = (module.kernel("fill_index")?, module.kernel("copy_plus")?);
        let streams: Vec<_> = (0..8)
            .map(|_| device.create_stream())
            .collect::<Result<_, _>>()?;
        let buffers: Vec<Buffer<u32>> = (0..8)
            .map(|_| Buffer::zeroed(device, N as usize))
            .collect::<Result<_, _>>()?;
        let tokens: Vec<Token> = streams
            .iter()
            .zip(&buffers)
            .map(|(s, b)| fill.launch(s, config(), (b, N)))
            .collect::<Result<_, _>>()?;
        let deps: Vec<&Token> = tokens.iter().collect();
        let out = Buffer::<u32>::zeroed(device, N as usize)?;
        let last = device.create_stream()?;
        // The joined launch reads the last producer's buffer.
        let joined = copy.launch_after(&last, config(), (&buffers[7], &out, 5u32, N), &deps)?;
        joined.wait()?;
        for token in &tokens {
            assert!(token.is_done()?);
        }
        assert_eq!(out.to_vec()?[N as usize - 1], N - 1 + 5);
        Ok(())
    });
}

#[test]
fn tokens_stay_valid_after_their_stream_is_dropped() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("add_one")?;
        let data = Buffer::<u32>::zeroed(device, N as usize)?;
        let token = {
            let stream = device.create_stream()?;
            kernel.launch(&stream, config(), (&data, N))?;
            kernel.launch(&stream, config(), (&data, N))?
        };
        token.wait()?;
        assert!(token.is_done()?);
        assert_eq!(data.to_vec()?[0], 2);
        // A later stream may still depend on it.
        let later = device.create_stream()?;
        kernel
            .launch_after(&later, config(), (&data, N), &[&token])?
            .wait()?;
        assert_eq!(data.to_vec()?[N as usize - 1], 3);
        Ok(())
    });
}

#[test]
fn is_done_becomes_true_without_waiting() {
    on_every_device_and_noop(|device| {
        let kernel = basics(device)?.kernel("add_one")?;
        let stream = device.create_stream()?;
        let data = Buffer::<u32>::zeroed(device, N as usize)?;
        let token = kernel.launch(&stream, config(), (&data, N))?;
        let _later = kernel.launch(&stream, config(), (&data, N))?;
        while !token.is_done()? {
            std::thread::yield_now();
        }
        stream.synchronize()
    });
}

#[test]
fn buffers_dropped_while_in_use_are_freed_only_after_the_work() {
    // On the CPU device a premature free would be a use-after-free fault of the kernel.
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("add_one")?;
        let (a, b) = (device.create_stream()?, device.create_stream()?);
        for _ in 0..20 {
            let doomed = Buffer::<u32>::zeroed(device, N as usize)?;
            for _ in 0..5 {
                kernel.launch(&a, config(), (&doomed, N))?;
            }
            let other = Buffer::<u32>::zeroed(device, N as usize)?;
            kernel.launch(&b, config(), (&other, N))?;
            drop(doomed);
            drop(other);
        }
        a.synchronize()?;
        b.synchronize()?;
        let fresh = Buffer::<u32>::zeroed(device, N as usize)?;
        kernel.launch(&a, config(), (&fresh, N))?.wait()?;
        assert_eq!(fresh.to_vec()?, vec![1u32; N as usize]);
        Ok(())
    });
}

/// Each kernel sets its own flag and spins (up to 2 s of device time) until it sees the
/// other's: both see each other only if they run at the same time. Serialised streams fail
/// every attempt. On a GPU, CUDA itself may keep the two kernels apart when another thread of
/// the process issues an implicitly synchronizing operation between the two launches (the
/// other conformance tests allocate and free memory all the time), so the test makes up to
/// five attempts and needs one in which the two kernels met.
#[test]
fn work_on_two_streams_runs_concurrently() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("handshake")?;
        let (a, b) = (device.create_stream()?, device.create_stream()?);
        let one = LaunchConfig::new(1, 1);
        let mut attempts = Vec::new();
        for _ in 0..5 {
            let flags = Buffer::<u32>::zeroed(device, 2)?;
            let seen = Buffer::<u32>::zeroed(device, 2)?;
            let seen_ptr = seen.device_ptr();
            let first = kernel.launch(&a, one, (&flags, 0u32, 1u32, seen_ptr))?;
            let second = kernel.launch(&b, one, (&flags, 1u32, 0u32, seen_ptr + 4))?;
            first.wait()?;
            second.wait()?;
            let both = seen.to_vec()?;
            if both == [1, 1] {
                return Ok(());
            }
            attempts.push(both);
        }
        panic!(
            "the two streams never ran at the same time: in each of five attempts a kernel \
             waited 2 s for the other ([first, second] saw the other: 1): {attempts:?}"
        );
    });
}

//! Explicit graphs: recorded work replays exactly like the same work launched eagerly, node
//! arguments change without re-recording, and a fault inside a replay names the node's kernel.

use chevron::{Buffer, Device, Error, Kernel, KernelArg, LaunchConfig, Module, Result, Stream};

use crate::harness::{basics, corpus, on_every_device, on_every_device_but_cuda};

const N: u32 = 256;

/// Where the conformance workload's operations go: straight to a stream, or into a graph.
trait Sink {
    fn launch(
        &mut self,
        kernel: &Kernel,
        config: LaunchConfig,
        args: &[&dyn KernelArg],
    ) -> Result<()>;
    fn fill(&mut self, dst: &Buffer<u32>, value: u32) -> Result<()>;
    fn copy_in(&mut self, dst: &Buffer<f32>, src: &[f32]) -> Result<()>;
    fn copy_buffer(&mut self, dst: &Buffer<u32>, src: &Buffer<u32>) -> Result<()>;
}

impl Sink for Stream {
    fn launch(
        &mut self,
        kernel: &Kernel,
        config: LaunchConfig,
        args: &[&dyn KernelArg],
    ) -> Result<()> {
        kernel.launch(self, config, args).map(drop)
    }
    fn fill(&mut self, dst: &Buffer<u32>, value: u32) -> Result<()> {
        Stream::fill(self, dst, value).map(drop)
    }
    fn copy_in(&mut self, dst: &Buffer<f32>, src: &[f32]) -> Result<()> {
        self.copy_to_device(dst, src).map(drop)
    }
    fn copy_buffer(&mut self, dst: &Buffer<u32>, src: &Buffer<u32>) -> Result<()> {
        Stream::copy_buffer(self, dst, src).map(drop)
    }
}

impl Sink for chevron::Recorder<'_> {
    fn launch(
        &mut self,
        kernel: &Kernel,
        config: LaunchConfig,
        args: &[&dyn KernelArg],
    ) -> Result<()> {
        chevron::Recorder::launch(self, kernel, config, args).map(drop)
    }
    fn fill(&mut self, dst: &Buffer<u32>, value: u32) -> Result<()> {
        chevron::Recorder::fill(self, dst, value).map(drop)
    }
    fn copy_in(&mut self, dst: &Buffer<f32>, src: &[f32]) -> Result<()> {
        self.copy_to_device(dst, src).map(drop)
    }
    fn copy_buffer(&mut self, dst: &Buffer<u32>, src: &Buffer<u32>) -> Result<()> {
        chevron::Recorder::copy_buffer(self, dst, src).map(drop)
    }
}

/// What the workload's outputs hold: index, plus, copied, y, scan_out.
type Snapshot = (Vec<u32>, Vec<u32>, Vec<u32>, Vec<f32>, Vec<i32>);

/// The buffers one run of the workload writes.
struct Outputs {
    index: Buffer<u32>,
    plus: Buffer<u32>,
    copied: Buffer<u32>,
    x: Buffer<f32>,
    y: Buffer<f32>,
    scan_in: Buffer<i32>,
    scan_out: Buffer<i32>,
}

impl Outputs {
    fn new(device: &Device) -> Result<Outputs> {
        Ok(Outputs {
            index: Buffer::zeroed(device, N as usize)?,
            plus: Buffer::zeroed(device, N as usize)?,
            copied: Buffer::zeroed(device, N as usize)?,
            x: Buffer::zeroed(device, N as usize)?,
            y: Buffer::from_slice(device, &vec![1.0f32; N as usize])?,
            scan_in: Buffer::from_slice(device, &(0..N as i32).collect::<Vec<_>>())?,
            scan_out: Buffer::zeroed(device, N as usize)?,
        })
    }

    fn read(&self) -> Result<Snapshot> {
        Ok((
            self.index.to_vec()?,
            self.plus.to_vec()?,
            self.copied.to_vec()?,
            self.y.to_vec()?,
            self.scan_out.to_vec()?,
        ))
    }
}

/// The conformance kernels the workload launches.
struct Kernels {
    fill_index: Kernel,
    add_one: Kernel,
    copy_plus: Kernel,
    reverse_blocks: Kernel,
    saxpy: Kernel,
    scan: Kernel,
}

impl Kernels {
    fn load(device: &Device) -> Result<Kernels> {
        let basics = basics(device)?;
        let elementwise = Module::from_file(device, corpus("nvrtc/compute_80/elementwise.ptx"))?;
        let reduce = Module::from_file(device, corpus("nvrtc/compute_80/reduce.ptx"))?;
        Ok(Kernels {
            fill_index: basics.kernel("fill_index")?,
            add_one: basics.kernel("add_one")?,
            copy_plus: basics.kernel("copy_plus")?,
            reverse_blocks: basics.kernel("reverse_blocks")?,
            saxpy: elementwise.kernel("saxpy")?,
            scan: reduce.kernel("block_scan<int, 128>(int const*, int*, int)")?,
        })
    }
}

/// Every kind of node: launches of the conformance kernels (dynamic shared memory included),
/// fills, host-to-device and device-to-device copies.
fn workload(sink: &mut dyn Sink, k: &Kernels, out: &Outputs) -> Result<()> {
    let config = LaunchConfig::for_elements(N as usize, 128);
    let n = N as i32;
    sink.fill(&out.plus, 0)?;
    sink.launch(&k.fill_index, config, &[&out.index, &N])?;
    sink.launch(&k.add_one, config, &[&out.index, &N])?;
    sink.launch(&k.copy_plus, config, &[&out.index, &out.plus, &7u32, &N])?;
    let reverse = LaunchConfig::new(2, 128).with_shared_bytes(128 * 4);
    sink.launch(&k.reverse_blocks, reverse, &[&out.plus])?;
    sink.copy_buffer(&out.copied, &out.plus)?;
    sink.copy_in(&out.x, &(0..N).map(|i| i as f32).collect::<Vec<_>>())?;
    sink.launch(&k.saxpy, config, &[&2.0f32, &out.x, &out.y, &n])?;
    sink.launch(
        &k.scan,
        LaunchConfig::new(2, 128),
        &[&out.scan_in, &out.scan_out, &n],
    )
}

#[test]
fn recorded_work_replays_exactly_like_eager_launches() {
    on_every_device(|device| {
        let kernels = Kernels::load(device)?;
        let mut stream = device.create_stream()?;
        let eager = Outputs::new(device)?;
        workload(&mut stream, &kernels, &eager)?;
        stream.synchronize()?;

        let replayed = Outputs::new(device)?;
        let graph = stream.record(|s| workload(s, &kernels, &replayed))?;
        assert_eq!(graph.len(), 9);
        assert_eq!(
            replayed.read()?.0,
            vec![0; N as usize],
            "recording runs nothing"
        );
        graph.launch(&stream, &[])?.wait()?;
        assert_eq!(replayed.read()?, eager.read()?);
        // The y buffer accumulates (y += 2x), so a second replay matches a second eager run.
        graph.launch(&stream, &[])?;
        workload(&mut stream, &kernels, &eager)?;
        stream.synchronize()?;
        assert_eq!(replayed.read()?, eager.read()?);
        Ok(())
    });
}

/// `add_one`, a stream and 64 zeroed words of `device`: what the node tests record.
fn add_one_on_64(device: &Device) -> Result<(Kernel, Stream, Buffer<u32>)> {
    Ok((
        basics(device)?.kernel("add_one")?,
        device.create_stream()?,
        Buffer::<u32>::zeroed(device, 64)?,
    ))
}

/// `cudaLaunchAttributePriority` and `cudaLaunchAttributeAccessPolicyWindow`.
const PRIORITY: i32 = 8;
const ACCESS_POLICY_WINDOW: i32 = 1;

#[test]
fn a_launch_node_takes_launch_attributes_and_still_runs() {
    on_every_device(|device| {
        let (add_one, stream, a) = add_one_on_64(device)?;
        let (_, greatest) = device.stream_priority_range()?;
        // A priority and an L2 window over `a` (hit ratio 0.5, persisting hits, streaming
        // misses): hints a GPU's driver is given with the node, which the CPU device ignores.
        let mut window = [0u64; 8];
        window[0] = a.device_ptr();
        window[1] = 64 * 4;
        window[2] = u64::from(0.5f32.to_bits()) | (2u64 << 32);
        window[3] = 1;
        let mut priority = [0u64; 8];
        priority[0] = u64::from(greatest as u32);
        let graph = stream.record(|s| {
            s.fill(&a, 5u32)?;
            let node = s.launch(&add_one, LaunchConfig::new(1, 64), (&a, 64u32))?;
            s.set_launch_attributes(
                node,
                &[(PRIORITY, priority), (ACCESS_POLICY_WINDOW, window)],
            )?;
            let err = s.set_launch_attributes(chevron::NodeId(0), &[(PRIORITY, priority)]);
            assert!(err.is_err(), "a fill took launch attributes");
            Ok(())
        })?;
        graph.launch(&stream, &[])?.wait()?;
        assert_eq!(a.to_vec()?, vec![6; 64]);
        Ok(())
    });
}

#[test]
fn node_arguments_change_between_replays_and_are_checked_like_launches() {
    on_every_device(|device| {
        let (add_one, stream, a) = add_one_on_64(device)?;
        let b = Buffer::<u32>::zeroed(device, 64)?;
        let config = LaunchConfig::new(1, 64);
        let mut graph = stream.record(|s| {
            s.fill(&a, 5u32)?;
            s.launch(&add_one, config, (&a, 64u32))?;
            Ok(())
        })?;
        graph.launch(&stream, &[])?.wait()?;
        assert_eq!(a.to_vec()?, vec![6; 64]);

        graph.set_args(graph.node(1), (&b, 32u32))?;
        graph.launch(&stream, &[])?.wait()?;
        assert_eq!(a.to_vec()?, vec![5; 64], "the fill still targets a");
        assert_eq!(b.to_vec()?[..33], [[1; 32].as_slice(), &[0]].concat());

        let err = graph.set_args(graph.node(1), (&b, 32u64)).unwrap_err();
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
        assert!(err.to_string().contains("`add_one`"), "{err}");
        let err = graph.set_args(graph.node(0), (&b, 32u32)).unwrap_err();
        assert!(
            err.to_string().contains("node 0 is not a kernel launch"),
            "{err}"
        );
        assert!(graph.set_args(graph.node(2), (&b, 32u32)).is_err());
        Ok(())
    });
}

#[test]
fn replays_wait_for_their_dependencies_and_recorded_waits() {
    on_every_device(|device| {
        let add_one = basics(device)?.kernel("add_one")?;
        let (stream, other) = (device.create_stream()?, device.create_stream()?);
        let data = Buffer::<u32>::zeroed(device, 32)?;
        let flag = Buffer::<u32>::zeroed(device, 32)?;
        let config = LaunchConfig::new(1, 32);
        let filled = other.fill(&flag, 40u32)?;
        let graph = stream.record(|s| {
            s.wait_for(&[&filled]);
            s.copy_buffer(&data, &flag)?;
            s.launch(&add_one, config, (&data, 32u32))?;
            Ok(())
        })?;
        graph.launch(&stream, &[])?.wait()?;
        assert_eq!(data.to_vec()?, vec![41; 32]);

        let refill = other.fill(&flag, 100u32)?;
        graph.launch(&stream, &[&refill])?.wait()?;
        assert_eq!(data.to_vec()?, vec![101; 32]);
        Ok(())
    });
}

#[test]
fn a_fault_inside_a_replay_names_the_node_kernel_and_cancels_later_work() {
    on_every_device_but_cuda(|device| {
        let module = basics(device)?;
        let (add_one, store_to) = (module.kernel("add_one")?, module.kernel("store_to")?);
        let stream = device.create_stream()?;
        let data = Buffer::<u32>::zeroed(device, 32)?;
        let config = LaunchConfig::new(1, 32);
        let graph = stream.record(|s| {
            s.launch(&add_one, config, (&data, 32u32))?;
            s.launch(&store_to, LaunchConfig::new(1, 1), (0x10u64,))?;
            s.launch(&add_one, config, (&data, 32u32))?;
            Ok(())
        })?;
        let token = graph.launch(&stream, &[])?;
        let err = token.wait().unwrap_err();
        let Error::Fault {
            kernel,
            kind,
            message,
            ..
        } = &err
        else {
            panic!("expected a fault, got {err}");
        };
        assert_eq!(kernel, "store_to");
        assert_eq!(*kind, chevron::FaultKind::IllegalAddress);
        assert!(message.contains("graph node 1 of 3"), "{message}");
        Ok(())
    });
}

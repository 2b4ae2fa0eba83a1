//! Thread-block cluster launches ([`chevron::Kernel::launch_cluster`]) with NVRTC's sm_90
//! kernels: clusters of one block everywhere, larger clusters on the CPU device and on CUDA GPUs
//! of compute capability 9.0 or later, and clear errors elsewhere.

use chevron::{BackendKind, Buffer, Device, Error, LaunchConfig, Module};

use crate::harness::{corpus, cuda_devices, on_every_device};

/// NVRTC's sm_90 kernels: `cluster_exchange` (`__cluster_dims__(2, 1, 1)`, swaps the two
/// blocks' inputs through distributed shared memory) and `cluster_ids` (writes
/// `%cluster_nctarank << 16 | %cluster_ctarank` per block).
fn hopper(device: &Device) -> chevron::Result<Module> {
    Module::from_file(device, corpus("nvrtc/compute_90/hopper.ptx"))
}

/// Whether `device` can load sm_90 code (the CPU device always can).
fn runs_sm90(device: &Device) -> bool {
    device.backend() != BackendKind::Cuda || device.compute_capability().0 >= 9
}

/// `cluster_ids` launched on `blocks` blocks in clusters of `cluster` blocks along x.
fn cluster_ids(device: &Device, blocks: u32, cluster: u32) -> chevron::Result<Vec<u32>> {
    let kernel = hopper(device)?.kernel("cluster_ids")?;
    let stream = device.create_stream()?;
    let out = Buffer::<u32>::zeroed(device, blocks as usize)?;
    kernel
        .launch_cluster(
            &stream,
            LaunchConfig::new(blocks, 32),
            [cluster, 1, 1],
            (&out,),
        )?
        .wait()?;
    out.to_vec()
}

/// What `cluster_ids` writes for clusters of `cluster` blocks.
fn expected_ids(blocks: u32, cluster: u32) -> Vec<u32> {
    (0..blocks)
        .map(|b| (cluster << 16) | (b % cluster))
        .collect()
}

#[test]
fn a_cluster_of_one_block_runs_as_an_ordinary_launch() {
    on_every_device(|device| {
        if !runs_sm90(device) {
            return Ok(());
        }
        assert_eq!(cluster_ids(device, 6, 1)?, expected_ids(6, 1));
        Ok(())
    });
}

#[test]
fn a_cluster_that_does_not_divide_the_grid_is_rejected_before_the_backend() {
    on_every_device(|device| {
        if !runs_sm90(device) {
            return Ok(());
        }
        let err = cluster_ids(device, 3, 2).unwrap_err();
        let Error::LaunchConfig {
            kernel, message, ..
        } = &err
        else {
            panic!("expected a launch configuration error, got {err}");
        };
        assert_eq!(kernel, "cluster_ids");
        assert!(
            message.contains("grid x = 3 is not a multiple of the cluster's x = 2"),
            "{err}"
        );
        let empty = cluster_ids(device, 4, 0).unwrap_err();
        assert!(empty.to_string().contains("empty dimension"), "{empty}");
        Ok(())
    });
}

#[test]
fn the_cpu_device_runs_clusters_of_several_blocks() {
    on_every_device(|device| {
        if device.backend() != BackendKind::Cpu {
            return Ok(());
        }
        for cluster in [2, 4, 8] {
            assert_eq!(
                cluster_ids(device, 16, cluster)?,
                expected_ids(16, cluster),
                "clusters of {cluster} on {device}"
            );
        }
        let err = cluster_ids(device, 16, 16).unwrap_err();
        let Error::LaunchConfig {
            kernel,
            device: on,
            message,
        } = &err
        else {
            panic!("expected a launch configuration error, got {err}");
        };
        assert_eq!(kernel, "cluster_ids");
        assert_eq!(on, &device.to_string());
        assert!(
            message.contains("16 blocks exceed the portable maximum of 8"),
            "{err}"
        );
        Ok(())
    });
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn clusters_report_their_rank_and_size_on_sm90() {
    for device in cuda_devices() {
        if !runs_sm90(&device) {
            continue;
        }
        for cluster in [1, 2, 4, 8] {
            let ids = cluster_ids(&device, 16, cluster).unwrap();
            assert_eq!(
                ids,
                expected_ids(16, cluster),
                "clusters of {cluster} on {device}"
            );
        }
        let err = cluster_ids(&device, 16, 16).unwrap_err();
        assert!(
            err.to_string().contains("exceed the portable maximum of 8"),
            "{err}"
        );
    }
}

/// On the CPU device, and on CUDA GPUs of compute capability 9.0 or later.
#[test]
fn blocks_of_a_cluster_exchange_data_through_distributed_shared_memory() {
    for device in crate::harness::runtime().devices().to_vec() {
        if !runs_sm90(&device) {
            continue;
        }
        let kernel = hopper(&device).unwrap().kernel("cluster_exchange").unwrap();
        let stream = device.create_stream().unwrap();
        let (blocks, threads) = (8u32, 64u32);
        let input: Vec<i32> = (0..(blocks * threads) as i32).map(|i| i * 3 + 1).collect();
        let src = Buffer::from_slice(&device, &input).unwrap();
        let dst = Buffer::<i32>::zeroed(&device, input.len()).unwrap();
        kernel
            .launch_cluster(
                &stream,
                LaunchConfig::new(blocks, threads),
                [2, 1, 1],
                (&src, &dst),
            )
            .unwrap()
            .wait()
            .unwrap();
        let expected: Vec<i32> = (0..blocks * threads)
            .map(|i| input[(((i / threads) ^ 1) * threads + i % threads) as usize])
            .collect();
        assert_eq!(dst.to_vec().unwrap(), expected, "on {device}");

        // The compiled cluster shape also applies to a plain launch.
        let plain = Buffer::<i32>::zeroed(&device, input.len()).unwrap();
        kernel
            .launch(&stream, LaunchConfig::new(blocks, threads), (&src, &plain))
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(
            plain.to_vec().unwrap(),
            expected,
            "plain launch on {device}"
        );

        let err = kernel
            .launch_cluster(
                &stream,
                LaunchConfig::new(blocks, threads),
                [4, 1, 1],
                (&src, &dst),
            )
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("compiled for clusters of (2, 1, 1) blocks"),
            "{err}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_gpu_without_clusters_names_the_compute_capability() {
    for device in cuda_devices() {
        if runs_sm90(&device) {
            continue;
        }
        let module = Module::from_file(&device, corpus("nvrtc/compute_80/elementwise.ptx"));
        let Ok(module) = module else { continue };
        let kernel = module.kernel("saxpy").unwrap();
        let stream = device.create_stream().unwrap();
        let x = Buffer::from_slice(&device, &[1.0f32; 4]).unwrap();
        let y = Buffer::from_slice(&device, &[1.0f32; 4]).unwrap();
        let err = kernel
            .launch_cluster(
                &stream,
                LaunchConfig::new(2, 32),
                [2, 1, 1],
                (2.0f32, &x, &y, 4i32),
            )
            .unwrap_err();
        assert!(
            err.to_string().contains("compute capability 9.0 or later"),
            "{err}"
        );
    }
}

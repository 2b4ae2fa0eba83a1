//! Launches: by name, mangled name and C++ signature; every argument form; dynamic shared
//! memory; device functions; unchecked and raw launches.

use std::ffi::c_void;

use chevron::{Buffer, KernelArg, LaunchConfig, Module};

use crate::harness::{basics, corpus, on_every_device};

#[test]
fn a_kernel_launched_by_name_computes() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("fill_index")?;
        let stream = device.create_stream()?;
        let n = 1000u32;
        let out = Buffer::<u32>::zeroed(device, n as usize)?;
        kernel.launch(
            &stream,
            LaunchConfig::for_elements(n as usize, 128),
            (&out, n),
        )?;
        stream.synchronize()?;
        let expected: Vec<u32> = (0..n).collect();
        assert_eq!(out.to_vec()?, expected);
        Ok(())
    });
}

#[test]
fn four_arguments_of_two_kinds_reach_the_kernel() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("copy_plus")?;
        let stream = device.default_stream()?;
        let src = Buffer::from_slice(device, &[10u32, 20, 30, 40, 50])?;
        let dst = Buffer::<u32>::zeroed(device, 5)?;
        kernel
            .launch(&stream, LaunchConfig::new(1, 32), (&src, &dst, 7u32, 5u32))?
            .wait()?;
        assert_eq!(dst.to_vec()?, [17, 27, 37, 47, 57]);
        Ok(())
    });
}

#[test]
fn compiler_output_is_launched_by_c_name_mangled_name_and_signature() {
    on_every_device(|device| {
        let module = Module::from_file(device, corpus("nvrtc/compute_80/elementwise.ptx"))?;
        let stream = device.default_stream()?;
        let x = Buffer::from_slice(device, &[1.0f32, 2.0, 3.0, 4.0])?;
        let y = Buffer::from_slice(device, &[10.0f32, 20.0, 30.0, 40.0])?;
        module
            .kernel("saxpy")?
            .launch(&stream, LaunchConfig::new(1, 32), (2.0f32, &x, &y, 4i32))?
            .wait()?;
        assert_eq!(y.to_vec()?, [12.0, 24.0, 36.0, 48.0]);

        let by_mangled = module.kernel("_Z9vec_mul_iPKxS0_Pxm")?;
        let by_signature = module
            .kernel("vec_mul_i(long long const*, long long const*, long long*, unsigned long)")?;
        let by_plain = module.kernel("vec_mul_i")?;
        assert_eq!(by_signature.name(), by_mangled.name());
        assert_eq!(by_plain.name(), "_Z9vec_mul_iPKxS0_Pxm");
        assert!(by_mangled.display_name().starts_with("vec_mul_i("));
        let a = Buffer::from_slice(device, &[3i64, -4, 1 << 40])?;
        let b = Buffer::from_slice(device, &[5i64, 6, 3])?;
        let c = Buffer::<i64>::zeroed(device, 3)?;
        by_signature
            .launch(&stream, LaunchConfig::new(1, 32), (&a, &b, &c, 3u64))?
            .wait()?;
        assert_eq!(c.to_vec()?, [15, -24, 3 << 40]);
        Ok(())
    });
}

#[test]
fn template_instances_are_found_by_signature_and_plain_names_must_be_unambiguous() {
    on_every_device(|device| {
        let module = Module::from_file(device, corpus("nvrtc/compute_80/reduce.ptx"))?;
        let int_scan = module.kernel("block_scan<int, 128>(int const*, int*, int)")?;
        assert_eq!(int_scan.name(), "_Z10block_scanIiLi128EEvPKT_PS0_i");
        let float_scan = module.kernel("block_scan<float, 256>")?;
        assert_eq!(float_scan.name(), "_Z10block_scanIfLi256EEvPKT_PS0_i");
        let err = module.kernel("block_scan").unwrap_err().to_string();
        assert!(
            err.contains("ambiguous") && err.contains("block_scan<int, 128>"),
            "{err}"
        );
        Ok(())
    });
}

#[test]
fn dynamic_shared_memory_is_given_to_each_block() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("reverse_blocks")?;
        let stream = device.create_stream()?;
        let block = 64u32;
        let data: Vec<u32> = (0..256).collect();
        let buffer = Buffer::from_slice(device, &data)?;
        let config = LaunchConfig::new(4, block).with_shared_bytes(block * 4);
        kernel.launch(&stream, config, (&buffer,))?;
        stream.synchronize()?;
        let expected: Vec<u32> = data
            .chunks(block as usize)
            .flat_map(|c| c.iter().rev().copied())
            .collect();
        assert_eq!(buffer.to_vec()?, expected);
        Ok(())
    });
}

#[test]
fn kernels_call_device_functions_and_update_globals() {
    on_every_device(|device| {
        let module = basics(device)?;
        let global = module.global("launch_count")?;
        assert_eq!(global.size, 4);
        assert_ne!(global.ptr, 0);
        let data = Buffer::from_slice(device, &[1u32, 2, 3, 4, 5, 6, 7])?;
        module
            .kernel("double_all")?
            .launch(
                &device.default_stream()?,
                LaunchConfig::new(2, 4),
                (&data, 7u32),
            )?
            .wait()?;
        assert_eq!(data.to_vec()?, [2, 4, 6, 8, 10, 12, 14]);
        Ok(())
    });
}

#[test]
fn unchecked_raw_and_dynamic_argument_lists_launch_the_same_kernel() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("add_one")?;
        let stream = device.create_stream()?;
        let data = Buffer::<u32>::zeroed(device, 40)?;
        let n = 40u32;
        let config = LaunchConfig::for_elements(40, 32);
        // SAFETY: add_one takes (u64 data, u32 n): a device buffer and its length.
        unsafe { kernel.launch_unchecked(&stream, config, (&data, n))? };
        let dynamic: [&dyn KernelArg; 2] = [&data, &n];
        kernel.launch(&stream, config, &dynamic[..])?;
        let ptr = data.device_ptr();
        let raw: [*mut c_void; 2] = [
            &ptr as *const u64 as *mut c_void,
            &n as *const u32 as *mut c_void,
        ];
        // SAFETY: each pointer points at a value of its parameter's size, alive for the call.
        unsafe { kernel.launch_raw(&stream, config, &raw, &[])? };
        stream.synchronize()?;
        assert_eq!(data.to_vec()?, vec![3u32; 40]);
        Ok(())
    });
}

#[test]
fn an_unchecked_launch_receipt_gives_the_token_of_its_launch() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("add_one")?;
        let stream = device.create_stream()?;
        let data = Buffer::<u32>::zeroed(device, 32)?;
        let config = LaunchConfig::for_elements(32, 32);
        let first = kernel.launch(&stream, config, (&data, 32u32))?;
        // SAFETY: add_one takes (u64 data, u32 n): a device buffer and its length.
        let receipt = unsafe { kernel.launch_unchecked(&stream, config, (&data, 32u32))? };
        let ptr = data.device_ptr();
        let n = 32u32;
        let raw: [*mut c_void; 2] = [
            &ptr as *const u64 as *mut c_void,
            &n as *const u32 as *mut c_void,
        ];
        // SAFETY: each pointer points at a value of its parameter's size, alive for the call.
        let raw_receipt = unsafe { kernel.launch_raw_unchecked(&stream, config, &raw)? };
        assert_eq!(receipt.sequence(), first.sequence() + 1);
        assert_eq!(raw_receipt.sequence(), receipt.sequence() + 1);
        let token = raw_receipt.token();
        assert_eq!(token.sequence(), raw_receipt.sequence());
        token.wait()?;
        assert!(receipt.token().is_done()?);
        assert_eq!(data.to_vec()?, vec![3u32; 32]);
        Ok(())
    });
}

#[test]
fn many_launches_on_one_stream_run_in_order() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("add_one")?;
        let stream = device.create_stream()?;
        let data = Buffer::<u32>::zeroed(device, 64)?;
        for _ in 0..100 {
            kernel.launch(&stream, LaunchConfig::new(2, 32), (&data, 64u32))?;
        }
        stream.synchronize()?;
        assert_eq!(data.to_vec()?, vec![100u32; 64]);
        Ok(())
    });
}

#[test]
fn any_thread_launches_on_any_stream() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("add_one")?;
        let shared_stream = device.create_stream()?;
        let shared_data = Buffer::<u32>::zeroed(device, 64)?;
        let own: Vec<Buffer<u32>> = (0..4)
            .map(|_| Buffer::zeroed(device, 64))
            .collect::<chevron::Result<_>>()?;
        std::thread::scope(|scope| {
            let workers: Vec<_> = own
                .iter()
                .map(|mine| {
                    let (kernel, shared_stream, shared_data) =
                        (&kernel, &shared_stream, &shared_data);
                    scope.spawn(move || -> chevron::Result<()> {
                        let stream = device.create_stream()?;
                        for _ in 0..25 {
                            kernel.launch(&stream, LaunchConfig::new(2, 32), (mine, 64u32))?;
                            kernel.launch(
                                shared_stream,
                                LaunchConfig::new(2, 32),
                                (shared_data, 64u32),
                            )?;
                        }
                        stream.synchronize()
                    })
                })
                .collect();
            workers
                .into_iter()
                .try_for_each(|w| w.join().expect("worker panicked"))
        })?;
        shared_stream.synchronize()?;
        assert_eq!(shared_data.to_vec()?, vec![100u32; 64]);
        for mine in &own {
            assert_eq!(mine.to_vec()?, vec![25u32; 64]);
        }
        Ok(())
    });
}

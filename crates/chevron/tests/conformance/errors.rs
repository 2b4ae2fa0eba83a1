//! Errors: each names the kernel, the parameter, the device or the source line it is about.

use chevron::{Buffer, Error, LaunchConfig, Module};

use crate::harness::{basics, data, on_every_device_and_noop, on_every_device_but_cuda};

#[test]
fn wrong_argument_counts_and_sizes_name_the_kernel_and_parameter() {
    on_every_device_and_noop(|device| {
        let kernel = basics(device)?.kernel("copy_plus")?;
        let stream = device.create_stream()?;
        let a = Buffer::<u32>::new(device, 4)?;
        let config = LaunchConfig::new(1, 32);

        let err = kernel.launch(&stream, config, (&a, &a, 1u32)).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(
                err,
                Error::Argument {
                    parameter: None,
                    ..
                }
            ),
            "{text}"
        );
        assert!(
            text.contains("`copy_plus`") && text.contains("takes 4 parameters"),
            "{text}"
        );
        assert!(
            text.contains("`offset`") && text.contains("got 3"),
            "{text}"
        );

        let err = kernel
            .launch(&stream, config, (&a, &a, 1u64, 4u32))
            .unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(
                err,
                Error::Argument {
                    parameter: Some(2),
                    ..
                }
            ),
            "{text}"
        );
        assert!(
            text.contains("`offset`") && text.contains("4 bytes, got 8"),
            "{text}"
        );
        Ok(())
    });
}

#[test]
fn invalid_configurations_name_the_kernel_the_limit_and_the_device() {
    on_every_device_and_noop(|device| {
        let module = basics(device)?;
        let stream = device.create_stream()?;
        let out = Buffer::<u32>::new(device, 4)?;
        let fill = module.kernel("fill_index")?;
        let limits = device.limits();

        let too_many = limits.max_threads_per_block * 2;
        let err = fill
            .launch(&stream, LaunchConfig::new(1, (too_many, 1)), (&out, 4u32))
            .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::LaunchConfig { .. }), "{text}");
        assert!(
            text.contains("fill_index") && text.contains(device.label()),
            "{text}"
        );

        let err = fill
            .launch(&stream, LaunchConfig::new(0, 32), (&out, 4u32))
            .unwrap_err();
        assert!(err.to_string().contains("empty dimension"), "{err}");

        let shared = limits
            .max_shared_per_block_optin
            .max(limits.max_shared_per_block)
            + 1;
        let err = fill
            .launch(
                &stream,
                LaunchConfig::new(1, 32).with_shared_bytes(shared),
                (&out, 4u32),
            )
            .unwrap_err();
        assert!(err.to_string().contains("shared memory"), "{err}");

        let limited = module.kernel("limited")?;
        assert_eq!(limited.max_threads_per_block(), 64);
        let err = limited
            .launch(&stream, LaunchConfig::new(1, 128), (&out,))
            .unwrap_err();
        assert!(err.to_string().contains("kernel's maximum of 64"), "{err}");
        limited.launch(&stream, LaunchConfig::new(1, 64), (&out,))?;
        stream.synchronize()
    });
}

#[test]
fn unknown_kernels_list_close_candidates() {
    on_every_device_and_noop(|device| {
        let module = basics(device)?;
        match module.kernel("fill_indx") {
            Err(Error::NotFound {
                what, candidates, ..
            }) => {
                assert_eq!(what, "kernel");
                assert!(
                    candidates.iter().any(|c| c == "fill_index"),
                    "{candidates:?}"
                );
            }
            other => panic!("expected NotFound, got {other:?}"),
        }
        let err = module.kernel("twice").unwrap_err().to_string();
        assert!(err.contains("device function"), "{err}");
        Ok(())
    });
}

#[test]
fn ptx_syntax_errors_give_file_line_and_column() {
    on_every_device_and_noop(|device| {
        let path = data("syntax_error.ptx");
        match Module::from_file(device, &path) {
            Err(Error::CodeObject {
                source_name,
                message,
            }) => {
                assert!(source_name.ends_with("syntax_error.ptx"), "{source_name}");
                assert!(message.contains("line 9"), "{message}");
            }
            other => panic!("expected CodeObject, got {other:?}"),
        }
        Ok(())
    });
}

#[test]
fn a_fault_names_the_kernel_on_the_next_synchronization() {
    // On CUDA a fault poisons the context for the whole process: see gpu_only.
    on_every_device_but_cuda(|device| {
        let module = basics(device)?;
        let stream = device.create_stream()?;
        module
            .kernel("store_to")?
            .launch(&stream, LaunchConfig::new(1, 1), (8u64,))?;
        match stream.synchronize() {
            Err(Error::Fault {
                kernel,
                device: on,
                kind,
                ..
            }) => {
                assert!(kernel.contains("store_to"), "{kernel}");
                assert_eq!(kind, chevron::FaultKind::IllegalAddress);
                assert!(on.contains(device.label()), "{on}");
            }
            other => panic!("expected a fault, got {other:?}"),
        }
        Ok(())
    });
}

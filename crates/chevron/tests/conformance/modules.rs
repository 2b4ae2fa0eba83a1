//! Modules: loading from text, bytes and files; the symbol table of kernels, device functions
//! and globals with parameter layouts and demangled signatures.

use chevron::code_object::{detect, CodeObjectKind};
use chevron::{Module, SymbolKind};

use crate::harness::{basics, corpus, data, on_every_device, on_every_device_and_noop};

#[test]
fn symbols_list_kernels_device_functions_and_globals() {
    on_every_device_and_noop(|device| {
        let module = basics(device)?;
        let symbols = module.symbols();
        let kernels: Vec<&str> = symbols.kernels().map(|s| s.name.as_str()).collect();
        for expected in [
            "fill_index",
            "add_one",
            "copy_plus",
            "reverse_blocks",
            "double_all",
        ] {
            assert!(kernels.contains(&expected), "{kernels:?}");
        }
        let functions: Vec<&str> = symbols
            .device_functions()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(functions, ["twice"]);
        let counter = symbols.get("launch_count").expect("global listed");
        assert!(matches!(counter.kind, SymbolKind::Global { size: 4, .. }));
        assert_eq!(symbols.get("double_all").unwrap().callees, ["twice"]);

        let copy_plus = symbols.get("copy_plus").unwrap();
        let layout: Vec<(&str, u32, u32)> = copy_plus
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.offset, p.size))
            .collect();
        assert_eq!(
            layout,
            [
                ("src", 0, 8),
                ("dst", 8, 8),
                ("offset", 16, 4),
                ("n", 20, 4)
            ]
        );
        assert_eq!(module.kernel("copy_plus")?.params().unwrap().len(), 4);
        Ok(())
    });
}

#[test]
fn compiler_output_lists_demangled_signatures() {
    on_every_device_and_noop(|device| {
        let module = Module::from_file(device, corpus("nvrtc/compute_80/reduce.ptx"))?;
        let signatures: Vec<&str> = module.kernels().map(|s| s.display_name()).collect();
        assert!(
            signatures.contains(&"block_scan<int, 128>(int const*, int*, int)"),
            "{signatures:?}"
        );
        Ok(())
    });
}

#[test]
fn modules_load_from_text_bytes_and_files_alike() {
    on_every_device_and_noop(|device| {
        let text = std::fs::read_to_string(data("basics.ptx")).expect("test data");
        assert_eq!(detect(text.as_bytes()), Some(CodeObjectKind::Ptx));
        let from_text = Module::from_ptx(device, &text)?;
        let from_bytes = Module::from_bytes(device, text.as_bytes())?;
        let from_file = basics(device)?;
        assert_eq!(from_text.symbols(), from_bytes.symbols());
        assert_eq!(from_text.symbols(), from_file.symbols());
        assert_eq!(from_text.source_name(), "<memory>");
        assert!(from_file.source_name().ends_with("basics.ptx"));
        assert!(from_file.device().same_device(device));
        Ok(())
    });
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    on_every_device_and_noop(|device| {
        let err = Module::from_file(device, data("no_such_file.ptx")).unwrap_err();
        assert!(err.to_string().contains("no_such_file.ptx"), "{err}");
        Ok(())
    });
}

#[test]
fn kernels_outlive_their_module_handle() {
    on_every_device(|device| {
        let kernel = basics(device)?.kernel("fill_index")?;
        let out = chevron::Buffer::<u32>::zeroed(device, 3)?;
        kernel
            .launch(
                &device.default_stream()?,
                chevron::LaunchConfig::new(1, 32),
                (&out, 3u32),
            )?
            .wait()?;
        assert_eq!(out.to_vec()?, [0, 1, 2]);
        Ok(())
    });
}

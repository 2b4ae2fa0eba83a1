//! Device `printf`, `malloc` and `free` in compiled code (`device_services.rs`): the kernel
//! compiles, prints what the interpreter prints (each thread's lines in its order, blocks in
//! block order), allocates from the same heap, and faults where the interpreter faults, with
//! its report word for word.

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;

use chevron_ptx::interp::memory::SHARED_WINDOW;
use chevron_ptx::interp::LaunchHooks;

const PTX: &str = include_str!("data/device_services.ptx");

/// Per thread (the `[i]` each line starts with), its lines in order.
fn per_thread(text: &str) -> BTreeMap<u32, Vec<&str>> {
    let mut threads: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for line in text.lines() {
        let id = line[1..line.find(']').expect("a thread tag")]
            .parse()
            .unwrap();
        threads.entry(id).or_default().push(line);
    }
    threads
}

/// `print_values` over `n` values, interpreted then compiled, with a sink (`sink`) or
/// without: what each printed.
fn print_values(n: u32, block: u32, sink: bool) -> [String; 2] {
    let setup = common::Setup::of(PTX);
    let compiled = common::compile(&setup.program, "print_values", true);
    let handle = setup.program.kernel("print_values").unwrap();
    let input = common::buffer(&setup.memory, n as usize, |i| (i as u32 * 7919) % 1000);
    let mut params = input.to_le_bytes().to_vec();
    params.extend(n.to_le_bytes());
    let config = common::config(n.div_ceil(block), block, 1);
    let collected = Mutex::new(String::new());
    let push = |text: &str| collected.lock().unwrap().push_str(text);
    let hooks = LaunchHooks {
        printf: sink.then_some(&push as &(dyn Fn(&str) + Sync)),
        ..Default::default()
    };
    let mut printed = Vec::new();
    for run_compiled in [false, true] {
        let report = if run_compiled {
            compiled.launch(&config, &params, &hooks)
        } else {
            setup.program.launch_with(&handle, &config, &params, &hooks)
        }
        .expect("runs");
        // The interpreter counts what it runs: no compiled block went back to it.
        assert!(!run_compiled || report.lane_instructions == 0);
        printed.push(report.printf_output + &std::mem::take(&mut *collected.lock().unwrap()));
    }
    [printed[0].clone(), printed[1].clone()]
}

#[test]
fn printf_prints_each_threads_lines_as_the_interpreter_does() {
    for sink in [false, true] {
        let [interpreted, compiled] = print_values(200, 64, sink);
        assert!(interpreted.contains("[3]   odd|"), "{interpreted}");
        assert_eq!(per_thread(&interpreted), per_thread(&compiled));
        assert_eq!(interpreted.len(), compiled.len());
        // Blocks in block order: each thread's first line comes after every line of the
        // blocks before its own.
        let blocks: Vec<u32> = (compiled.lines())
            .map(|line| line[1..line.find(']').unwrap()].parse::<u32>().unwrap() / 64)
            .collect();
        assert!(blocks.windows(2).all(|w| w[0] <= w[1]), "{compiled}");
    }
}

/// `print_string` with `text` at a pointer into device memory (or at one `pointer` makes of
/// it), interpreted and compiled: the output or the fault's report.
fn print_string(pointer: impl Fn(u64) -> u64) -> [String; 2] {
    let setup = common::Setup::of(PTX);
    let compiled = common::compile(&setup.program, "print_string", true);
    let handle = setup.program.kernel("print_string").unwrap();
    let text = setup.memory.alloc(16, 16).unwrap();
    setup.memory.write(text, b"a device string\0").unwrap();
    let params = pointer(text).to_le_bytes();
    let config = common::config(2, 32, 1);
    let hooks = LaunchHooks::default();
    [false, true].map(|run_compiled| {
        let result = if run_compiled {
            compiled.launch(&config, &params, &hooks)
        } else {
            setup.program.launch_with(&handle, &config, &params, &hooks)
        };
        match result {
            Ok(report) => {
                assert!(!run_compiled || report.lane_instructions == 0);
                report.printf_output
            }
            Err(fault) => fault.to_string(),
        }
    })
}

#[test]
fn a_string_from_device_memory_prints_and_a_bad_one_faults_as_interpreted() {
    let [interpreted, compiled] = print_string(|text| text);
    assert_eq!(per_thread(&interpreted), per_thread(&compiled));
    assert!(compiled.contains("[31] a device string\n"), "{compiled}");
    // Past the allocation, and in the shared window of a kernel without shared memory.
    let past: fn(u64) -> u64 = |text| text + 4096;
    let shared: fn(u64) -> u64 = |_| SHARED_WINDOW + 16;
    for bad in [past, shared] {
        let [interpreted, compiled] = print_string(bad);
        assert_eq!(interpreted, compiled);
        let at = "block (0, 0, 0), thread (0, 0, 0)";
        assert!(compiled.contains(at), "{compiled}");
    }
}

#[test]
fn malloc_and_free_use_the_interpreters_heap() {
    let setup = common::Setup::of(PTX);
    let compiled = common::compile(&setup.program, "heap_sums", true);
    let handle = setup.program.kernel("heap_sums").unwrap();
    let (n, block) = (300u32, 64u32);
    let blocks = n.div_ceil(block);
    let input = common::buffer(&setup.memory, n as usize, |i| (i as u32 * 31) % 97);
    let out = setup.memory.alloc(8 * u64::from(n), 256).unwrap();
    let kept = setup.memory.alloc(8 * u64::from(n), 256).unwrap();
    let mut params = Vec::new();
    for word in [input, out, kept] {
        params.extend(word.to_le_bytes());
    }
    params.extend(n.to_le_bytes());
    let config = common::config(blocks, block, 1);
    let expected = |i: u64| {
        let v = (i * 31) % 97;
        let len = 1 + v % 7;
        (0..len).map(|k| v + k).sum::<u64>()
    };
    for run_compiled in [false, true] {
        setup.memory.write(out, &vec![0u8; 8 * n as usize]).unwrap();
        let result = if run_compiled {
            compiled.launch(&config, &params, &LaunchHooks::default())
        } else {
            setup.program.launch(&handle, &config, &params)
        };
        let report = result.expect("runs");
        assert!(!run_compiled || report.lane_instructions == 0);
        let mut bytes = vec![0u8; 8 * n as usize];
        setup.memory.read(out, &mut bytes).unwrap();
        let sums: Vec<u64> = (bytes.chunks(8))
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(sums, (0..u64::from(n)).map(expected).collect::<Vec<_>>());
        // Each block's first thread kept its buffer: live, holding what it wrote; the
        // others freed theirs (no longer allocated, unless a later `malloc` took the address
        // again for a kept one).
        let mut pointers = vec![0u8; 8 * n as usize];
        setup.memory.read(kept, &mut pointers).unwrap();
        let pointers: Vec<u64> = (pointers.chunks(8))
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let firsts: Vec<u64> = pointers.iter().copied().step_by(block as usize).collect();
        for (i, &pointer) in pointers.iter().enumerate() {
            let live = (setup.memory.lookup(pointer, 1)).is_ok_and(|a| !a.is_freed());
            assert_eq!(live, firsts.contains(&pointer), "thread {i}");
        }
        for (b, &pointer) in firsts.iter().enumerate() {
            let v = (b as u64 * u64::from(block) * 31) % 97;
            let words = common::read_words(&setup.memory, pointer, 1 + v as usize % 7);
            let values: Vec<u32> = (0..words.len() as u32).map(|k| v as u32 + k).collect();
            assert_eq!(words, values);
            setup.memory.free(pointer).expect("a live allocation");
        }
    }
}

#[test]
fn a_bad_free_faults_as_interpreted() {
    let setup = common::Setup::of(PTX);
    let compiled = common::compile(&setup.program, "bad_free", true);
    let handle = setup.program.kernel("bad_free").unwrap();
    let buffer = setup.memory.alloc(64, 256).unwrap();
    let params = buffer.to_le_bytes();
    let config = common::config(3, 32, 1);
    let interpreted = setup.program.launch(&handle, &config, &params).unwrap_err();
    let compiled = compiled
        .launch(&config, &params, &LaunchHooks::default())
        .unwrap_err();
    assert_eq!(interpreted.to_string(), compiled.to_string());
    assert!(compiled.to_string().contains("free"), "{compiled}");
}

#[test]
fn a_block_that_faults_after_printing_prints_once() {
    let setup = common::Setup::of(PTX);
    let compiled = common::compile(&setup.program, "print_then_store", true);
    let handle = setup.program.kernel("print_then_store").unwrap();
    // Room for 100 words: block 1 (threads 64..128) faults at thread 100.
    let out = setup.memory.alloc(400, 256).unwrap();
    let params = out.to_le_bytes();
    let config = common::config(3, 64, 1);
    let collected = Mutex::new(String::new());
    let push = |text: &str| collected.lock().unwrap().push_str(text);
    let hooks = LaunchHooks {
        printf: Some(&push),
        ..Default::default()
    };
    let interpreted = (setup.program.launch_with(&handle, &config, &params, &hooks))
        .unwrap_err()
        .to_string();
    let printed_interpreted = std::mem::take(&mut *collected.lock().unwrap());
    let compiled = compiled.launch(&config, &params, &hooks).unwrap_err();
    let printed_compiled = std::mem::take(&mut *collected.lock().unwrap());
    assert_eq!(interpreted, compiled.to_string());
    assert_eq!(
        per_thread(&printed_interpreted),
        per_thread(&printed_compiled)
    );
    assert!(
        printed_compiled.contains("[63] after\n[64] before\n"),
        "{printed_compiled:?} {interpreted}"
    );
}

#[test]
fn a_store_after_free_faults_as_interpreted() {
    let setup = common::Setup::of(PTX);
    let compiled = common::compile(&setup.program, "use_after_free", true);
    let handle = setup.program.kernel("use_after_free").unwrap();
    let config = common::config(2, 32, 1);
    let hooks = LaunchHooks::default();
    for rounds in [1u32, 2] {
        let params = rounds.to_le_bytes();
        let [interpreted, compiled] = [false, true].map(|run_compiled| {
            let result = if run_compiled {
                compiled.launch(&config, &params, &hooks)
            } else {
                setup.program.launch_with(&handle, &config, &params, &hooks)
            };
            // Each run allocates its own buffers: their addresses differ.
            let report = |fault: chevron_ptx::interp::Fault| {
                let words = fault.to_string();
                let words = words
                    .split(' ')
                    .map(|w| if w.contains("0x") { "ADDR" } else { w });
                words.collect::<Vec<_>>().join(" ")
            };
            result
                .map(|report| report.lane_instructions > 0)
                .map_err(report)
        });
        assert_eq!(interpreted.is_ok(), rounds == 1, "{interpreted:?}");
        match (interpreted, compiled) {
            (Ok(_), compiled) => assert_eq!(compiled, Ok(false)),
            (Err(interpreted), compiled) => assert_eq!(Err(interpreted), compiled),
        }
    }
}

//! Property test standing in for the fuzzer on stable Rust: thousands of mutated corpus files
//! (truncated, byte-flipped, with garbage or deep nesting inserted) must parse to `Ok` or `Err`
//! without panicking, and whatever parses must survive the print/parse round trip.
//!
//! The mutations are deterministic (a fixed-seed xorshift generator), so a failure names an
//! input that can be replayed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// How many mutated inputs to try.
const INPUTS: usize = 10_000;

/// Longest slice of a file a mutation works on, to keep the run short.
const WINDOW: usize = 16 * 1024;

/// Fragments inserted as garbage: PTX punctuation, keywords and broken literals.
const GARBAGE: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"(",
    b")",
    b"<",
    b">",
    b";",
    b",",
    b"@",
    b"!",
    b"|",
    b"_",
    b"+",
    b"-",
    b".reg",
    b".b32",
    b"%r",
    b"%r<99999999999>",
    b".v4",
    b"0x",
    b"0f",
    b"0d123",
    b"99999999999999999999999",
    b"\"",
    b"/*",
    b"//",
    b"\n",
    b"\xff",
    b"\xc3",
    b".loc 1 2",
    b".section .x {",
    b".entry",
    b".func",
    b"call.uni",
    b"$L__BB0_1:",
    b"[%rd1+-",
    b"=",
    b"::",
    b".align",
    b"generic(",
    b".callprototype",
    b".branchtargets",
    b".attribute(",
    "é".as_bytes(),
    "漢".as_bytes(),
];

/// A small deterministic generator.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The corpus and hand-written samples.
fn seeds() -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pending = vec![root.join("../../corpus"), root.join("tests/data")];
    let mut files = Vec::new();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                let bytes = std::fs::read(&path).expect("readable seed");
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    files
}

/// One mutation of a window of `seed`.
fn mutate(seed: &[u8], rng: &mut XorShift) -> Vec<u8> {
    let start = if seed.len() > WINDOW && rng.below(4) == 0 {
        rng.below(seed.len() - WINDOW)
    } else {
        0
    };
    let mut bytes = seed[start..seed.len().min(start + WINDOW)].to_vec();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let at = rng.below(bytes.len() + 1);
        match rng.below(8) {
            0 => bytes.truncate(at),
            6 => {
                // Line-level edits keep most files parseable, exercising the printer.
                let line = line_at(&bytes, rng.below(bytes.len()));
                if rng.below(2) == 0 {
                    bytes.drain(line);
                } else {
                    let copy = bytes[line.clone()].to_vec();
                    bytes.splice(line.start..line.start, copy);
                }
            }
            7 => {
                // Replace one number with another literal form.
                const NUMBERS: &[&[u8]] =
                    &[b"0", b"-1", b"0x7fffffff", b"0f3F800000", b"2.5", b"017"];
                if let Some(start) = bytes[at..].iter().position(u8::is_ascii_digit) {
                    let start = at + start;
                    let len = bytes[start..]
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric())
                        .count();
                    let number = NUMBERS[rng.below(NUMBERS.len())];
                    bytes.splice(start..start + len, number.iter().copied());
                }
            }
            1 => {
                if at < bytes.len() {
                    bytes[at] ^= 1 << rng.below(8);
                }
            }
            2 => {
                let garbage = GARBAGE[rng.below(GARBAGE.len())];
                bytes.splice(at..at, garbage.iter().copied());
            }
            3 => {
                let end = (at + rng.below(64)).min(bytes.len());
                bytes.drain(at..end);
            }
            4 => {
                let end = (at + rng.below(256)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            _ => {
                let depth = 1 + rng.below(2000);
                let (open, close) = [(b'{', b'}'), (b'(', b')'), (b'[', b']')][rng.below(3)];
                let mut nest = vec![open; depth];
                nest.extend(std::iter::repeat_n(close, depth));
                bytes.splice(at..at, nest);
            }
        }
    }
    bytes
}

/// The byte range of the line (with its newline) containing `at`.
fn line_at(bytes: &[u8], at: usize) -> std::ops::Range<usize> {
    let at = at.min(bytes.len());
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i + 1);
    start..end
}

/// Parses one input; any module it yields must print to text that parses to the same module.
fn check(input: &[u8]) -> Result<(), String> {
    let Ok(module) = chevron_ptx::parse_bytes(input) else {
        return Ok(());
    };
    let printed = chevron_ptx::print(&module);
    let reparsed = chevron_ptx::parse(&printed).map_err(|e| format!("printed text: {e}"))?;
    if reparsed.without_spans() != module.without_spans() {
        return Err("print/parse changed the module".into());
    }
    Ok(())
}

#[test]
fn mutated_inputs_never_panic_and_round_trip() {
    let seeds = seeds();
    assert!(!seeds.is_empty(), "no seed files");
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut failures = Vec::new();
    let mut parsed = 0usize;
    for i in 0..INPUTS {
        let (path, seed) = &seeds[i % seeds.len()];
        let input = mutate(seed, &mut rng);
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&input)));
        match outcome {
            Ok(Ok(())) => parsed += usize::from(chevron_ptx::parse_bytes(&input).is_ok()),
            Ok(Err(why)) => failures.push(format!("input {i} from {}: {why}", path.display())),
            Err(_) => failures.push(format!("input {i} from {}: panicked", path.display())),
        }
        if failures.len() >= 10 {
            break;
        }
    }
    eprintln!("{parsed} of {INPUTS} mutated inputs parsed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The mutations must leave some inputs valid, or the round-trip half tests nothing.
    assert!(parsed > INPUTS / 50, "only {parsed} mutated inputs parsed");
}

#[test]
fn every_truncation_of_a_kernel_is_handled() {
    let seeds = seeds();
    let (_, smallest) = seeds
        .iter()
        .min_by_key(|(_, b)| b.len())
        .expect("a seed file");
    for cut in 0..=smallest.len() {
        let input = &smallest[..cut];
        let outcome = catch_unwind(|| check(input));
        assert!(
            matches!(outcome, Ok(Ok(()))),
            "truncation at byte {cut}: {outcome:?}"
        );
    }
}

//! Checks chevron's numeric semantics against results recorded on a GPU by
//! `scripts/gpu/numeric_probe.py`:
//!
//! ```text
//! cargo run -p chevron-ptx --example numeric_check -- numeric_probe.txt [NAME_PREFIX]
//! ```
//!
//! Exactly specified instructions must match bit for bit (NaN results included, which checks the
//! NaN assumptions); `.approx` instructions must lie within the GPU's documented error of our
//! value (see [`chevron_ptx::interp::numeric::probe`]). Prints a line per instruction and its
//! first mismatches (all of them for instructions starting with `NAME_PREFIX`, when given);
//! exits 1 on any mismatch.

use chevron_ptx::interp::numeric::probe::check_probe;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: numeric_check PROBE_OUTPUT [NAME_PREFIX]");
        std::process::exit(2);
    };
    let verbose = args.next();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2);
    });
    for line in text.lines().filter(|l| l.starts_with('#')) {
        println!("{line}");
    }
    let (tallies, malformed) = check_probe(&text);
    let mut failed = 0;
    for (name, t) in &tallies {
        let status = if t.mismatched > 0 {
            "MISMATCH"
        } else if t.unknown == t.checked {
            "unmodelled"
        } else {
            "ok"
        };
        println!(
            "{status:10} {name:32} {:6} checked {:6} mismatched",
            t.checked, t.mismatched
        );
        let shown = match &verbose {
            Some(prefix) if name.starts_with(prefix.as_str()) => usize::MAX,
            _ => 4,
        };
        for m in t.mismatches.iter().take(shown) {
            println!("           {m}");
        }
        failed += (t.mismatched > 0) as u32;
    }
    if malformed > 0 {
        println!("{malformed} malformed lines");
    }
    println!("{} instructions, {failed} with mismatches", tallies.len());
    std::process::exit(if failed > 0 { 1 } else { 0 });
}

//! Checks the numeric library (`chevron_ptx::interp::numeric`) row by row against results
//! recorded on an NVIDIA H200 by `scripts/gpu/numeric_probe.py`: a sample of that run, reduced
//! by `scripts/gpu/numeric_fixture.py`, is `tests/data/numeric_probe_h200.txt` (its header says
//! where it came from).

use chevron_ptx::interp::numeric::probe::{check_probe, ProbeRow};

const H200: &str = include_str!("data/numeric_probe_h200.txt");

#[test]
fn library_matches_every_recorded_h200_result() {
    let (tallies, malformed) = check_probe(H200);
    assert_eq!(malformed, 0, "malformed fixture lines");
    let rows: u64 = tallies.values().map(|t| t.checked).sum();
    assert!(
        tallies.len() >= 200 && rows >= 10_000,
        "fixture too small: {rows} rows"
    );
    let unmodelled: Vec<&str> = tallies
        .iter()
        .filter(|(_, t)| t.unknown == t.checked)
        .map(|(name, _)| *name)
        .collect();
    assert!(unmodelled.is_empty(), "not modelled: {unmodelled:?}");
    let mismatches: Vec<&str> = tallies
        .values()
        .flat_map(|t| t.mismatches.iter().map(String::as_str))
        .collect();
    assert!(
        mismatches.is_empty(),
        "{} of {rows} rows differ from the H200:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn fixture_covers_the_previously_wrong_cases() {
    let has = |name: &str, a: u64, b: u64| {
        H200.lines()
            .filter_map(ProbeRow::parse)
            .any(|r| r.name == name && r.operands[0] == a && r.operands[1] == b)
    };
    assert!(has(
        "add.rn.f64",
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000
    ));
    assert!(has("sub.rn.f64", 0, 0x7ff8_0000_0000_0000));
    assert!(has("cvt.rn.f32.f64", 0xfff8_0000_0000_0000, 0));
    assert!(has("mul.rn.ftz.sat.f32", 0x0080_0000, 0x3f7f_ffff));
    assert!(has("div.approx.f32", 1, 1));
}

#[test]
fn a_wrong_gpu_value_is_reported() {
    // Each row, with the GPU's value altered in its lowest bit, must be caught whenever the
    // instruction is exact; checks that the comparison is not vacuous.
    let exact = [
        "add.rn.f32",
        "fma.rn.f64",
        "cvt.rn.f16.f32",
        "bfe.s64",
        "min.f64",
    ];
    let mut caught = 0;
    for row in H200.lines().filter_map(ProbeRow::parse) {
        if !exact.contains(&row.name) {
            continue;
        }
        let altered = format!(
            "{}\t{}\t{:x}\t{:x}\t{:x}\t{:x}",
            row.name,
            row.class,
            row.operands[0],
            row.operands[1],
            row.operands[2],
            row.got ^ 1
        );
        let (tallies, _) = check_probe(&altered);
        assert_eq!(tallies[row.name].mismatched, 1, "{altered}");
        caught += 1;
    }
    assert!(caught >= 5 * 20, "only {caught} rows of exact instructions");
}

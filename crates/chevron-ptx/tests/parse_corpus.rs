//! Every PTX file of the repository's `corpus/` and of `tests/data/` parses, and printing then
//! parsing again gives the same module (up to spans).

use std::path::{Path, PathBuf};

/// All `*.ptx` files under `dir`, recursively, sorted.
fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Parses, prints and re-parses one file, returning a description of any failure.
fn round_trip(path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let module =
        chevron_ptx::parse_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let printed = chevron_ptx::print(&module);
    let reparsed = chevron_ptx::parse(&printed)
        .map_err(|e| format!("{}: printed text does not parse: {e}", path.display()))?;
    if reparsed.without_spans() != module.without_spans() {
        return Err(format!(
            "{}: print/parse changed the module",
            path.display()
        ));
    }
    let reprinted = chevron_ptx::print(&reparsed);
    if reprinted != printed {
        return Err(format!("{}: printing is not stable", path.display()));
    }
    Ok(())
}

/// Runs the round trip over files, failing with every broken file listed.
fn check_all(files: &[PathBuf]) {
    let failures: Vec<String> = files.iter().filter_map(|f| round_trip(f).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_parses_and_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
    let files = ptx_files(&root);
    assert!(
        !files.is_empty(),
        "no .ptx files under {}: the corpus is missing",
        root.display()
    );
    check_all(&files);
}

#[test]
fn hand_written_samples_parse_and_round_trip() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let files = ptx_files(&data);
    assert!(files.len() >= 5, "tests/data lost its samples");
    check_all(&files);
}

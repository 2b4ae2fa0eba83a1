//! Links PTX files with chevron-ptx's linker and prints the result:
//! `cargo run -p chevron-ptx --example ptx_link -- a.ptx b.ptx > linked.ptx`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: ptx_link FILE.ptx...");
        return ExitCode::FAILURE;
    }
    let mut modules = Vec::new();
    for path in &paths {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        };
        match chevron_ptx::parse(&text) {
            Ok(module) => modules.push(module),
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    match chevron_ptx::link(&modules) {
        Ok(linked) => {
            print!("{}", chevron_ptx::print(&linked));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

//! Parses a PTX file and prints it back (with `--debug`, prints the IR instead).
//!
//! `cargo run -p chevron-ptx --example ptx_print -- FILE [--debug]`

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: ptx_print FILE [--debug]");
        return ExitCode::from(2);
    };
    let debug = args.next().as_deref() == Some("--debug");
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) => {
            eprintln!("{path}: {err}");
            return ExitCode::FAILURE;
        }
    };
    match chevron_ptx::parse_bytes(&bytes) {
        Ok(module) if debug => {
            println!("{module:#?}");
            ExitCode::SUCCESS
        }
        Ok(module) => {
            print!("{}", chevron_ptx::print(&module));
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{path}: {err}");
            ExitCode::FAILURE
        }
    }
}

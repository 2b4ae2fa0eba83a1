//! The `chevron` command-line tool: devices · inspect · run · bench · demo.
//!
//! Errors go to stderr as one line with exit code 2.

mod args;
mod spec;

fn main() {
    println!("chevron {}", env!("CARGO_PKG_VERSION"));
}

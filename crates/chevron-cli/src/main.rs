//! The `chevron` command-line tool.
fn main() {
    println!("chevron {}", env!("CARGO_PKG_VERSION"));
}

//! Instruments every kernel of a PTX file with every hook, links the result with a tool and
//! prints it: `cargo run -p chevron-ptx --example ptx_instrument -- app.ptx tool.ptx > out.ptx`.

use std::process::ExitCode;

use chevron_ptx::linker::{link_with, LinkOptions};
use chevron_ptx::passes::{instrument, Hooks};

fn read(path: &str) -> Result<chevron_ptx::ir::Module, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    chevron_ptx::parse(&text).map_err(|e| format!("{path}: {e}"))
}

fn run(app: &str, tool: &str) -> Result<String, String> {
    let mut module = read(app)?;
    let hooks = Hooks {
        entry_exit: true,
        blocks: true,
        accesses: true,
    };
    instrument(&mut module, |_| true, hooks).map_err(|e| format!("{app}: {e}"))?;
    // -rdc objects keep their own unresolved externs; the tool resolves the hooks.
    let options = LinkOptions {
        allow_unresolved: true,
        ..LinkOptions::default()
    };
    let linked = link_with(&[module, read(tool)?], &options).map_err(|e| format!("{app}: {e}"))?;
    Ok(chevron_ptx::print(&linked))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [app, tool] = args.as_slice() else {
        eprintln!("usage: ptx_instrument APP.ptx TOOL.ptx");
        return ExitCode::FAILURE;
    };
    match run(app, tool) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

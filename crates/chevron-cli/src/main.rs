//! The `chevron` command-line tool: devices · inspect · run · bench · demo · repl.
//!
//! Every failure is one line on stderr and exit code 2; a panic is a bug.

mod args;
mod commands;
mod spec;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Devices { json } => commands::devices::run(json),
        Command::Inspect { file, json } => commands::inspect::run(&file, json),
        Command::Run(run) => commands::run::run(&run),
        Command::Bench { device, json } => commands::bench::run(device.as_deref(), json),
        Command::Demo { device } => commands::demo::run(device.as_deref()),
        Command::Repl { device } => commands::repl::run(device.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("chevron: error: {message}");
            ExitCode::from(2)
        }
    }
}

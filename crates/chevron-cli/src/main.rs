//! The `chevron` command-line tool: devices · inspect · run · trace · bench · demo · exec · repl.
//!
//! Every failure is one line on stderr and exit code 2; a closed stdout (`| head`) ends quietly;
//! a panic is a bug.

mod args;
mod commands;
mod output;
mod source_file;
mod spec;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};
use output::{report_error, CommandResult, Failure, Output};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(usage) => return usage_or_help(&usage),
    };
    let mut out = Output::stdout();
    let result = dispatch(cli.command, &mut out).and_then(|()| out.finish());
    match result {
        Ok(()) | Err(Failure::ClosedPipe) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            report_error(&message);
            ExitCode::from(2)
        }
    }
}

fn dispatch(command: Command, out: &mut Output) -> CommandResult {
    match command {
        Command::Devices { json } => commands::devices::run(json, out),
        Command::Inspect { file, json } => commands::inspect::run(&file, json, out),
        Command::Run(run) => {
            commands::trace::with_trace(run.trace.as_deref(), || commands::run::run(&run, out))
        }
        Command::Trace(trace) => commands::trace::run(&trace),
        Command::Bench {
            device,
            json,
            graphs,
        } => commands::bench::run(device.as_deref(), json, graphs, out),
        Command::Demo { device } => commands::demo::run(device.as_deref(), out),
        Command::Exec(exec) => commands::exec::run(&exec),
        Command::Repl { device } => Ok(commands::repl::run(device.as_deref())?),
    }
}

/// `--help` and `--version` go to stdout (exit 0, or 2 when stdout cannot take them); usage
/// errors to stderr (exit 2).
fn usage_or_help(usage: &clap::Error) -> ExitCode {
    if !usage.use_stderr() {
        let mut out = Output::stdout();
        let written = write!(out, "{}", usage.render()).map_err(Failure::from);
        return match written.and_then(|()| out.finish()) {
            Ok(()) | Err(Failure::ClosedPipe) => ExitCode::SUCCESS,
            Err(Failure::Message(message)) => {
                report_error(&message);
                ExitCode::from(2)
            }
        };
    }
    let _ = write!(std::io::stderr(), "{}", usage.render());
    ExitCode::from(2)
}

//! Command-line arguments of `chevron` (clap). A subcommand is one variant of [`Command`] and
//! one file under `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::commands::results::{parse_print, PrintRequest};

/// The worked example of both help texts: saxpy of the corpus, y = 2x + 1 for x = 0, 1, 2, …
const RUN_EXAMPLE: &str = concat!(
    "  chevron run corpus/nvrtc/compute_80/elementwise.ptx saxpy --grid 4 --block 256 \\\n",
    "      --arg f32:2 --arg 'f32[1000]=iota' --arg 'f32[1000]=fill:1' --arg i32:1000 --print 2:4"
);

/// The environment variables chevron reads, for `--help`.
const ENVIRONMENT: &str = "\
Environment:
  CHEVRON_DEVICES=LIST          devices to use, in order; the first is the default
                                (`cpu`, `cuda`, `cuda:1,cpu:0`; default: every CUDA GPU, then cpu)
  CHEVRON_CPU_DEVICES=N         how many CPU devices (default 1)
  CHEVRON_CPU_THREADS=N         worker threads of a CPU device (default: one per core)
  CHEVRON_CPU_DETERMINISTIC=1   one worker, fixed block order: reproducible atomics and races
  CHEVRON_CPU_MEMORY=SIZE       memory of each CPU device (`512M`, `4G`; default: half the RAM)
  CHEVRON_TRACE=FILE            record a trace (Chrome trace-event JSON), written at exit
  CHEVRON_INSTRUMENT=KIND       instrument PTX kernels: blocks, counts or memory
  CHEVRON_CHECK=LIST            sanitizer checks on the CPU device: memcheck,racecheck,initcheck,synccheck,leaks";

/// The `--arg` grammar and a worked example, for `chevron run --help`.
const RUN_GRAMMAR: &str = "\
Arguments (--arg SPEC, one per kernel parameter, in order):
  TYPE:VALUE                 a scalar; TYPE is i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64,
                             checked against the parameter's PTX type (float or integer, size)
  bN:BITS                    raw bits for a parameter of N bits of any type (b32:0x3fc00000)
  TYPE[COUNT]=zeros          a device buffer of COUNT elements; its address is the argument
  TYPE[COUNT]=fill:VALUE     ... every element VALUE
  TYPE[COUNT]=iota           ... 0, 1, 2, ...
  TYPE[COUNT]=file:PATH      ... read from PATH (raw little-endian elements, exactly COUNT)
  bytes:HEX                  a by-value parameter of exactly these bytes (a struct)
  ptr:N                      the device address of buffer argument N again
Quote specs with brackets in the shell: --arg 'f32[1000]=iota'.

Without KERNEL, the file's kernels are listed with their parameters' PTX types.

Example (saxpy(float a, const float *x, float *y, int n): y = a*x + y):";

/// chevron: load GPU code objects, list their symbols, launch kernels by name — on CUDA GPUs or
/// on the CPU device.
#[derive(Debug, Parser)]
#[command(name = "chevron", version, about, after_help = format!(
    "Example:\n  chevron devices\n  chevron inspect corpus/nvrtc/compute_80/elementwise.ptx\n\
     {RUN_EXAMPLE}\n`chevron run --help` gives the --arg grammar.\n\n{ENVIRONMENT}"
))]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List devices, and why any backend is unavailable.
    Devices {
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// List the kernels, device functions and globals of a code object (.ptx, .cubin, .fatbin).
    Inspect {
        /// The code object.
        file: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Launch one kernel by name or demangled signature, and show its results.
    #[command(after_help = format!(
        "{RUN_GRAMMAR}\n{RUN_EXAMPLE}\n  prints `arg 2 (first 4 of 1000): [1.0,3.0,5.0,7.0]`.\n\n\
         {ENVIRONMENT}"
    ))]
    Run(RunArgs),
    /// Measure launch overhead against the raw driver.
    Bench {
        /// Device to measure (`cuda:0`, `cpu`…); default: the default device.
        #[arg(long)]
        device: Option<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Measure graph replay (explicit, automatic, raw CUDA graph) instead.
        #[arg(long)]
        graphs: bool,
    },
    /// Run a program with the trace on, or turn a trace into an HTML timeline.
    Trace(crate::commands::trace::TraceArgs),
    /// Run a real kernel end to end on the best device present and show what happened.
    Demo {
        /// Device to use (`cuda:0`, `cpu`…); default: the default device.
        #[arg(long)]
        device: Option<String>,
    },
    /// Interactive CUDA C++: snippets compiled incrementally, kernels launched by name.
    Repl {
        /// Device to use (`cuda:0`, `cpu`…); default: the default device.
        #[arg(long)]
        device: Option<String>,
    },
    /// Run a CUDA program built with `-cudart shared` on chevron's CUDA runtime.
    Exec(crate::commands::exec::ExecArgs),
}

/// `chevron run FILE KERNEL …`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The code object (.ptx, .cubin, .fatbin) or CUDA C++ source (.cu, compiled with NVRTC).
    pub file: PathBuf,
    /// Kernel symbol name or demangled signature (without it, the file's kernels are listed).
    pub kernel: Option<String>,
    /// Grid dimensions: X[,Y[,Z]] (needed to launch).
    #[arg(long, value_parser = parse_dim3)]
    pub grid: Option<[u32; 3]>,
    /// Block dimensions: X[,Y[,Z]] (needed to launch).
    #[arg(long, value_parser = parse_dim3)]
    pub block: Option<[u32; 3]>,
    /// Dynamic shared memory in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// Device (`cuda:0`, `cpu`…); default: the default device.
    #[arg(long)]
    pub device: Option<String>,
    /// Kernel arguments in order: TYPE:VALUE, bN:BITS, TYPE[COUNT]=zeros|fill:V|iota|file:PATH,
    /// bytes:HEX (a by-value struct) or ptr:N (the address of buffer argument N); see below.
    #[arg(long = "arg", value_name = "SPEC")]
    pub args: Vec<String>,
    /// Write buffer argument N to PATH after the kernel (raw little-endian): N=PATH.
    #[arg(long = "save", value_name = "N=PATH")]
    pub save: Vec<String>,
    /// Print buffer argument N after the kernel: all its elements, or the first COUNT.
    #[arg(long = "print", value_name = "N[:COUNT]", value_parser = parse_print)]
    pub print: Vec<PrintRequest>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Record a trace of the run into FILE (Chrome trace-event JSON).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Give up after SECONDS: the error names the kernel (and, on the CPU device, the PTX
    /// lines its threads are at).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<std::time::Duration>,
    /// Run the sanitizer's checks on the CPU device: memcheck, racecheck, initcheck, synccheck, leaks (comma-separated;
    /// `all`); anything found is reported and the command fails (docs/sanitizer.md).
    #[arg(long, value_name = "CHECKS", value_parser = parse_checks)]
    pub check: Option<chevron::check::CheckConfig>,
}

/// Parses `--check`'s list of checks.
pub(crate) fn parse_checks(text: &str) -> Result<chevron::check::CheckConfig, String> {
    chevron::check::CheckConfig::parse(text).map_err(|e| e.to_string())
}

/// Parses a positive number of seconds (`2`, `0.5`).
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("`{text}` is not a positive number of seconds"))
}

/// Parses `X[,Y[,Z]]`; missing dimensions are 1.
fn parse_dim3(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{text}`: expected X[,Y[,Z]]"));
    }
    let mut dims = [1u32; 3];
    for (dim, part) in dims.iter_mut().zip(&parts) {
        *dim = part
            .trim()
            .parse()
            .map_err(|_| format!("`{text}`: `{part}` is not a positive integer"))?;
        if *dim == 0 {
            return Err(format!("`{text}`: dimensions must be at least 1"));
        }
    }
    Ok(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims() {
        assert_eq!(parse_dim3("4").unwrap(), [4, 1, 1]);
        assert_eq!(parse_dim3("4,2").unwrap(), [4, 2, 1]);
        assert_eq!(parse_dim3("4,2,3").unwrap(), [4, 2, 3]);
        assert!(parse_dim3("4,0").is_err());
        assert!(parse_dim3("1,2,3,4").is_err());
        assert!(parse_dim3("x").is_err());
    }

    #[test]
    fn run_command_parses() {
        let cli = Cli::try_parse_from([
            "chevron",
            "run",
            "k.ptx",
            "saxpy",
            "--grid",
            "4",
            "--block",
            "128",
            "--arg",
            "f32:2",
            "--arg",
            "f32[512]=iota",
            "--print",
            "1:8",
            "--save",
            "1=/tmp/o",
        ])
        .unwrap();
        let Command::Run(run) = cli.command else {
            panic!("expected run")
        };
        assert_eq!(run.grid, Some([4, 1, 1]));
        assert_eq!(run.args.len(), 2);
        assert_eq!(
            run.print,
            vec![PrintRequest {
                arg: 1,
                count: Some(8)
            }]
        );
    }

    #[test]
    fn run_without_a_kernel_parses_and_help_names_the_grammar() {
        let cli = Cli::try_parse_from(["chevron", "run", "k.ptx"]).unwrap();
        let Command::Run(run) = cli.command else {
            panic!("expected run")
        };
        assert_eq!((run.kernel, run.grid), (None, None));
        let help = Cli::try_parse_from(["chevron", "run", "--help"])
            .unwrap_err()
            .render()
            .to_string();
        assert!(help.contains("TYPE[COUNT]=file:PATH"), "{help}");
        assert!(help.contains("'f32[1000]=iota'"), "{help}");
        assert!(help.contains("CHEVRON_DEVICES"), "{help}");
        let top = Cli::try_parse_from(["chevron", "--help"])
            .unwrap_err()
            .render()
            .to_string();
        assert!(top.contains("CHEVRON_CPU_MEMORY"), "{top}");
    }
}

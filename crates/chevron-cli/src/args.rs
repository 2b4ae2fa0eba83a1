//! Command-line arguments of `chevron` (clap).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// chevron: load GPU code objects, list their symbols, launch kernels by name — on CUDA GPUs or
/// on the CPU device.
#[derive(Debug, Parser)]
#[command(name = "chevron", version, about)]
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
    Run(RunArgs),
    /// Measure launch overhead against the raw driver.
    Bench {
        /// Device to measure (`cuda:0`, `cpu`…); default: the default device.
        #[arg(long)]
        device: Option<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
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
}

/// `chevron run FILE KERNEL …`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The code object (.ptx, .cubin, .fatbin) or CUDA C++ source (.cu, compiled with NVRTC).
    pub file: PathBuf,
    /// Kernel symbol name or demangled signature.
    pub kernel: String,
    /// Grid dimensions: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    pub grid: [u32; 3],
    /// Block dimensions: X[,Y[,Z]].
    #[arg(long, value_parser = parse_dim3)]
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// Device (`cuda:0`, `cpu`…); default: the default device.
    #[arg(long)]
    pub device: Option<String>,
    /// Kernel arguments in order: TYPE:VALUE, TYPE[COUNT]=zeros|fill:V|iota|file:PATH, bytes:HEX
    /// (a by-value struct) or ptr:N (the address of buffer argument N).
    #[arg(long = "arg", value_name = "SPEC")]
    pub args: Vec<String>,
    /// Write buffer argument N to PATH after the kernel (raw little-endian): N=PATH.
    #[arg(long = "save", value_name = "N=PATH")]
    pub save: Vec<String>,
    /// Print buffer argument N after the kernel.
    #[arg(long = "print", value_name = "N")]
    pub print: Vec<usize>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
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
            "1",
            "--save",
            "1=/tmp/o",
        ])
        .unwrap();
        let Command::Run(run) = cli.command else {
            panic!("expected run")
        };
        assert_eq!(run.grid, [4, 1, 1]);
        assert_eq!(run.args.len(), 2);
        assert_eq!(run.print, vec![1]);
    }
}

//! `chevron run FILE KERNEL …`: launch one kernel with arguments built from `--arg` specs, then
//! print or save buffers. The interface is stable: scripts depend on it.

use std::ffi::c_void;
use std::path::PathBuf;
use std::time::Instant;

use chevron::{Buffer, Device, KernelArg, LaunchConfig};
use serde_json::json;

use super::{pick_device, runtime, CommandResult};
use crate::args::RunArgs;
use crate::spec::{ArgSpec, BufferInit, ElementType};

/// A scalar argument's bytes, handed to the kernel as they are.
pub(crate) struct ScalarValue(Vec<u8>);

// SAFETY: `arg_ptr` points to `arg_size` bytes owned by `self.0`, which live as long as `self`
// is borrowed; the kernel only reads them during the launch call.
unsafe impl KernelArg for ScalarValue {
    fn arg_ptr(&self) -> *mut c_void {
        self.0.as_ptr() as *mut c_void
    }

    fn arg_size(&self) -> usize {
        self.0.len()
    }

    fn arg_type_name(&self) -> &'static str {
        "scalar"
    }
}

/// One prepared argument.
pub(crate) enum Prepared {
    Scalar(ScalarValue),
    Buffer { ty: ElementType, buffer: Buffer<u8> },
}

impl Prepared {
    pub(crate) fn as_kernel_arg(&self) -> &dyn KernelArg {
        match self {
            Prepared::Scalar(value) => value,
            Prepared::Buffer { buffer, .. } => buffer,
        }
    }
}

/// Runs the command.
pub fn run(args: &RunArgs) -> CommandResult {
    let specs = args
        .args
        .iter()
        .map(|s| ArgSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let saves = parse_saves(&args.save)?;
    for n in args.print.iter().chain(saves.iter().map(|(n, _)| n)) {
        match specs.get(*n) {
            Some(ArgSpec::Buffer { .. }) => {}
            Some(_) => return Err(format!("argument {n} is a scalar, not a buffer")),
            None => return Err(format!("there is no argument {n} ({} given)", specs.len())),
        }
    }

    let runtime = runtime()?;
    let device = pick_device(&runtime, args.device.as_deref())?;
    let (kernel, _session) = super::cuda_source::load_kernel(device, &args.file, &args.kernel)?;
    let mut prepared = specs
        .iter()
        .map(|spec| prepare(device, spec))
        .collect::<Result<Vec<_>, _>>()?;
    resolve_addresses(&specs, &mut prepared)?;
    let kernel_args: Vec<&dyn KernelArg> = prepared.iter().map(Prepared::as_kernel_arg).collect();
    let config = LaunchConfig {
        grid: args.grid,
        block: args.block,
        shared_bytes: args.shared,
    };

    let stream = device.create_stream().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let token = kernel
        .launch(&stream, config, &kernel_args[..])
        .map_err(|e| e.to_string())?;
    token.wait().map_err(|e| e.to_string())?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;

    let mut printed = serde_json::Map::new();
    for &n in &args.print {
        printed.insert(n.to_string(), json!(read_elements(&prepared[n])?));
    }
    for (n, path) in &saves {
        let Prepared::Buffer { buffer, .. } = &prepared[*n] else {
            unreachable!("checked above: argument {n} is a buffer")
        };
        let bytes = buffer.to_vec().map_err(|e| e.to_string())?;
        std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }

    if args.json {
        let out = json!({
            "kernel": kernel.display_name(),
            "device": device.to_string(),
            "grid": args.grid,
            "block": args.block,
            "elapsed_ms": elapsed_ms,
            "buffers": printed,
        });
        println!("{out}");
    } else {
        println!(
            "kernel {} on {}: grid {:?} block {:?} shared {} B: {elapsed_ms:.3} ms",
            kernel.display_name(),
            device,
            args.grid,
            args.block,
            args.shared
        );
        for (n, values) in &printed {
            println!(
                "arg {n}: {}",
                serde_json::to_string(values).unwrap_or_default()
            );
        }
        for (n, path) in &saves {
            println!("arg {n} saved to {}", path.display());
        }
    }
    Ok(())
}

fn parse_saves(saves: &[String]) -> Result<Vec<(usize, PathBuf)>, String> {
    saves
        .iter()
        .map(|s| {
            let (n, path) = s
                .split_once('=')
                .ok_or_else(|| format!("invalid --save `{s}`: expected N=PATH"))?;
            let n = n
                .parse()
                .map_err(|_| format!("invalid --save `{s}`: N must be an argument position"))?;
            Ok((n, PathBuf::from(path)))
        })
        .collect()
}

pub(crate) fn prepare(device: &Device, spec: &ArgSpec) -> Result<Prepared, String> {
    Ok(match spec {
        ArgSpec::Scalar { bytes, .. } | ArgSpec::Bytes(bytes) => {
            Prepared::Scalar(ScalarValue(bytes.clone()))
        }
        // Filled in by `resolve_addresses` once every buffer exists.
        ArgSpec::AddressOf(_) => Prepared::Scalar(ScalarValue(vec![0; 8])),
        ArgSpec::Buffer { ty, count, init } => {
            let bytes = initial_bytes(*ty, *count, init)?;
            let buffer = Buffer::from_slice(device, &bytes).map_err(|e| e.to_string())?;
            Prepared::Buffer { ty: *ty, buffer }
        }
    })
}

/// Gives each `ptr:N` argument the device address of buffer argument N.
fn resolve_addresses(specs: &[ArgSpec], prepared: &mut [Prepared]) -> Result<(), String> {
    for (i, spec) in specs.iter().enumerate() {
        let ArgSpec::AddressOf(n) = *spec else {
            continue;
        };
        let address = match prepared.get(n) {
            Some(Prepared::Buffer { buffer, .. }) => buffer.device_ptr(),
            Some(_) => {
                return Err(format!(
                    "argument {i}: `ptr:{n}` names a scalar, not a buffer"
                ))
            }
            None => return Err(format!("argument {i}: there is no argument {n}")),
        };
        prepared[i] = Prepared::Scalar(ScalarValue(address.to_le_bytes().to_vec()));
    }
    Ok(())
}

fn initial_bytes(ty: ElementType, count: usize, init: &BufferInit) -> Result<Vec<u8>, String> {
    let len = count * ty.size();
    Ok(match init {
        BufferInit::Zeros => vec![0; len],
        BufferInit::Fill(one) => one.repeat(count),
        BufferInit::Iota => ty.iota(count),
        BufferInit::File(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            if bytes.len() != len {
                return Err(format!(
                    "{}: holds {} bytes, but {count} {ty} elements need {len}",
                    path.display(),
                    bytes.len()
                ));
            }
            bytes
        }
    })
}

pub(crate) fn read_elements(arg: &Prepared) -> Result<Vec<serde_json::Value>, String> {
    match arg {
        Prepared::Buffer { ty, buffer } => {
            let bytes = buffer.to_vec().map_err(|e| e.to_string())?;
            Ok(ty.decode(&bytes))
        }
        Prepared::Scalar(_) => unreachable!("print targets are checked to be buffers"),
    }
}

//! `chevron run FILE KERNEL …`: launch one kernel with arguments built from `--arg` specs, then
//! print or save buffers. The interface is stable: scripts depend on it.
//!
//! Without a kernel, it lists the file's kernels with their parameters; with one the file lacks,
//! so does the error. Scalars are checked against their parameters' PTX types; buffers are checked
//! against the device's memory, then built and read back a chunk at a time.

use std::ffi::c_void;
use std::io::Write;
use std::time::Instant;

use chevron::{Buffer, Device, KernelArg, LaunchConfig, Module, Stream};
use serde_json::json;

use super::kernel_params::{check_arg, kernel_listing};
use super::results::{self, PrintRequest};
use super::{inspect, pick_device, runtime, upload};
use crate::args::RunArgs;
use crate::output::{CommandResult, Failure};
use crate::spec::{ArgSpec, ElementType};

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
pub fn run(args: &RunArgs, out: &mut dyn Write) -> CommandResult {
    if let Some(checks) = args.check {
        // Before any device starts: the CPU device reads the checks when it is created.
        chevron::check::configure(checks)?;
    }
    let runtime = runtime()?;
    let device = pick_device(&runtime, args.device.as_deref())?;
    // A .cu file is compiled through a JIT session, which must outlive the launch.
    let (bytes, _session) =
        super::cuda_source::code_object(device, &args.file, args.kernel.as_deref())?;
    let (code, types) = inspect::read(bytes, &args.file)?;
    let symbols = code.symbols().ok_or("the symbols were checked by `read`")?;
    let listing = || {
        format!(
            "its kernels:\n{}",
            kernel_listing(symbols.kernels(), &types)
        )
    };
    let Some(query) = &args.kernel else {
        writeln!(out, "{}: name one of {}", args.file.display(), listing())?;
        return Ok(());
    };
    let (Some(grid), Some(block)) = (args.grid, args.block) else {
        return Err("`run` needs --grid X[,Y[,Z]] and --block X[,Y[,Z]]".into());
    };
    let specs = args
        .args
        .iter()
        .map(|s| ArgSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let saves = args
        .save
        .iter()
        .map(|s| results::parse_save(s))
        .collect::<Result<Vec<_>, _>>()?;
    for n in args
        .print
        .iter()
        .map(|p| &p.arg)
        .chain(saves.iter().map(|(n, _)| n))
    {
        match specs.get(*n) {
            Some(ArgSpec::Buffer { .. }) => {}
            Some(_) => return Err(format!("argument {n} is a scalar, not a buffer").into()),
            None => return Err(format!("there is no argument {n} ({} given)", specs.len()).into()),
        }
    }

    let module = Module::from_code_object(device, &code)?;
    let kernel = match module.kernel(query) {
        Ok(kernel) => kernel,
        Err(e @ chevron::Error::NotFound { .. }) => {
            return Err(format!("{e}; {}", listing()).into())
        }
        Err(e) => return Err(e.into()),
    };
    for (i, spec) in specs.iter().enumerate() {
        check_arg(&types, &kernel, i, spec)?;
    }
    upload::check_sizes(device, &args.args, &specs)?;
    let stream = device.create_stream()?;
    let mut prepared = specs
        .iter()
        .map(|spec| prepare(device, &stream, spec))
        .collect::<Result<Vec<_>, _>>()?;
    resolve_addresses(&specs, &mut prepared)?;
    let kernel_args: Vec<&dyn KernelArg> = prepared.iter().map(Prepared::as_kernel_arg).collect();
    let config = LaunchConfig {
        grid,
        block,
        shared_bytes: args.shared,
    };

    // The uploads above are queued on the stream: finish them first, so `elapsed_ms` times the
    // launch (its compile included) and nothing queued before it.
    stream.synchronize()?;
    let start = Instant::now();
    let token = kernel.launch(&stream, config, &kernel_args[..])?;
    match args.timeout {
        Some(timeout) => token.wait_timeout(timeout),
        None => token.wait(),
    }?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1e3;

    for (n, path) in &saves {
        let (_, buffer) = buffer_arg(&prepared, *n);
        results::save(&stream, buffer, path)?;
    }
    let summary = json!({
        "kernel": kernel.display_name(),
        "device": device.to_string(),
        "grid": grid,
        "block": block,
        "elapsed_ms": elapsed_ms,
    });
    if args.json {
        // The summary object, then "buffers", streamed element by element.
        let head = summary.to_string();
        write!(out, "{},\"buffers\":{{", &head[..head.len() - 1])?;
        for (i, request) in args.print.iter().enumerate() {
            let separator = if i == 0 { "" } else { "," };
            write!(out, "{separator}\"{}\":", request.arg)?;
            print_buffer(out, &stream, &prepared, request)?;
        }
        writeln!(out, "}}}}")?;
        return Ok(());
    }
    writeln!(
        out,
        "kernel {} on {device}: grid {grid:?} block {block:?} shared {} B: {elapsed_ms:.3} ms",
        kernel.display_name(),
        args.shared
    )?;
    for request in &args.print {
        let (ty, buffer) = buffer_arg(&prepared, request.arg);
        let total = buffer.len() as u64 / ty.size() as u64;
        match request.count {
            Some(count) if count < total => {
                write!(out, "arg {} (first {count} of {total}): ", request.arg)?
            }
            _ => write!(out, "arg {}: ", request.arg)?,
        }
        print_buffer(out, &stream, &prepared, request)?;
        writeln!(out)?;
    }
    for (n, path) in &saves {
        writeln!(out, "arg {n} saved to {}", path.display())?;
    }
    Ok(())
}

/// The element type and buffer of argument `n` (checked to be a buffer before the launch).
fn buffer_arg(prepared: &[Prepared], n: usize) -> (ElementType, &Buffer<u8>) {
    match &prepared[n] {
        Prepared::Buffer { ty, buffer } => (*ty, buffer),
        Prepared::Scalar(_) => unreachable!("checked before the launch: argument {n} is a buffer"),
    }
}

/// Writes the elements `request` asks for as a JSON array.
fn print_buffer(
    out: &mut dyn Write,
    stream: &Stream,
    prepared: &[Prepared],
    request: &PrintRequest,
) -> Result<(), Failure> {
    let (ty, buffer) = buffer_arg(prepared, request.arg);
    let total = buffer.len() as u64 / ty.size() as u64;
    let count = request.count.unwrap_or(total).min(total);
    results::write_elements(out, stream, ty, buffer, count)
}

pub(crate) fn prepare(
    device: &Device,
    stream: &Stream,
    spec: &ArgSpec,
) -> Result<Prepared, String> {
    Ok(match spec {
        ArgSpec::Scalar { bytes, .. } | ArgSpec::Bytes(bytes) => {
            Prepared::Scalar(ScalarValue(bytes.clone()))
        }
        // Filled in by `resolve_addresses` once every buffer exists.
        ArgSpec::AddressOf(_) => Prepared::Scalar(ScalarValue(vec![0; 8])),
        ArgSpec::Buffer { ty, count, init } => Prepared::Buffer {
            ty: *ty,
            buffer: upload::upload(device, stream, *ty, *count, init)?,
        },
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

//! Buffer arguments of `chevron run`, built in device memory a chunk at a time: the host never
//! holds more than [`CHUNK_BYTES`] of a buffer, whatever its size. Sizes are checked against the
//! device's memory, and a file's length against the buffer, before anything is allocated or read.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use chevron::{Buffer, Device, Stream};

use crate::spec::{ArgSpec, BufferInit, ElementType};

/// Bytes generated or read on the host per copy to the device.
pub const CHUNK_BYTES: u64 = 4 << 20;

/// Checks, before anything is allocated, that every buffer of `specs` and all of them together
/// fit in `device`'s memory, and that each `file:` source holds the buffer's bytes.
pub fn check_sizes(device: &Device, specs: &[String], parsed: &[ArgSpec]) -> Result<(), String> {
    let capacity = device.total_memory();
    let mut total = 0u64;
    for (i, (text, spec)) in specs.iter().zip(parsed).enumerate() {
        let bytes = spec.buffer_bytes();
        if let ArgSpec::Buffer {
            ty,
            count,
            init: BufferInit::File(path),
        } = spec
        {
            check_length(path, *ty, *count, bytes)?;
        }
        if bytes > capacity {
            return Err(format!(
                "argument {i} (`{text}`): {bytes} bytes ({}) exceed the {} of {}",
                gib(bytes),
                gib(capacity),
                device.label()
            ));
        }
        total = total.saturating_add(bytes);
    }
    if total > capacity {
        return Err(format!(
            "the buffer arguments need {total} bytes ({}), more than the {} of {}",
            gib(total),
            gib(capacity),
            device.label()
        ));
    }
    Ok(())
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Allocates `count` elements of `ty` on `device` and initializes them on `stream`.
pub fn upload(
    device: &Device,
    stream: &Stream,
    ty: ElementType,
    count: u64,
    init: &BufferInit,
) -> Result<Buffer<u8>, String> {
    let bytes = count * ty.size() as u64;
    let mut source = match init {
        BufferInit::File(path) => Some(open_sized(path, ty, count, bytes)?),
        _ => None,
    };
    let len =
        usize::try_from(bytes).map_err(|_| format!("{bytes} bytes exceed the address space"))?;
    let buffer = Buffer::<u8>::new(device, len).map_err(|e| e.to_string())?;
    let base = buffer.device_ptr();
    match init {
        BufferInit::Zeros => {
            stream
                .memset_at(base, 0, 1, bytes)
                .map_err(|e| e.to_string())?;
        }
        BufferInit::Fill(one) if one.len() <= 4 => {
            let mut word = [0u8; 4];
            word[..one.len()].copy_from_slice(one);
            stream
                .memset_at(base, u32::from_le_bytes(word), one.len() as u32, count)
                .map_err(|e| e.to_string())?;
        }
        _ => {
            let size = ty.size() as u64;
            let per_chunk = CHUNK_BYTES / size;
            let mut chunk = Vec::with_capacity(CHUNK_BYTES as usize);
            let mut first = 0u64;
            while first < count {
                let n = per_chunk.min(count - first);
                chunk.clear();
                match (init, source.as_mut()) {
                    (BufferInit::Fill(one), _) => {
                        for _ in 0..n {
                            chunk.extend_from_slice(one);
                        }
                    }
                    (BufferInit::Iota, _) => ty.iota_into(first, n, &mut chunk),
                    (BufferInit::File(path), Some(file)) => {
                        read_chunk(file, path, n * size, &mut chunk, first * size, bytes)?
                    }
                    _ => unreachable!("zeros and short fills are memsets; files are open"),
                }
                stream
                    .copy_to_device_at(base + first * size, &chunk)
                    .map_err(|e| e.to_string())?;
                first += n;
            }
        }
    }
    stream.synchronize().map_err(|e| e.to_string())?;
    Ok(buffer)
}

/// Opens a `file:` source, checked with [`check_length`].
fn open_sized(path: &Path, ty: ElementType, count: u64, bytes: u64) -> Result<File, String> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    check_length(path, ty, count, bytes)?;
    Ok(file)
}

/// A regular file must hold exactly the buffer's bytes (checked before reading); a pipe or
/// device (opened later, once) is read for exactly that many bytes.
fn check_length(path: &Path, ty: ElementType, count: u64, bytes: u64) -> Result<(), String> {
    let name = path.display();
    let metadata = std::fs::metadata(path).map_err(|e| format!("{name}: {e}"))?;
    if metadata.is_dir() {
        return Err(format!("{name}: is a directory"));
    }
    if metadata.is_file() && metadata.len() != bytes {
        return Err(format!(
            "{name}: holds {} bytes, but {count} {ty} elements need {bytes}",
            metadata.len()
        ));
    }
    Ok(())
}

/// Appends the next `want` bytes of `file` (at `offset` of `total`) to `chunk`.
fn read_chunk(
    file: &mut File,
    path: &Path,
    want: u64,
    chunk: &mut Vec<u8>,
    offset: u64,
    total: u64,
) -> Result<(), String> {
    let got = file
        .by_ref()
        .take(want)
        .read_to_end(chunk)
        .map_err(|e| format!("{}: {e}", path.display()))? as u64;
    if got < want {
        return Err(format!(
            "{}: ended after {} bytes; the buffer needs {total}",
            path.display(),
            offset + got
        ));
    }
    Ok(())
}

//! What `chevron run` shows and saves after the kernel: buffer elements printed as JSON arrays
//! and buffers saved to files, both read back from the device a chunk at a time.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use chevron::{Buffer, Stream};

use super::upload::CHUNK_BYTES;
use crate::output::{CommandResult, Failure};
use crate::spec::ElementType;

/// `--print N[:COUNT]`: buffer argument N, its first COUNT elements (all when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrintRequest {
    /// The argument position.
    pub arg: usize,
    /// How many elements at most.
    pub count: Option<u64>,
}

/// Parses `N` or `N:COUNT`.
pub fn parse_print(text: &str) -> Result<PrintRequest, String> {
    let bad = || format!("`{text}`: expected N or N:COUNT (argument position, element count)");
    let (arg, count) = match text.split_once(':') {
        Some((arg, count)) => (arg, Some(count.parse().map_err(|_| bad())?)),
        None => (text, None),
    };
    Ok(PrintRequest {
        arg: arg.parse().map_err(|_| bad())?,
        count,
    })
}

/// `--save N=PATH`.
pub fn parse_save(text: &str) -> Result<(usize, PathBuf), String> {
    let (n, path) = text
        .split_once('=')
        .ok_or_else(|| format!("invalid --save `{text}`: expected N=PATH"))?;
    let n = n
        .parse()
        .map_err(|_| format!("invalid --save `{text}`: N must be an argument position"))?;
    Ok((n, PathBuf::from(path)))
}

/// Calls `each` with consecutive chunks of the first `bytes` bytes of `buffer`.
fn read_chunks(
    stream: &Stream,
    buffer: &Buffer<u8>,
    bytes: u64,
    mut each: impl FnMut(&[u8]) -> CommandResult,
) -> CommandResult {
    let mut chunk = vec![0u8; CHUNK_BYTES.min(bytes) as usize];
    let mut offset = 0u64;
    while offset < bytes {
        let n = CHUNK_BYTES.min(bytes - offset) as usize;
        stream.copy_to_host_at(&mut chunk[..n], buffer.device_ptr() + offset)?;
        each(&chunk[..n])?;
        offset += n as u64;
    }
    Ok(())
}

/// Writes the first `count` elements of `buffer` as a JSON array.
pub fn write_elements(
    out: &mut dyn Write,
    stream: &Stream,
    ty: ElementType,
    buffer: &Buffer<u8>,
    count: u64,
) -> CommandResult {
    out.write_all(b"[")?;
    let mut first = true;
    read_chunks(stream, buffer, count * ty.size() as u64, |bytes| {
        for value in ty.decode(bytes) {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            serde_json::to_writer(&mut *out, &value).map_err(std::io::Error::from)?;
        }
        Ok(())
    })?;
    out.write_all(b"]")?;
    Ok(())
}

/// Writes the whole of `buffer` to `path`.
pub fn save(stream: &Stream, buffer: &Buffer<u8>, path: &Path) -> CommandResult {
    let failed = |e: std::io::Error| Failure::Message(format!("{}: {e}", path.display()));
    let mut file = BufWriter::new(File::create(path).map_err(failed)?);
    read_chunks(stream, buffer, buffer.size_bytes(), |bytes| {
        file.write_all(bytes).map_err(failed)
    })?;
    file.flush().map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_and_save_requests_parse() {
        assert_eq!(
            parse_print("2").unwrap(),
            PrintRequest {
                arg: 2,
                count: None
            }
        );
        assert_eq!(
            parse_print("2:10").unwrap(),
            PrintRequest {
                arg: 2,
                count: Some(10)
            }
        );
        assert!(parse_print("2:x").is_err());
        assert!(parse_print("-1").is_err());
        assert_eq!(
            parse_save("1=/tmp/o").unwrap(),
            (1, PathBuf::from("/tmp/o"))
        );
        assert!(parse_save("x=/tmp/o").is_err());
    }
}

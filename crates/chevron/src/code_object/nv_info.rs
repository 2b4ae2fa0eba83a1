//! The `.nv.info` attribute sections of NVIDIA cubins.
//!
//! `.nv.info` (attributes of the whole object, most keyed by a symbol index) and
//! `.nv.info.<function>` (attributes of one kernel) hold a sequence of records: a format byte,
//! an attribute byte, then either a 16-bit value (`EIFMT_HVAL`, `EIFMT_BVAL`, `EIFMT_NVAL`) or a
//! 16-bit length and that many bytes (`EIFMT_SVAL`). The attributes chevron reads:
//!
//! | id | name | payload |
//! |---|---|---|
//! | 0x0a | `EIATTR_PARAM_CBANK` | symbol of the constant bank, u16 offset of the parameters in it, u16 their size |
//! | 0x17 | `EIATTR_KPARAM_INFO` | u32 index, u16 ordinal, u16 offset, u32 flags (size in bits 18..32) |
//! | 0x19 | `EIATTR_CBANK_PARAM_SIZE` | u16 size of the parameter buffer |
//! | 0x1b | `EIATTR_MAXREG_COUNT` | u16 |
//! | 0x2f | `EIATTR_REGCOUNT` | symbol, registers per thread |
//! | 0x11 / 0x12 / 0x23 | `EIATTR_FRAME_SIZE` / `MIN_STACK_SIZE` / `MAX_STACK_SIZE` | symbol, bytes |
//! | 0x05 / 0x10 | `EIATTR_MAX_THREADS` / `EIATTR_REQNTID` | three u32 |
//!
//! Unknown attributes are kept as raw records and otherwise ignored.

use std::collections::BTreeMap;

use super::CodeObjectError;

/// `EIFMT_SVAL`: a length-prefixed payload follows.
const EIFMT_SVAL: u8 = 0x04;

/// Attribute ids.
pub mod attr {
    /// `EIATTR_MAX_THREADS` (`.maxntid`).
    pub const MAX_THREADS: u8 = 0x05;
    /// `EIATTR_PARAM_CBANK`.
    pub const PARAM_CBANK: u8 = 0x0a;
    /// `EIATTR_REQNTID` (`.reqntid`).
    pub const REQNTID: u8 = 0x10;
    /// `EIATTR_FRAME_SIZE`.
    pub const FRAME_SIZE: u8 = 0x11;
    /// `EIATTR_MIN_STACK_SIZE`.
    pub const MIN_STACK_SIZE: u8 = 0x12;
    /// `EIATTR_KPARAM_INFO`.
    pub const KPARAM_INFO: u8 = 0x17;
    /// `EIATTR_CBANK_PARAM_SIZE`.
    pub const CBANK_PARAM_SIZE: u8 = 0x19;
    /// `EIATTR_MAXREG_COUNT`.
    pub const MAXREG_COUNT: u8 = 0x1b;
    /// `EIATTR_MAX_STACK_SIZE`.
    pub const MAX_STACK_SIZE: u8 = 0x23;
    /// `EIATTR_REGCOUNT`.
    pub const REGCOUNT: u8 = 0x2f;
}

/// One record of an `.nv.info` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record<'a> {
    /// The `EIFMT_*` format byte.
    pub format: u8,
    /// The `EIATTR_*` attribute id.
    pub attribute: u8,
    /// The payload: the 16-bit value (little-endian) for the short formats, the bytes for
    /// `EIFMT_SVAL`.
    pub payload: &'a [u8],
}

impl Record<'_> {
    /// The payload as consecutive little-endian u32 words (a trailing partial word is dropped).
    pub fn words(&self) -> Vec<u32> {
        self.payload
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    }

    /// The 16-bit value of a short record, or the first u16 of a payload.
    pub fn half(&self) -> Option<u16> {
        Some(u16::from_le_bytes([
            *self.payload.first()?,
            *self.payload.get(1)?,
        ]))
    }
}

/// Splits a section into records; `section` names it in errors.
pub fn records<'a>(data: &'a [u8], section: &str) -> Result<Vec<Record<'a>>, CodeObjectError> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        let head = data.get(at..at + 4).ok_or_else(|| truncated(section, at))?;
        let (format, attribute) = (head[0], head[1]);
        if format == EIFMT_SVAL {
            let len = usize::from(u16::from_le_bytes([head[2], head[3]]));
            let payload = data
                .get(at + 4..at + 4 + len)
                .ok_or_else(|| truncated(section, at))?;
            out.push(Record {
                format,
                attribute,
                payload,
            });
            at += 4 + len;
        } else {
            out.push(Record {
                format,
                attribute,
                payload: &head[2..4],
            });
            at += 4;
        }
    }
    Ok(out)
}

fn truncated(section: &str, at: usize) -> CodeObjectError {
    CodeObjectError::Malformed(format!("{section}: record at byte {at} runs past the end"))
}

/// One `EIATTR_KPARAM_INFO` entry: where a kernel parameter lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelParam {
    /// Position in the parameter list.
    pub ordinal: u16,
    /// Byte offset in the parameter buffer.
    pub offset: u16,
    /// Size in bytes.
    pub size: u16,
    /// log2 of the alignment of what a pointer parameter points to (0 when not known).
    pub pointee_log_align: u8,
}

impl KernelParam {
    /// Decodes a 12-byte `EIATTR_KPARAM_INFO` payload.
    pub fn decode(payload: &[u8]) -> Option<KernelParam> {
        let bytes: &[u8; 12] = payload.try_into().ok()?;
        let flags = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        Some(KernelParam {
            ordinal: u16::from_le_bytes([bytes[4], bytes[5]]),
            offset: u16::from_le_bytes([bytes[6], bytes[7]]),
            size: u16::try_from(flags >> 18).unwrap_or(u16::MAX),
            pointee_log_align: (flags & 0xff) as u8,
        })
    }
}

/// What the `.nv.info.<kernel>` section says about one kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelInfo {
    /// Parameters sorted by ordinal.
    pub params: Vec<KernelParam>,
    /// Offset of the parameter buffer in constant bank 0 (`EIATTR_PARAM_CBANK`).
    pub param_cbank_offset: Option<u16>,
    /// Size of the parameter buffer (`EIATTR_CBANK_PARAM_SIZE`, else `EIATTR_PARAM_CBANK`).
    pub param_buffer_size: Option<u16>,
    /// `EIATTR_MAXREG_COUNT`.
    pub max_reg_count: Option<u16>,
    /// `EIATTR_MAX_THREADS` (`.maxntid`).
    pub max_threads: Option<[u32; 3]>,
    /// `EIATTR_REQNTID` (`.reqntid`).
    pub required_threads: Option<[u32; 3]>,
}

fn triple(record: &Record) -> Option<[u32; 3]> {
    match record.words().as_slice() {
        [x, y, z, ..] => Some([*x, *y, *z]),
        _ => None,
    }
}

impl KernelInfo {
    /// Whether the function has a parameter buffer in constant bank 0: true of kernels only
    /// (device functions of relocatable cubins have `.nv.info.<name>` sections too).
    pub fn has_parameter_bank(&self) -> bool {
        self.param_cbank_offset.is_some() || self.param_buffer_size.is_some()
    }

    /// Reads the records of a `.nv.info.<kernel>` section.
    pub fn from_records(records: &[Record]) -> KernelInfo {
        let mut info = KernelInfo::default();
        for r in records {
            match r.attribute {
                attr::KPARAM_INFO => info.params.extend(KernelParam::decode(r.payload)),
                attr::PARAM_CBANK => {
                    if let [_, window] = r.words().as_slice() {
                        info.param_cbank_offset = Some((window & 0xffff) as u16);
                        info.param_buffer_size.get_or_insert((window >> 16) as u16);
                    }
                }
                attr::CBANK_PARAM_SIZE => info.param_buffer_size = r.half(),
                attr::MAXREG_COUNT => info.max_reg_count = r.half(),
                attr::MAX_THREADS => info.max_threads = triple(r),
                attr::REQNTID => info.required_threads = triple(r),
                _ => {}
            }
        }
        info.params.sort_by_key(|p| p.ordinal);
        info.params.dedup_by_key(|p| p.ordinal);
        info
    }
}

/// Per-function resources from the object-wide `.nv.info` section, keyed by symbol index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FunctionResources {
    /// Registers per thread (`EIATTR_REGCOUNT`).
    pub registers: Option<u32>,
    /// Stack frame bytes (`EIATTR_FRAME_SIZE`).
    pub frame_size: Option<u32>,
    /// `EIATTR_MIN_STACK_SIZE`.
    pub min_stack_size: Option<u32>,
    /// `EIATTR_MAX_STACK_SIZE`.
    pub max_stack_size: Option<u32>,
}

/// Reads the `(symbol index, value)` records of the object-wide `.nv.info` section.
pub fn function_resources(records: &[Record]) -> BTreeMap<u32, FunctionResources> {
    let mut out: BTreeMap<u32, FunctionResources> = BTreeMap::new();
    for r in records {
        let [symbol, value] = r.words()[..] else {
            continue;
        };
        let slot = out.entry(symbol).or_default();
        match r.attribute {
            attr::REGCOUNT => slot.registers = Some(value),
            attr::FRAME_SIZE => slot.frame_size = Some(value),
            attr::MIN_STACK_SIZE => slot.min_stack_size = Some(value),
            attr::MAX_STACK_SIZE => slot.max_stack_size = Some(value),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_records_and_params() {
        // Bytes from the `.nv.info.rdc_read_counter` section of an NVRTC 13.0 sm_90 cubin.
        let data = [
            0x04, 0x37, 0x04, 0x00, 0x82, 0x00, 0x00, 0x00, // CUDA_API_VERSION
            0x04, 0x17, 0x0c, 0x00, 0, 0, 0, 0, 0x04, 0x00, 0x1c, 0x00, 0x00, 0xf0, 0x11, 0x00,
            0x03, 0x1b, 0xff, 0x00, // MAXREG_COUNT 255
            0x03, 0x19, 0x20, 0x00, // CBANK_PARAM_SIZE 32
            0x04, 0x0a, 0x08, 0x00, 0x18, 0, 0, 0, 0x10, 0x02, 0x20, 0x00, // PARAM_CBANK
        ];
        let records = records(&data, ".nv.info.k").unwrap();
        assert_eq!(records.len(), 5);
        let info = KernelInfo::from_records(&records);
        assert_eq!(
            info.params,
            [KernelParam {
                ordinal: 4,
                offset: 0x1c,
                size: 4,
                pointee_log_align: 0
            }]
        );
        assert_eq!(info.param_cbank_offset, Some(0x210));
        assert_eq!(info.param_buffer_size, Some(0x20));
        assert_eq!(info.max_reg_count, Some(255));
    }

    #[test]
    fn truncated_records_are_errors() {
        let err = records(&[0x04, 0x17, 0x0c, 0x00, 1, 2], ".nv.info.k").unwrap_err();
        assert!(err.to_string().contains(".nv.info.k"), "{err}");
        assert!(records(&[0x03, 0x1b, 0xff], ".nv.info").is_err());
    }
}

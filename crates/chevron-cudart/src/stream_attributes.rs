//! Stream attributes: `cudaStreamSetAttribute`, `cudaStreamGetAttribute`,
//! `cudaStreamCopyAttributes` and their `_ptsz` forms, and `cudaStreamGetPriority`.
//!
//! A `cudaStreamAttrValue` is the 64-byte `cudaLaunchAttributeValue` union. The attributes
//! valid for streams are kept as set (checked first, as CUDA checks them) and reported back:
//! the L2 access-policy window, the synchronization policy, the priority (clamped to the
//! device's range; `cudaStreamGetPriority` reports it too) and the memory synchronization
//! domain and its map. A created stream keeps them in its handle ([`state::StreamHandle`]),
//! the legacy stream per device, the per-thread stream per thread. Unset attributes read as
//! CUDA's defaults: an empty window, the creation priority, domain 0, and -1 for the
//! synchronization policy (no `cudaSynchronizationPolicy`: NVIDIA's runtime on an H200 reads a
//! policy never set so; copying it leaves the destination's unset too).
//! On GPUs each attribute set is also handed to the driver (`cuStreamSetAttribute`), which
//! applies it to the stream's later work; on the CPU device, whose caches are the host's, the
//! window and the policies are kept but change nothing.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::launch::per_thread_default as pt;
use crate::memory::store;
use crate::state::{self, STREAM_LEGACY, STREAM_PER_THREAD};

/// A `cudaLaunchAttributeValue`.
type Value = [u8; 64];
/// The attributes set on one stream, by `cudaLaunchAttributeID`.
type Attributes = BTreeMap<c_int, Value>;

/// `cudaLaunchAttributeAccessPolicyWindow`.
const ACCESS_POLICY_WINDOW: c_int = 1;
/// `cudaLaunchAttributeSynchronizationPolicy`.
const SYNCHRONIZATION_POLICY: c_int = 3;
/// `cudaLaunchAttributePriority`.
const PRIORITY: c_int = 8;
/// `cudaLaunchAttributeMemSyncDomainMap`.
const MEM_SYNC_DOMAIN_MAP: c_int = 9;
/// `cudaLaunchAttributeMemSyncDomain`.
const MEM_SYNC_DOMAIN: c_int = 10;
/// What a synchronization policy never set reads as.
const SYNC_POLICY_UNSET: c_int = -1;
/// `cudaDevAttrMaxAccessPolicyWindowSize`.
const MAX_WINDOW_ATTRIBUTE: c_int = 109;
/// `cudaDevAttrMemSyncDomainCount`.
const DOMAIN_COUNT_ATTRIBUTE: c_int = 126;

/// The attributes of the legacy streams, by device ordinal.
static LEGACY: Mutex<BTreeMap<usize, Attributes>> = Mutex::new(BTreeMap::new());

thread_local! {
    /// The attributes of this thread's per-thread streams, by device ordinal.
    static PER_THREAD: RefCell<BTreeMap<usize, Attributes>> = const { RefCell::new(BTreeMap::new()) };
}

/// Runs `f` on the attributes of `stream` and its device ordinal and creation priority.
fn with_attributes<T>(
    stream: *mut c_void,
    f: impl FnOnce(&mut Attributes, usize, i32) -> CudaResult<T>,
) -> CudaResult<T> {
    match stream as usize {
        0 | STREAM_LEGACY => {
            state::current()?;
            let ordinal = state::current_ordinal();
            let mut legacy = state::lock(&LEGACY);
            f(legacy.entry(ordinal).or_default(), ordinal, 0)
        }
        STREAM_PER_THREAD => {
            state::current()?;
            let ordinal = state::current_ordinal();
            PER_THREAD
                .with(|streams| f(streams.borrow_mut().entry(ordinal).or_default(), ordinal, 0))
        }
        _ => {
            let handle = state::stream_handle(stream)?;
            let mut attributes = state::lock(&handle.attributes);
            f(&mut attributes, handle.device, handle.priority)
        }
    }
}

/// Hands attribute `id` (checked) of `stream` to the driver on GPUs, which apply it to the
/// stream's later work; nothing on the CPU device.
fn forward(stream: *mut c_void, id: c_int, value: &Value) -> CudaResult {
    let chevron_stream = match stream as usize {
        0 | STREAM_LEGACY | STREAM_PER_THREAD => state::plain_stream(stream)?.1,
        _ => state::stream_handle(stream)?.stream.clone(),
    };
    match chevron_stream.set_driver_attribute(id, value) {
        Some(result) => Ok(result?),
        None => Ok(()),
    }
}

fn int_at(value: &Value, offset: usize) -> c_int {
    let mut bytes = [0u8; 4];
    bytes.copy_from_slice(&value[offset..offset + 4]);
    c_int::from_ne_bytes(bytes)
}

fn int_value(int: c_int) -> Value {
    let mut value = [0u8; 64];
    value[..4].copy_from_slice(&int.to_ne_bytes());
    value
}

fn invalid(what: impl Into<String>) -> CudaError {
    CudaError::new(INVALID_VALUE, what)
}

/// A device attribute of device `ordinal`.
fn device_attribute(ordinal: usize, attribute: c_int) -> CudaResult<c_int> {
    crate::device::attribute(&state::device(ordinal)?.device, attribute)
}

/// Checks `value` as attribute `id` of a stream of device `ordinal` and returns what is kept:
/// the value with the bytes the attribute does not use cleared, a priority clamped.
fn checked(id: c_int, value: &Value, ordinal: usize) -> CudaResult<Value> {
    let mut kept = [0u8; 64];
    match id {
        ACCESS_POLICY_WINDOW => {
            // { void *base_ptr; size_t num_bytes; float hitRatio; hitProp; missProp; }
            kept[..28].copy_from_slice(&value[..28]);
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&value[8..16]);
            let num_bytes = u64::from_ne_bytes(bytes);
            let hit_ratio = f32::from_bits(int_at(value, 16) as u32);
            let (hit, miss) = (int_at(value, 20), int_at(value, 24));
            if !(0.0..=1.0).contains(&hit_ratio) {
                return Err(invalid(format!("hitRatio {hit_ratio} (0 to 1)")));
            }
            // cudaAccessPropertyNormal, Streaming, Persisting; a miss cannot persist.
            if !(0..=2).contains(&hit) || !(0..=1).contains(&miss) {
                return Err(invalid(format!("hitProp {hit} or missProp {miss}")));
            }
            let max = device_attribute(ordinal, MAX_WINDOW_ATTRIBUTE)?;
            if max > 0 && num_bytes > max as u64 {
                return Err(invalid(format!(
                    "num_bytes {num_bytes} above cudaDevAttrMaxAccessPolicyWindowSize {max}"
                )));
            }
        }
        SYNCHRONIZATION_POLICY => {
            let policy = int_at(value, 0);
            if !(1..=4).contains(&policy) {
                return Err(invalid(format!(
                    "{policy} is not a cudaSynchronizationPolicy"
                )));
            }
            kept = int_value(policy);
        }
        PRIORITY => {
            let device = &state::device(ordinal)?.device;
            let (least, greatest) = device.stream_priority_range()?;
            kept = int_value(int_at(value, 0).clamp(greatest, least));
        }
        MEM_SYNC_DOMAIN_MAP => {
            let domains = device_attribute(ordinal, DOMAIN_COUNT_ATTRIBUTE)?.max(1);
            let (default, remote) = (c_int::from(value[0]), c_int::from(value[1]));
            if default >= domains || remote >= domains {
                return Err(invalid(format!(
                    "domain map {{{default}, {remote}}} beyond the device's {domains} domains"
                )));
            }
            kept[..2].copy_from_slice(&value[..2]);
        }
        MEM_SYNC_DOMAIN => {
            let domain = int_at(value, 0);
            if !(0..=1).contains(&domain) {
                return Err(invalid(format!(
                    "{domain} is not a cudaLaunchMemSyncDomain"
                )));
            }
            kept = int_value(domain);
        }
        other => return Err(invalid(format!("{other} is not a stream attribute"))),
    }
    Ok(kept)
}

/// The value of attribute `id` kept in `attributes`, or CUDA's default.
fn value_of(attributes: &Attributes, id: c_int, priority: i32) -> CudaResult<Value> {
    if let Some(value) = attributes.get(&id) {
        return Ok(*value);
    }
    match id {
        ACCESS_POLICY_WINDOW | MEM_SYNC_DOMAIN_MAP | MEM_SYNC_DOMAIN => Ok([0u8; 64]),
        SYNCHRONIZATION_POLICY => Ok(int_value(SYNC_POLICY_UNSET)),
        PRIORITY => Ok(int_value(priority)),
        other => Err(invalid(format!("{other} is not a stream attribute"))),
    }
}

/// The priority of `stream`: as created, or as `cudaStreamSetAttribute` last set it.
fn priority(stream: *mut c_void) -> CudaResult<i32> {
    with_attributes(stream, |attributes, _, priority| {
        Ok(int_at(&value_of(attributes, PRIORITY, priority)?, 0))
    })
}

/// The priority `stream` was created with (clamped to the device's range), or as
/// `cudaStreamSetAttribute` last set it; 0 for the default streams unless set.
#[no_mangle]
pub extern "C" fn cudaStreamGetPriority(stream: *mut c_void, out: *mut c_int) -> cudaError_t {
    guard("cudaStreamGetPriority", || {
        store(out, priority(stream)?, "priority")
    })
}

/// Sets attribute `attr` of `stream` for the work submitted after it.
///
/// # Safety
/// `value` is NULL or points to a `cudaStreamAttrValue`.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamSetAttribute(
    stream: *mut c_void,
    attr: c_int,
    value: *const Value,
) -> cudaError_t {
    guard("cudaStreamSetAttribute", || {
        if value.is_null() {
            return Err(invalid("value is NULL"));
        }
        // SAFETY: the caller's guarantee; read unaligned as a byte array.
        let value = unsafe { value.read_unaligned() };
        with_attributes(stream, |attributes, ordinal, _| {
            let kept = checked(attr, &value, ordinal)?;
            forward(stream, attr, &kept)?;
            attributes.insert(attr, kept);
            Ok(())
        })
    })
}

/// Stores attribute `attr` of `stream` in `value_out`.
///
/// # Safety
/// `value_out` is NULL or points to a writable `cudaStreamAttrValue`.
#[no_mangle]
pub unsafe extern "C" fn cudaStreamGetAttribute(
    stream: *mut c_void,
    attr: c_int,
    value_out: *mut Value,
) -> cudaError_t {
    guard("cudaStreamGetAttribute", || {
        if value_out.is_null() {
            return Err(invalid("value_out is NULL"));
        }
        let value = with_attributes(stream, |attributes, _, priority| {
            value_of(attributes, attr, priority)
        })?;
        // SAFETY: the caller's guarantee; written unaligned as a byte array.
        unsafe { value_out.write_unaligned(value) };
        Ok(())
    })
}

/// Copies the attributes of `src` that are valid for streams to `dst` (both checked first).
#[no_mangle]
pub extern "C" fn cudaStreamCopyAttributes(dst: *mut c_void, src: *mut c_void) -> cudaError_t {
    guard("cudaStreamCopyAttributes", || {
        let (copied, src_priority) = with_attributes(src, |attributes, _, priority| {
            Ok((attributes.clone(), priority))
        })?;
        with_attributes(dst, |attributes, ordinal, _| {
            let mut values = Attributes::new();
            for id in [
                ACCESS_POLICY_WINDOW,
                SYNCHRONIZATION_POLICY,
                PRIORITY,
                MEM_SYNC_DOMAIN_MAP,
                MEM_SYNC_DOMAIN,
            ] {
                // An unset policy has no value to check or hand on: it stays unset.
                if id == SYNCHRONIZATION_POLICY && !copied.contains_key(&id) {
                    continue;
                }
                let value = value_of(&copied, id, src_priority)?;
                values.insert(id, checked(id, &value, ordinal)?);
            }
            for (&id, value) in &values {
                forward(dst, id, value)?;
            }
            *attributes = values;
            Ok(())
        })
    })
}

/// [`cudaStreamSetAttribute`] with the per-thread default stream for NULL.
///
/// # Safety
/// As [`cudaStreamSetAttribute`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamSetAttribute_ptsz(
    stream: *mut c_void,
    attr: c_int,
    value: *const Value,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaStreamSetAttribute(pt(stream), attr, value) }
}

/// [`cudaStreamGetAttribute`] with the per-thread default stream for NULL.
///
/// # Safety
/// As [`cudaStreamGetAttribute`].
#[no_mangle]
pub unsafe extern "C" fn cudaStreamGetAttribute_ptsz(
    stream: *mut c_void,
    attr: c_int,
    value_out: *mut Value,
) -> cudaError_t {
    // SAFETY: forwarded from the caller.
    unsafe { cudaStreamGetAttribute(pt(stream), attr, value_out) }
}

/// [`cudaStreamCopyAttributes`] with the per-thread default stream for NULL.
#[no_mangle]
pub extern "C" fn cudaStreamCopyAttributes_ptsz(dst: *mut c_void, src: *mut c_void) -> cudaError_t {
    cudaStreamCopyAttributes(pt(dst), pt(src))
}

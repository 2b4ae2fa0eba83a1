//! Graph memory nodes: `cudaGraphAddMemAllocNode`/`cudaGraphAddMemFreeNode`, their parameters
//! (`cudaGraphMemAllocNodeGetParams`, `cudaGraphMemFreeNodeGetParams`), and the device's graph
//! memory (`cudaDeviceGetGraphMemAttribute`, `cudaDeviceSetGraphMemAttribute`,
//! `cudaDeviceGraphMemTrim`).
//!
//! An allocation node's memory is allocated when the node is added, at the address the node
//! reports, and lives as long as a graph or an instantiated graph holds the node (the node's
//! [`GraphAllocation`] is shared by every copy of the model); a free node ends its use in the
//! graph's order. So the memory exists at least from the allocation node's run to the free
//! node's, as CUDA promises, and no launch has to allocate. The device's graph memory is the
//! bytes of the live allocations: used and reserved are the same, their highs kept until reset.
//! Memory of an allocation node may also be freed by `cudaFree`/`cudaFreeAsync`, as CUDA allows.

use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::model::{Model, NodeKind};
use super::nodes::add;
use super::params::{not_a, read_node};
use super::{find_graph, find_node};
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_DEVICE, INVALID_VALUE};
use crate::memory::{adopt, release, store};
use crate::state::{self, lock};

/// `cudaMemPoolProps`.
#[repr(C)]
#[derive(Clone, Copy)]
#[allow(non_snake_case, missing_docs)]
pub struct cudaMemPoolProps {
    pub allocType: c_int,
    pub handleTypes: c_int,
    /// `cudaMemLocation`: type and id.
    pub location: [c_int; 2],
    pub win32SecurityAttributes: *mut c_void,
    pub maxSize: usize,
    pub usage: u16,
    pub reserved: [u8; 54],
}

/// `cudaMemAccessDesc`: a location (type, id) and its `cudaMemAccessFlags`.
pub type MemAccessDesc = [c_int; 3];

/// `cudaMemAllocNodeParams`.
#[repr(C)]
#[allow(non_snake_case, missing_docs)]
pub struct cudaMemAllocNodeParams {
    pub poolProps: cudaMemPoolProps,
    pub accessDescs: *const MemAccessDesc,
    pub accessDescCount: usize,
    pub bytesize: usize,
    pub dptr: *mut c_void,
}

/// Bytes of live graph allocations per device, and their high.
struct Usage {
    current: AtomicU64,
    high: AtomicU64,
}

/// Up to 64 devices' graph memory.
static USAGE: [Usage; 64] = [const {
    Usage {
        current: AtomicU64::new(0),
        high: AtomicU64::new(0),
    }
}; 64];

/// The memory of an allocation node, freed when the last model holding the node goes.
pub struct GraphAllocation {
    /// Where the memory is.
    pub address: u64,
    /// Its size.
    pub bytes: u64,
    ordinal: usize,
    props: cudaMemPoolProps,
    access: Vec<MemAccessDesc>,
}

// SAFETY: `props.win32SecurityAttributes` is a value CUDA requires to be NULL here, never
// dereferenced.
unsafe impl Send for GraphAllocation {}
// SAFETY: as above; the allocation is never changed after it is made.
unsafe impl Sync for GraphAllocation {}

impl Drop for GraphAllocation {
    fn drop(&mut self) {
        // Memory the program freed with `cudaFree` is already gone.
        drop(release(self.address));
        if let Some(usage) = USAGE.get(self.ordinal) {
            usage.current.fetch_sub(self.bytes, Ordering::Relaxed);
        }
    }
}

/// Serializes allocation and the usage highs.
static ALLOCATING: Mutex<()> = Mutex::new(());

/// Allocates the memory `p` asks for.
pub(super) fn allocate(p: &cudaMemAllocNodeParams) -> CudaResult<Arc<GraphAllocation>> {
    let props = &p.poolProps;
    if props.allocType != 1 || props.handleTypes != 0 || props.location[0] != 1 {
        return Err(CudaError::new(
            INVALID_VALUE,
            "graph allocations are pinned device memory without export handles",
        ));
    }
    let ordinal = usage(props.location[1])?.0;
    if p.bytesize == 0 {
        return Err(CudaError::new(INVALID_VALUE, "bytesize is 0"));
    }
    let access = if p.accessDescCount == 0 {
        Vec::new()
    } else {
        if p.accessDescs.is_null() || p.accessDescCount > state::devices().map_or(0, |d| d.len()) {
            return Err(CudaError::new(
                INVALID_VALUE,
                "accessDescs is NULL, or more than one per device",
            ));
        }
        // SAFETY: `accessDescCount` descriptors, a few at most (checked), readable (caller).
        unsafe { std::slice::from_raw_parts(p.accessDescs, p.accessDescCount) }.to_vec()
    };
    make(ordinal, p.bytesize, *props, access)
}

/// Allocates `bytes` bytes on device `ordinal` for an allocation node made with `props`.
fn make(
    ordinal: usize,
    bytes: usize,
    props: cudaMemPoolProps,
    access: Vec<MemAccessDesc>,
) -> CudaResult<Arc<GraphAllocation>> {
    let _serial = lock(&ALLOCATING);
    let buffer = chevron::Buffer::<u8>::new(&state::device(ordinal)?.device, bytes)?;
    let address = adopt(buffer, bytes, "cudaGraphAddMemAllocNode");
    let usage = &USAGE[ordinal];
    let now = usage.current.fetch_add(bytes as u64, Ordering::Relaxed) + bytes as u64;
    usage.high.fetch_max(now, Ordering::Relaxed);
    Ok(Arc::new(GraphAllocation {
        address,
        bytes: bytes as u64,
        ordinal,
        props,
        access,
    }))
}

/// The allocation of a captured `cudaMallocAsync`: `bytes` bytes of device `ordinal`.
pub(super) fn device_allocation(ordinal: usize, bytes: usize) -> CudaResult<Arc<GraphAllocation>> {
    if bytes == 0 {
        return Err(CudaError::new(INVALID_VALUE, "size is 0"));
    }
    if ordinal >= USAGE.len() {
        return Err(CudaError::new(INVALID_DEVICE, format!("device {ordinal}")));
    }
    let props = cudaMemPoolProps {
        allocType: 1,
        handleTypes: 0,
        location: [1, ordinal as c_int],
        win32SecurityAttributes: std::ptr::null_mut(),
        maxSize: 0,
        usage: 0,
        reserved: [0; 54],
    };
    make(ordinal, bytes, props, Vec::new())
}

/// Whether `address` is the memory of a live allocation node of `model` that no free node
/// of it frees.
pub(super) fn freeable(model: &Model, address: u64) -> bool {
    let nodes = || model.live().map(|i| &model.nodes[i].kind);
    let allocated =
        nodes().any(|kind| matches!(kind, NodeKind::MemAlloc(a) if a.address == address));
    allocated && !nodes().any(|kind| matches!(*kind, NodeKind::MemFree(a) if a == address))
}

/// Adds a node allocating `params.bytesize` bytes; writes the address to `params.dptr`.
///
/// # Safety
/// `deps` is NULL or valid for `count` reads; `params` NULL or valid for a read and a write,
/// its `accessDescs` valid for `accessDescCount` reads.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddMemAllocNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    params: *mut cudaMemAllocNodeParams,
) -> cudaError_t {
    guard("cudaGraphAddMemAllocNode", || {
        find_graph(graph)?;
        // SAFETY: NULL or valid (caller).
        let p = unsafe { params.as_mut() }
            .ok_or_else(|| CudaError::new(INVALID_VALUE, "nodeParams is NULL"))?;
        let mut made = None;
        let kind = || {
            let allocation = allocate(p)?;
            made = Some(allocation.address);
            Ok(NodeKind::MemAlloc(allocation))
        };
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, kind) }?;
        if let Some(address) = made {
            p.dptr = address as *mut c_void;
        }
        Ok(())
    })
}

/// Adds a node ending the use of `dptr`, the memory of an allocation node of `graph` no other
/// free node of it frees.
///
/// # Safety
/// `deps` is NULL or valid for `count` reads.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphAddMemFreeNode(
    out: *mut *mut c_void,
    graph: *mut c_void,
    deps: *const *mut c_void,
    count: usize,
    dptr: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphAddMemFreeNode", || {
        let address = dptr as u64;
        if !freeable(&lock(&*find_graph(graph)?), address) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!(
                    "{dptr:p} is not the memory of an allocation node of this graph that no \
                     free node frees"
                ),
            ));
        }
        // SAFETY: forwarded from the caller.
        unsafe { add(out, graph, deps, count, || Ok(NodeKind::MemFree(address))) }
    })
}

/// Writes an allocation node's parameters (`accessDescs` points to the node's own copy).
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphMemAllocNodeGetParams(
    node: *mut c_void,
    out: *mut cudaMemAllocNodeParams,
) -> cudaError_t {
    guard("cudaGraphMemAllocNodeGetParams", || {
        let params = read_node(node, |kind| match kind {
            NodeKind::MemAlloc(a) => Ok(cudaMemAllocNodeParams {
                poolProps: a.props,
                accessDescs: if a.access.is_empty() {
                    std::ptr::null()
                } else {
                    a.access.as_ptr()
                },
                accessDescCount: a.access.len(),
                bytesize: a.bytes as usize,
                dptr: a.address as *mut c_void,
            }),
            _ => Err(not_a("memory allocation")),
        })?;
        store(out, params, "params_out")
    })
}

/// Writes the address a free node frees.
///
/// # Safety
/// `out` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphMemFreeNodeGetParams(
    node: *mut c_void,
    out: *mut *mut c_void,
) -> cudaError_t {
    guard("cudaGraphMemFreeNodeGetParams", || {
        find_node(node)?;
        let address = read_node(node, |kind| match *kind {
            NodeKind::MemFree(address) => Ok(address),
            _ => Err(not_a("memory free")),
        })?;
        store(out, address as *mut c_void, "dptr_out")
    })
}

/// `cudaGraphMemAttrUsedMemCurrent` .. `cudaGraphMemAttrReservedMemHigh`.
const USED_CURRENT: c_int = 0;
const USED_HIGH: c_int = 1;
const RESERVED_CURRENT: c_int = 2;
const RESERVED_HIGH: c_int = 3;

/// The ordinal and graph memory of device `device`.
fn usage(device: c_int) -> CudaResult<(usize, &'static Usage)> {
    let ordinal = crate::mem_pool::device_ordinal(device)?;
    let usage = USAGE
        .get(ordinal)
        .ok_or_else(|| CudaError::new(INVALID_DEVICE, format!("device {device}")))?;
    Ok((ordinal, usage))
}

/// Writes a graph memory attribute of `device` (a `u64` of bytes).
///
/// # Safety
/// `value` is NULL or valid for a write of 8 bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetGraphMemAttribute(
    device: c_int,
    attribute: c_int,
    value: *mut c_void,
) -> cudaError_t {
    guard("cudaDeviceGetGraphMemAttribute", || {
        let (_, usage) = usage(device)?;
        let bytes = match attribute {
            USED_CURRENT | RESERVED_CURRENT => usage.current.load(Ordering::Relaxed),
            USED_HIGH | RESERVED_HIGH => usage.high.load(Ordering::Relaxed),
            _ => {
                return Err(CudaError::new(
                    INVALID_VALUE,
                    format!("cudaGraphMemAttributeType {attribute}"),
                ))
            }
        };
        store(value.cast::<u64>(), bytes, "value")
    })
}

/// Resets a high of `device`'s graph memory (`value` must point to 0).
///
/// # Safety
/// `value` is NULL or valid for a read of 8 bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceSetGraphMemAttribute(
    device: c_int,
    attribute: c_int,
    value: *mut c_void,
) -> cudaError_t {
    guard("cudaDeviceSetGraphMemAttribute", || {
        let (_, usage) = usage(device)?;
        if !matches!(attribute, USED_HIGH | RESERVED_HIGH) {
            return Err(CudaError::new(
                INVALID_VALUE,
                format!("cudaGraphMemAttributeType {attribute}: only the highs can be reset"),
            ));
        }
        if value.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "value is NULL"));
        }
        // SAFETY: non-NULL and readable for 8 bytes (caller).
        if unsafe { value.cast::<u64>().read_unaligned() } != 0 {
            return Err(CudaError::new(
                INVALID_VALUE,
                "a high can only be reset to 0",
            ));
        }
        let _serial = lock(&ALLOCATING);
        usage
            .high
            .store(usage.current.load(Ordering::Relaxed), Ordering::Relaxed);
        Ok(())
    })
}

/// Gives back graph memory not in use: none is kept beyond the live allocations, so this
/// checks `device` only.
#[no_mangle]
pub extern "C" fn cudaDeviceGraphMemTrim(device: c_int) -> cudaError_t {
    guard("cudaDeviceGraphMemTrim", || usage(device).map(drop))
}

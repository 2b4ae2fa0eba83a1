//! A kernel node's launch attributes: `cudaGraphKernelNodeGetAttribute`, `…SetAttribute` and
//! `cudaGraphKernelNodeCopyAttributes`.
//!
//! The attributes CUDA takes for graph nodes are kept with the node (its parameters may change,
//! its attributes stay) and copied into each instantiation, whose kernel node on a GPU gets them
//! from the driver (`cuGraphKernelNodeSetAttribute`: access policy window, priority, memory
//! synchronization domains, cluster scheduling preferences, shared-memory carveout, NVLink
//! scheduling); the CPU device needs none of these hints. A cooperative launch, a cluster shape
//! other than one block, or a device-updatable node cannot be given to a graph's kernel node
//! here, and answer `cudaErrorNotSupported`. An attribute never set reads as zeros.

use std::ffi::{c_int, c_void};

use super::find_node;
use super::model::NodeKind;
use super::params::not_a;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE, NOT_SUPPORTED};
use crate::memory::store;
use crate::state::lock;

/// A `cudaLaunchAttributeValue` (`cudaKernelNodeAttrValue`): a 64-byte union.
type Value = [u64; 8];

/// `cudaLaunchAttributeCooperative`, `…ClusterDimension`, `…DeviceUpdatableKernelNode`.
const COOPERATIVE: c_int = 2;
const CLUSTER_DIMENSION: c_int = 4;
const DEVICE_UPDATABLE: c_int = 13;

/// The `cudaLaunchAttributeID`s CUDA documents as valid for graph nodes: access policy
/// window, cooperative, cluster dimension, cluster scheduling policy, priority, memory
/// synchronization domain map and domain, preferred cluster dimension, device-updatable node,
/// preferred shared-memory carveout, NVLink-utilization-centric scheduling.
const FOR_GRAPH_NODES: [c_int; 11] = [1, 2, 4, 5, 8, 9, 10, 11, 13, 14, 16];

/// `id` checked to be an attribute of graph nodes.
fn known(id: c_int) -> CudaResult<c_int> {
    if FOR_GRAPH_NODES.contains(&id) {
        Ok(id)
    } else {
        Err(CudaError::new(
            INVALID_VALUE,
            format!("cudaLaunchAttributeID {id} is not an attribute of graph kernel nodes"),
        ))
    }
}

/// Refuses the values chevron cannot launch a graph's kernel node with.
fn launchable(id: c_int, value: &Value) -> CudaResult {
    // The value's i-th 32-bit word (a cluster's x, y, z are the first three).
    let word = |i: usize| (value[i / 2] >> (32 * (i % 2))) as u32;
    let refused = match id {
        COOPERATIVE | DEVICE_UPDATABLE => word(0) != 0,
        CLUSTER_DIMENSION => (0..3).any(|i| word(i) > 1),
        _ => false,
    };
    if refused {
        return Err(CudaError::new(
            NOT_SUPPORTED,
            format!(
                "cudaLaunchAttributeID {id}: cooperative, clustered and device-updatable kernel \
                 nodes are not provided in graphs"
            ),
        ));
    }
    Ok(())
}

/// Runs `access` on the attributes of kernel node `node`.
fn with_attributes<T>(
    node: *mut c_void,
    access: impl FnOnce(&mut Vec<(c_int, Value)>) -> CudaResult<T>,
) -> CudaResult<T> {
    let (model, index) = find_node(node)?;
    let mut model = lock(&model);
    let node = &mut model.nodes[index];
    if !matches!(node.kind, NodeKind::Kernel(_)) {
        return Err(not_a("kernel"));
    }
    access(&mut node.attributes)
}

/// Writes the value of attribute `id` of kernel node `node`.
///
/// # Safety
/// `out` is NULL or valid for a write of 64 bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphKernelNodeGetAttribute(
    node: *mut c_void,
    id: c_int,
    out: *mut Value,
) -> cudaError_t {
    guard("cudaGraphKernelNodeGetAttribute", || {
        let id = known(id)?;
        let value = with_attributes(node, |attributes| {
            Ok(attributes
                .iter()
                .find(|&&(i, _)| i == id)
                .map_or([0; 8], |&(_, v)| v))
        })?;
        store(out, value, "value_out")
    })
}

/// Sets attribute `id` of kernel node `node`.
///
/// # Safety
/// `value` is NULL or valid for a read of 64 bytes.
#[no_mangle]
pub unsafe extern "C" fn cudaGraphKernelNodeSetAttribute(
    node: *mut c_void,
    id: c_int,
    value: *const Value,
) -> cudaError_t {
    guard("cudaGraphKernelNodeSetAttribute", || {
        let id = known(id)?;
        if value.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "value is NULL"));
        }
        // SAFETY: non-NULL and readable for 64 bytes (caller).
        let value = unsafe { value.read_unaligned() };
        launchable(id, &value)?;
        with_attributes(node, |attributes| {
            attributes.retain(|&(i, _)| i != id);
            attributes.push((id, value));
            Ok(())
        })
    })
}

/// Gives kernel node `dst` the attributes of kernel node `src`.
#[no_mangle]
pub extern "C" fn cudaGraphKernelNodeCopyAttributes(
    dst: *mut c_void,
    src: *mut c_void,
) -> cudaError_t {
    guard("cudaGraphKernelNodeCopyAttributes", || {
        let copied = with_attributes(src, |attributes| Ok(attributes.clone()))?;
        with_attributes(dst, |attributes| {
            *attributes = copied;
            Ok(())
        })
    })
}

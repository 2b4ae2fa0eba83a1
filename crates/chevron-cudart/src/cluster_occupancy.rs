//! `cudaOccupancyMaxActiveClusters`: how many thread-block clusters of a launch configuration
//! the device keeps resident at once. On GPUs the driver's calculator answers
//! (`cuOccupancyMaxActiveClusters`, through [`Kernel::max_active_clusters`]); on the CPU device,
//! which runs a cluster's blocks together on one worker, the answer is the resident blocks (as
//! `cudaOccupancyMaxActiveBlocksPerMultiprocessor` estimates them, times the multiprocessors)
//! divided by the cluster's blocks. The driver library's `cuOccupancyMaxActiveClusters` shares
//! [`max_active_clusters`].

use std::ffi::{c_int, c_void};

use chevron::{Kernel, LaunchConfig};

use crate::abi::cudaLaunchConfig_t;
use crate::errors::{cudaError_t, guard, CudaError, CudaResult, INVALID_VALUE};
use crate::memory::store;
use crate::{launch, registry, state};

/// CUDA's portable maximum of blocks in a cluster, the most the CPU device launches.
const PORTABLE_CLUSTER_BLOCKS: u64 = 8;

/// Clusters of `cluster` blocks of `config`'s shape resident at once on `device`, for `kernel`
/// keeping `blocks_per_multiprocessor` blocks of that shape resident per multiprocessor.
pub fn max_active_clusters(
    kernel: &Kernel,
    device: &chevron::Device,
    blocks_per_multiprocessor: c_int,
    config: LaunchConfig,
    cluster: [u32; 3],
) -> CudaResult<c_int> {
    let blocks = cluster.iter().map(|&d| u64::from(d)).product::<u64>();
    if blocks == 0 {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!("a cluster of {cluster:?} blocks"),
        ));
    }
    if let Some(clusters) = kernel.max_active_clusters(&config, cluster)? {
        return Ok(c_int::try_from(clusters).unwrap_or(c_int::MAX));
    }
    if blocks > PORTABLE_CLUSTER_BLOCKS {
        return Err(CudaError::new(
            INVALID_VALUE,
            format!(
                "a cluster of {cluster:?} blocks is more than the portable maximum of \
                 {PORTABLE_CLUSTER_BLOCKS}"
            ),
        ));
    }
    let resident = blocks_per_multiprocessor.max(0) as u64 * device.multiprocessor_count() as u64;
    Ok(c_int::try_from(resident / blocks).unwrap_or(c_int::MAX))
}

/// Clusters of the configuration's cluster-dimension attribute resident at once (the attribute
/// is required: chevron does not read a kernel's compiled cluster shape here).
///
/// # Safety
/// `num_clusters` is writable; `config` is NULL or a configuration whose `attrs` holds
/// `numAttrs` attributes.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxActiveClusters(
    num_clusters: *mut c_int,
    func: *const c_void,
    config: *const cudaLaunchConfig_t,
) -> cudaError_t {
    guard("cudaOccupancyMaxActiveClusters", || {
        if num_clusters.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "numClusters is NULL"));
        }
        // SAFETY: NULL or a configuration whose `attrs` holds `numAttrs` attributes, by contract.
        let (config, attributes) = unsafe { launch::ex_config(config) }?;
        let cluster = launch::cluster_attribute(attributes).ok_or_else(|| {
            CudaError::new(
                INVALID_VALUE,
                "the configuration names no cluster dimension",
            )
        })?;
        let entry = registry::kernel_entry(func)?;
        let ordinal = state::current_ordinal();
        let (grid, block) = (config.gridDim, config.blockDim);
        let threads = u64::from(block.x) * u64::from(block.y) * u64::from(block.z);
        let threads = c_int::try_from(threads).unwrap_or(c_int::MAX);
        let per_sm = launch::active_blocks_on(&entry, ordinal, threads, config.dynamicSmemBytes)?;
        let shape = LaunchConfig {
            grid: [grid.x, grid.y, grid.z],
            block: [block.x, block.y, block.z],
            shared_bytes: u32::try_from(config.dynamicSmemBytes).unwrap_or(u32::MAX),
        };
        let device = &state::device(ordinal)?.device;
        let clusters = max_active_clusters(entry.kernel(ordinal)?, device, per_sm, shape, cluster)?;
        store(num_clusters, clusters, "numClusters")
    })
}

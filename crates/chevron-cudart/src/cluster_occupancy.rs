//! `cudaOccupancyMaxActiveClusters`: how many thread-block clusters of a launch configuration
//! the device keeps resident at once; `cudaOccupancyMaxPotentialClusterSize`: how many blocks
//! one cluster may hold (the driver's calculator on GPUs; on the CPU device CUDA's portable
//! maximum of 8, the most its launches take). On GPUs the driver's calculator answers
//! (`cuOccupancyMaxActiveClusters`, through [`Kernel::max_active_clusters`]); on the CPU device,
//! which runs a cluster's blocks together on one worker, the answer is the resident blocks (as
//! `cudaOccupancyMaxActiveBlocksPerMultiprocessor` estimates them, times the multiprocessors)
//! divided by the cluster's blocks. The driver library's `cuOccupancyMaxActiveClusters` and
//! `cuOccupancyMaxPotentialClusterSize` share [`max_active_clusters`] and
//! [`max_potential_cluster_size`].

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

/// The largest cluster (in blocks) `config`'s shape can be launched in on `kernel`'s device.
pub fn max_potential_cluster_size(kernel: &Kernel, config: LaunchConfig) -> CudaResult<c_int> {
    match kernel.max_potential_cluster_size(&config)? {
        Some(blocks) => Ok(c_int::try_from(blocks).unwrap_or(c_int::MAX)),
        None => Ok(PORTABLE_CLUSTER_BLOCKS as c_int),
    }
}

/// `config`'s geometry as chevron's launch configuration.
fn shape_of(config: &cudaLaunchConfig_t) -> LaunchConfig {
    let (grid, block) = (config.gridDim, config.blockDim);
    LaunchConfig {
        grid: [grid.x, grid.y, grid.z],
        block: [block.x, block.y, block.z],
        shared_bytes: u32::try_from(config.dynamicSmemBytes).unwrap_or(u32::MAX),
    }
}

/// The largest cluster the configuration can be launched in (its cluster attribute ignored, as
/// CUDA documents).
///
/// # Safety
/// `cluster_size` is writable; `config` is NULL or a configuration whose `attrs` holds
/// `numAttrs` attributes.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxPotentialClusterSize(
    cluster_size: *mut c_int,
    func: *const c_void,
    config: *const cudaLaunchConfig_t,
) -> cudaError_t {
    guard("cudaOccupancyMaxPotentialClusterSize", || {
        if cluster_size.is_null() {
            return Err(CudaError::new(INVALID_VALUE, "clusterSize is NULL"));
        }
        // SAFETY: NULL or a configuration, by contract.
        let (config, _) = unsafe { launch::ex_config(config) }?;
        let entry = registry::kernel_entry(func)?;
        let kernel = entry.kernel(state::current_ordinal())?;
        let blocks = max_potential_cluster_size(kernel, shape_of(config))?;
        store(cluster_size, blocks, "clusterSize")
    })
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
        let block = config.blockDim;
        let threads = u64::from(block.x) * u64::from(block.y) * u64::from(block.z);
        let threads = c_int::try_from(threads).unwrap_or(c_int::MAX);
        let per_sm = launch::active_blocks_on(&entry, ordinal, threads, config.dynamicSmemBytes)?;
        let shape = shape_of(config);
        let device = &state::device(ordinal)?.device;
        let clusters = max_active_clusters(entry.kernel(ordinal)?, device, per_sm, shape, cluster)?;
        store(num_clusters, clusters, "numClusters")
    })
}

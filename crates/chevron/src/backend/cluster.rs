//! Thread-block cluster shapes in the backend contract, checked the same way by every backend
//! that runs clusters (CUDA: `cuda/cluster.rs`, the CPU device: `cpu/stream.rs`).

use crate::backend::LaunchConfig;

/// The most blocks per cluster every cluster-capable GPU runs (the portable cluster size).
pub(crate) const MAX_PORTABLE_CLUSTER_BLOCKS: u64 = 8;

/// Checks a cluster shape against a grid: non-empty, dividing the grid, at most
/// [`MAX_PORTABLE_CLUSTER_BLOCKS`] blocks. Returns the reason otherwise.
pub(crate) fn check_shape(
    config: &LaunchConfig,
    cluster: [u32; 3],
) -> std::result::Result<(), String> {
    let [x, y, z] = cluster;
    if cluster.contains(&0) {
        return Err(format!(
            "the cluster ({x}, {y}, {z}) has an empty dimension"
        ));
    }
    for (axis, name) in ["x", "y", "z"].iter().enumerate() {
        if !config.grid[axis].is_multiple_of(cluster[axis]) {
            return Err(format!(
                "grid {name} = {} is not a multiple of the cluster's {name} = {}",
                config.grid[axis], cluster[axis]
            ));
        }
    }
    let blocks = u64::from(x) * u64::from(y) * u64::from(z);
    if blocks > MAX_PORTABLE_CLUSTER_BLOCKS {
        return Err(format!(
            "clusters of ({x}, {y}, {z}) = {blocks} blocks exceed the portable maximum of \
             {MAX_PORTABLE_CLUSTER_BLOCKS}"
        ));
    }
    Ok(())
}

/// The reason a launch in clusters of `cluster` blocks is refused for a kernel compiled for
/// clusters of `required` (`.reqnctapercluster`, CUDA's `__cluster_dims__`).
pub(crate) fn compiled_shape_differs(required: [u32; 3], cluster: [u32; 3]) -> String {
    let [rx, ry, rz] = required;
    let [x, y, z] = cluster;
    format!(
        "the kernel is compiled for clusters of ({rx}, {ry}, {rz}) blocks \
         (.reqnctapercluster / __cluster_dims__), not ({x}, {y}, {z})"
    )
}

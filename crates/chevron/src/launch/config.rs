//! Building launch geometry: [`LaunchConfig`] constructors and the [`Dim3`] conversions.
//!
//! `LaunchConfig` itself is defined in the backend contract (it is what backends receive); this
//! file adds the ways a caller builds one.

pub use crate::backend::LaunchConfig;

/// Three dimensions, built from `u32`, `(u32, u32)`, `(u32, u32, u32)` or `[u32; 3]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dim3(pub [u32; 3]);

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3([x, 1, 1])
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3([x, y, 1])
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3([x, y, z])
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from(d: [u32; 3]) -> Dim3 {
        Dim3(d)
    }
}

impl LaunchConfig {
    /// A grid of `grid` blocks of `block` threads, no dynamic shared memory.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig {
            grid: grid.into().0,
            block: block.into().0,
            shared_bytes: 0,
        }
    }

    /// A one-dimensional launch covering `elements` threads (a length, as `v.len()` gives it)
    /// with blocks of `block` threads (at least one block; the last block may be partial, so
    /// kernels check their index).
    pub fn for_elements(elements: usize, block: u32) -> LaunchConfig {
        let block = block.max(1);
        let blocks = (elements as u64)
            .div_ceil(u64::from(block))
            .clamp(1, u64::from(u32::MAX));
        LaunchConfig::new(blocks as u32, block)
    }

    /// The same launch with `bytes` of dynamic shared memory.
    pub fn with_shared_bytes(mut self, bytes: u32) -> LaunchConfig {
        self.shared_bytes = bytes;
        self
    }

    /// Threads per block (the product of the block dimensions).
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| u64::from(d)).product()
    }

    /// Blocks in the grid (the product of the grid dimensions).
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }
}

impl std::fmt::Display for LaunchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [gx, gy, gz] = self.grid;
        let [bx, by, bz] = self.block;
        write!(f, "grid ({gx}, {gy}, {gz}), block ({bx}, {by}, {bz})")?;
        if self.shared_bytes > 0 {
            write!(f, ", {} bytes of dynamic shared memory", self.shared_bytes)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_elements_rounds_up_and_never_launches_zero_blocks() {
        assert_eq!(LaunchConfig::for_elements(1000, 256).grid, [4, 1, 1]);
        assert_eq!(LaunchConfig::for_elements(0, 256).grid, [1, 1, 1]);
        assert_eq!(LaunchConfig::for_elements(512, 256).grid, [2, 1, 1]);
        let data = vec![0f32; 1000];
        assert_eq!(LaunchConfig::for_elements(data.len(), 256).grid, [4, 1, 1]);
    }

    #[test]
    fn dimensions_convert_and_display() {
        let cfg = LaunchConfig::new((2, 3), [4, 5, 6]).with_shared_bytes(64);
        assert_eq!(cfg.threads_per_block(), 120);
        assert_eq!(cfg.blocks(), 6);
        assert_eq!(
            cfg.to_string(),
            "grid (2, 3, 1), block (4, 5, 6), 64 bytes of dynamic shared memory"
        );
    }
}

//! [`Sequence`]: launches as automatic replay remembers them (kernel, configuration, argument
//! sizes), laid out flat so that matching a launch is a few compares and copying its values is
//! a copy into a fixed place of a preallocated arena of 8-byte words.

use std::ops::Range;
use std::sync::Arc;

use super::args::ArgSource;
use crate::backend::{Function, LaunchConfig};

/// One launch of a sequence.
pub(super) struct Step {
    /// The kernel; keeps it loaded, so its address (the identity compared) stays unique.
    /// A backend function, not a public kernel: dropping it never takes the device's locks,
    /// which a stream's boundaries may hold (a public module's drop defers its release).
    pub function: Arc<dyn Function>,
    pub config: LaunchConfig,
    /// Its values' sizes and byte offsets: `Sequence::sizes[values]`, `Sequence::offsets[values]`.
    pub values: Range<usize>,
    /// Its values' words in an arena of the sequence.
    pub words: Range<usize>,
}

/// The address that identifies a function.
#[inline]
pub(super) fn identity(function: &dyn Function) -> *const () {
    (function as *const dyn Function).cast::<()>()
}

impl Step {
    /// Whether a launch of `function` with `config` and `count` values may match (sizes are
    /// compared while the values are copied).
    #[inline]
    pub(super) fn same_shape(
        &self,
        function: &dyn Function,
        config: &LaunchConfig,
        count: usize,
    ) -> bool {
        identity(&*self.function) == identity(function)
            && self.config == *config
            && self.values.len() == count
    }
}

/// A sequence of launches and where each one's values go in an arena.
#[derive(Default)]
pub(super) struct Sequence {
    pub steps: Vec<Step>,
    pub sizes: Vec<u32>,
    pub offsets: Vec<u32>,
    /// Words an arena of the sequence holds.
    pub words: usize,
}

impl Sequence {
    pub(super) fn len(&self) -> usize {
        self.steps.len()
    }

    pub(super) fn clear(&mut self) {
        self.steps.clear();
        self.sizes.clear();
        self.offsets.clear();
        self.words = 0;
    }

    /// Whether `other` launches the same kernels with the same configurations and argument
    /// sizes, in the same order.
    pub(super) fn same_shapes(&self, other: &Sequence) -> bool {
        self.sizes == other.sizes
            && self.steps.len() == other.steps.len()
            && self.steps.iter().zip(&other.steps).all(|(a, b)| {
                identity(&*a.function) == identity(&*b.function)
                    && a.config == b.config
                    && a.values == b.values
            })
    }

    /// Appends a launch of the given shape with values of `sizes`.
    fn push_shape(
        &mut self,
        function: Arc<dyn Function>,
        config: LaunchConfig,
        sizes: impl Iterator<Item = usize>,
    ) {
        let first_word = self.words;
        let first_value = self.sizes.len();
        for size in sizes {
            self.offsets.push((self.words * 8) as u32);
            self.sizes.push(size as u32);
            self.words += size.div_ceil(8).max(1);
        }
        self.steps.push(Step {
            function,
            config,
            values: first_value..self.sizes.len(),
            words: first_word..self.words,
        });
    }

    /// Appends a launch.
    pub(super) fn push(
        &mut self,
        function: Arc<dyn Function>,
        config: LaunchConfig,
        args: &impl ArgSource,
    ) {
        let mut sizes = Vec::with_capacity(args.count());
        args.each(&mut |_, size| {
            sizes.push(size);
            true
        });
        self.push_shape(function, config, sizes.into_iter());
    }

    /// Appends steps `range` of `other`.
    pub(super) fn extend_from(&mut self, other: &Sequence, range: Range<usize>) {
        for step in &other.steps[range] {
            let sizes = other.sizes[step.values.clone()].iter().map(|&s| s as usize);
            self.push_shape(Arc::clone(&step.function), step.config, sizes);
        }
    }

    /// Copies the values of `args` into step `index`'s words of `arena` if the sizes are the
    /// step's; returns whether they were (the arena may be partly written when not).
    #[inline]
    pub(super) fn copy_values(
        &self,
        index: usize,
        args: &impl ArgSource,
        arena: &mut [u64],
    ) -> bool {
        let step = &self.steps[index];
        let sizes = &self.sizes[step.values.clone()];
        let offsets = &self.offsets[step.values.clone()];
        let base = arena.as_mut_ptr().cast::<u8>();
        let mut next = 0;
        args.each(&mut |pointer, size| {
            if sizes.get(next) != Some(&(size as u32)) {
                return false;
            }
            // SAFETY: the value is readable for `size` bytes (`ArgSource`); its place in the
            // arena holds `size` bytes (laid out from the same sizes), and the two never
            // overlap (the arena is the sequence's own allocation).
            unsafe {
                std::ptr::copy_nonoverlapping(pointer, base.add(offsets[next] as usize), size)
            };
            next += 1;
            true
        }) && next == sizes.len()
    }

    /// The byte offsets of step `index`'s values in an arena.
    pub(super) fn offsets_of(&self, index: usize) -> &[u32] {
        &self.offsets[self.steps[index].values.clone()]
    }
}

#[cfg(test)]
mod tests {
    use super::super::args::pointers_into;
    use super::super::typed::Typed;
    use super::*;

    struct Named;

    impl Function for Named {
        fn name(&self) -> &str {
            "k"
        }
        fn max_threads_per_block(&self) -> u32 {
            1024
        }
        fn static_shared_bytes(&self) -> u32 {
            0
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    }

    #[test]
    fn values_land_aligned_at_fixed_places_and_wrong_sizes_are_refused() {
        let function: Arc<dyn Function> = Arc::new(Named);
        let mut sequence = Sequence::default();
        let config = LaunchConfig::new(1, 1);
        sequence.push(Arc::clone(&function), config, &Typed(&(1u8, 2.5f64, -3i32)));
        sequence.push(Arc::clone(&function), config, &Typed(&(9u64,)));
        assert_eq!(sequence.words, 4);
        let mut arena = vec![0u64; sequence.words];
        assert!(sequence.copy_values(0, &Typed(&(7u8, 0.5f64, 4i32)), &mut arena));
        assert!(!sequence.copy_values(1, &Typed(&(9u32,)), &mut arena));
        assert!(!sequence.copy_values(1, &Typed(&(9u64, 1u64)), &mut arena));
        assert!(sequence.steps[0].same_shape(&*function, &config, 3));
        assert!(!sequence.steps[0].same_shape(&*function, &LaunchConfig::new(2, 1), 3));
        pointers_into(&arena, sequence.offsets_of(0), |p| {
            assert!(p.iter().all(|q| (*q as usize).is_multiple_of(8)));
            // SAFETY: the pointers point into `arena`, alive for this closure.
            unsafe {
                assert_eq!(*(p[0] as *const u8), 7);
                assert_eq!(*(p[1] as *const f64), 0.5);
                assert_eq!(*(p[2] as *const i32), 4);
            }
        });
    }
}

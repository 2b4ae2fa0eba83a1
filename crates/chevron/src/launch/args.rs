//! Kernel arguments: [`KernelArg`] (one value) and [`KernelArgs`] (a whole argument list).
//!
//! A launch passes the driver one pointer per kernel parameter, each pointing at the value. The
//! tuple impls build that pointer array on the stack, pointing straight into the tuple (scalars)
//! or at a buffer's address field (`&Buffer<T>`), so a launch allocates nothing:
//!
//! ```no_run
//! # fn demo(kernel: &chevron::Kernel, stream: &chevron::Stream,
//! #         x: &chevron::Buffer<f32>, y: &chevron::Buffer<f32>) -> chevron::Result<()> {
//! let cfg = chevron::LaunchConfig::for_elements(x.len(), 256);
//! kernel.launch(stream, cfg, (x, y, 2.0f32, x.len() as i32))?;
//! # Ok(()) }
//! ```
//!
//! Checked launches compare each argument's size with the kernel's parameter layout and check
//! that buffers live on the launch's device.

use std::ffi::c_void;

use bytemuck::Pod;
use chevron_ptx::symbols::ParamLayout;

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::Result;

/// One kernel argument.
///
/// # Safety
/// [`KernelArg::arg_ptr`] must point to [`KernelArg::arg_size`] readable bytes (the value the
/// kernel receives), valid for as long as `self` is borrowed.
pub unsafe trait KernelArg {
    /// Where the value is.
    fn arg_ptr(&self) -> *mut c_void;

    /// The value's size in bytes.
    fn arg_size(&self) -> usize;

    /// The device whose memory the value points into, for buffers.
    fn arg_device(&self) -> Option<&Device> {
        None
    }

    /// What the value is, for error messages (`f32`, `&Buffer<f32>`).
    fn arg_type_name(&self) -> &'static str {
        std::any::type_name::<Self>()
    }
}

macro_rules! scalar_args {
    ($($t:ty),*) => {$(
        // SAFETY: the pointer is to `self`, a plain value of exactly `size_of::<Self>()` bytes.
        unsafe impl KernelArg for $t {
            #[inline]
            fn arg_ptr(&self) -> *mut c_void {
                self as *const $t as *mut c_void
            }
            #[inline]
            fn arg_size(&self) -> usize {
                std::mem::size_of::<$t>()
            }
        }
    )*};
}

scalar_args!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

/// Passes any plain-old-data value (a struct, an array) by value as one kernel argument.
#[derive(Debug, Clone, Copy)]
#[repr(transparent)]
pub struct Value<T: Pod>(pub T);

// SAFETY: the pointer is to the wrapped plain-old-data value of `size_of::<T>()` bytes.
unsafe impl<T: Pod> KernelArg for Value<T> {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        &self.0 as *const T as *mut c_void
    }
    #[inline]
    fn arg_size(&self) -> usize {
        std::mem::size_of::<T>()
    }
    fn arg_type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
}

// SAFETY: the pointer is to the buffer's 8-byte device address field, which lives as long as
// the buffer is borrowed.
unsafe impl<T> KernelArg for Buffer<T> {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        self.device_ptr_ref() as *const u64 as *mut c_void
    }
    #[inline]
    fn arg_size(&self) -> usize {
        std::mem::size_of::<u64>()
    }
    #[inline]
    fn arg_device(&self) -> Option<&Device> {
        Some(self.device())
    }
}

// SAFETY: forwards to the referenced argument, which outlives the reference's borrow.
unsafe impl<A: KernelArg + ?Sized> KernelArg for &A {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        (**self).arg_ptr()
    }
    #[inline]
    fn arg_size(&self) -> usize {
        (**self).arg_size()
    }
    #[inline]
    fn arg_device(&self) -> Option<&Device> {
        (**self).arg_device()
    }
    fn arg_type_name(&self) -> &'static str {
        (**self).arg_type_name()
    }
}

// SAFETY: forwards to the referenced argument, which outlives the reference's borrow.
unsafe impl<A: KernelArg + ?Sized> KernelArg for &mut A {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        (**self).arg_ptr()
    }
    #[inline]
    fn arg_size(&self) -> usize {
        (**self).arg_size()
    }
    #[inline]
    fn arg_device(&self) -> Option<&Device> {
        (**self).arg_device()
    }
    fn arg_type_name(&self) -> &'static str {
        (**self).arg_type_name()
    }
}

/// A whole argument list: tuples of up to 24 [`KernelArg`]s, `&[&dyn KernelArg]`, or a
/// reference to either.
pub trait KernelArgs {
    /// The number of arguments.
    fn count(&self) -> usize;

    /// Calls `f` with each argument and its index, stopping at the first error.
    fn visit(&self, f: &mut dyn FnMut(usize, &dyn KernelArg) -> Result<()>) -> Result<()>;

    /// Calls `f` with the array of pointers to the argument values.
    fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out;

    /// Whether there is one argument per parameter of `params`, each of its parameter's size,
    /// and every buffer lives on `device`: the quick test of a checked launch (a mismatch is
    /// then explained argument by argument). Tuples answer without dynamic calls.
    fn fits_layout(&self, params: &[ParamLayout], device: &Device) -> bool {
        let mut all = self.count() == params.len();
        if all {
            let _ = self.visit(&mut |i, arg| {
                all &= fits(&arg, &params[i], device);
                Ok(())
            });
        }
        all
    }
}

/// Whether `arg` has `param`'s size and, when it is a buffer, lives on `device`.
#[inline]
fn fits(arg: &impl KernelArg, param: &ParamLayout, device: &Device) -> bool {
    arg.arg_size() == param.size as usize
        && arg
            .arg_device()
            .is_none_or(|owner| owner.same_device(device))
}

macro_rules! tuple_args {
    ($n:literal; $($name:ident $idx:tt),*) => {
        impl<$($name: KernelArg),*> KernelArgs for ($($name,)*) {
            #[inline]
            fn count(&self) -> usize {
                $n
            }

            #[allow(unused_variables)]
            fn visit(
                &self,
                f: &mut dyn FnMut(usize, &dyn KernelArg) -> Result<()>,
            ) -> Result<()> {
                $( f($idx, &self.$idx)?; )*
                Ok(())
            }

            #[inline]
            fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out {
                let pointers: [*mut c_void; $n] = [$(self.$idx.arg_ptr()),*];
                f(&pointers)
            }

            #[inline]
            #[allow(unused_variables)]
            fn fits_layout(&self, params: &[ParamLayout], device: &Device) -> bool {
                params.len() == $n $(&& fits(&self.$idx, &params[$idx], device))*
            }
        }
    };
}

tuple_args!(0;);
tuple_args!(1; A 0);
tuple_args!(2; A 0, B 1);
tuple_args!(3; A 0, B 1, C 2);
tuple_args!(4; A 0, B 1, C 2, D 3);
tuple_args!(5; A 0, B 1, C 2, D 3, E 4);
tuple_args!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_args!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_args!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_args!(9; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_args!(10; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_args!(11; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_args!(12; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
tuple_args!(13; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12);
tuple_args!(14; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13);
tuple_args!(15; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14);
tuple_args!(16; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15);
tuple_args!(17; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16);
tuple_args!(18; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16, R 17);
tuple_args!(19; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16, R 17, S 18);
tuple_args!(20; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16, R 17, S 18, T 19);
tuple_args!(21; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16, R 17, S 18, T 19, U 20);
tuple_args!(22; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16, R 17, S 18, T 19, U 20, V 21);
tuple_args!(23; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16, R 17, S 18, T 19, U 20, V 21, W 22);
tuple_args!(24; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13,
    O 14, P 15, Q 16, R 17, S 18, T 19, U 20, V 21, W 22, X 23);

impl<A: KernelArgs + ?Sized> KernelArgs for &A {
    #[inline]
    fn count(&self) -> usize {
        (**self).count()
    }

    fn visit(&self, f: &mut dyn FnMut(usize, &dyn KernelArg) -> Result<()>) -> Result<()> {
        (**self).visit(f)
    }

    #[inline]
    fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out {
        (**self).with_pointers(f)
    }

    #[inline]
    fn fits_layout(&self, params: &[ParamLayout], device: &Device) -> bool {
        (**self).fits_layout(params, device)
    }
}

/// Argument lists longer than this use a heap array when given as a slice.
const STACK_ARGS: usize = 32;

impl KernelArgs for [&dyn KernelArg] {
    fn count(&self) -> usize {
        self.len()
    }

    fn visit(&self, f: &mut dyn FnMut(usize, &dyn KernelArg) -> Result<()>) -> Result<()> {
        for (i, arg) in self.iter().enumerate() {
            f(i, *arg)?;
        }
        Ok(())
    }

    fn with_pointers<Out>(&self, f: impl FnOnce(&[*mut c_void]) -> Out) -> Out {
        if self.len() <= STACK_ARGS {
            let mut pointers = [std::ptr::null_mut(); STACK_ARGS];
            for (slot, arg) in pointers.iter_mut().zip(self.iter()) {
                *slot = arg.arg_ptr();
            }
            f(&pointers[..self.len()])
        } else {
            let pointers: Vec<*mut c_void> = self.iter().map(|a| a.arg_ptr()).collect();
            f(&pointers)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(args: &impl KernelArgs) -> Vec<usize> {
        let mut out = Vec::new();
        args.visit(&mut |_, a| {
            out.push(a.arg_size());
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn tuples_point_at_their_values() {
        let args = (1u8, 2.5f64, -3i32, Value([1u32, 2, 3]));
        assert_eq!(args.count(), 4);
        assert_eq!(sizes(&args), [1, 8, 4, 12]);
        args.with_pointers(|p| {
            assert_eq!(p.len(), 4);
            // SAFETY: the pointers point into `args`, alive for this closure.
            unsafe {
                assert_eq!(*(p[1] as *const f64), 2.5);
                assert_eq!(*(p[2] as *const i32), -3);
                assert_eq!(*(p[3] as *const [u32; 3]), [1, 2, 3]);
            }
        });
    }

    #[test]
    fn slices_of_dyn_args_work_past_the_stack_array() {
        let values: Vec<u16> = (0..40).collect();
        let args: Vec<&dyn KernelArg> = values.iter().map(|v| v as &dyn KernelArg).collect();
        let slice: &[&dyn KernelArg] = &args;
        assert_eq!(slice.count(), 40);
        slice.with_pointers(|p| {
            // SAFETY: each pointer points at an element of `values`.
            unsafe { assert_eq!(*(p[39] as *const u16), 39) }
        });
        assert_eq!(().count(), 0);
    }
}

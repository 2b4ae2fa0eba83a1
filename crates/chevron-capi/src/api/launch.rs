//! `chevron_launch`: a kernel launch with arguments checked against the kernel's parameter
//! layout and any number of dependency tokens.

use std::ffi::c_void;

use chevron::{Kernel, LaunchConfig, RawArgs, Stream, Token};

use super::launch_cache::{self, Validated};
use super::{chevron_kernel, chevron_stream, chevron_token, give_token, read_tokens};
use crate::error::{entry, CapiError, CapiResult};
use crate::status::chevron_status;

/// One kernel argument: where its value is, and its size in bytes (checked against the
/// parameter). A device buffer is passed as its address (`uint64_t`, from
/// `chevron_buffer_address`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct chevron_arg {
    /// The value (read during the call only).
    pub value: *const c_void,
    /// Its size in bytes.
    pub size: usize,
}

/// Three dimensions of a grid or a block.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct chevron_dim3 {
    /// x.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

/// Argument lists up to this long are passed without allocating.
const STACK_ARGS: usize = 32;

/// Launches `kernel` on `stream` (NULL: the default stream of the kernel's device) with
/// `grid` blocks of `block` threads and `shared_bytes` of dynamic shared memory, after the
/// `ndeps` tokens in `deps`. The argument count and each argument's size are checked against
/// the kernel's parameters (`CHEVRON_ERROR_ARGUMENT` names the kernel and the parameter), the
/// configuration against the device's and the kernel's limits. When `token` is not NULL, it
/// receives the token of the launch.
///
/// # Safety
/// `args` points to `nargs` arguments whose `value`s point to `size` readable bytes; `deps`
/// to `ndeps` token handles (each may be NULL when its count is 0); `token` is NULL or valid
/// for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_launch(
    kernel: chevron_kernel,
    stream: chevron_stream,
    grid: chevron_dim3,
    block: chevron_dim3,
    shared_bytes: u32,
    args: *const chevron_arg,
    nargs: usize,
    deps: *const chevron_token,
    ndeps: usize,
    token: *mut chevron_token,
) -> chevron_status {
    entry("chevron_launch", || {
        if nargs > isize::MAX as usize / std::mem::size_of::<chevron_arg>() {
            return Err(CapiError::invalid(format!(
                "`nargs` = {nargs} is not a count"
            )));
        }
        let args: &[chevron_arg] = if nargs == 0 || args.is_null() {
            &[]
        } else {
            // SAFETY: `nargs` arguments by the caller's contract.
            unsafe { std::slice::from_raw_parts(args, nargs) }
        };
        let launch = Launch {
            config: LaunchConfig {
                grid: [grid.x, grid.y, grid.z],
                block: [block.x, block.y, block.z],
                shared_bytes,
            },
            args,
            nargs,
            deps,
            ndeps,
            token,
        };
        // SAFETY: forwarded from the caller.
        launch_cache::with_kernel_and_stream(kernel, stream, |kernel, stream, validated| unsafe {
            launch.on(kernel, stream, validated)
        })
    })
}

/// The arguments of one `chevron_launch` besides the kernel and the stream.
struct Launch<'a> {
    config: LaunchConfig,
    args: &'a [chevron_arg],
    nargs: usize,
    deps: *const chevron_token,
    ndeps: usize,
    token: *mut chevron_token,
}

impl Launch<'_> {
    /// Launches `kernel` on `stream`; the arguments are checked by the launch itself, unless
    /// this kernel and stream passed every check with the same shape before (`validated`).
    ///
    /// # Safety
    /// As [`chevron_launch`].
    unsafe fn on(
        &self,
        kernel: &Kernel,
        stream: &Stream,
        validated: &mut Validated,
    ) -> CapiResult<chevron_status> {
        let size_of = |i: usize| self.args[i].size;
        if self.ndeps == 0
            && self.args.len() == self.nargs
            && validated.holds(&self.config, self.nargs, size_of)
            && self.args.iter().all(|arg| !arg.value.is_null())
        {
            let launched = with_pointers(self.args, |pointers| {
                // SAFETY: the same kernel, stream, configuration and argument sizes passed every
                // check before; the values are readable (the caller's contract) and non-NULL.
                unsafe { kernel.launch_raw_unchecked(stream, self.config, pointers) }
            });
            let done = launched.map_err(|e| name_kernel(kernel, e.into()))?;
            if !self.token.is_null() {
                // SAFETY: forwarded from the caller. The token (a reference to the stream) is
                // made only when the caller asked for it.
                unsafe { give_token(self.token, done.token()) };
            }
            return Ok(chevron_status::CHEVRON_SUCCESS);
        }
        // SAFETY: forwarded from the caller.
        let status = unsafe { self.checked(kernel, stream) }?;
        validated.remember(self.config, self.nargs, size_of);
        Ok(status)
    }

    /// [`Launch::on`] with every check.
    ///
    /// # Safety
    /// As [`chevron_launch`].
    unsafe fn checked(&self, kernel: &Kernel, stream: &Stream) -> CapiResult<chevron_status> {
        if self.args.len() != self.nargs {
            return Err(CapiError::invalid(format!(
                "`args` is NULL but `nargs` is {} (kernel `{}`)",
                self.nargs,
                kernel.display_name()
            )));
        }
        // The count first: a wrong `nargs` must not make the launch read past the caller's array.
        kernel
            .check_arg_count(self.args.len())
            .map_err(|e| name_kernel(kernel, e.into()))?;
        // SAFETY: forwarded from the caller.
        let tokens = unsafe { read_tokens(self.deps, self.ndeps)? };
        let refs: Vec<&Token> = tokens.iter().collect();
        let launched = with_raw_args(self.args, |args| {
            // SAFETY: each pointer points to `size` readable bytes (the caller's contract);
            // the launch checks the count, NULL pointers and sizes against the layout.
            unsafe { kernel.launch_raw_args(stream, self.config, None, args?, &refs) }
        });
        let done = launched.map_err(|e| name_kernel(kernel, e.into()))?;
        // SAFETY: forwarded from the caller.
        unsafe { give_token(self.token, done) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    }
}

/// Calls `f` with the arguments' value pointers, on the stack for short lists.
fn with_pointers<R>(args: &[chevron_arg], f: impl FnOnce(&[*mut c_void]) -> R) -> R {
    const SHORT: usize = 8;
    if args.len() <= SHORT {
        let mut pointers = [std::ptr::null_mut(); SHORT];
        for (pointer, arg) in pointers.iter_mut().zip(args) {
            *pointer = arg.value as *mut c_void;
        }
        f(&pointers[..args.len()])
    } else {
        let pointers: Vec<*mut c_void> = args.iter().map(|a| a.value as *mut c_void).collect();
        f(&pointers)
    }
}

/// Calls `f` with the arguments as pointers and sizes, on the stack for short lists.
fn with_raw_args<R>(args: &[chevron_arg], f: impl FnOnce(chevron::Result<RawArgs<'_>>) -> R) -> R {
    if args.len() <= STACK_ARGS {
        let mut pointers = [std::ptr::null_mut(); STACK_ARGS];
        let mut sizes = [0usize; STACK_ARGS];
        for ((pointer, size), arg) in pointers.iter_mut().zip(&mut sizes).zip(args) {
            *pointer = arg.value as *mut c_void;
            *size = arg.size;
        }
        let n = args.len();
        f(RawArgs::with_sizes(&pointers[..n], &sizes[..n]))
    } else {
        let pointers: Vec<*mut c_void> = args.iter().map(|a| a.value as *mut c_void).collect();
        let sizes: Vec<usize> = args.iter().map(|a| a.size).collect();
        f(RawArgs::with_sizes(&pointers, &sizes))
    }
}

/// Makes sure a launch error names the kernel.
fn name_kernel(kernel: &Kernel, mut error: CapiError) -> CapiError {
    if !error.message.contains(kernel.display_name()) {
        error.message = format!("kernel `{}`: {}", kernel.display_name(), error.message);
    }
    error
}

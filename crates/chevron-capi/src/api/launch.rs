//! `chevron_launch`: a kernel launch with arguments checked against the kernel's parameter
//! layout and any number of dependency tokens.

use std::ffi::c_void;

use chevron::{Kernel, LaunchConfig, Stream, Token};

use super::{chevron_kernel, chevron_stream, chevron_token, give_token, launch_cache, read_tokens};
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
/// Parameters named in a count mismatch's message; the rest are counted.
const NAMED_PARAMS: usize = 8;

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
        launch_cache::with_kernel_and_stream(kernel, stream, |kernel, stream| unsafe {
            launch.on(kernel, stream)
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
    /// Checks the arguments and launches `kernel` on `stream`.
    ///
    /// # Safety
    /// As [`chevron_launch`].
    unsafe fn on(&self, kernel: &Kernel, stream: &Stream) -> CapiResult<chevron_status> {
        if self.args.len() != self.nargs {
            return Err(CapiError::invalid(format!(
                "`args` is NULL but `nargs` is {} (kernel `{}`)",
                self.nargs,
                kernel.display_name()
            )));
        }
        check_args(kernel, self.args)?;
        // SAFETY: forwarded from the caller.
        let tokens = unsafe { read_tokens(self.deps, self.ndeps)? };
        let refs: Vec<&Token> = tokens.iter().collect();
        let launched = with_pointers(self.args, |pointers| {
            // SAFETY: each pointer points to a readable value of its parameter's size (sizes
            // checked above against the layout where the code object gives one).
            unsafe { kernel.launch_raw(stream, self.config, pointers, &refs) }
        });
        let done = launched.map_err(|e| name_kernel(kernel, e.into()))?;
        // SAFETY: forwarded from the caller.
        unsafe { give_token(self.token, done) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    }
}

/// Checks the argument count and sizes against the kernel's parameter layout.
fn check_args(kernel: &Kernel, args: &[chevron_arg]) -> CapiResult<()> {
    let argument = |message: String| {
        CapiError::new(
            chevron_status::CHEVRON_ERROR_ARGUMENT,
            format!("kernel `{}`: {message}", kernel.display_name()),
        )
    };
    // The count first: a wrong `nargs` must not make the checks read past the caller's array.
    if let Some(params) = kernel.params().filter(|p| p.len() != args.len()) {
        let mut names: Vec<String> = params.iter().take(NAMED_PARAMS).map(param_name).collect();
        if params.len() > NAMED_PARAMS {
            names.push(format!("… {} more", params.len() - NAMED_PARAMS));
        }
        return Err(argument(format!(
            "takes {} parameters ({}), got {} arguments",
            params.len(),
            names.join(", "),
            args.len()
        )));
    }
    if let Some((i, _)) = args.iter().enumerate().find(|(_, a)| a.value.is_null()) {
        return Err(argument(format!("argument {i} has a NULL value pointer")));
    }
    let Some(params) = kernel.params() else {
        return Ok(());
    };
    for (i, (param, arg)) in params.iter().zip(args).enumerate() {
        if arg.size != param.size as usize {
            return Err(argument(format!(
                "parameter {i} ({}) is {} bytes, got {} bytes",
                param_name(param),
                param.size,
                arg.size
            )));
        }
    }
    Ok(())
}

fn param_name(param: &chevron::ParamLayout) -> String {
    if param.name.is_empty() {
        format!("{} bytes at offset {}", param.size, param.offset)
    } else {
        format!("`{}`", param.name)
    }
}

/// Calls `f` with the argument pointers, on the stack for short lists.
fn with_pointers<R>(args: &[chevron_arg], f: impl FnOnce(&[*mut c_void]) -> R) -> R {
    if args.len() <= STACK_ARGS {
        let mut pointers = [std::ptr::null_mut(); STACK_ARGS];
        for (slot, arg) in pointers.iter_mut().zip(args) {
            *slot = arg.value as *mut c_void;
        }
        f(&pointers[..args.len()])
    } else {
        let pointers: Vec<*mut c_void> = args.iter().map(|a| a.value as *mut c_void).collect();
        f(&pointers)
    }
}

/// Makes sure a launch error names the kernel.
fn name_kernel(kernel: &Kernel, mut error: CapiError) -> CapiError {
    if !error.message.contains(kernel.display_name()) {
        error.message = format!("kernel `{}`: {}", kernel.display_name(), error.message);
    }
    error
}

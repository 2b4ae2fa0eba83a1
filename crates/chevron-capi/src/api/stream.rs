//! Streams and tokens: creating streams, making them wait for any number of tokens, and
//! waiting for or querying tokens on the host.

use super::{
    chevron_device, chevron_stream, chevron_token, give_token, handle_of, lookup, read_tokens,
    release, write_out, DEVICES, STREAMS, TOKENS,
};
use crate::error::entry;
use crate::status::chevron_status;

/// Creates a stream on `device`.
///
/// # Safety
/// `stream` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_stream_create(
    device: chevron_device,
    stream: *mut chevron_stream,
) -> chevron_status {
    entry("chevron_stream_create", || {
        let created = lookup(&DEVICES, device)?.create_stream()?;
        // SAFETY: forwarded from the caller.
        unsafe { write_out(stream, "stream", handle_of(&STREAMS, created))? };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Releases a stream handle. Work already submitted still runs; tokens of it stay valid.
#[no_mangle]
pub extern "C" fn chevron_stream_release(stream: chevron_stream) -> chevron_status {
    entry("chevron_stream_release", || {
        release(&STREAMS, stream)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Waits until all work submitted to `stream` is done; reports a fault of it.
#[no_mangle]
pub extern "C" fn chevron_stream_synchronize(stream: chevron_stream) -> chevron_status {
    entry("chevron_stream_synchronize", || {
        lookup(&STREAMS, stream)?.synchronize()?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Makes all later work on `stream` wait for `ndeps` tokens (of any stream or device).
///
/// # Safety
/// `deps` points to `ndeps` token handles (may be NULL when `ndeps` is 0).
#[no_mangle]
pub unsafe extern "C" fn chevron_stream_wait(
    stream: chevron_stream,
    deps: *const chevron_token,
    ndeps: usize,
) -> chevron_status {
    entry("chevron_stream_wait", || {
        let stream = lookup(&STREAMS, stream)?;
        // SAFETY: forwarded from the caller.
        let tokens = unsafe { read_tokens(deps, ndeps)? };
        let refs: Vec<&chevron::Token> = tokens.iter().collect();
        stream.wait_for(&refs)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Stores a token for everything submitted to `stream` so far in `*token`.
///
/// # Safety
/// `token` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn chevron_stream_token(
    stream: chevron_stream,
    token: *mut chevron_token,
) -> chevron_status {
    entry("chevron_stream_token", || {
        let stream = lookup(&STREAMS, stream)?;
        if token.is_null() {
            return Err(crate::error::CapiError::invalid("`token` is NULL"));
        }
        // SAFETY: non-null, writable by the caller's contract.
        unsafe { give_token(token, stream.token()) };
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Waits on the host until the work of `token` is done; reports a fault of it (naming the
/// kernel).
#[no_mangle]
pub extern "C" fn chevron_token_wait(token: chevron_token) -> chevron_status {
    entry("chevron_token_wait", || {
        lookup(&TOKENS, token)?.wait()?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// Waits like `chevron_token_wait` for at most `milliseconds`. Past the deadline:
/// `CHEVRON_ERROR_TIMEOUT`, and `chevron_last_error()` names the kernel (on the CPU device, also
/// the PTX lines its threads were at; the CPU device stops the kernel and its stream stays
/// faulted, a GPU's kernel keeps running).
#[no_mangle]
pub extern "C" fn chevron_token_wait_timeout(
    token: chevron_token,
    milliseconds: u64,
) -> chevron_status {
    entry("chevron_token_wait_timeout", || {
        lookup(&TOKENS, token)?.wait_timeout(std::time::Duration::from_millis(milliseconds))?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

/// `CHEVRON_SUCCESS` if the work of `token` is done, `CHEVRON_NOT_READY` if not, an error if
/// it faulted.
#[no_mangle]
pub extern "C" fn chevron_token_query(token: chevron_token) -> chevron_status {
    entry("chevron_token_query", || {
        Ok(if lookup(&TOKENS, token)?.is_done()? {
            chevron_status::CHEVRON_SUCCESS
        } else {
            chevron_status::CHEVRON_NOT_READY
        })
    })
}

/// Releases a token handle (the work is unaffected).
#[no_mangle]
pub extern "C" fn chevron_token_release(token: chevron_token) -> chevron_status {
    entry("chevron_token_release", || {
        release(&TOKENS, token)?;
        Ok(chevron_status::CHEVRON_SUCCESS)
    })
}

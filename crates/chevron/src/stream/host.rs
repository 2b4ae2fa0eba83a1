//! Host functions in stream order (CUDA's `cuLaunchHostFunc`, `cudaStreamAddCallback`).
//!
//! A host function is a piece of the stream's work like a launch: it runs after everything
//! submitted before it and before anything submitted after it, on a host thread of the backend
//! (the CPU device runs it on the worker serving the stream). The submitting thread does not
//! wait for it, so a host function may wait for what the program does next — but not for work
//! submitted to the same stream after it, which cannot start before it returns.

use crate::error::Result;
use crate::stream::token::Token;
use crate::stream::Stream;

impl Stream {
    /// Enqueues `function`, called in stream order with the stream's status: `Ok(())`, or the
    /// fault of earlier work (it is still called). Returns the host function's token.
    pub fn launch_host_function<F>(&self, function: F) -> Result<Token>
    where
        F: FnOnce(Result<()>) + Send + 'static,
    {
        self.backend_stream()
            .launch_host_function(Box::new(function))?;
        Ok(self.submitted())
    }
}

//! Which executor runs a kernel: the interpreter or its compiled code (`chevron-cpu-jit`).
//!
//! `CHEVRON_CPU_EXEC` picks the policy, read once per process:
//! - `interp`: always the interpreter;
//! - `compiled`: a kernel is compiled at its first launch and runs compiled from then on;
//! - `auto` (the default): the first launch is interpreted; the second starts compiling the
//!   kernel on a background thread, and launches run compiled once it is ready.
//!
//! Kernels outside the compiled subset (see `chevron_cpu_jit`) stay interpreted under every
//! policy (`CHEVRON_CPU_COMPILE_LOG=1` prints each decision and compile time on stderr).
//! `CHEVRON_CPU_CHECKS=off` lets compiled code skip its alignment and shared-memory bounds
//! checks.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use chevron_cpu_jit::{checks_from_env, vectors_from_env, CompiledKernel, ExecMode};
use chevron_ptx::interp::{KernelHandle, Program};

/// The compiled code of a kernel: unset until compiled, `None` if the compiler refused it.
type Slot = Arc<OnceLock<Option<Arc<CompiledKernel>>>>;

/// The process's policy and checks setting, or why the environment is invalid.
fn policy() -> &'static Result<(ExecMode, bool), String> {
    static POLICY: OnceLock<Result<(ExecMode, bool), String>> = OnceLock::new();
    POLICY.get_or_init(|| {
        // Read by the compiler itself; checked here so that a bad value fails the launch.
        vectors_from_env()?;
        Ok((ExecMode::from_env()?, checks_from_env()?))
    })
}

/// Per kernel: how often it was launched and its compiled code.
#[derive(Default)]
pub(crate) struct KernelTier {
    launches: AtomicU64,
    compiling: AtomicBool,
    compiled: Slot,
}

impl KernelTier {
    /// The compiled code to run this launch of `kernel` with, or `None` for the interpreter;
    /// `Err` if `CHEVRON_CPU_EXEC`, `CHEVRON_CPU_CHECKS` or `CHEVRON_CPU_VECTOR` is invalid.
    pub fn for_launch(
        &self,
        program: &Arc<Program>,
        kernel: &KernelHandle,
    ) -> Result<Option<Arc<CompiledKernel>>, String> {
        let (mode, checks) = policy().clone()?;
        let compile = {
            let program = Arc::clone(program);
            let kernel = kernel.clone();
            move || {
                let result = CompiledKernel::compile(&program, &kernel, checks);
                if std::env::var_os("CHEVRON_CPU_COMPILE_LOG").is_some() {
                    match &result {
                        Ok(compiled) => eprintln!(
                            "chevron: compiled `{}` in {:.1} ms, {}",
                            kernel.name,
                            compiled.compile_time().as_secs_f64() * 1e3,
                            match compiled.vector() {
                                Ok(()) => "four threads at a time".to_string(),
                                Err(why) => format!("one thread at a time: {why}"),
                            }
                        ),
                        Err(why) => {
                            eprintln!("chevron: `{}` stays interpreted: {why}", kernel.name)
                        }
                    }
                }
                result.ok().map(Arc::new)
            }
        };
        Ok(match mode {
            ExecMode::Interp => None,
            ExecMode::Compiled => self.compiled.get_or_init(compile).clone(),
            ExecMode::Auto => {
                if let Some(ready) = self.compiled.get() {
                    return Ok(ready.clone());
                }
                let earlier = self.launches.fetch_add(1, Ordering::Relaxed);
                if earlier >= 1 && !self.compiling.swap(true, Ordering::Relaxed) {
                    let slot = Arc::clone(&self.compiled);
                    let started = std::thread::Builder::new()
                        .name("chevron-cpu-compile".into())
                        .spawn(move || {
                            slot.get_or_init(compile);
                        });
                    if started.is_err() {
                        // No thread for the compiler: the kernel stays interpreted.
                        let _ = self.compiled.set(None);
                    }
                }
                None
            }
        })
    }
}

//! The lowered form: PTX as the CPU device executes it, decoded once at load time, and what
//! every instruction reads, writes and does.
//!
//! One instruction set serves both CPU executors. The interpreter (`interp/`) decodes each
//! function into it (`interp/program/decode.rs`) and runs it; the compiler
//! (`chevron-cpu-jit`) translates the same instructions to native code. This module is that
//! instruction set's public face: the types ([`Inst`], [`Op`], [`Src`], [`Addr`], ...,
//! defined beside the interpreter in `interp/inst.rs`, which its executors match on) and
//! [`Operands`], the one description of each instruction's operands and effects
//! (`operands.rs`):
//!
//! - the registers it reads and writes (sources, destinations, address bases, carry flags,
//!   the guard);
//! - its memory accesses (state space; load, store or atomic);
//! - where control goes next (on, a jump, a call, a return, an exit or a trap);
//! - whether it is a meeting point of the warp, the block or the cluster, a fence, or a
//!   change of the stack.
//!
//! [`Op::operands`] is one exhaustive `match`: a new variant of [`Op`] does not compile until
//! its operands are described there, so no analysis can silently take an instruction for one
//! that touches nothing. Analyses over the lowered form (liveness, the compiled subset,
//! inlining's renumbering [`Op::relocate`], the four-wide planner) read operands through it
//! and match on an instruction's kind only for decisions of their own.
//!
//! Adding a PTX instruction: see ARCHITECTURE.md ("A new PTX instruction").

mod operands;

pub use crate::interp::inst::*;
pub use operands::{Access, AccessKind, Flow, Meeting, Operands};

//! The state of automatic replay on one stream: which sequence of launches is expected, which
//! launches are held back while they match it, and the graph that replays it.
//!
//! A *boundary* is any other operation on the stream (synchronization, token wait or query,
//! copy, fill, event record). The launches between two boundaries form the *candidate*. When
//! the next launches match the candidate (same kernel, configuration and argument sizes), they
//! are held back; once the whole candidate has matched, the held launches are replayed as one
//! graph (instantiated on the first full match, argument values updated on later ones), and
//! matching starts over, so back-to-back repetitions replay too. A launch that does not match
//! releases the held ones as ordinary launches, in order, and runs eagerly itself; so does a
//! boundary reached in the middle of a match. Work therefore reaches the device in exactly the
//! order and with exactly the values it was launched with.

use std::sync::Arc;

use super::super::values::ArgValues;
use crate::backend::{ExecGraph, Function, LaunchConfig};

/// The shortest sequence worth a graph.
pub(super) const MIN_LEN: usize = 2;
/// The longest sequence remembered (longer ones stay eager).
pub(super) const MAX_LEN: usize = 1 << 16;

/// What identifies a launch for matching: values may differ, nothing else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key {
    function: usize,
    config: LaunchConfig,
    sizes: Vec<usize>,
}

impl Key {
    pub(super) fn of(function: &dyn Function, config: &LaunchConfig, values: &ArgValues) -> Key {
        let function = function as *const dyn Function;
        Key {
            function: function.cast::<()>() as usize,
            config: *config,
            sizes: values.sizes().collect(),
        }
    }
}

/// A launch held back while it matches the candidate.
pub(super) struct Held {
    pub function: Arc<dyn Function>,
    pub config: LaunchConfig,
    pub values: ArgValues,
}

/// The instantiated graph of the candidate and the argument values each node has now.
pub(super) struct Replay {
    pub exec: Arc<dyn ExecGraph>,
    pub values: Vec<ArgValues>,
    /// The functions of the nodes: keeps them loaded (and their addresses, the keys, unique).
    /// Backend functions, not public kernels: dropping them never takes the device's locks,
    /// which boundaries may hold (a public module's drop defers its release through them).
    pub _functions: Vec<Arc<dyn Function>>,
}

/// How often automatic replay replayed and how often it launched eagerly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoGraphStats {
    /// Graphs instantiated (once per new sequence).
    pub instantiations: u64,
    /// Graph replays.
    pub replays: u64,
    /// Launches that ran inside replays.
    pub replayed_launches: u64,
    /// Launches enqueued one by one (learning, after a divergence, or released at a boundary).
    pub eager_launches: u64,
}

/// The per-stream state.
#[derive(Default)]
pub(super) struct Detector {
    pub candidate: Vec<Key>,
    pub replay: Option<Replay>,
    /// The candidate could not be instantiated on this device: it stays eager.
    pub graph_failed: bool,
    pub held: Vec<Held>,
    /// Launches since the last boundary.
    pub seen: Vec<Key>,
    pub seen_overflow: bool,
    /// A launch since the last boundary did not match: the rest stays eager until then.
    pub diverged: bool,
    /// A launch since the last boundary ran eagerly.
    pub any_eager: bool,
    pub stats: AutoGraphStats,
}

impl Detector {
    /// Notes a launch since the boundary; returns whether it extends the current match.
    pub(super) fn matches(&mut self, key: Key) -> bool {
        let matched = !self.diverged
            && !self.graph_failed
            && self.candidate.len() >= MIN_LEN
            && self.candidate.get(self.held.len()) == Some(&key);
        if self.seen.len() < MAX_LEN {
            self.seen.push(key);
        } else {
            self.seen_overflow = true;
        }
        matched
    }

    /// Whether the held launches make up the whole candidate.
    pub(super) fn complete(&self) -> bool {
        self.held.len() == self.candidate.len()
    }

    /// At a boundary (held launches already released): the launches since the previous
    /// boundary become the candidate unless they were all replays of the current one or fewer
    /// than [`MIN_LEN`].
    pub(super) fn boundary(&mut self) {
        let seen = std::mem::take(&mut self.seen);
        // One launch between boundaries says nothing about a sequence: keep the candidate.
        if seen.len() >= MIN_LEN && (self.any_eager || self.seen_overflow) {
            self.candidate = if self.seen_overflow { Vec::new() } else { seen };
            self.replay = None;
            self.graph_failed = false;
        }
        self.seen_overflow = false;
        self.diverged = false;
        self.any_eager = false;
    }
}

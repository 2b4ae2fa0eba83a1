//! The state of automatic replay on one stream: which sequence of launches is expected, how
//! many of its launches are held back, and the graph that replays it.
//!
//! A *boundary* is any other operation on the stream (synchronization, token wait or query,
//! copy, fill, event record). When the launches after a boundary match the *candidate* (same
//! kernel, configuration and argument sizes), they are held back: their values are copied into
//! the candidate's arena of this repetition, and a node whose values differ from the graph's is
//! noted as changed. Once the whole candidate has matched, the held launches are replayed as one
//! graph (instantiated on the first full match; afterwards only the changed nodes are updated),
//! and matching starts over, so back-to-back repetitions replay too. A launch that does not
//! match releases the held ones as ordinary launches, in order, runs eagerly itself, and from
//! then until the next boundary launches are recorded as the next candidate; a boundary in the
//! middle of a match releases the held launches and keeps the candidate. Work therefore
//! reaches the device in exactly the order and with exactly the values it was launched with.

use std::sync::Arc;

use super::args::ArgSource;
use super::sequence::Sequence;
use crate::backend::{ExecGraph, Function, LaunchConfig};

/// The shortest sequence worth a graph.
pub(super) const MIN_LEN: usize = 2;
/// The longest sequence remembered (longer ones stay eager).
pub(super) const MAX_LEN: usize = 1 << 16;

/// The instantiated graphs of the candidate, one per segment ([`segment_ends`]), and the
/// argument values their nodes have now.
pub(super) struct Replay {
    pub execs: Vec<Arc<dyn ExecGraph>>,
    /// An arena of the candidate: the values of every node as the graph has them.
    pub values: Vec<u64>,
}

/// A sequence shorter than this replays as one graph.
const SPLIT_FROM: usize = 64;
/// The first segment of a longer sequence: replayed as soon as its launches have matched, so
/// the device starts while the host still matches the rest.
const FIRST_SEGMENT: usize = 16;
/// Each later segment is this many times longer than the one before: the host matches a
/// segment while the device runs the one before, and a held launch costs the host far less
/// than an eighth of the shortest kernel node a device runs.
const SEGMENT_GROWTH: usize = 8;

/// Where the segments of a sequence of `len` launches end: one segment below [`SPLIT_FROM`];
/// otherwise 16 launches, then 8 times more each time, a tail shorter than twice the next
/// segment joining it.
pub(super) fn segment_ends(len: usize) -> Vec<usize> {
    if len < SPLIT_FROM {
        return vec![len];
    }
    let mut ends = Vec::new();
    let mut end = 0;
    let mut size = FIRST_SEGMENT;
    // Each segment leaves at least `size` launches, so the last end pushed here is below `len`.
    while len - end >= 2 * size {
        end += size;
        ends.push(end);
        size *= SEGMENT_GROWTH;
    }
    ends.push(len);
    ends
}

/// The sequence expected next.
pub(super) struct Candidate {
    pub sequence: Sequence,
    /// An arena of the sequence: the values of the launches held in this repetition.
    pub incoming: Vec<u64>,
    pub replay: Option<Replay>,
    /// Held nodes of the segment being matched whose values differ from the graph's.
    pub changed: Vec<usize>,
    /// Where the candidate's segments end ([`segment_ends`]).
    pub segments: Vec<usize>,
}

impl Candidate {
    fn new(sequence: Sequence) -> Candidate {
        Candidate {
            incoming: vec![0; sequence.words],
            changed: Vec::with_capacity(sequence.len()),
            segments: segment_ends(sequence.len()),
            sequence,
            replay: None,
        }
    }
}

/// How often automatic replay replayed and how often it launched eagerly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoGraphStats {
    /// Graphs instantiated (once per new sequence).
    pub instantiations: u64,
    /// Graph replays.
    pub replays: u64,
    /// Launches that ran inside replays (every launch is counted once, here or as eager).
    pub replayed_launches: u64,
    /// Launches enqueued one by one (learning, after a divergence, or released at a boundary).
    pub eager_launches: u64,
    /// Graph nodes whose arguments were updated before a replay.
    pub node_updates: u64,
}

/// The per-stream state.
#[derive(Default)]
pub(super) struct Detector {
    pub candidate: Option<Candidate>,
    /// Launches of the candidate matched in this repetition (its first `held` steps, values
    /// in `incoming`).
    pub held: usize,
    /// The segment the next matching launch belongs to; the segments before it went to the
    /// device as graphs.
    pub segment: usize,
    /// Replays of the candidate since the last boundary.
    repeats: usize,
    /// The candidate could not be replayed on this device: it stays eager.
    pub graph_failed: bool,
    /// A launch since the last boundary did not match: launches go to `seen` until the next.
    diverged: bool,
    /// The launches since the last boundary, once diverged.
    seen: Sequence,
    seen_overflow: bool,
    /// The thread that launched on the stream last (its `thread_mark`): a device
    /// synchronization it makes is a boundary of the stream, another thread's is not.
    pub launcher: usize,
    pub stats: AutoGraphStats,
}

impl Detector {
    /// Holds a launch if it extends the current match: its values are copied into the
    /// candidate's arena. Returns whether it was held.
    #[inline]
    pub(super) fn hold(
        &mut self,
        function: &dyn Function,
        config: &LaunchConfig,
        args: &impl ArgSource,
    ) -> bool {
        if self.diverged || self.graph_failed {
            return false;
        }
        let Some(candidate) = &mut self.candidate else {
            return false;
        };
        let index = self.held;
        let sequence = &candidate.sequence;
        if !sequence.steps[index].same_shape(function, config, args.count())
            || !sequence.copy_values(index, args, &mut candidate.incoming)
        {
            return false;
        }
        if let Some(replay) = &candidate.replay {
            let words = sequence.steps[index].words.clone();
            // A loop the compiler inlines: these are a few words, `memcmp` costs more.
            let now = &replay.values[words.clone()];
            if candidate.incoming[words]
                .iter()
                .zip(now)
                .any(|(a, b)| a != b)
            {
                candidate.changed.push(index);
            }
        }
        self.held += 1;
        true
    }

    /// Whether the launch just held completes what can be replayed now: the whole candidate
    /// on its first full match (no graph exists yet), afterwards the current segment.
    #[inline]
    pub(super) fn segment_complete(&self) -> bool {
        self.candidate.as_ref().is_some_and(|c| match c.replay {
            None => self.held == c.sequence.len(),
            Some(_) => self.held == c.segments[self.segment],
        })
    }

    /// How many of the matched launches went to the device as replayed segments: those of
    /// the segments before the current one.
    fn submitted(&self) -> usize {
        match (&self.candidate, self.segment) {
            (Some(candidate), segment) if segment > 0 => candidate.segments[segment - 1],
            _ => 0,
        }
    }

    /// Whether matched launches are held back (not yet submitted).
    #[inline]
    pub(super) fn holding(&self) -> bool {
        self.held > self.submitted()
    }

    /// The graph of the current segment (the candidate has been instantiated).
    pub(super) fn current_graph(&self) -> &dyn ExecGraph {
        let replay = self.candidate.as_ref().and_then(|c| c.replay.as_ref());
        &*replay.expect("an instantiated candidate").execs[self.segment]
    }

    /// Notes that the current segment's graph went to the device: its launches count as
    /// replayed. Once the last segment is out, the repetition counts as a replay and matching
    /// starts over.
    pub(super) fn segment_launched(&mut self) {
        let start = self.submitted();
        let Some(candidate) = &mut self.candidate else {
            return;
        };
        self.stats.replayed_launches += (candidate.segments[self.segment] - start) as u64;
        candidate.changed.clear();
        self.segment += 1;
        if self.segment == candidate.segments.len() {
            self.stats.replays += 1;
            self.held = 0;
            self.segment = 0;
            self.repeats += 1;
        }
    }

    /// Takes the held launches out of the match (they are about to be enqueued one by one):
    /// returns their steps; matching starts over.
    pub(super) fn take_held(&mut self) -> std::ops::Range<usize> {
        let held = self.submitted()..self.held;
        self.held = 0;
        self.segment = 0;
        if let Some(candidate) = &mut self.candidate {
            candidate.changed.clear();
        }
        held
    }

    /// A launch did not match (or the candidate cannot replay): from now until the next
    /// boundary, launches are recorded as the next candidate, starting with those since the
    /// last boundary. Call before releasing the held launches.
    pub(super) fn diverge(&mut self) {
        if self.diverged {
            return;
        }
        self.diverged = true;
        self.seen.clear();
        let Some(candidate) = &self.candidate else {
            return;
        };
        let len = candidate.sequence.len();
        if self.repeats.saturating_mul(len).saturating_add(self.held) > MAX_LEN {
            self.seen_overflow = true;
            return;
        }
        for _ in 0..self.repeats {
            self.seen.extend_from(&candidate.sequence, 0..len);
        }
        self.seen.extend_from(&candidate.sequence, 0..self.held);
    }

    /// Notes a launch that ran eagerly (after [`Detector::diverge`]).
    pub(super) fn eager(
        &mut self,
        function: &Arc<dyn Function>,
        config: LaunchConfig,
        args: &impl ArgSource,
    ) {
        self.stats.eager_launches += 1;
        if self.seen.len() < MAX_LEN {
            self.seen.push(Arc::clone(function), config, args);
        } else {
            self.seen_overflow = true;
        }
    }

    /// Forgets everything but the statistics (replay turned off; nothing held).
    pub(super) fn forget(&mut self) {
        *self = Detector {
            stats: self.stats,
            ..Detector::default()
        };
    }

    /// Whether the launches since the last boundary are the candidate again (its launches were
    /// submitted early by a device synchronization, or an untracked launch came between
    /// them): the candidate stays, with its graphs.
    fn relearned_candidate(&self) -> bool {
        !self.graph_failed
            && self
                .candidate
                .as_ref()
                .is_some_and(|c| c.sequence.same_shapes(&self.seen))
    }

    /// At a boundary (held launches already released): after a divergence, the launches since
    /// the previous boundary become the candidate (unless fewer than [`MIN_LEN`]: one launch
    /// between boundaries says nothing about a sequence).
    pub(super) fn boundary(&mut self) {
        debug_assert_eq!(self.held, 0);
        if self.diverged {
            if self.seen_overflow {
                self.candidate = None;
            } else if self.seen.len() >= MIN_LEN && !self.relearned_candidate() {
                let seen = std::mem::take(&mut self.seen);
                self.candidate = Some(Candidate::new(seen));
                self.graph_failed = false;
            }
        }
        self.seen.clear();
        self.seen_overflow = false;
        self.diverged = false;
        self.repeats = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::segment_ends;

    #[test]
    fn short_sequences_are_one_segment_and_long_ones_grow_eightfold() {
        assert_eq!(segment_ends(2), [2]);
        assert_eq!(segment_ends(63), [63]);
        assert_eq!(segment_ends(64), [16, 64]);
        assert_eq!(segment_ends(256), [16, 256]);
        assert_eq!(segment_ends(300), [16, 144, 300]);
        assert_eq!(segment_ends(65536), [16, 144, 1168, 9360, 65536]);
        for len in 2..5000 {
            let ends = segment_ends(len);
            assert_eq!(ends.last(), Some(&len));
            assert!(ends.windows(2).all(|w| w[0] < w[1]), "{len}: {ends:?}");
        }
    }
}

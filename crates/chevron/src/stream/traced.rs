//! What the stream layer tells the trace: work submitted to a stream, described as the trace's
//! plain [`OnStream`] (device label, stream id, the submission it completes).

use std::time::Instant;

use serde_json::{json, Map};

use super::device_time;
use super::token::Token;
use super::Stream;
use crate::trace::{self, OnStream};

/// Work submitted to a stream, described when the trace is on.
pub(crate) enum Submission<'a> {
    /// A copy (`direction`: `host to device`, …) of `bytes`.
    Copy { direction: &'static str, bytes: u64 },
    /// A fill of `bytes`.
    Fill { bytes: u64 },
    /// The stream made to wait for tokens.
    WaitFor { deps: &'a [&'a Token] },
}

/// (stream id, sequence number) of `token`, as the trace's flow arrows name it.
pub(crate) fn token_key(token: &Token) -> Option<(u64, u64)> {
    token.stream().map(|s| (s.id, token.sequence()))
}

/// The keys of `tokens` (see [`token_key`]).
pub(crate) fn token_keys(tokens: &[&Token]) -> Vec<(u64, u64)> {
    tokens.iter().filter_map(|t| token_key(t)).collect()
}

/// `stream` as the trace names it, with the submission `token` completes; notes the stream's
/// CPU timeline for the device durations.
pub(crate) fn on_stream<'a>(stream: &'a Stream, token: Option<&Token>) -> OnStream<'a> {
    device_time::note_stream(stream);
    OnStream {
        device: stream.device().label(),
        stream: stream.shared.id,
        completes: token.and_then(token_key),
    }
}

/// A copy, fill or stream wait that was submitted to `stream`.
pub(crate) fn submitted(
    started: Option<Instant>,
    stream: &Stream,
    token: Option<&Token>,
    what: Submission<'_>,
) {
    let Some(started) = started else {
        return;
    };
    let mut args = Map::new();
    args.insert("device".into(), json!(stream.device().label()));
    args.insert("stream".into(), json!(stream.shared.id));
    let (name, category, waits) = match what {
        Submission::Copy { direction, bytes } => {
            args.insert("bytes".into(), json!(bytes));
            (format!("copy {direction}"), "copy", Vec::new())
        }
        Submission::Fill { bytes } => {
            args.insert("bytes".into(), json!(bytes));
            ("fill".to_string(), "fill", Vec::new())
        }
        Submission::WaitFor { deps } => {
            let waits = token_keys(deps);
            args.insert("deps".into(), json!(waits));
            ("wait for tokens".to_string(), "wait", waits)
        }
    };
    let on = on_stream(stream, token);
    trace::emit(name, category, started, args, Some(on), waits);
}

impl Stream {
    /// Counts a submission the backend accepted, like `Stream::submitted`, and traces it as
    /// `what` when the trace is on (`started` is `Some`).
    #[inline]
    pub(crate) fn submitted_traced(
        &self,
        started: Option<Instant>,
        what: impl FnOnce() -> Submission<'static>,
    ) -> Token {
        let token = self.submitted();
        if started.is_some() {
            submitted(started, self, Some(&token), what());
        }
        token
    }
}

//! What the launch path tells the trace: a submitted launch, described as plain names and
//! numbers, and bracketed with device timing events where the backend has them.

use serde_json::{json, Map};

use crate::backend::LaunchConfig;
use crate::launch::kernel::Kernel;
use crate::stream::device_time::{self, LaunchClock};
use crate::stream::token::Token;
use crate::stream::traced::{on_stream, token_keys};
use crate::stream::Stream;

/// A kernel launch that was submitted (`token`), after `deps`; `clock` is from
/// [`device_time::launch_clock`] before the launch.
pub(crate) fn launched(
    clock: &LaunchClock,
    kernel: &Kernel,
    stream: &Stream,
    config: &LaunchConfig,
    deps: &[&Token],
    token: &Token,
) {
    let waits = token_keys(deps);
    let mut args = Map::new();
    args.insert("kernel".into(), json!(kernel.display_name()));
    args.insert("grid".into(), json!(config.grid));
    args.insert("block".into(), json!(config.block));
    args.insert("shared_bytes".into(), json!(config.shared_bytes));
    args.insert("device".into(), json!(stream.device().label()));
    args.insert("stream".into(), json!(stream.shared.id));
    args.insert("sequence".into(), json!(token.sequence()));
    args.insert("deps".into(), json!(waits));
    let name = kernel.display_name().to_string();
    let names = (kernel.name(), name.as_str());
    device_time::launched(clock, stream, names, token.sequence());
    let on = on_stream(stream, Some(token));
    crate::trace::emit(name, "launch", clock.host, args, Some(on), waits);
}

#!/usr/bin/env bash
# Resident memory over 1M launches and 1M graph replays on one CPU-device stream, synchronized
# every 1,000 submissions and never synchronized (crates/chevron/examples/rss-soak.rs), with the
# figures printed. Checks the synchronized runs grow by less than 2 MiB and the unsynchronized
# ones by less than 8 MiB (each stream queues at most 1,024 submissions, docs/streams.md).
# Takes a few minutes on two cores, so it is not part of scripts/test: CI keeps a small-count
# regression test instead (tests/cudart/streams.cu via scripts/test.d/streams-cudart.sh).
# Usage: scripts/rss-soak.sh [COUNT] (default 1000000).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
count="${1:-1000000}"
scripts/build-workspace -q   # the example, sharing cargo test's build
log="$root/target/rss-soak.log"
CHEVRON_DEVICES=cpu "$root/target/debug/examples/rss-soak" "$count" | tee "$log"
status=0
while read -r line; do
    growth="$(sed -n 's/.*growth \([0-9]*\) KiB/\1/p' <<<"$line")"
    [[ -n $growth ]] || continue
    limit=2048
    [[ $line == *"never synchronized"* ]] && limit=8192
    if ((growth >= limit)); then
        echo "rss-soak: growth over $limit KiB: $line" >&2
        status=1
    fi
done <"$log"
exit "$status"

#!/usr/bin/env bash
# Instrumented kernels compute what the originals compute: runs the whole differential suite
# (tests/differential/) on the CPU device once as it is and once under each built-in
# instrumentation tool (CHEVRON_INSTRUMENT=blocks, counts, memory: every PTX kernel rewritten
# and linked with the tool), and requires every output file to be byte-identical to the plain
# run and every case to pass or fail alike, with the same message (a fault names the same
# original PTX line). All runs are deterministic (CHEVRON_CPU_DETERMINISTIC=1: one thread,
# fixed block order), so that float atomics add in the same order.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build-workspace --quiet   # the chevron CLI among the rest: cargo test's build
chevron=target/debug/chevron
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
unset CHEVRON_TRACE CHEVRON_INSTRUMENT
export CHEVRON_CPU_DETERMINISTIC=1
python3 tests/differential/run.py --chevron "$chevron" --device cpu --out "$out/plain" --jobs 2 \
    >"$out/plain.log"
cases="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$out/plain/status.json")"
status=0
for tool in blocks counts memory; do
    CHEVRON_INSTRUMENT=$tool python3 tests/differential/run.py --chevron "$chevron" --device cpu \
        --out "$out/$tool" --jobs 2 >"$out/$tool.log" 2>&1
    # Inputs are regenerated from fixed seeds; compare everything else.
    if diff -r -x inputs -x status.json "$out/plain" "$out/$tool" >"$out/$tool.diff" &&
        python3 - "$out/plain/status.json" "$out/$tool/status.json" >>"$out/$tool.diff" <<'PY'
import json, sys
plain, tool = (json.load(open(p)) for p in sys.argv[1:])
bad = [n for n in plain if plain[n] != tool.get(n, "missing")]
for name in bad:
    print("%s: %s\n  instrumented: %s" % (name, plain[name], tool.get(name)))
sys.exit(1 if bad else 0)
PY
    then
        echo "instrument-differential: $tool: $cases cases, outputs identical"
    else
        echo "instrument-differential: $tool: outputs differ from the plain run:"
        head -n 20 "$out/$tool.diff"
        status=1
    fi
done
exit $status

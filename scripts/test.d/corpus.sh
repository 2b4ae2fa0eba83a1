#!/usr/bin/env bash
# Consistency of corpus/ and tests/mlir/: file formats, embedded modules, and the mgpu* call
# traces of the lowered MLIR programs (rebuilt from tests/mlir/asm/*.s with cc and the tracing
# stub, compared with tests/mlir/traces*/; async_execute's trace varies between runs and is
# only rebuilt).
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/corpus/check_corpus.py
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
for version in 22 19; do
    suffix=""
    [[ $version == 22 ]] || suffix="-llvm$version"
    LLVM_VERSION=$version OUT_DIR="$tmp/bin$suffix" TRACE_DIR="$tmp/traces$suffix" \
        bash tests/mlir/run_programs.sh --stub >"$tmp/log$suffix" || { cat "$tmp/log$suffix"; exit 1; }
    for trace in "$tmp/traces$suffix"/*.trace; do
        name="$(basename "$trace")"
        [[ $name == async_execute.trace ]] && continue
        if diff -u "tests/mlir/traces$suffix/$name" "$trace"; then
            passed=$((passed + 1))
        else
            echo "trace differs: tests/mlir/traces$suffix/$name"
            failed=$((failed + 1))
        fi
    done
done
echo "mlir traces: $passed passed, $failed failed"
[[ $failed == 0 ]]

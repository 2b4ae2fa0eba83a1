#!/usr/bin/env bash
# The CPU device's compiled code against the same suites as its interpreter: the conformance
# suite and the CPU fault tests under CHEVRON_CPU_EXEC=compiled and =auto (reusing the dev build
# of `cargo test --workspace`), then the differential suite under both. The numeric fixture runs
# as compiled kernels in chevron-cpu-jit's own tests (numeric_fixture_compiled.rs).
set -euo pipefail
cd "$(dirname "$0")/../.."
for mode in compiled auto; do
    echo "-- CHEVRON_CPU_EXEC=$mode: conformance and CPU tests"
    if ! out=$(CHEVRON_CPU_EXEC=$mode scripts/run-workspace-tests conformance cpu_faults \
        cpu_launch cpu_streams cpu_memory cpu_tiering -- -q 2>&1); then
        echo "$out" | tail -60
        exit 1
    fi
    echo "$out" | grep -E '^test result'
done
for mode in compiled auto; do
    echo "-- CHEVRON_CPU_EXEC=$mode: differential suite"
    if ! out=$(CHEVRON_CPU_EXEC=$mode bash scripts/test.d/differential.sh 2>&1); then
        echo "$out" | grep -E '^(FAIL|differential:)|error' | head -40
        exit 1
    fi
    echo "$out" | tail -1
done

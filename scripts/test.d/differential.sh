#!/usr/bin/env bash
# Differential suite on the CPU device (tests/differential/): builds the CLI, runs every case
# (NVRTC, clang, MLIR and Triton corpus kernels) on `cpu`, checks the outputs against the host
# expectations, and, when tests/differential/reference/ holds GPU runs, compares with each.
# Known CPU-device divergences (tests/differential/xfail.py) are printed as XFAIL with their
# diagnosis, never skipped. Prints `N passed, N failed`; exits non-zero on any other failure.
# The CLI is built with the dev profile, whose dependencies `cargo test` has already built (the
# cases take seconds either way; a cold release build alone takes minutes on two cores):
# DIFFERENTIAL_PROFILE=release builds that one instead, CHEVRON_BIN=PATH uses a built CLI.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ -z ${CHEVRON_BIN:-} ]]; then
    profile=${DIFFERENTIAL_PROFILE:-dev}
    if [[ $profile == dev ]]; then
        scripts/build-workspace --quiet   # the chevron CLI among the rest: cargo test's build
    else
        cargo build --profile "$profile" --quiet -p chevron-cli
    fi
    CHEVRON_BIN=target/$([[ $profile == dev ]] && echo debug || echo "$profile")/chevron
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
python3 tests/differential/run.py --chevron "$CHEVRON_BIN" --device cpu --out "$out" --jobs 2 > "$out/run.log"
status=0
echo "-- CPU device against host expectations"
python3 tests/differential/verify.py "$out" | tee "$out/verdicts.txt" || status=1
for reference in tests/differential/reference/*/; do
    [[ -f $reference/status.json ]] || continue
    echo "-- CPU device against $reference"
    python3 tests/differential/compare.py "$reference" "$out" | tee -a "$out/verdicts.txt" || status=1
done
# One closing tally over every check above.
grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/verdicts.txt" |
    awk '{p += $1; f += $3; if ($6 == "xfail") x += $5}
         END {printf "differential: %d passed, %d failed%s\n", p, f, x ? ", " x " xfail (see above)" : ""}'
exit $status

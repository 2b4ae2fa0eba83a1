#!/usr/bin/env bash
# On a GPU machine (nvcc and compute-sanitizer on PATH or under $CUDA_HOME/bin, no cargo): the
# sanitizer suite of tests/sanitizer/ under NVIDIA's compute-sanitizer beside chevron's CPU
# device, for the side-by-side table of docs/sanitizer.md. Builds each program as
# scripts/test.d/sanitizer.sh does (-lineinfo -g -cudart shared, sm_90 unless ARCH is set), runs
# it under memcheck with leak checking, racecheck, initcheck and synccheck, and prints per
# program what each found: its first report (kind and source line) and its error summary; then
# one table row per program: what compute-sanitizer found (tools with errors) and what
# `chevron exec --device cpu --check=all` found (its first finding per check). Logs stay under
# $OUT (default target/sanitizer-gpu/).
#   scripts/gpu/sanitizer.sh --prepare   # here: chevron and its driver library, stripped, to carry/sanitizer/
#   bash scripts/gpu/sanitizer.sh        # there
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/sanitizer
carry="$root/carry/sanitizer"
if [[ ${1:-} == --prepare ]]; then
    scripts/build-workspace -q
    mkdir -p "$carry"
    for file in chevron libchevron_driver.so libcuda.so; do
        objcopy --strip-debug "target/debug/$file" "$carry/$file"
    done
    echo "prepared $carry"
    exit 0
fi
[[ -x $carry/chevron ]] || { echo "no $carry/chevron: run '$0 --prepare' where cargo is" >&2; exit 2; }
out="${OUT:-$root/target/sanitizer-gpu}"
mkdir -p "$out"
tool_dir="${CUDA_HOME:-/usr/local/cuda}/bin"
find_tool() { command -v "$1" 2>/dev/null || { [[ -x $tool_dir/$1 ]] && echo "$tool_dir/$1"; } || true; }
nvcc="$(find_tool nvcc)"
sanitizer="$(find_tool compute-sanitizer)"
[[ -n $nvcc && -n $sanitizer ]] || { echo "needs nvcc and compute-sanitizer (set CUDA_HOME)" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$sanitizer" --version | tail -n1

# first_report LOG: the first error's kind and its `at … in FILE:LINE` location, on one line.
first_report() {
    awk '/^========= (Invalid|Uninitialized|Program hit|Leaked|Misaligned|Barrier|Race|Error)/ && !kind {kind=$0; next}
         kind && /^=========     at / && !where {where=$0}
         END {sub(/^========= /, "", kind); sub(/^=========     at /, "", where); print kind (where ? " @ " where : "")}' "$1"
}
summary() { grep -o "ERROR SUMMARY: [0-9]* error[s]*" "$1" | tail -n1 || echo "no summary"; }
# race_report LOG: racecheck's first hazard (error or warp-level warning) and the source lines of
# its two accesses, on one line.
race_report() {
    { grep -m1 -A2 -E "hazard detected|Race reported" "$1" || true; } \
        | sed -E 's/^=========  *//; s/ at __shared__ 0x[0-9a-f]+ in block \([0-9,]+\) :$//; s/^(Write|Read) Thread \([0-9,]+\) at [^ ]+ in /\1 at /' \
        | paste -sd' ' - | sed 's/ *$//'
}
# race_count LOG: racecheck's hazards (errors + warnings) from its summary line.
race_count() {
    sed -nE 's/.*RACECHECK SUMMARY: .*\(([0-9]+) errors?, ([0-9]+) warnings?\).*/\1 \2/p' "$1" \
        | awk '{print $1 + $2}' | tail -n1
}
# chevron_findings LOG: chevron's first finding of each check, as `check: kind at FILE:LINE`.
chevron_findings() {
    { grep "^chevron check: [a-z]*: " "$1" || true; } \
        | sed -E 's/^chevron check: ([a-z]+): (.*) in kernel `[^`]*` at ([^ ,]*).*/\1: \2 at \3/; s/^chevron check: ([a-z]+): (CUDA API error: [a-zA-Z]* returned [a-zA-Z]*) called from [^ ]* \(([^)]*)\).*/\1: \2 at \3/; s/^chevron check: leaks: ([0-9]+ bytes).*\(([^)]*)\).*/leaks: \1 at \2/' \
        | awk -F: '!seen[$1]++' | paste -sd';' - | sed 's/;/; /g'
}

printf '%-20s | %-8s | %s\n' program check "finding (first report) / summary"
for source in $src/*.cu; do
    name="$(basename "$source" .cu)"
    "$nvcc" -lineinfo -g -cudart shared -arch="${ARCH:-sm_90}" -o "$out/$name" "$source"
    "$sanitizer" --tool memcheck --leak-check full --error-exitcode 1 "$out/$name" \
        >"$out/$name.memcheck.log" 2>&1 || true
    "$sanitizer" --tool initcheck --error-exitcode 1 "$out/$name" \
        >"$out/$name.initcheck.log" 2>&1 || true
    "$sanitizer" --tool synccheck --error-exitcode 1 "$out/$name" \
        >"$out/$name.synccheck.log" 2>&1 || true
    "$sanitizer" --tool racecheck --racecheck-report all --error-exitcode 1 "$out/$name" \
        >"$out/$name.racecheck.log" 2>&1 || true
    "$carry/chevron" exec --device cpu --check=all "$out/$name" >"$out/$name.chevron.log" 2>&1 || true
    for check in memcheck racecheck initcheck synccheck; do
        log="$out/$name.$check.log"
        report="$(first_report "$log")"
        [[ $check == racecheck ]] && report="$(race_report "$log")"
        printf '%-20s | %-8s | %s / %s\n' "$name" "$check" "$report" "$(summary "$log")"
    done
    printf '%-20s | %-8s | %s\n' "$name" chevron "$(chevron_findings "$out/$name.chevron.log")"
done
# The side-by-side table: per program, compute-sanitizer's tools that found errors (first
# report each) and chevron's findings.
echo
echo "| program | compute-sanitizer finds | chevron finds |"
echo "|---|---|---|"
for source in $src/*.cu; do
    name="$(basename "$source" .cu)"
    found=()
    for check in memcheck racecheck initcheck synccheck; do
        log="$out/$name.$check.log"
        errors="$(summary "$log" | grep -o "[0-9]*" | head -n1)"
        # racecheck may print its own summary only: count its reported races then.
        [[ $check != racecheck ]] || errors="$(race_count "$log")"
        [[ -n $errors && $errors != 0 ]] || continue
        report="$(first_report "$log")"
        [[ $check == racecheck ]] && report="$(race_report "$log")"
        found+=("$check ($errors): $report")
    done
    cs="nothing"
    ((${#found[@]})) && cs="$(printf '%s; ' "${found[@]}" | sed 's/; $//')"
    ch="$(chevron_findings "$out/$name.chevron.log")"
    echo "| $name | $cs | ${ch:-nothing} |"
done
# Every failing assert's line, as the GPU printed it.
grep -h "Assertion" "$out/assert_threads.memcheck.log" || true

#!/usr/bin/env bash
# The sanitizer on the CPU device (docs/sanitizer.md): builds the buggy CUDA programs of
# tests/sanitizer/ with nvcc 13.0 (-lineinfo -cudart shared, host -g), runs each under
# `chevron exec --device cpu --check=all` (memcheck, racecheck, initcheck, synccheck, leaks), and checks
# that every bug program exits with status 1 and is reported at the line its source marks
# `// expect: KIND` (as `NAME.cu:LINE`; a failed CUDA call and a leak by their caller's line),
# that the failed assert prints CUDA's line for each failing thread, and that no control
# (ok_*.cu) reports anything. Each bug program also runs with memcheck alone on the
# interpreter and on the compiled executor: the reports must be the same words. Also
# `chevron run --check` on one PTX kernel. Built programs are cached under target/sanitizer/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/sanitizer
out="$root/target/sanitizer"
mkdir -p "$out"

bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
scripts/build-workspace -q   # libcudart.so (chevron-cudart) and the CLI

# Builds (two at a time) the programs whose binary is missing or older than its source.
for source in $src/*.cu; do
    name="$(basename "$source" .cu)"
    if [[ ! -e $out/$name || $source -nt $out/$name || $src/check.h -nt $out/$name ]]; then
        echo "$source"
    fi
done | xargs -r -P 2 -I{} sh -c 'nice "$0/nvcc" -lineinfo -g -cudart shared -arch=sm_90 \
    -L"$1" -Xlinker -rpath -Xlinker "$2/lib" -o "$3/$(basename {} .cu)" {}' \
    "$bin" "$nvlib" "$toolkit" "$out"

chevron="$root/target/debug/chevron"
fail() { echo "sanitizer: $*" >&2; exit 1; }
bugs=0
controls=0
for source in $src/*.cu; do
    name="$(basename "$source" .cu)"
    log="$out/$name"
    status=0
    "$chevron" exec --device cpu --check=all "$out/$name" \
        >"$log.stdout" 2>"$log.stderr" || status=$?
    if [[ $name == ok_* ]]; then
        [[ $status == 0 ]] || { cat "$log.stdout" "$log.stderr" >&2; fail "$name: exit status $status"; }
        grep -q "^chevron check (memcheck,racecheck,initcheck,synccheck,leaks): no problems found$" "$log.stderr" \
            || { cat "$log.stderr" >&2; fail "$name: a control reported something"; }
        controls=$((controls + 1))
        echo "$name: ok (nothing reported)"
        continue
    fi
    [[ $status == 1 ]] || { cat "$log.stdout" "$log.stderr" >&2; fail "$name: exit status $status, expected 1"; }
    marker="$(grep -n "// expect: " "$source" | head -n1)"
    line="${marker%%:*}"
    kind="${marker##*// expect: }"
    case $kind in
    leak)
        grep -q "^chevron check: leaks: 4096 bytes at 0x[0-9a-f]* allocated by cudaMalloc called from main ($name.cu:$line) were not freed$" \
            "$log.stderr" || { cat "$log.stderr" >&2; fail "$name: no leak reported at $name.cu:$line"; }
        ;;
    "CUDA API error")
        grep -q "^chevron check: memcheck: CUDA API error: [a-zA-Z]* returned cuda[A-Za-z]* called from main ($name.cu:$line)" \
            "$log.stderr" || { cat "$log.stderr" >&2; fail "$name: no API error reported at $name.cu:$line"; }
        ;;
    *)
        grep -q "^chevron check: [a-z]*: $kind in kernel \`[^\`]*\` at $name.cu:$line:" "$log.stderr" \
            || { cat "$log.stderr" >&2; fail "$name: no $kind reported at $name.cu:$line"; }
        # The compiled executor's report is the interpreter's, word for word.
        for exec in interp compiled; do
            CHEVRON_CPU_EXEC=$exec "$chevron" exec --device cpu --check=memcheck "$out/$name" \
                2>&1 >/dev/null | grep "^chevron check: memcheck:" | sed 's/0x[0-9a-f]*/ADDR/g' \
                >"$log.$exec" || true
        done
        cmp -s "$log.interp" "$log.compiled" \
            || { diff "$log.interp" "$log.compiled" >&2; fail "$name: the executors' reports differ"; }
        ;;
    esac
    bugs=$((bugs + 1))
    echo "$name: ok ($kind at $name.cu:$line)"
done
# Every thread whose assert failed has CUDA's line, in block order, before chevron's report.
diff <(grep "Assertion" "$out/assert_threads.stderr" | grep -v "^chev") - <<EOF2 \
    || fail "assert_threads: not CUDA's lines for the three failing threads"
$src/assert_threads.cu:8: void check_positive(const int *, int): block: [0,0,0], thread: [5,0,0] Assertion \`values[i] > 0\` failed.
$src/assert_threads.cu:8: void check_positive(const int *, int): block: [1,0,0], thread: [8,0,0] Assertion \`values[i] > 0\` failed.
$src/assert_threads.cu:8: void check_positive(const int *, int): block: [3,0,0], thread: [1,0,0] Assertion \`values[i] > 0\` failed.
EOF2
# An inlined helper's fault names the helper and the call site.
grep -q "at inlined_oob.cu:5:[0-9]* (in \`at(float const\*, int)\`, inlined at inlined_oob.cu:11:[0-9]*)" \
    "$out/inlined_oob.stderr" || fail "inlined_oob: the inlined frame is missing"
# Without checks, nothing is added and the exit status is the program's own.
"$chevron" exec --device cpu "$out/leak" >/dev/null 2>"$out/leak-unchecked.stderr" \
    || fail "leak: exit status without --check"
[[ ! -s $out/leak-unchecked.stderr ]] || fail "leak: output on stderr without --check"
refused="$("$chevron" exec --device cpu --check=bogus "$out/leak" 2>&1)" \
    && fail "a bad --check ran the program"
[[ $refused == *"unknown check \`bogus\`"* ]] || fail "a bad --check is not refused: $refused"
# `chevron run --check`: the same report for one launch, and a failing exit status.
status=0
"$chevron" run $src/oob_store.ptx oob_store --grid 1 --block 1 --arg 'i32[1]=zeros' \
    --check=memcheck >/dev/null 2>"$out/run-check.stderr" || status=$?
[[ $status == 1 ]] || fail "run --check: exit status $status, expected 1"
grep -q "^chevron check: memcheck: out-of-bounds access in kernel \`oob_store(int\*)\` at oob_store.cu:3:5," \
    "$out/run-check.stderr" || { cat "$out/run-check.stderr" >&2; fail "run --check: no report at oob_store.cu:3"; }
echo "run --check: ok"
echo "sanitizer: $bugs bug programs reported at their lines, $controls controls clean"

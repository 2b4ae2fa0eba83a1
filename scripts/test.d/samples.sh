#!/usr/bin/env bash
# CUDA programs written the way CUDA's samples and GPU benchmark suites are (tests/samples/, one
# folder each), run unmodified on chevron's CUDA runtime on the CPU device. Each folder's .cu
# files are built with nvcc 13.0 -cudart shared at nvcc's default architecture (sm_75 SASS and
# compute_75 PTX, as real builds are) plus the folder's optional `flags` file, linked against
# NVIDIA's libcudart.so.13 as scripts/test.d/cudart.sh links, two builds at a time, cached under
# target/samples/ and rebuilt only when a source is newer. Each program runs under
# `chevron exec --device cpu` with the arguments of its optional `args` file and must end with
# `NAME: PASS` and exit status 0. Programs named in tests/samples/xfail.list (NAME | reason) fail
# on a known chevron bug: they run, their failure is reported with the reason, and CI stays green.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/samples
out="$root/target/samples"
mkdir -p "$out"

bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
ln -sf "$toolkit/lib/libcudadevrt.a" "$nvlib/libcudadevrt.a"

scripts/build-workspace -q # the driver library and the CLI, sharing cargo test's build

programs=()
for dir in "$src"/*/; do
    name="$(basename "$dir")"
    [[ $name == common ]] || programs+=("$name")
done

# build NAME: builds tests/samples/NAME/*.cu into target/samples/NAME unless it is newer than
# every source (its own files and the shared helpers).
build() {
    local name=$1 dir="$src/$1" exe="$out/$1" stale=0
    [[ -e $exe ]] || stale=1
    # Its own files, the shared helpers, and the folders its sources include ("../OTHER/...").
    local used=("$dir"/* "$src"/common/*) other
    for other in $(grep -ho '"\.\./[a-z0-9_]*/' "$dir"/*.cu | tr -d '"' | sort -u); do
        used+=("$dir/$other"*)
    done
    for f in "${used[@]}"; do [[ $f -nt $exe ]] && stale=1; done
    ((stale)) || return 0
    local flags=()
    [[ -e $dir/flags ]] && read -ra flags <"$dir/flags"
    if ! nice "$bin/nvcc" -cudart shared "${flags[@]}" -L"$nvlib" -Xlinker -rpath -Xlinker "$toolkit/lib" \
        -o "$exe" "$dir"/*.cu >"$out/$name.build.log" 2>&1; then
        echo "samples: $name does not build:" >&2
        cat "$out/$name.build.log" >&2
        rm -f "$exe"
        return 1
    fi
}
export -f build
export src out bin toolkit nvlib
printf '%s\n' "${programs[@]}" | xargs -P 2 -I{} bash -c 'build {}' \
    || { echo "samples: build failed" >&2; exit 1; }

chevron="$root/target/debug/chevron"
passed=0 failed=0 xfail=0
printf '%-28s %7s  %s\n' program seconds result
for name in "${programs[@]}"; do
    args=()
    [[ -e $src/$name/args ]] && read -ra args <"$src/$name/args"
    reason="$(sed -n "s/^$name *| *//p" "$src/xfail.list")"
    start=$(date +%s%N)
    status=0
    timeout 120 "$chevron" exec --device cpu "$out/$name" "${args[@]}" \
        >"$out/$name.stdout" 2>"$out/$name.stderr" || status=$?
    tenths=$((($(date +%s%N) - start) / 100000000))
    seconds="$((tenths / 10)).$((tenths % 10))"
    last="$(tail -n1 "$out/$name.stdout")"
    if [[ $status == 0 && $last == "$name: PASS" ]]; then
        result=PASS
        passed=$((passed + 1))
        [[ -n $reason ]] && result="PASS (listed in xfail.list; remove it once it passes reliably)"
    elif [[ -n $reason ]]; then
        result="xfail: $reason"
        xfail=$((xfail + 1))
    else
        result="FAIL (exit $status, last line '$last')"
        failed=$((failed + 1))
        tail -n 5 "$out/$name.stdout" "$out/$name.stderr" >&2
    fi
    printf '%-28s %7s  %s\n' "$name" "$seconds" "$result"
done
echo "samples: $passed passed, $failed failed, $xfail xfail"
((failed == 0))

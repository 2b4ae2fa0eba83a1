#!/usr/bin/env bash
# Driver-API programs on chevron's CUDA driver library (crates/chevron-driver, served as
# libcuda.so.1 through the filter of crates/chevron-libcuda), on the CPU device: builds the
# kernels of tests/driver/ as PTX and as a fatbin with nvcc 13.0, the C programs with the C
# compiler against the toolkit's cuda.h (linked as users link them: -lcuda against a stub
# library, -lcudart against NVIDIA's), runs each under `chevron exec --device cpu` and checks
# its final line; hostile_driver calls every exported driver and runtime function with
# NULL, forged, destroyed, huge and out-of-range arguments, fuzz_loaders hands 500 mutated
# code objects to the loaders (docs/hostile-inputs.md); per_thread_stream is built with
# -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1, so its calls link the _ptds/_ptsz forms. Also checks
# that the exported driver functions are the implemented list plus the unsupported! list, that
# every _ptds/_ptsz form cuda.h declares is among them, that no NVIDIA library was loaded, and
# that dlopen("libcuda.so.1") resolves to chevron's. Built files are cached under
# target/driver/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
src=tests/driver
out="$root/target/driver"
mkdir -p "$out"

bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
scripts/build-workspace -q   # libchevron_driver.so, libcuda.so and the CLI
chevron="$root/target/debug/chevron"
library="$root/target/debug/libchevron_driver.so"

# Every driver function cuda.h declares is exported: implemented, or an unsupported! stub.
stubs="$(sed -n '/^unsupported! {/,/^}/p' crates/chevron-driver/src/unsupported.rs \
    | grep -v 'unsupported!\|^}' | tr ',' '\n' | tr -d ' ' | grep . | sort)"
diff <(scripts/driver_unsupported.sh) <(echo "$stubs") >&2 \
    || { echo "driver: regenerate the unsupported! list (scripts/driver_unsupported.sh)" >&2; exit 1; }
exported="$(nm -D --defined-only "$library" | awk '$2 == "T" && $3 ~ /^cu[A-Z]/ { print $3 }' | sort)"
implemented="$(grep -oE '(::|self::)cu[A-Za-z0-9_]+' crates/chevron-driver/src/proc_address.rs \
    | sed -E 's/^.*:://' | sort -u)"
diff <(echo "$exported") <(sort -u <(echo "$implemented") <(echo "$stubs")) >&2 \
    || { echo "driver: exports differ from implemented() + unsupported!" >&2; exit 1; }
echo "exports: ok ($(echo "$implemented" | wc -l) implemented, $(echo "$stubs" | wc -l) unsupported)"
# Which per-thread-default-stream forms (_ptds/_ptsz) cuda.h declares and the library lacks.
per_thread="$(scripts/driver_unsupported.sh --declared | grep -E '_pt(ds|sz)$')"
missing="$(comm -23 <(echo "$per_thread") <(echo "$exported"))"
[[ -z $missing ]] || { echo "driver: per-thread forms not exported:" $missing >&2; exit 1; }
echo "per-thread forms: ok ($(echo "$per_thread" | wc -l) declared, all exported)"

stale() {
    local target=$1
    shift
    [[ ! -e $target ]] && return 0
    for source in "$@"; do [[ $source -nt $target ]] && return 0; done
    return 1
}
nvcc() { nice "$bin/nvcc" -arch=sm_90 "$@"; }
stale "$out/kernels.ptx" $src/kernels.cu && nvcc -ptx -o "$out/kernels.ptx" $src/kernels.cu
stale "$out/kernels.fatbin" $src/kernels.cu && nvcc -fatbin -o "$out/kernels.fatbin" $src/kernels.cu
stale "$out/kernels.cubin" $src/kernels.cu && nvcc -cubin -o "$out/kernels.cubin" $src/kernels.cu
stale "$out/link_lib.ptx" $src/link_lib.cu && nvcc -rdc=true -ptx -o "$out/link_lib.ptx" $src/link_lib.cu
stale "$out/link_main.ptx" $src/link_main.cu \
    && nvcc -rdc=true -ptx -o "$out/link_main.ptx" $src/link_main.cu

# The link-time stub users link -lcuda against (the toolkit's stubs/libcuda.so, which the
# nvcc wheel lacks): every exported name, soname libcuda.so.1, no code that runs.
stub="$out/stub"
mkdir -p "$stub"
if stale "$stub/libcuda.so" "$library"; then
    echo "$exported" | sed 's/.*/void &(void) {}/' >"$stub/libcuda_stub.c"
    cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$stub/libcuda.so" "$stub/libcuda_stub.c"
fi
nvlib="$out/nvidia-lib"
mkdir -p "$nvlib"
ln -sf "$toolkit/lib/libcudart.so.13" "$nvlib/libcudart.so"
cflags=(-O1 -Wall -Werror -I"$toolkit/include" -I$src)
for program in modules streams_memory threads launch_bench copies_2d_3d linear_copies launch_config graphs \
    prepared_launch mipmap_cubemap; do
    stale "$out/$program" $src/$program.c $src/check.h \
        && nice cc "${cflags[@]}" -o "$out/$program" $src/$program.c -L"$stub" -lcuda -lpthread
done
# Built as `--default-stream per-thread` programs are: the calls link the _ptds/_ptsz forms.
stale "$out/per_thread_stream" $src/per_thread_stream.c $src/check.h \
    && nice cc "${cflags[@]}" -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1 -o "$out/per_thread_stream" \
        $src/per_thread_stream.c -L"$stub" -lcuda -lpthread
stale "$out/mixed" $src/mixed.c $src/check.h \
    && nice cc "${cflags[@]}" -o "$out/mixed" $src/mixed.c -L"$stub" -L"$nvlib" \
        -Wl,-rpath,"$toolkit/lib" -lcuda -lcudart

# Every exported driver and runtime function called with hostile arguments
# (tests/driver/hostile_driver.c), through the tables scripts/driver_prototypes.py writes from
# the toolkit's cuda.h and cuda_runtime_api.h; the unsupported ones of both must say so.
runtime_stubs="$(sed -n '/^unsupported! {/,/^}/p' crates/chevron-cudart/src/unsupported.rs \
    | grep -v 'unsupported!\|^}' | tr ',' '\n' | tr -d ' ' | grep . | sort)"
printf '%s\n%s\n' "$stubs" "$runtime_stubs" >"$out/stubs.txt"
stale "$out/hostile_table.c" scripts/driver_prototypes.py "$toolkit/include/cuda.h" \
    && python3 scripts/driver_prototypes.py "$toolkit/include" "$out/hostile_table.c"
stale "$out/hostile_runtime_table.c" scripts/driver_prototypes.py \
    "$toolkit/include/cuda_runtime_api.h" \
    && python3 scripts/driver_prototypes.py "$toolkit/include" "$out/hostile_runtime_table.c" --runtime
stale "$out/hostile_driver" $src/hostile_driver.c $src/hostile_driver.h $src/hostile_driver_expect.h \
    $src/hostile_runtime_expect.h $src/check.h "$out/hostile_table.c" "$out/hostile_runtime_table.c" \
    && nice cc "${cflags[@]}" -o "$out/hostile_driver" $src/hostile_driver.c "$out/hostile_table.c" \
        "$out/hostile_runtime_table.c" -L"$stub" -lcuda -ldl
# 500 rounds of the loaders' mutation loop (scripts/fuzz-loaders.sh runs it for minutes).
stale "$out/fuzz_loaders" $src/fuzz_loaders.c $src/check.h \
    && nice cc "${cflags[@]}" -o "$out/fuzz_loaders" $src/fuzz_loaders.c -L"$stub" -lcuda -ldl
mkdir -p "$out/fuzz"

# check NAME COMMAND...: runs COMMAND under chevron exec on the CPU device; its last line must
# be "NAME: ok".
check() {
    local name=$1
    shift
    if ! "$chevron" exec --device cpu "$@" >"$out/$name.stdout" 2>"$out/$name.stderr"; then
        cat "$out/$name.stdout" "$out/$name.stderr" >&2
        echo "driver: $name failed" >&2
        exit 1
    fi
    local last
    last="$(tail -n 1 "$out/$name.stdout")"
    [[ $last == "$name: ok" ]] || { cat "$out/$name.stderr" >&2; echo "driver: $name printed '$last'" >&2; exit 1; }
    echo "$name: ok"
}
ptx="$out/kernels.ptx"
check modules "$out/modules" "$ptx" "$out/kernels.fatbin" "$out/link_lib.ptx" "$out/link_main.ptx"
check streams_memory "$out/streams_memory" "$ptx"
check threads "$out/threads" "$ptx"
check graphs "$out/graphs" "$ptx"
check mixed "$out/mixed" "$ptx"
check launch_bench "$out/launch_bench" 4 1
check copies_2d_3d "$out/copies_2d_3d"
check linear_copies "$out/linear_copies"
check launch_config "$out/launch_config" "$ptx"
check prepared_launch "$out/prepared_launch" "$ptx"
check mipmap_cubemap "$out/mipmap_cubemap" "$ptx"
check per_thread_stream "$out/per_thread_stream" "$ptx"
check hostile_driver "$out/hostile_driver" "$ptx" "$out/stubs.txt"
check fuzz_loaders "$out/fuzz_loaders" "$out/fuzz" 1 500 0 "$ptx" "$out/kernels.fatbin" \
    "$out/kernels.cubin" "$out/link_lib.ptx"
# The one misuse message an unsupported function prints, naming itself.
grep -q "cuArrayGetPlane: not provided by chevron's CUDA driver library" "$out/modules.stderr" \
    || { cat "$out/modules.stderr" >&2; echo "driver: cuArrayGetPlane did not name itself" >&2; exit 1; }

# chevron's libraries served the program, not NVIDIA's (the mixed program has an RPATH to the
# toolkit's libcudart.so.13).
loaded="$(LD_DEBUG=libs "$chevron" exec --device cpu "$out/mixed" "$ptx" 2>&1 >/dev/null \
    | grep 'calling init:' || true)"
if [[ $loaded != *"$library"* || $loaded == *"$toolkit/lib"* || $loaded == *nvidia* ]]; then
    echo "driver: the program did not run on chevron's libraries: $loaded" >&2
    exit 1
fi
echo "libraries: ok"

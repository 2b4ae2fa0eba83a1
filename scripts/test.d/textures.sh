#!/usr/bin/env bash
# Texture and surface objects on chevron's CUDA runtime, on the CPU device: builds
# tests/cudart/tex_*.cu with nvcc 13.0 (-cudart shared, NVIDIA's libcudart.so.13 replaced at run
# time), runs each under `chevron exec --device cpu` and checks its last line. Each program
# checks its samples against a host model of the hardware (linear-filter weights in 1/256
# steps). Built programs are cached under target/cudart/ and rebuilt only when their source (or
# quiet_stderr.h, which two of them share) is newer.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="$root/target/cudart"
mkdir -p "$out/nvidia-lib"
bin="$(scripts/deps/cuda_nvcc.sh)"
toolkit="$(dirname "$bin")"
ln -sf "$toolkit/lib/libcudart.so.13" "$out/nvidia-lib/libcudart.so"
scripts/build-workspace -q   # libcudart.so and the CLI, sharing cargo test's build
chevron="$root/target/debug/chevron"

passed=0
for src in tests/cudart/tex_*.cu; do
    name="$(basename "$src" .cu)"
    if [[ ! -e $out/$name || $src -nt $out/$name || tests/cudart/quiet_stderr.h -nt $out/$name ]]; then
        nice "$bin/nvcc" -cudart shared -L"$out/nvidia-lib" -Xlinker -rpath -Xlinker "$toolkit/lib" \
            -o "$out/$name" "$src"
    fi
    if ! "$chevron" exec --device cpu "$out/$name" >"$out/$name.stdout" 2>"$out/$name.stderr"; then
        echo "textures: $name failed:" >&2
        cat "$out/$name.stdout" "$out/$name.stderr" >&2
        exit 1
    fi
    last="$(tail -n1 "$out/$name.stdout")"
    [[ $last == "$name: passed" ]] \
        || { echo "textures: $name: last line '$last', expected '$name: passed'" >&2; exit 1; }
    echo "$name: ok"
    passed=$((passed + 1))
done
echo "textures: $passed passed"

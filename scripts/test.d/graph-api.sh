#!/usr/bin/env bash
# CUDA graphs and memory pools on chevron's CUDA runtime, on the CPU device: builds tests/cudart/graph_*.cu with
# nvcc 13.0 at nvcc's default architecture (-cudart shared, linked against NVIDIA's
# libcudart.so.13, replaced at run time), runs each under `chevron exec --device cpu` and checks
# its last line: a graph built by hand (host, child-graph, event, copy and fill nodes; updated,
# cloned, uploaded), another in the style of CUDA's samples (graph_manual: node parameters read
# back, its instantiation's kernel, fill, copy and host nodes changed, a node disabled), stream
# capture of copies, host functions and a fork/join across two streams in each capture mode;
# stream-ordered allocation from the default pool and a pool of its own (release threshold,
# trimming, used/reserved attributes; mempool_pressure: blocks reused on the same stream and
# across streams, trimming with blocks in use). Each program checks its own results against the host. Built
# programs are cached under target/cudart/ and rebuilt only when their source is newer.
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
for name in graph_api graph_manual graph_capture graph_node_params mem_pool mempool_pressure; do
    src="tests/cudart/$name.cu"
    if [[ ! -e $out/$name || $src -nt $out/$name ]]; then
        nice "$bin/nvcc" -cudart shared -L"$out/nvidia-lib" -Xlinker -rpath -Xlinker "$toolkit/lib" \
            -o "$out/$name" "$src"
    fi
    if ! "$chevron" exec --device cpu "$out/$name" >"$out/$name.stdout" 2>"$out/$name.stderr"; then
        echo "graph-api: $name failed:" >&2
        cat "$out/$name.stdout" "$out/$name.stderr" >&2
        exit 1
    fi
    last="$(tail -n1 "$out/$name.stdout")"
    [[ $last == "$name: passed" ]] \
        || { echo "graph-api: $name: last line '$last', expected '$name: passed'" >&2; exit 1; }
    echo "$name: ok"
    passed=$((passed + 1))
done
echo "graph-api: $passed passed"

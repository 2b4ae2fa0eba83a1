// What tests/cudart/tex_mipmap.cu and tex_cubemap.cu share: running an expected failure with
// stderr silenced. chevron explains every failed call on stderr, NVIDIA's runtime does not, and
// the GPU comparison (scripts/gpu/textures.sh) diffs both streams.
#pragma once
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

// Points stderr at /dev/null; returns the descriptor restoreStderr puts back.
static int silenceStderr() {
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(null);
    return saved;
}

static void restoreStderr(int saved) {
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

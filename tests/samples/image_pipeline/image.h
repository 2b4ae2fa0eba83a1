// Shared by the image pipeline's translation units: the RGBA image type, the error check and the
// host reference of every stage.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                                  \
    do {                                                                                  \
        cudaError_t status_ = (expr);                                                     \
        if (status_ != cudaSuccess) {                                                     \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(status_),    \
                    __FILE__, __LINE__, #expr);                                           \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

constexpr int kTile = 16;
constexpr int kRadius = 2;
constexpr int kBins = 256;

struct Image {
    int width, height;
    std::vector<uchar4> pixels;
};

// The device pipeline: gray, blurred, edges, equalized edges and the edge histogram.
struct PipelineResult {
    std::vector<uint8_t> gray, blurred, edges, equalized;
    std::vector<unsigned> histogram;
};

PipelineResult runDevice(const Image &image);
PipelineResult runHost(const Image &image);

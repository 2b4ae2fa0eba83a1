// Image processing pipeline on an RGBA image (default 2048x2048, a width that is a multiple of
// four): gray conversion, separable blur, Sobel edges, edge histogram and equalization, each
// stage compared with the host reference byte for byte. The first argument picks the size.
#include <cstring>
#include "image.h"

static uint64_t fnv1a(const std::vector<uint8_t> &bytes) {
    uint64_t hash = 1469598103934665603ull;
    for (uint8_t b : bytes) hash = (hash ^ b) * 1099511628211ull;
    return hash;
}

int main(int argc, char **argv) {
    int size = argc > 1 ? atoi(argv[1]) : 2048;
    size = (size + 3) & ~3;
    Image image{size, size * 3 / 4, {}};
    image.pixels.resize(size_t(image.width) * image.height);
    unsigned state = 12345;
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            state = state * 1664525u + 1013904223u;
            int noise = (state >> 24) & 31;
            // Rings and a gradient, so the edges have structure.
            int dx = x - image.width / 2, dy = y - image.height / 2;
            int ring = ((dx * dx + dy * dy) / 900) & 1 ? 200 : 40;
            image.pixels[size_t(y) * image.width + x] =
                make_uchar4(uint8_t(ring + noise / 2), uint8_t((x * 255) / image.width),
                            uint8_t((y * 255) / image.height), 255);
        }
    PipelineResult device = runDevice(image);
    PipelineResult host = runHost(image);
    bool ok = true;
    const char *names[] = {"gray", "blurred", "edges", "equalized"};
    const std::vector<uint8_t> *d[] = {&device.gray, &device.blurred, &device.edges,
                                       &device.equalized};
    const std::vector<uint8_t> *h[] = {&host.gray, &host.blurred, &host.edges, &host.equalized};
    printf("image %dx%d\n", image.width, image.height);
    for (int s = 0; s < 4; ++s) {
        size_t mismatches = 0;
        for (size_t i = 0; i < d[s]->size(); ++i) mismatches += (*d[s])[i] != (*h[s])[i];
        printf("%-10s fnv1a %016llx mismatches %zu\n", names[s],
               (unsigned long long)fnv1a(*d[s]), mismatches);
        ok &= mismatches == 0;
    }
    bool histOk = device.histogram == host.histogram;
    unsigned strong = 0;
    for (int b = 128; b < kBins; ++b) strong += device.histogram[b];
    printf("histogram %s, edge pixels >= 128: %u\n", histOk ? "matches" : "DIFFERS", strong);
    ok &= histOk;
    printf("image_pipeline: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

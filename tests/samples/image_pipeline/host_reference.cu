// The host reference of the image pipeline: the same integer arithmetic as the kernels.
#include <algorithm>
#include <cstdlib>
#include "image.h"

static const int kTaps[2 * kRadius + 1] = {1, 4, 6, 4, 1};

PipelineResult runHost(const Image &image) {
    const int w = image.width, h = image.height;
    PipelineResult r;
    r.gray.resize(size_t(w) * h);
    for (size_t i = 0; i < r.gray.size(); ++i) {
        uchar4 p = image.pixels[i];
        r.gray[i] = uint8_t((77 * p.x + 150 * p.y + 29 * p.z + 128) >> 8);
    }
    std::vector<int> rows(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int sum = 0;
            for (int k = -kRadius; k <= kRadius; ++k) {
                int xx = std::min(std::max(x + k, 0), w - 1);
                sum += kTaps[k + kRadius] * r.gray[size_t(y) * w + xx];
            }
            rows[size_t(y) * w + x] = sum;
        }
    r.blurred.resize(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int sum = 0;
            for (int k = -kRadius; k <= kRadius; ++k) {
                int yy = std::min(std::max(y + k, 0), h - 1);
                sum += kTaps[k + kRadius] * rows[size_t(yy) * w + x];
            }
            r.blurred[size_t(y) * w + x] = uint8_t((sum + 128) >> 8);
        }
    r.edges.resize(size_t(w) * h);
    r.histogram.assign(kBins, 0);
    auto at = [&](int x, int y) {
        x = std::min(std::max(x, 0), w - 1);
        y = std::min(std::max(y, 0), h - 1);
        return int(r.blurred[size_t(y) * w + x]);
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            int gx = at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1) - at(x - 1, y - 1) -
                     2 * at(x - 1, y) - at(x - 1, y + 1);
            int gy = at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1) - at(x - 1, y - 1) -
                     2 * at(x, y - 1) - at(x + 1, y - 1);
            int m = std::min(255, (std::abs(gx) + std::abs(gy)) / 2);
            r.edges[size_t(y) * w + x] = uint8_t(m);
            r.histogram[m]++;
        }
    std::vector<unsigned> cdf(kBins);
    unsigned running = 0;
    for (int b = 0; b < kBins; ++b) cdf[b] = running += r.histogram[b];
    unsigned cdfMin = 0;
    for (int b = 0; b < kBins; ++b)
        if (cdf[b]) { cdfMin = cdf[b]; break; }
    const unsigned long long total = (unsigned long long)w * h;
    r.equalized.resize(size_t(w) * h);
    for (size_t i = 0; i < r.edges.size(); ++i) {
        unsigned long long num = (unsigned long long)(cdf[r.edges[i]] - cdfMin) * 255;
        unsigned long long den = total - cdfMin;
        r.equalized[i] = uint8_t(den ? (num + den / 2) / den : 0);
    }
    return r;
}

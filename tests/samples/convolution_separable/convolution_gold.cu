// The host reference of the separable convolution (zero outside the image).
#include "convolution.h"

void convolutionRowsHost(float *dst, const float *src, const float *kernel, int width, int height) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            float sum = 0;
            for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; ++k) {
                int d = x + k;
                if (d >= 0 && d < width) sum += src[y * width + d] * kernel[KERNEL_RADIUS - k];
            }
            dst[y * width + x] = sum;
        }
}

void convolutionColumnsHost(float *dst, const float *src, const float *kernel, int width, int height) {
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            float sum = 0;
            for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; ++k) {
                int d = y + k;
                if (d >= 0 && d < height) sum += src[d * width + x] * kernel[KERNEL_RADIUS - k];
            }
            dst[y * width + x] = sum;
        }
}

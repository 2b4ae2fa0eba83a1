// Separable convolution with a kernel in constant memory: rows, then columns.
#pragma once
#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
void setConvolutionKernel(const float *hostKernel);
void convolutionRowsGPU(float *dst, const float *src, int width, int height);
void convolutionColumnsGPU(float *dst, const float *src, int width, int height);
void convolutionRowsHost(float *dst, const float *src, const float *kernel, int width, int height);
void convolutionColumnsHost(float *dst, const float *src, const float *kernel, int width, int height);

// Black-Scholes pricing of European call and put options on the device.
#pragma once

__device__ inline float cndDevice(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
                A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = __fdividef(1.0f, 1.0f + 0.2316419f * fabsf(d));
    float cnd = RSQRT2PI * __expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    if (d > 0) cnd = 1.0f - cnd;
    return cnd;
}

__global__ void blackScholesGPU(float2 *__restrict call, float2 *__restrict put, const float2 *__restrict price,
                                const float2 *__restrict strike, const float2 *__restrict years,
                                float riskFree, float volatility, int optN) {
    // Two options per thread through float2, as the vectorised sample does.
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= optN / 2) return;
    float2 s = price[i], x = strike[i], t = years[i], c, p;
    float sv[2] = {s.x, s.y}, xv[2] = {x.x, x.y}, tv[2] = {t.x, t.y}, cv[2], pv[2];
    for (int k = 0; k < 2; ++k) {
        float sqrtT = sqrtf(tv[k]);
        float d1 = (__logf(sv[k] / xv[k]) + (riskFree + 0.5f * volatility * volatility) * tv[k]) / (volatility * sqrtT);
        float d2 = d1 - volatility * sqrtT;
        float cndD1 = cndDevice(d1), cndD2 = cndDevice(d2);
        float expRT = __expf(-riskFree * tv[k]);
        cv[k] = sv[k] * cndD1 - xv[k] * expRT * cndD2;
        pv[k] = xv[k] * expRT * (1.0f - cndD2) - sv[k] * (1.0f - cndD1);
    }
    c = make_float2(cv[0], cv[1]);
    p = make_float2(pv[0], pv[1]);
    call[i] = c;
    put[i] = p;
}

// Back-propagation in the style of Rodinia's backprop: a network of `in` inputs, 16 hidden
// units and one output is trained for a few steps, the input layer's forward pass and weight
// update on the device (backprop_kernels.cu), the small layers on the host, as Rodinia splits
// them. A host trainer doing every step in the same order checks the hidden activations, the
// output and all weights. Default: 65536 inputs, 4 steps (arguments: inputs, steps).
#include <algorithm>
#include <cmath>
#include <vector>
#include "backprop.h"
#include "../common/helpers.h"

static float squash(float x) { return 1.0f / (1.0f + expf(-x)); }

// The host side of one step, shared by the device trainer and the reference: hidden units from
// the input layer's sums, the output, the deltas. Returns the output.
struct Small {
    std::vector<float> hidden, hidden_delta, output_weights, output_prev;
    float target;
    float step(const std::vector<float> &sums, int hid) {
        hidden[0] = 1.f;
        for (int j = 1; j <= hid; ++j) hidden[j] = squash(sums[j]);
        float o = 0;
        for (int j = 0; j <= hid; ++j) o += output_weights[j] * hidden[j];
        o = squash(o);
        float out_delta = o * (1 - o) * (target - o);
        for (int j = 1; j <= hid; ++j) {
            float h = hidden[j];
            hidden_delta[j] = h * (1 - h) * (out_delta * output_weights[j]);
        }
        for (int j = 0; j <= hid; ++j) {
            float dw = ETA * out_delta * hidden[j] + MOMENTUM * output_prev[j];
            output_weights[j] += dw;
            output_prev[j] = dw;
        }
        return o;
    }
};

int main(int argc, char **argv) {
    const int in = std::max(HEIGHT, sizeArg(argc, argv, 65536) / HEIGHT * HEIGHT), hid = WIDTH;
    const int steps = argc > 2 ? atoi(argv[2]) : 4, blocks = in / HEIGHT;
    const size_t nw = size_t(in + 1) * (hid + 1);
    Lcg rng(7);
    std::vector<float> input(in + 1), weights(nw), prev(nw, 0.f);
    input[0] = 1.f;
    for (int i = 1; i <= in; ++i) input[i] = rng.uniform();
    for (auto &w : weights) w = rng.uniform() * 0.02f - 0.01f;
    Small dev{std::vector<float>(hid + 1), std::vector<float>(hid + 1), std::vector<float>(hid + 1),
              std::vector<float>(hid + 1, 0.f), 0.1f};
    for (auto &w : dev.output_weights) w = rng.uniform() * 0.2f - 0.1f;
    Small host = dev;

    Net d{in, hid};
    float *partial, *delta;
    checkCudaErrors(cudaMalloc(&d.input, (in + 1) * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d.hidden_weights, nw * sizeof(float)));
    checkCudaErrors(cudaMalloc(&d.hidden_prev, nw * sizeof(float)));
    checkCudaErrors(cudaMalloc(&partial, size_t(blocks) * hid * sizeof(float)));
    checkCudaErrors(cudaMalloc(&delta, (hid + 1) * sizeof(float)));
    checkCudaErrors(cudaMemcpy(d.input, input.data(), (in + 1) * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(d.hidden_weights, weights.data(), nw * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(d.hidden_prev, prev.data(), nw * sizeof(float), cudaMemcpyHostToDevice));

    std::vector<float> part(size_t(blocks) * hid), sums(hid + 1);
    std::vector<float> outputs, refOutputs;
    int wrongSums = 0;
    for (int s = 0; s < steps; ++s) {
        // Device trainer: partial sums per block, summed on the host in block order.
        layerforward(d, partial);
        checkCudaErrors(cudaMemcpy(part.data(), partial, part.size() * sizeof(float), cudaMemcpyDeviceToHost));
        std::vector<float> wNow(nw);
        checkCudaErrors(cudaMemcpy(wNow.data(), d.hidden_weights, nw * sizeof(float), cudaMemcpyDeviceToHost));
        for (int j = 1; j <= hid; ++j) {
            float sum = wNow[j]; // the bias row
            for (int b = 0; b < blocks; ++b) sum += part[size_t(b) * hid + j - 1];
            sums[j] = sum;
        }
        outputs.push_back(dev.step(sums, hid));
        checkCudaErrors(cudaMemcpy(delta, dev.hidden_delta.data(), (hid + 1) * sizeof(float), cudaMemcpyHostToDevice));
        adjust_weights(d, delta);

        // Reference: the same sums in the same order (a 16-row tree per block), in float.
        std::vector<float> refSums(hid + 1);
        for (int j = 1; j <= hid; ++j) {
            float sum = weights[j];
            for (int b = 0; b < blocks; ++b) {
                float col[HEIGHT];
                for (int r = 0; r < HEIGHT; ++r)
                    col[r] = weights[size_t(HEIGHT * b + r + 1) * (hid + 1) + j] * input[HEIGHT * b + r + 1];
                for (int p = 2; p <= HEIGHT; p *= 2)
                    for (int r = 0; r < HEIGHT; r += p) col[r] = col[r] + col[r + p / 2];
                sum += col[0];
            }
            refSums[j] = sum;
            wrongSums += std::fabs(refSums[j] - sums[j]) > 1e-4f * (1 + std::fabs(refSums[j]));
        }
        refOutputs.push_back(host.step(refSums, hid));
        for (int j = 1; j <= hid; ++j) {
            float dj = host.hidden_delta[j];
            for (int i = 0; i <= in; ++i) {
                size_t k = size_t(i) * (hid + 1) + j;
                float dw = (i == 0 ? ETA * dj : ETA * dj * input[i]) + MOMENTUM * prev[k];
                weights[k] += dw;
                prev[k] = dw;
            }
        }
    }
    std::vector<float> wOut(nw);
    checkCudaErrors(cudaMemcpy(wOut.data(), d.hidden_weights, nw * sizeof(float), cudaMemcpyDeviceToHost));
    int wrongWeights = 0;
    double wsum = 0;
    for (size_t k = 0; k < nw; ++k) {
        wrongWeights += std::fabs(wOut[k] - weights[k]) > 1e-5f;
        wsum += wOut[k];
    }
    bool outputsOk = true;
    printf("network %d-%d-1, %d steps, %d blocks of %dx%d threads\n", in, hid, steps, blocks, WIDTH, HEIGHT);
    for (int s = 0; s < steps; ++s) {
        outputsOk &= std::fabs(outputs[s] - refOutputs[s]) < 1e-5f;
        printf("step %d: output %.5f\n", s, outputs[s]);
    }
    printf("weight sum %.4f, sums wrong %d, weights wrong %d\n", wsum, wrongSums, wrongWeights);
    checkCudaErrors(cudaFree(d.input));
    checkCudaErrors(cudaFree(d.hidden_weights));
    checkCudaErrors(cudaFree(d.hidden_prev));
    checkCudaErrors(cudaFree(partial));
    checkCudaErrors(cudaFree(delta));
    return finish("backprop", outputsOk && wrongSums == 0 && wrongWeights == 0);
}

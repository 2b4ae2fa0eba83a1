// Back-propagation (Rodinia's backprop): the network and the device passes the trainer calls.
#pragma once

constexpr int WIDTH = 16;  // a block's columns: the hidden units
constexpr int HEIGHT = 16; // a block's rows: input units
constexpr float ETA = 0.3f;
constexpr float MOMENTUM = 0.3f;

// A two-layer network: in inputs, 16 hidden units, 1 output; unit 0 of each layer is the bias.
// Weights are (in + 1) x (hid + 1) row-major, as Rodinia keeps them after flattening.
struct Net {
    int in, hid;
    float *input, *hidden_weights, *hidden_prev;
};

// One training step's device part: the forward pass's per-block partial sums (partial holds
// in / 16 x hid floats), then, given the hidden deltas, the weight update with momentum.
void layerforward(const Net &d, float *partial);
void adjust_weights(const Net &d, const float *delta);

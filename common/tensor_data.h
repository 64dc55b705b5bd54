// Deterministic tensor contents: the weights of every op and the values of graph inputs, generated from seeds.
//
// The oneDNN plans and the LibTorch reference must see bit-identical weights and inputs, so both call these
// functions rather than drawing their own numbers. Weights depend only on (workload seed, op name, parameter);
// inputs on (workload seed, input name, a data seed). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/workload.h"

namespace crmap {

struct HostTensor {
  Shape shape;
  std::vector<float> values;  // row-major (PyTorch's contiguous layout)
  bool empty() const { return values.empty(); }
};

// Parameters of one op; tensors an op does not have are empty.
// linear: weight [out, in], bias [out]; conv2d: weight [oc, ic/groups, kh, kw], bias [oc];
// layer_norm: gamma [C], beta [C] (C = last input dim).
struct OpParameters {
  HostTensor weight;
  HostTensor bias;
  HostTensor gamma;
  HostTensor beta;
};

// `input_shape` is the shape of the op's first input for the dims at hand.
OpParameters GenerateOpParameters(const Workload& workload, const OpSpec& op, const Shape& input_shape);
// How many parameter values GenerateOpParameters would produce, without producing them.
int64_t OpParameterCount(const OpSpec& op, const Shape& input_shape);

// Uniform values in [-1, 1] for a graph input.
HostTensor GenerateGraphInput(const Workload& workload, const std::string& input_name, const Shape& shape,
                              uint64_t data_seed = 0);

// `count` uniform values in [lo, hi) from a seed.
std::vector<float> UniformValues(uint64_t seed, size_t count, float lo, float hi);

// The product of the sizes; INT64_MAX when it overflows int64 (over any budget, never wrapped).
int64_t ElementCount(const Shape& shape);

}  // namespace crmap

#include "common/tensor_data.h"

#include <climits>

#include <cmath>

#include "common/hash.h"

namespace crmap {

namespace {

uint64_t SeedFor(const Workload& workload, const std::string& what) {
  return MixSeed(Fnv1a64(what, MixSeed(workload.seed())));
}

HostTensor Uniform(uint64_t seed, Shape shape, float lo, float hi) {
  HostTensor t;
  t.values = UniformValues(seed, static_cast<size_t>(ElementCount(shape)), lo, hi);
  t.shape = std::move(shape);
  return t;
}

}  // namespace

int64_t ElementCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    if (__builtin_mul_overflow(count, size, &count)) return INT64_MAX;  // saturates: over any budget
  return count;
}

std::vector<float> UniformValues(uint64_t seed, size_t count, float lo, float hi) {
  std::vector<float> values(count);
  uint64_t state = seed;
  for (size_t i = 0; i < count; ++i) {
    state = MixSeed(state);
    // 24 random bits -> [0, 1)
    float unit = static_cast<float>(state >> 40) * (1.0f / 16777216.0f);
    values[i] = lo + (hi - lo) * unit;
  }
  return values;
}

OpParameters GenerateOpParameters(const Workload& workload, const OpSpec& op, const Shape& input_shape) {
  OpParameters p;
  auto seed = [&](const char* param) { return SeedFor(workload, op.name + "/" + param); };
  switch (op.kind) {
    case OpKind::kLinear: {
      int64_t in = input_shape.back();
      float scale = 1.0f / std::sqrt(static_cast<float>(in));
      p.weight = Uniform(seed("weight"), {op.out_features, in}, -scale, scale);
      if (op.bias) p.bias = Uniform(seed("bias"), {op.out_features}, -scale, scale);
      break;
    }
    case OpKind::kConv2d: {
      int64_t in_per_group = input_shape[1] / op.groups;
      float scale = 1.0f / std::sqrt(static_cast<float>(in_per_group * op.kernel[0] * op.kernel[1]));
      p.weight = Uniform(seed("weight"), {op.out_features, in_per_group, op.kernel[0], op.kernel[1]}, -scale, scale);
      if (op.bias) p.bias = Uniform(seed("bias"), {op.out_features}, -scale, scale);
      break;
    }
    case OpKind::kLayerNorm: {
      int64_t channels = input_shape.back();
      p.gamma = Uniform(seed("gamma"), {channels}, 0.9f, 1.1f);
      p.beta = Uniform(seed("beta"), {channels}, -0.1f, 0.1f);
      break;
    }
    default:
      break;
  }
  return p;
}

int64_t OpParameterCount(const OpSpec& op, const Shape& input_shape) {
  switch (op.kind) {
    case OpKind::kLinear: {
      int64_t weights = ElementCount({op.out_features, input_shape.back()});
      return weights < INT64_MAX && op.bias ? weights + op.out_features : weights;
    }
    case OpKind::kConv2d: {
      int64_t weights = ElementCount({op.out_features, input_shape[1] / op.groups, op.kernel[0], op.kernel[1]});
      return weights < INT64_MAX && op.bias ? weights + op.out_features : weights;
    }
    case OpKind::kLayerNorm: return 2 * input_shape.back();
    default: return 0;
  }
}

HostTensor GenerateGraphInput(const Workload& workload, const std::string& input_name, const Shape& shape,
                              uint64_t data_seed) {
  return Uniform(MixSeed(SeedFor(workload, "input/" + input_name) ^ data_seed), shape, -1.0f, 1.0f);
}

}  // namespace crmap

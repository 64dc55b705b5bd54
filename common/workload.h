// Workload: an operator graph with symbolic dims and declared ranges, parsed from a JSON file.
//
// A workload is what crmap tunes: e.g. a BERT FFN block whose only free dim is `tokens` in [1, 4096]. The
// file format is documented in docs/workload-format.md; ParseWorkload validates everything (names, op
// attributes, topological order, shape consistency at the smallest and largest dims) so that later stages
// may assume a well-formed graph. Tensors are named after the op that produces them; graph inputs have their
// own names. Ops are stored in topological order (the file order, which is checked).
//
// Concrete shapes exist only for concrete Dims: InferShapes(dims) evaluates every tensor's shape.
// A Workload is an immutable value after parsing; all methods are const and thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace crmap {

// Limits every tensor of a workload must respect (oneDNN plain descriptors go up to rank 5 here).
constexpr size_t kMaxTensorRank = 5;
constexpr int64_t kMaxTensorElements = int64_t{1} << 36;

// Concrete values of a workload's symbolic dims, e.g. {tokens: 128}. Ordered by name.
using Dims = std::map<std::string, int64_t>;
using Shape = std::vector<int64_t>;

// "tokens=128,batch=4" -> Dims. Whitespace around items is ignored. Does not check against a workload.
Result<Dims> ParseDimsText(const std::string& text);
// Dims -> "batch=4,tokens=128" (sorted by name): the canonical text form.
std::string DimsToText(const Dims& dims);

enum class OpKind {
  kLinear,      // y = x W^T + b over the last dim; W stored [out, in] as PyTorch does
  kMatmul,      // batched y = a b, both activations: a [..., M, K], b [..., K, N]
  kConv2d,      // NCHW convolution with stride, padding, groups, optional bias
  kEltwise,     // relu, gelu_tanh, gelu_erf, sigmoid, swish, tanh, linear (alpha * x + beta)
  kAdd,         // elementwise a + b of equal shapes (residual)
  kLayerNorm,   // over the last dim, with seeded gamma and beta
  kSoftmax,     // over the last dim
  kPool,        // max or avg (including padding) 2-D pooling over NCHW
  kSplitHeads,  // view: [B, S, P*H*D] -> part p as [B, H, S, D]
  kTranspose,   // view: swaps the last two dims
  kMergeHeads,  // [B, H, S, D] -> [B, S, H*D]; the producing matmul writes this layout directly
};

const char* OpKindName(OpKind kind);
// True for ops that run a oneDNN compute primitive with weights or two activations (linear, matmul, conv2d):
// the ops that can absorb post-ops.
bool IsComputeOp(OpKind kind);

enum class EltwiseAlg { kRelu, kGeluTanh, kGeluErf, kSigmoid, kSwish, kTanh, kLinear };
const char* EltwiseAlgName(EltwiseAlg alg);

enum class PoolAlg { kMax, kAvg };

// A symbolic size: a product of integer constants and dim names, e.g. "batch*seq" or 768.
struct SizeExpr {
  int64_t constant = 1;
  std::vector<std::string> dim_names;
  // dims must hold every name (checked at parse time); INT64_MAX when the product overflows int64.
  int64_t Evaluate(const Dims& dims) const;
  std::string ToString() const;
};

struct OpSpec {
  std::string name;  // also the name of its output tensor
  OpKind kind = OpKind::kLinear;
  std::vector<std::string> inputs;

  // linear / conv2d
  int64_t out_features = 0;  // linear: out features; conv2d: out channels
  bool bias = false;
  // conv2d / pool
  int64_t kernel[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t groups = 1;
  // eltwise
  EltwiseAlg eltwise = EltwiseAlg::kRelu;
  float alpha = 0.f;  // linear: scale; swish: beta (default 1)
  float beta = 0.f;   // linear: shift
  // layer_norm
  float epsilon = 1e-5f;
  // pool
  PoolAlg pool = PoolAlg::kMax;
  // split_heads / merge_heads
  int64_t heads = 1;
  int64_t parts = 1;
  int64_t part = 0;
};

struct DimRange {
  int64_t min = 1;
  int64_t max = 1;
  int64_t typical = 1;  // a representative value (used by examples and defaults)
};

// Per-precision bounds on the scaled error of a plan's outputs against the f32 LibTorch reference: max |got - ref|
// divided by max |ref| of that output (backend/validator.h). The file says so explicitly ("metric":
// "scaled_error"); docs/search-space.md says what the defaults mean and why they are safe.
struct AccuracyBudget {
  double f32 = 1e-4;
  double bf16 = 3e-2;
};
constexpr const char* kAccuracyMetric = "scaled_error";

struct GraphInput {
  std::string name;
  std::vector<SizeExpr> shape;
};

class Workload {
 public:
  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  // Hex digest of the canonical JSON of the graph: changes when anything about the workload changes.
  const std::string& fingerprint() const { return fingerprint_; }
  uint64_t seed() const { return seed_; }
  const std::map<std::string, DimRange>& dims() const { return dims_; }
  // The dim along which requests add up in a serving batch ("batching": "sum" in the file), or "" when requests
  // batch only with equal dims. Not part of the fingerprint.
  const std::string& batch_dim() const { return batch_dim_; }
  const std::vector<GraphInput>& inputs() const { return inputs_; }
  const std::vector<OpSpec>& ops() const { return ops_; }
  const std::vector<std::string>& outputs() const { return outputs_; }
  const AccuracyBudget& accuracy_budget() const { return accuracy_budget_; }
  int64_t memory_budget_bytes() const { return memory_budget_bytes_; }

  // nullptr if no op has this name.
  const OpSpec* FindOp(const std::string& name) const;
  // Indices (into ops()) of the ops that read `tensor`.
  std::vector<size_t> ConsumersOf(const std::string& tensor) const;
  bool IsGraphOutput(const std::string& tensor) const;
  bool IsGraphInput(const std::string& tensor) const;
  // True if any op works on NCHW images (conv2d, pool): such workloads get an activation-layout knob.
  bool HasImageOps() const;

  // Every declared dim present, no unknown names, each value within its range. The message names the
  // offending dim and the allowed range.
  Status CheckDims(const Dims& dims) const;
  // The typical value of every dim.
  Dims TypicalDims() const;
  // Shapes of all tensors (graph inputs and op outputs) for concrete dims. Fails on invalid dims or
  // inconsistent shapes.
  Result<std::map<std::string, Shape>> InferShapes(const Dims& dims) const;

  // The JSON text this workload was parsed from, re-serialised canonically (sorted keys, no whitespace).
  const std::string& canonical_json() const { return canonical_json_; }
  // Where it came from: kBuiltinOrigin, an absolute path, or "" (see ParseWorkload). Not part of the fingerprint.
  const std::string& origin() const { return origin_; }

 private:
  friend Result<Workload> ParseWorkload(const std::string& text, const std::string& source,
                                        const std::string& origin);
  std::string name_;
  std::string description_;
  std::string fingerprint_;
  std::string canonical_json_;
  std::string origin_;
  uint64_t seed_ = 0;
  std::map<std::string, DimRange> dims_;
  std::string batch_dim_;
  std::vector<GraphInput> inputs_;
  std::vector<OpSpec> ops_;
  std::vector<std::string> outputs_;
  AccuracyBudget accuracy_budget_;
  int64_t memory_budget_bytes_ = int64_t{8} << 30;
};

// Parses and validates a workload file's text. `source` names the file in error messages. Returns
// InvalidArgument (malformed JSON, unknown op or attribute value, bad references, inconsistent shapes) with
// a message that names the item and what is allowed.
// `origin` is where the workload came from, recorded with every measurement and policy so that later commands
// find it again: kBuiltinOrigin for a built-in, the file's absolute path otherwise, "" when unknown (tests).
Result<Workload> ParseWorkload(const std::string& text, const std::string& source, const std::string& origin = "");

constexpr const char* kBuiltinOrigin = "builtin";

}  // namespace crmap

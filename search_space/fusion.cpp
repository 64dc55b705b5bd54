#include "search_space/fusion.h"

#include <algorithm>

namespace crmap {

namespace {

constexpr size_t kMaxChainLength = 4;

// Index of the op producing `tensor`, or -1 for a graph input.
long ProducerIndex(const Workload& workload, const std::string& tensor) {
  const auto& ops = workload.ops();
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name == tensor) return static_cast<long>(i);
  return -1;
}

}  // namespace

std::vector<FusableStep> FusionChain(const Workload& workload, size_t op_index) {
  std::vector<FusableStep> chain;
  const OpSpec& op = workload.ops().at(op_index);
  if (!IsComputeOp(op.kind)) return chain;
  if (op.bias) chain.push_back({PostOpKind::kBias, op_index, "", "bias"});

  std::string tensor = op.name;
  while (chain.size() < kMaxChainLength && !workload.IsGraphOutput(tensor)) {
    std::vector<size_t> consumers = workload.ConsumersOf(tensor);
    if (consumers.size() != 1) break;
    const OpSpec& next = workload.ops()[consumers[0]];
    if (next.kind == OpKind::kEltwise) {
      chain.push_back({PostOpKind::kEltwise, consumers[0], "", EltwiseAlgName(next.eltwise)});
    } else if (next.kind == OpKind::kAdd) {
      const std::string& other = next.inputs[0] == tensor ? next.inputs[1] : next.inputs[0];
      if (other == tensor) break;  // x + x: nothing to gain
      // The other operand must exist before the compute op runs.
      if (ProducerIndex(workload, other) >= static_cast<long>(op_index)) break;
      chain.push_back({PostOpKind::kAdd, consumers[0], other, "add"});
    } else {
      break;
    }
    tensor = next.name;
  }
  return chain;
}

std::vector<std::string> FusionValueNames(const std::vector<FusableStep>& chain) {
  std::vector<std::string> names = {"none"};
  std::string name;
  for (const auto& step : chain) {
    name += (name.empty() ? "" : "+") + step.label;
    names.push_back(name);
  }
  return names;
}

}  // namespace crmap

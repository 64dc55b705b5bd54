// Fusion chains: which consumers of a compute op oneDNN post-ops can absorb.
//
// For each compute op (linear, matmul, conv2d) the chain lists, in order, the work that can move into the
// op's primitive as attributes: its own bias (as the primitive's bias argument instead of a separate add),
// then a run of single-consumer eltwise ops and residual adds (post-op eltwise and post-op binary add).
// A fusion knob picks how far along its chain an op fuses: "none", "bias", "bias+gelu_erf", ...
// Shared by the search space (knob domains) and the backend (what to compile). Pure functions.
#pragma once

#include <string>
#include <vector>

#include "common/workload.h"

namespace crmap {

enum class PostOpKind { kBias, kEltwise, kAdd };

struct FusableStep {
  PostOpKind kind = PostOpKind::kBias;
  size_t absorbed_op = 0;     // index of the eltwise / add op absorbed (unused for kBias)
  std::string other_input;    // kAdd: the tensor added (produced before the compute op runs)
  std::string label;          // "bias", an eltwise alg name, or "add"
};

// The chain of `op_index` (a compute op); empty for other ops or when nothing can be fused.
std::vector<FusableStep> FusionChain(const Workload& workload, size_t op_index);

// Knob value names for a chain: {"none", "bias", "bias+gelu_erf", ...}.
std::vector<std::string> FusionValueNames(const std::vector<FusableStep>& chain);

}  // namespace crmap

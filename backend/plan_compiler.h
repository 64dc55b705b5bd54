// CompilePlan: (workload, dims, config) -> Plan of oneDNN primitives.
//
// Data flow: the workload's shapes for `dims` -> one lowering per op (fusion chains become post-ops, the
// layout knob picks activation formats, reorders are inserted only where a consumer needs another format)
// -> memory budget check on the descriptors (no plan memory allocated yet) -> allocation, weight packing and
// input filling (timed separately as pack_ms) -> Plan. Weights, inputs and outputs alone are checked against
// the budget before anything else, so absurd sizes fail before gigabytes of weights are generated.
//
// Failures are answers, not crashes: InvalidArgument for dims or configs that do not fit the workload or
// space, Unsupported when oneDNN implements no kernel for the combination on this CPU (e.g. bf16 without
// AVX-512, or only a reference kernel), ResourceExhausted when the plan's peak bytes exceed the budget.
// Thread-safe (each call builds its own plan); sets the calling thread's OpenMP thread count.
#pragma once

#include <cstdint>

#include "backend/plan.h"
#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

// Deliberate defects a test injects to prove that validation catches a broken plan. Never used otherwise.
enum class PlanFault {
  kNone,
  kSkipOp,       // drops the last non-reorder step
  kWrongLayout,  // hands the first weights to oneDNN in the wrong layout ([out, in] declared as [in, out])
};

struct CompileOptions {
  int64_t memory_budget_bytes = 0;       // 0: the space's constraint
  bool allow_reference_kernels = false;  // oneDNN's ref: compute kernels are 100-1000x slower; off by default
  uint64_t data_seed = 0;                // seeds the graph input values
  PlanFault fault = PlanFault::kNone;
};

Result<Plan> CompilePlan(const Workload& workload, const SearchSpace& space, const Dims& dims, const Config& config,
                         const CompileOptions& options = {});

}  // namespace crmap

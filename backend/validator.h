// Validation: a plan's outputs against the independent LibTorch f32 reference.
//
// Max absolute error over every element of every graph output; NaN or Inf anywhere counts as an infinite
// error. A plan whose error exceeds its precision's accuracy budget is a wrong answer, never a speedup.
// CompareOutputs is a pure function (thread-safe); ValidatePlan executes the plan (see Plan's threading).
#pragma once

#include <map>
#include <string>

#include "backend/plan.h"
#include "common/status.h"
#include "common/tensor_data.h"

namespace crmap {

struct ValidationReport {
  double max_abs_error = 0;
  std::string worst_output;  // the output holding the largest error
  bool within_budget = true;
  double budget = 0;
};

// Compares `outputs` with `reference` (same names and shapes). InvalidArgument on mismatched names/shapes.
Result<ValidationReport> CompareOutputs(const std::map<std::string, HostTensor>& outputs,
                                        const std::map<std::string, HostTensor>& reference, double budget);

// Executes `plan` once and compares its outputs with `reference`.
Result<ValidationReport> ValidatePlan(Plan& plan, const std::map<std::string, HostTensor>& reference, double budget);

}  // namespace crmap

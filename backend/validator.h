// Validation: a plan's outputs against the independent LibTorch f32 reference.
//
// Three error figures over every element of every graph output (NaN or Inf anywhere counts as an infinite
// error), because an absolute error means nothing without the size of the values it is an error of:
//   - max abs error     max |got - ref|;
//   - max rel error     max |got - ref| / max(|ref|, eps), eps = kRelativeErrorFloor x the output's scale, so
//                       that elements which are nearly zero do not dominate;
//   - scaled error      max |got - ref| / scale, scale = max |ref| of that output (the norm-wise relative error
//                       in the max norm); the worst output's figure.
// The accuracy budget of a precision (workload file, docs/search-space.md) is a bound on the scaled error: a
// plan beyond it is a wrong answer, never a speedup. CompareOutputs is a pure function (thread-safe);
// ValidatePlan executes the plan (see Plan's threading).
#pragma once

#include <map>
#include <string>

#include "backend/plan.h"
#include "common/status.h"
#include "common/tensor_data.h"

namespace crmap {

// eps of the relative error, as a fraction of the output's scale.
constexpr double kRelativeErrorFloor = 1e-3;

struct ErrorStats {
  double max_abs = 0;
  double max_rel = 0;
  double scaled = 0;
  std::string worst_output;  // the output with the largest scaled error
};

struct ValidationReport {
  ErrorStats error;
  double budget = 0;  // bound on error.scaled
  bool within_budget = true;
};

// Compares `outputs` with `reference` (same names and shapes) against a budget on the scaled error.
// InvalidArgument on mismatched names or shapes.
Result<ValidationReport> CompareOutputs(const std::map<std::string, HostTensor>& outputs,
                                        const std::map<std::string, HostTensor>& reference, double scaled_budget);

// Executes `plan` once and compares its outputs with `reference`.
Result<ValidationReport> ValidatePlan(Plan& plan, const std::map<std::string, HostTensor>& reference,
                                      double scaled_budget);

}  // namespace crmap

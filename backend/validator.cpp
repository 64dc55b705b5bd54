#include "backend/validator.h"

#include <cmath>
#include <limits>

namespace crmap {

Result<ValidationReport> CompareOutputs(const std::map<std::string, HostTensor>& outputs,
                                        const std::map<std::string, HostTensor>& reference, double budget) {
  ValidationReport report;
  report.budget = budget;
  if (outputs.size() != reference.size())
    return Status::InvalidArgument("plan has " + std::to_string(outputs.size()) + " outputs, reference " +
                                   std::to_string(reference.size()));
  for (const auto& [name, expected] : reference) {
    auto it = outputs.find(name);
    if (it == outputs.end()) return Status::InvalidArgument("plan lacks output '" + name + "'");
    const HostTensor& actual = it->second;
    if (actual.shape != expected.shape || actual.values.size() != expected.values.size())
      return Status::InvalidArgument("output '" + name + "' has a different shape than the reference");
    for (size_t i = 0; i < expected.values.size(); ++i) {
      double error = std::fabs(static_cast<double>(actual.values[i]) - static_cast<double>(expected.values[i]));
      if (!std::isfinite(actual.values[i]) || !std::isfinite(error)) error = std::numeric_limits<double>::infinity();
      if (error > report.max_abs_error || report.worst_output.empty()) {
        if (error > report.max_abs_error) report.max_abs_error = error;
        report.worst_output = name;
      }
    }
  }
  report.within_budget = report.max_abs_error <= budget;
  return report;
}

Result<ValidationReport> ValidatePlan(Plan& plan, const std::map<std::string, HostTensor>& reference, double budget) {
  CRMAP_RETURN_IF_ERROR(plan.Execute());
  std::map<std::string, HostTensor> outputs;
  for (const auto& name : plan.output_names()) {
    CRMAP_ASSIGN_OR_RETURN(outputs[name], plan.ReadOutput(name));
  }
  return CompareOutputs(outputs, reference, budget);
}

}  // namespace crmap

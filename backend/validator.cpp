#include "backend/validator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace crmap {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// max |ref|, or 1 for an all-zero output (its errors are then absolute).
double ScaleOf(const HostTensor& reference) {
  double scale = 0;
  for (float v : reference.values) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  return scale > 0 && std::isfinite(scale) ? scale : 1.0;
}

}  // namespace

Result<ValidationReport> CompareOutputs(const std::map<std::string, HostTensor>& outputs,
                                        const std::map<std::string, HostTensor>& reference, double scaled_budget) {
  ValidationReport report;
  report.budget = scaled_budget;
  if (outputs.size() != reference.size())
    return Status::InvalidArgument("plan has " + std::to_string(outputs.size()) + " outputs, reference " +
                                   std::to_string(reference.size()));
  ErrorStats& total = report.error;
  for (const auto& [name, expected] : reference) {
    auto it = outputs.find(name);
    if (it == outputs.end()) return Status::InvalidArgument("plan lacks output '" + name + "'");
    const HostTensor& actual = it->second;
    if (actual.shape != expected.shape || actual.values.size() != expected.values.size())
      return Status::InvalidArgument("output '" + name + "' has a different shape than the reference");
    const double scale = ScaleOf(expected);
    const double floor = kRelativeErrorFloor * scale;
    double max_abs = 0, max_rel = 0;
    for (size_t i = 0; i < expected.values.size(); ++i) {
      const double ref = expected.values[i];
      double error = std::fabs(static_cast<double>(actual.values[i]) - ref);
      if (!std::isfinite(actual.values[i]) || !std::isfinite(error)) error = kInfinity;
      max_abs = std::max(max_abs, error);
      max_rel = std::max(max_rel, error / std::max(std::fabs(ref), floor));
    }
    const double scaled = max_abs / scale;
    total.max_abs = std::max(total.max_abs, max_abs);
    total.max_rel = std::max(total.max_rel, max_rel);
    if (scaled > total.scaled || total.worst_output.empty()) {
      total.scaled = std::max(total.scaled, scaled);
      total.worst_output = name;
    }
  }
  report.within_budget = total.scaled <= scaled_budget;
  return report;
}

Result<ValidationReport> ValidatePlan(Plan& plan, const std::map<std::string, HostTensor>& reference,
                                      double scaled_budget) {
  CRMAP_RETURN_IF_ERROR(plan.Execute());
  std::map<std::string, HostTensor> outputs;
  for (const auto& name : plan.output_names()) {
    CRMAP_ASSIGN_OR_RETURN(outputs[name], plan.ReadOutput(name));
  }
  return CompareOutputs(outputs, reference, scaled_budget);
}

}  // namespace crmap

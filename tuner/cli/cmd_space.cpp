// crmap space: a workload's knobs, their domains, the constraints and the size of the space.
#include <cstdio>

#include "common/json_fields.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/text_table.h"

namespace crmap::cli {

int RunSpace(int argc, char** argv) {
  cxxopts::Options options("crmap space", "Print the search space of a workload.");
  options.add_options()
      ("w,workload", "built-in workload name or path to a workload .json", cxxopts::value<std::string>())
      ("json", "print JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  auto workload = LoadWorkloadOption(args);
  if (!workload.ok()) return Fail(workload.status());
  auto space = SearchSpace::Build(*workload);
  if (!space.ok()) return Fail(space.status());
  const SpaceConstraints& c = space->constraints();

  if (args.count("json")) {
    Json json;
    json["workload"] = workload->name();
    json["workload_fingerprint"] = workload->fingerprint();
    json["space_fingerprint"] = space->fingerprint();
    for (const auto& knob : space->knobs()) {
      json["knobs"].push_back({{"name", knob.name},
                               {"kind", KnobKindName(knob.kind)},
                               {"scope", knob.scope == KnobScope::kPlan ? "plan" : "runtime"},
                               {"values", knob.values},
                               {"default", knob.values[knob.default_index]},
                               {"help", knob.help}});
    }
    json["constraints"] = {{"memory_budget_bytes", c.memory_budget_bytes},
                           {"accuracy_budget", {{"metric", kAccuracyMetric}, {"f32", c.accuracy.f32}, {"bf16", c.accuracy.bf16}}},
                           {"validity", "oneDNN must implement the combination on this CPU"}};
    json["size"] = {{"plan", space->Size(KnobScope::kPlan)},
                    {"runtime", space->Size(KnobScope::kRuntime)},
                    {"total", space->TotalSize()}};
    json["default"] = space->ToString(space->Default());
    std::printf("%s\n", json.dump(2).c_str());
    return kExitOk;
  }

  std::printf("workload %s (fingerprint %s), space fingerprint %s\n\n", workload->name().c_str(),
              workload->fingerprint().c_str(), space->fingerprint().c_str());
  TextTable table({"knob", "scope", "values (* = default)", "meaning"});
  for (const auto& knob : space->knobs()) {
    std::string values;
    for (size_t v = 0; v < knob.values.size(); ++v)
      values += (v ? " " : "") + knob.values[v] + (static_cast<int>(v) == knob.default_index ? "*" : "");
    table.AddRow({knob.name, knob.scope == KnobScope::kPlan ? "plan" : "runtime", values, knob.help});
  }
  std::printf("%s\n", table.Render().c_str());
  std::printf("constraints:\n  memory budget   %s peak plan bytes (--memory-budget overrides)\n"
              "  accuracy budget scaled error (max |got - ref| / max |ref|) vs LibTorch f32: %.0e (f32), %.2g (bf16)\n"
              "  validity        oneDNN must implement the combination on this CPU; otherwise 'unsupported'\n\n",
              HumanBytes(c.memory_budget_bytes).c_str(), c.accuracy.f32, c.accuracy.bf16);
  std::printf("size: %llu plan configs x %llu runtime configs = %llu\n",
              static_cast<unsigned long long>(space->Size(KnobScope::kPlan)),
              static_cast<unsigned long long>(space->Size(KnobScope::kRuntime)),
              static_cast<unsigned long long>(space->TotalSize()));
  std::printf("default: %s\n", space->ToString(space->Default()).c_str());
  return kExitOk;
}

}  // namespace crmap::cli

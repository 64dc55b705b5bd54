// crmap workloads: the built-in workloads with their dims, ranges, distributions and scenarios.
#include <cstdio>

#include "datasets/catalog.h"
#include "datasets/distribution.h"
#include "datasets/scenario.h"
#include "search_space/search_space.h"
#include "common/json_fields.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/text_table.h"

namespace crmap::cli {

int RunWorkloads(int argc, char** argv) {
  cxxopts::Options options("crmap workloads", "List the built-in workloads (or one workload file).");
  options.add_options()
      ("w,workload", "show only this workload (name or path)", cxxopts::value<std::string>())
      ("json", "print JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;

  std::vector<std::string> names = BuiltinNames(DatasetKind::kWorkload);
  if (args.count("workload")) names = {args["workload"].as<std::string>()};
  Json all = Json::array();
  std::string text;
  for (const auto& name : names) {
    auto workload = LoadWorkload(name);
    if (!workload.ok()) return Fail(workload.status());
    auto space = SearchSpace::Build(*workload);
    if (!space.ok()) return Fail(space.status());
    Json entry = {{"name", workload->name()},
                  {"description", workload->description()},
                  {"fingerprint", workload->fingerprint()},
                  {"ops", workload->ops().size()},
                  {"plan_space_size", space->Size(KnobScope::kPlan)}};
    std::string dims;
    for (const auto& [dim, range] : workload->dims()) {
      entry["dims"][dim] = {{"min", range.min}, {"max", range.max}, {"typical", range.typical}};
      dims += Format("%s%s in [%lld, %lld] (typical %lld)", dims.empty() ? "" : ", ", dim.c_str(),
                     static_cast<long long>(range.min), static_cast<long long>(range.max),
                     static_cast<long long>(range.typical));
    }
    text += Format("%s  (%zu ops, %llu plan configs)\n  %s\n  dims: %s\n", workload->name().c_str(),
                   workload->ops().size(), static_cast<unsigned long long>(space->Size(KnobScope::kPlan)),
                   workload->description().c_str(), dims.c_str());
    entry["distributions"] = Json::array();
    for (const auto& d : BuiltinNames(DatasetKind::kDistribution)) {
      auto distribution = LoadDistribution(d, *workload);
      if (!distribution.ok()) continue;  // another workload's
      entry["distributions"].push_back({{"name", d}, {"describe", distribution->Describe()}});
      std::string describe = distribution->Describe();
      for (size_t p = describe.find('\n'); p != std::string::npos; p = describe.find('\n', p + 1))
        describe.replace(p, 1, "; ");
      text += Format("  distribution %s: %s\n", d.c_str(), describe.c_str());
    }
    entry["scenarios"] = Json::array();
    for (const auto& s : BuiltinNames(DatasetKind::kScenario)) {
      auto scenario = LoadScenario(s, *workload);
      if (!scenario.ok()) continue;
      std::string phases;
      for (const auto& phase : scenario->phases())
        phases += Format("%s%s %.0fs @ %.0f rps", phases.empty() ? "" : " -> ", phase.name.c_str(), phase.duration_s,
                         phase.rate_rps);
      entry["scenarios"].push_back({{"name", s}, {"phases", phases}, {"streams", scenario->streams()}});
      text += Format("  scenario %s: %s (%d streams)\n", s.c_str(), phases.c_str(), scenario->streams());
    }
    all.push_back(entry);
    text += "\n";
  }
  if (args.count("json")) std::printf("%s\n", all.dump(2).c_str());
  else std::printf("%s", text.c_str());
  return kExitOk;
}

}  // namespace crmap::cli

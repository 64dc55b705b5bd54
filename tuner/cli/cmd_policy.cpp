// crmap export / crmap query: a policy file, read as JSON or asked for a decision through the runtime hook.
#include <algorithm>
#include <cstdio>

#include "common/json_fields.h"
#include "runtime/hook/crmap_hook.hpp"
#include "runtime/hook/policy_file.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/policy_export.h"

namespace crmap::cli {

namespace {

int FailHook(crmap_status status) {
  std::fprintf(stderr, "crmap: error: %s\n", crmap_hook_last_error());
  switch (status) {
    case CRMAP_ERR_INTERNAL: return kExitFailure;
    case CRMAP_ERR_HOST: return kExitNotMeasurable;
    default: return kExitBadInput;
  }
}

// Dims in the hook's order from "k=v,..." text; InvalidArgument names a missing or unknown dim.
Result<std::vector<int64_t>> HookDims(const Hook& hook, const Dims& dims) {
  std::vector<int64_t> values;
  std::vector<std::string> names = hook.DimNames();
  for (const auto& [name, value] : dims)  // a typo names the unknown dim, not only the one it misses
    if (std::find(names.begin(), names.end(), name) == names.end())
      return Status::InvalidArgument("the policy has no dim '" + name + "'; its dims: " + JoinNames(names));
  for (const auto& name : names) {
    auto it = dims.find(name);
    if (it == dims.end()) return Status::InvalidArgument("missing dim '" + name + "'; the policy needs: " + JoinNames(names));
    values.push_back(it->second);
  }
  return values;
}

}  // namespace

int RunExport(int argc, char** argv) {
  cxxopts::Options options("crmap export", "Dump a policy file in a readable format.");
  options.add_options()
      ("policy", "policy file", cxxopts::value<std::string>())
      ("format", "json", cxxopts::value<std::string>()->default_value("json"));
  AddOutOption(options, "write to this file instead of stdout");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("policy")) return Fail(Status::InvalidArgument("missing --policy"));
  if (args["format"].as<std::string>() != "json")
    return Fail(Status::InvalidArgument("unknown format '" + args["format"].as<std::string>() + "'; allowed: json"));
  auto file = ReadPolicyFile(args["policy"].as<std::string>());
  if (!file.ok()) return Fail(file.status());
  nlohmann::ordered_json json = PolicyToJson(*file);
  if (args.count("out")) {
    Status written = WriteFileAtomically(args["out"].as<std::string>(), json.dump(2) + "\n");
    if (!written.ok()) return Fail(written);
    return kExitOk;
  }
  std::printf("%s\n", json.dump(2).c_str());
  return kExitOk;
}

int RunQuery(int argc, char** argv) {
  cxxopts::Options options("crmap query", "Ask a policy file for a decision, through the runtime hook library.");
  options.add_options()
      ("policy", "policy file", cxxopts::value<std::string>())
      ("d,dims", "concrete dims, e.g. tokens=128", cxxopts::value<std::string>())
      ("force", "answer from a policy tuned on a host of another CPU ISA (refused otherwise)")
      ("json", "print JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("policy")) return Fail(Status::InvalidArgument("missing --policy"));
  if (!args.count("dims")) return Fail(Status::InvalidArgument("missing --dims"));
  auto dims = ParseDimsText(args["dims"].as<std::string>());
  if (!dims.ok()) return Fail(dims.status());
  Hook hook;
  crmap_status status = hook.Open(args["policy"].as<std::string>(), "", "", args.count("force") > 0);
  if (status != CRMAP_OK) return FailHook(status);
  auto values = HookDims(hook, *dims);
  if (!values.ok()) return Fail(values.status());
  crmap_decision decision;
  status = hook.Decide(*values, &decision);
  if (status != CRMAP_OK) return FailHook(status);
  crmap_metrics metrics;
  hook.Metrics(&metrics);
  if (args.count("json")) {
    Json j = {{"config", decision.config}, {"source", HookSourceName(decision.source)},
              {"predicted_latency_us", decision.predicted_latency_us}, {"confidence", decision.confidence},
              {"decision_id", decision.decision_id},
              {"values", std::vector<int32_t>(decision.values, decision.values + decision.knob_count)},
              {"out_of_range", metrics.out_of_range > 0}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("config     %s\nsource     %s%s\npredicted  %.1f us\nconfidence %.2f%s\n", decision.config,
                HookSourceName(decision.source),
                metrics.out_of_range ? " (dims outside the workload's declared ranges: extrapolated)" : "",
                decision.predicted_latency_us, decision.confidence, decision.confidence < 0 ? " (unknown)" : "");
  }
  return kExitOk;
}

}  // namespace crmap::cli

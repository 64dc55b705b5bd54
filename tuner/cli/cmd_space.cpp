// crmap space: a workload's knobs, their domains, the constraints and the size of the space; with --runnable,
// which plan configs this host can run (tuner/runnable_screen.h).
#include <cstdio>
#include <optional>

#include "common/json_fields.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/runnable_screen.h"
#include "tuner/text_table.h"

namespace crmap::cli {

namespace {

Json ScreenJson(const SearchSpace& space, const RunnableScreen& screen) {
  Json not_runnable = Json::array();
  for (const ScreenedConfig& s : screen.not_runnable)
    not_runnable.push_back({{"config", space.ToString(s.config)},
                            {"status", s.code == StatusCode::kUnsupported ? "unsupported" : "failed"},
                            {"message", s.message}});
  Json by_value = Json::array();
  for (const NotRunnableValue& v : NotRunnableByValue(space, screen))
    by_value.push_back(
        {{"knob", v.knob}, {"value", v.value}, {"configs", v.configs}, {"not_runnable", v.not_runnable}});
  return {{"dims", Json(screen.dims)}, {"plan_configs", screen.plan_configs}, {"runnable", screen.runnable},
          {"refused", screen.refused}, {"failed", screen.failed}, {"by_value", by_value},
          {"not_runnable", not_runnable}};
}

std::string ScreenText(const SearchSpace& space, const RunnableScreen& screen) {
  std::string text = Format("runnable on this host at %s: %zu of %zu plan configs (%zu refused: no oneDNN kernel "
                            "on this CPU; %zu failed otherwise)\n",
                            DimsToText(screen.dims).c_str(), screen.runnable, screen.plan_configs, screen.refused,
                            screen.failed);
  for (const NotRunnableValue& v : NotRunnableByValue(space, screen))
    text += Format("  %s=%s: %zu of its %zu configs not runnable\n", v.knob.c_str(), v.value.c_str(),
                   v.not_runnable, v.configs);
  return text;
}

}  // namespace

int RunSpace(int argc, char** argv) {
  cxxopts::Options options("crmap space", "Print the search space of a workload.");
  options.add_options()
      ("w,workload", "built-in workload name or path to a workload .json", cxxopts::value<std::string>())
      ("runnable", "also compile every plan config at --dims (none timed) and count those this host can run")
      ("d,dims", "the shape --runnable compiles at (default: the workload's typical dims)",
       cxxopts::value<std::string>())
      ("json", "print JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  auto workload = LoadWorkloadOption(args);
  if (!workload.ok()) return Fail(workload.status());
  auto space = SearchSpace::Build(*workload);
  if (!space.ok()) return Fail(space.status());
  const SpaceConstraints& c = space->constraints();
  if (args.count("dims") && !args.count("runnable"))
    return Fail(Status::InvalidArgument("--dims is the shape --runnable compiles at; give --runnable too"));
  std::optional<RunnableScreen> screen;
  if (args.count("runnable")) {
    Dims dims = workload->TypicalDims();
    if (args.count("dims")) {
      auto parsed = ParseDimsText(args["dims"].as<std::string>());
      if (!parsed.ok()) return Fail(parsed.status());
      dims = *parsed;
    }
    ProgressLine progress(!args.count("json"));
    auto screened = ScreenRunnable(*workload, *space, dims, [&](size_t done, size_t total) {
      progress.Update("compiling plan configs at " + DimsToText(dims), static_cast<int>(done), static_cast<int>(total));
    });
    progress.Finish();
    if (!screened.ok()) return Fail(screened.status());
    screen = std::move(screened).value();
  }

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
    if (screen) json["runnable"] = ScreenJson(*space, *screen);
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
  if (screen) std::printf("%s", ScreenText(*space, *screen).c_str());
  return kExitOk;
}

}  // namespace crmap::cli

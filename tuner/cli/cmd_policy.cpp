// crmap train / export / query / evaluate: learned mapping policies.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include <spdlog/spdlog.h>

#include "datasets/catalog.h"
#include "datasets/distribution.h"
#include "tuner/campaign_spec.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/cli/measure_options.h"
#include "runtime/hook/crmap_hook.hpp"
#include "runtime/hook/policy_file.h"
#include "tuner/measurement_record.h"
#include "tuner/policy_trainer.h"
#include "tuner/sweep.h"
#include "tuner/text_table.h"
#include "tuner/tuning_db.h"
#include "tuner/workload_resolver.h"

namespace crmap::cli {

namespace {

// Ordered as the file is read: identity first, the (long) network weights last.
using OrderedJson = nlohmann::ordered_json;

OrderedJson LayerJson(const DenseLayer& l) {
  return {{"in", l.in}, {"out", l.out}, {"weights", l.weights}, {"bias", l.bias}};
}

OrderedJson PolicyJson(const PolicyFile& f) {
  OrderedJson j;
  j["format_version"] = kPolicyFormatVersion;
  j["workload"] = f.workload;
  j["workload_fingerprint"] = f.workload_fingerprint;
  j["workload_source"] = f.workload_source;
  j["space_fingerprint"] = f.space_fingerprint;
  for (const auto& d : f.dims) j["dims"].push_back({{"name", d.name}, {"min", d.min}, {"max", d.max}});
  for (size_t k = 0; k < f.knobs.size(); ++k) {
    const auto& knob = f.knobs[k];
    OrderedJson allowed = OrderedJson::array();
    for (size_t v = 0; v < knob.values.size(); ++v)
      if (f.mask[k][v]) allowed.push_back(knob.values[v]);
    j["knobs"].push_back({{"name", knob.name}, {"scope", knob.plan ? "plan" : "runtime"}, {"values", knob.values},
                          {"default", knob.values[knob.default_index]}, {"allowed", allowed}});
  }
  for (const auto& feature : f.features)
    j["feature_spec"].push_back({{"name", feature.name}, {"lo", feature.lo}, {"hi", feature.hi}});
  j["table"] = OrderedJson::array();
  for (const auto& e : f.table) {
    OrderedJson dims;
    for (size_t i = 0; i < f.dims.size(); ++i) dims[f.dims[i].name] = e.dims[i];
    j["table"].push_back({{"dims", dims}, {"config", PolicyConfigString(f.knobs, e.config)}, {"median_us", e.median_us},
                          {"p99_us", e.p99_us}, {"speedup", e.speedup}});
  }
  j["fallback"] = PolicyConfigString(f.knobs, f.fallback);
  j["latency_model"] = f.latency_model;
  j["host"] = {{"cpu", f.host.cpu}, {"isa", f.host.isa}, {"onednn", f.host.onednn_version}, {"cores", f.host.cores}};
  j["training"] = {{"db_path", f.training.db_path}, {"db_digest", f.training.db_digest}, {"date", f.training.date},
                   {"crmap_version", f.training.crmap_version}, {"records_used", f.training.records_used},
                   {"seed", f.training.seed}};
  OrderedJson heads = OrderedJson::array();
  for (const auto& h : f.policy.heads) heads.push_back(LayerJson(h));
  j["policy_network"] = {{"activation", "tanh"}, {"trunk1", LayerJson(f.policy.trunk1)},
                         {"trunk2", LayerJson(f.policy.trunk2)}, {"heads", heads}};
  j["critic"] = {{"activation", "relu"}, {"layer1", LayerJson(f.critic.layer1)},
                 {"layer2", LayerJson(f.critic.layer2)}, {"layer3", LayerJson(f.critic.layer3)}};
  return j;
}

const char* SourceName(int32_t source) {
  switch (source) {
    case CRMAP_SOURCE_TABLE: return "table";
    case CRMAP_SOURCE_POLICY: return "policy";
    default: return "fallback";
  }
}

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

int RunTrain(int argc, char** argv) {
  cxxopts::Options options("crmap train",
                           "Train the shape-conditioned policy (rl agent's policy and critic) on every record of a "
                           "tuning database and write a policy file for the runtime hook.");
  options.add_options()
      ("db", "tuning database", cxxopts::value<std::string>())
      ("w,workload", "workload name or file (default: the database's, if it holds one; found as a built-in or at the "
                     "path its records name)", cxxopts::value<std::string>())
      ("o,out", "policy file to write", cxxopts::value<std::string>())
      ("seed", "training seed", cxxopts::value<uint64_t>()->default_value("1"))
      ("hidden", "width of the exported networks", cxxopts::value<int>()->default_value("32"))
      ("critic-epochs", "Adam steps of the critic", cxxopts::value<int>()->default_value("800"))
      ("policy-steps", "REINFORCE steps of the policy", cxxopts::value<int>()->default_value("400"))
      ("json", "print a JSON report");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("db")) return Fail(Status::InvalidArgument("missing --db"));
  if (!args.count("out")) return Fail(Status::InvalidArgument("missing --out (the policy file to write)"));
  const std::string db_path = args["db"].as<std::string>();
  auto all = ReadTuningDb(db_path);
  if (!all.ok()) return Fail(all.status());
  auto workload = ResolveDbWorkload(all->records, args.count("workload") ? args["workload"].as<std::string>() : "",
                                    db_path);
  if (!workload.ok()) return Fail(workload.status());
  auto space = SearchSpace::Build(*workload);
  if (!space.ok()) return Fail(space.status());
  auto db = ReadTuningDb(db_path, workload->fingerprint(), space->fingerprint());
  if (!db.ok()) return Fail(db.status());
  if (db->records.empty())
    return Fail(Status::InvalidArgument(db_path + " has no records of " + workload->name() + " with its current "
                                        "fingerprints (" + std::to_string(db->other_fingerprints) + " of others)"));
  TrainOptions train;
  train.seed = args["seed"].as<uint64_t>();
  train.hidden = args["hidden"].as<int>();
  train.critic_epochs = args["critic-epochs"].as<int>();
  train.policy_steps = args["policy-steps"].as<int>();
  // Absolute, so that `crmap evaluate` finds the database from any directory.
  std::error_code absolute_error;
  std::filesystem::path absolute_db = std::filesystem::absolute(db_path, absolute_error);
  train.db_path = absolute_error ? db_path : absolute_db.lexically_normal().string();
  if (train.critic_epochs < 0 || train.policy_steps < 0)
    return Fail(Status::InvalidArgument("--critic-epochs and --policy-steps must be >= 0"));
  if (!args.count("json"))
    spdlog::info("training on the records of {} in {} ({} with its current fingerprints, LibTorch rows included)...",
                 workload->name(), db_path, db->records.size());
  TrainReport report;
  auto file = TrainPolicy(*workload, *space, db->records, train, &report);
  if (!file.ok()) return Fail(file.status());
  Status written = WritePolicyFile(args["out"].as<std::string>(), *file);
  if (!written.ok()) return Fail(written);
  Json json = {{"policy", args["out"].as<std::string>()}, {"workload", workload->name()},
               {"records", report.records}, {"shapes", report.shapes}, {"critic_mse", report.critic_loss},
               {"policy_agrees_with_table", report.policy_agrees}, {"fallback", report.fallback}};
  if (args.count("json")) {
    std::printf("%s\n", json.dump(2).c_str());
  } else {
    std::printf("wrote %s: %s, %zu measurements of configs used, %zu tuned shapes\n  critic mean squared error %.4f (log speedup)\n"
                "  policy's own choice = best measured config at %zu of %zu tuned shapes\n  fallback %s\n",
                args["out"].as<std::string>().c_str(), workload->name().c_str(), report.records, report.shapes,
                report.critic_loss, report.policy_agrees, report.shapes, report.fallback.c_str());
  }
  return kExitOk;
}

int RunExport(int argc, char** argv) {
  cxxopts::Options options("crmap export", "Dump a policy file in a readable format.");
  options.add_options()
      ("policy", "policy file", cxxopts::value<std::string>())
      ("format", "json", cxxopts::value<std::string>()->default_value("json"))
      ("o,out", "write to this file instead of stdout", cxxopts::value<std::string>());
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("policy")) return Fail(Status::InvalidArgument("missing --policy"));
  if (args["format"].as<std::string>() != "json")
    return Fail(Status::InvalidArgument("unknown format '" + args["format"].as<std::string>() + "'; allowed: json"));
  auto file = ReadPolicyFile(args["policy"].as<std::string>());
  if (!file.ok()) return Fail(file.status());
  OrderedJson json = PolicyJson(*file);
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
    Json j = {{"config", decision.config}, {"source", SourceName(decision.source)},
              {"predicted_latency_us", decision.predicted_latency_us}, {"decision_id", decision.decision_id},
              {"values", std::vector<int32_t>(decision.values, decision.values + decision.knob_count)},
              {"out_of_range", metrics.out_of_range > 0}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("config     %s\nsource     %s%s\npredicted  %.1f us\n", decision.config, SourceName(decision.source),
                metrics.out_of_range ? " (dims outside the workload's declared ranges: extrapolated)" : "",
                decision.predicted_latency_us);
  }
  return kExitOk;
}

int RunEvaluate(int argc, char** argv) {
  cxxopts::Options options(
      "crmap evaluate",
      "Compile-time mapping accuracy on held-out shapes: for each of N shapes drawn from a distribution that the "
      "policy was not tuned on, measure the policy's pick against that shape's oracle (exhaustive over the plan "
      "knobs), next to a static plan, the nearest tuned shape's config and the default, all in one interleaved run.");
  options.add_options()
      ("policy", "policy file", cxxopts::value<std::string>())
      ("shapes", "distribution to draw held-out shapes from (built-in name or path), or a list \"tokens=100;tokens=200\"",
       cxxopts::value<std::string>())
      ("held-out", "number of held-out shapes (with a list: at most this many of them; default all)",
       cxxopts::value<int>()->default_value("8"))
      ("db", "the tuning database the policy was trained on (default: the one its metadata names); the static "
             "plan comes from it", cxxopts::value<std::string>())
      ("seed", "seed of the shapes drawn", cxxopts::value<uint64_t>()->default_value("101"))
      ("screen-rounds", "interleaved rounds per screening chunk", cxxopts::value<int>()->default_value("5"))
      ("w,workload", "the workload's file, if the policy's recorded one moved (default: the built-in, or the "
                     "file the policy records)", cxxopts::value<std::string>())
      ("force", "evaluate a policy tuned on a host of another CPU ISA (refused otherwise)");
  AddMeasureOptions(options, 20, /*default_cold_samples=*/1);
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  for (const char* required : {"policy", "shapes"})
    if (!args.count(required)) return Fail(Status::InvalidArgument(std::string("missing --") + required));
  auto measure = ReadMeasureOptions(args);
  if (!measure.ok()) return Fail(measure.status());
  const std::string policy_path = args["policy"].as<std::string>();
  auto file = ReadPolicyFile(policy_path);
  if (!file.ok()) return Fail(file.status());
  if (file->table.empty())
    return Fail(Status::InvalidArgument(
        "policy " + policy_path +
        " has no tuned shapes (its table is empty): evaluate compares it with the static plan and the nearest tuned "
        "shape's config, which need them; train the policy from a database with successful measurements"));
  WorkloadRef ref{file->workload, {file->workload_fingerprint}, file->workload_source};
  auto workload = ResolveWorkload(ref, args.count("workload") ? args["workload"].as<std::string>() : "",
                                  "policy " + policy_path);
  if (!workload.ok()) return Fail(workload.status());
  auto space = SearchSpace::Build(*workload);
  if (!space.ok()) return Fail(space.status());
  if (space->fingerprint() != file->space_fingerprint)
    return Fail(Status::InvalidArgument("the policy was trained for another version of " + workload->name() +
                                        "'s search space (fingerprint " + file->space_fingerprint + ", now " +
                                        space->fingerprint() + "): retrain it"));
  const std::string db_path = args.count("db") ? args["db"].as<std::string>() : file->training.db_path;
  auto db = ReadTuningDb(db_path, workload->fingerprint(), space->fingerprint());
  if (!db.ok()) return Fail(db.status().WithContext("the training database (for the static plan; --db names it)"));
  int held_out = args["held-out"].as<int>();
  if (held_out < 1 || held_out > 1000) return Fail(Status::InvalidArgument("--held-out must be in [1, 1000]"));
  std::set<std::vector<int64_t>> tuned;
  for (const auto& e : file->table) tuned.insert(e.dims);
  // Candidates: a list of shapes ("tokens=100;tokens=200", as tune takes), or draws from a distribution.
  std::vector<Dims> candidates;
  const std::string shapes_text = args["shapes"].as<std::string>();
  const bool listed_shapes = shapes_text.find('=') != std::string::npos;
  if (listed_shapes) {
    auto listed = ResolveShapes(*workload, shapes_text, 1, 0);
    if (!listed.ok()) return Fail(listed.status());
    candidates = *listed;
    // Every listed shape counts unless --held-out caps them.
    if (!args.count("held-out")) held_out = static_cast<int>(std::min<size_t>(candidates.size(), 1000));
  } else {
    auto distribution = LoadDistribution(shapes_text, *workload);
    if (!distribution.ok()) return Fail(distribution.status());
    candidates = SampleDistinct(*distribution, static_cast<size_t>(held_out) + tuned.size(),
                                args["seed"].as<uint64_t>(), static_cast<size_t>(held_out) * 400);
  }

  // Held-out shapes: none of them a tuned shape.
  std::vector<Dims> shapes;
  for (const Dims& dims : candidates) {
    std::vector<int64_t> key;
    for (const auto& d : file->dims) key.push_back(dims.at(d.name));
    if (!tuned.count(key) && static_cast<int>(shapes.size()) < held_out) shapes.push_back(dims);
  }
  if (shapes.empty()) return Fail(Status::InvalidArgument("--shapes has no shape the policy was not tuned on"));

  Hook hook;
  crmap_status status = hook.Open(policy_path, "", "", args.count("force") > 0);
  if (status != CRMAP_OK) return FailHook(status);
  std::vector<Dims> table_shapes;
  for (const auto& e : file->table) {
    Dims d;
    for (size_t i = 0; i < file->dims.size(); ++i) d[file->dims[i].name] = e.dims[i];
    table_shapes.push_back(d);
  }
  const Config static_plan = ChooseStaticPlan(*space, db->records, table_shapes);

  struct Method {
    const char* name;
    std::vector<double> ratios;
  };
  std::vector<Method> methods = {{"crmap policy (hook)", {}}, {"static plan", {}}, {"nearest tuned shape", {}},
                                 {"default config", {}}};
  Json per_shape = Json::array();
  ProgressLine progress(!args.count("json"));
  for (size_t s = 0; s < shapes.size(); ++s) {
    const Dims& dims = shapes[s];
    std::vector<int64_t> values;
    for (const auto& d : file->dims) values.push_back(dims.at(d.name));
    crmap_decision decision;
    if (hook.Decide(values, &decision) != CRMAP_OK) return FailHook(CRMAP_ERR_INTERNAL);
    auto policy_pick = space->Parse(decision.config);
    if (!policy_pick.ok()) return Fail(policy_pick.status());
    // Nearest tuned shape (log distance), as TVM's history-best dispatch falls back to.
    size_t nearest = 0;
    double nearest_distance = 1e300;
    for (size_t t = 0; t < file->table.size(); ++t) {
      double distance = 0;
      for (size_t i = 0; i < values.size(); ++i)
        distance += std::pow(std::log2(static_cast<double>(values[i])) -
                                 std::log2(static_cast<double>(file->table[t].dims[i])), 2);
      if (distance < nearest_distance) {
        nearest_distance = distance;
        nearest = t;
      }
    }
    Config nearest_config = space->Default();
    for (size_t k = 0; k < file->knobs.size(); ++k)
      nearest_config.values[k] = static_cast<int>(file->table[nearest].config[k]);
    std::vector<Config> picks = {*policy_pick, static_plan, nearest_config, space->Default()};

    SweepOptions sweep;
    sweep.screen_rounds = args["screen-rounds"].as<int>();
    sweep.rounds = measure->measure.rounds;
    sweep.warmup = measure->measure.warmup;
    sweep.warm_calls = measure->measure.warm_calls;
    sweep.cold_samples = measure->measure.cold_samples;
    sweep.timeout_ms = measure->measure.timeout_ms;
    sweep.compile = measure->compile;
    sweep.must_confirm = picks;
    sweep.on_progress = [&](const std::string& stage, int done, int total) {
      progress.Update(Format("shape %zu/%zu %s", s + 1, shapes.size(), stage.c_str()), done, total);
    };
    MeasurementSession session(*workload, *space, dims);
    SweepResult result = SweepPlanSpace(session, *space, sweep);
    if (!result.status.ok()) return Fail(result.status.WithContext("shape " + DimsToText(dims)));
    double oracle = 1e300;  // the smallest ratio to the default in the final run
    std::map<std::string, double> ratio_of;
    for (const auto& r : result.final) {
      if (r.is_baseline || r.status != CandidateStatus::kOk || r.ratio_to_anchor.rounds == 0) continue;
      ratio_of[r.label] = r.ratio_to_anchor.median;
      oracle = std::min(oracle, r.ratio_to_anchor.median);
    }
    Json row = {{"dims", Json(dims)}, {"oracle_speedup_vs_default", 1 / oracle}};
    for (size_t m = 0; m < methods.size(); ++m) {
      auto it = ratio_of.find(space->ToString(picks[m]));
      double ratio = it == ratio_of.end() ? 0.0 : oracle / it->second;  // a failing pick scores 0
      methods[m].ratios.push_back(ratio);
      row[methods[m].name] = {{"config", space->ToString(picks[m])}, {"oracle_ratio", ratio}};
    }
    row["hook_source"] = SourceName(decision.source);
    per_shape.push_back(row);
  }
  progress.Finish();
  WarnIfMachineBusy();

  TextTable table({"method", ">within 5% of oracle (CTMA)", ">geo-mean oracle ratio", ">worst", "worst shape"});
  Json summary = Json::array();
  for (const auto& m : methods) {
    size_t within = 0, worst_shape = 0;
    double log_sum = 0, worst = 1;
    for (size_t i = 0; i < m.ratios.size(); ++i) {
      const double r = m.ratios[i];
      within += r >= 0.95;
      log_sum += std::log(std::max(r, 1e-6));
      if (r < worst) {
        worst = r;
        worst_shape = i;
      }
    }
    double geo = std::exp(log_sum / static_cast<double>(m.ratios.size()));
    double ctma = static_cast<double>(within) / static_cast<double>(m.ratios.size());
    table.AddRow({m.name, Format("%.0f%% (%zu/%zu)", 100 * ctma, within, m.ratios.size()), Format("%.3f", geo),
                  Format("%.3f", worst), DimsToText(shapes[worst_shape])});
    summary.push_back({{"method", m.name}, {"ctma", ctma}, {"geo_mean_oracle_ratio", geo}, {"worst", worst},
                       {"worst_dims", Json(shapes[worst_shape])}});
  }
  std::string held_out_text;
  for (const Dims& dims : shapes) held_out_text += (held_out_text.empty() ? "" : "; ") + DimsToText(dims);
  Json json = {{"workload", workload->name()}, {"policy", policy_path}, {"held_out", shapes.size()},
               {"static_plan", space->ToString(static_plan)}, {"methods", summary}, {"shapes", per_shape}};
  Status written = WriteOutOption(args, json);
  if (!written.ok()) return Fail(written);
  if (args.count("json")) {
    std::printf("%s\n", json.dump(2).c_str());
  } else {
    std::printf("%s: %zu held-out shapes from %s (none tuned), each against its exhaustive oracle\n"
                "held-out: %s\n%sstatic plan: %s\n",
                workload->name().c_str(), shapes.size(), args["shapes"].as<std::string>().c_str(),
                held_out_text.c_str(), table.Render().c_str(), ShortConfigLabel(*space, static_plan).c_str());
  }
  return kExitOk;
}

}  // namespace crmap::cli

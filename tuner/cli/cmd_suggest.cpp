// crmap suggest: where a campaign should measure next, by the policy it would improve (tuner/shape_suggestion.h).
#include <cmath>
#include <cstdio>

#include "common/json_fields.h"
#include "runtime/hook/policy_file.h"
#include "runtime/hook/policy_model.h"
#include "tuner/campaign_spec.h"
#include "tuner/cli/cli_common.h"
#include "tuner/cli/commands.h"
#include "tuner/shape_suggestion.h"
#include "tuner/workload_resolver.h"

namespace crmap::cli {

int RunSuggest(int argc, char** argv) {
  cxxopts::Options options("crmap suggest",
                           "Suggest the shapes a campaign should measure next: among a pool drawn from a shape "
                           "distribution, those the policy is least confident about, spread over the support.");
  options.add_options()
      ("policy", "policy file (from crmap train)", cxxopts::value<std::string>())
      ("s,shapes", "where to look: a distribution (built-in name or file) or a list \"k=v,...;k=v,...\"",
       cxxopts::value<std::string>())
      ("count", "shapes to suggest", cxxopts::value<int>()->default_value("4"))
      ("pool", "distinct shapes drawn from the distribution to choose among",
       cxxopts::value<int>()->default_value("200"))
      ("seed", "seed of the draws", cxxopts::value<uint64_t>()->default_value("1"))
      ("w,workload", "workload name or file (default: the one the policy names)", cxxopts::value<std::string>())
      ("json", "print JSON");
  cxxopts::ParseResult args;
  int code = 0;
  if (!ParseOptions(options, argc, argv, &args, &code)) return code;
  if (!args.count("policy")) return Fail(Status::InvalidArgument("missing --policy"));
  if (!args.count("shapes")) return Fail(Status::InvalidArgument("missing --shapes (a distribution or a list)"));
  const int count = args["count"].as<int>();
  const int pool_size = args["pool"].as<int>();
  if (count < 1 || count > 10000) return Fail(Status::InvalidArgument("--count must be in [1, 10000]"));
  if (pool_size < 1 || pool_size > 100000) return Fail(Status::InvalidArgument("--pool must be in [1, 100000]"));
  const std::string policy_path = args["policy"].as<std::string>();
  auto file = ReadPolicyFile(policy_path);
  if (!file.ok()) return Fail(file.status());
  WorkloadRef ref{file->workload, {file->workload_fingerprint}, file->workload_source};
  auto workload = ResolveWorkload(ref, args.count("workload") ? args["workload"].as<std::string>() : "",
                                  "policy " + policy_path);
  if (!workload.ok()) return Fail(workload.status());
  auto pool = ResolveShapes(*workload, args["shapes"].as<std::string>(), static_cast<size_t>(pool_size),
                            args["seed"].as<uint64_t>());
  if (!pool.ok()) return Fail(pool.status());
  auto model = PolicyModel::Create(*std::move(file));
  if (!model.ok()) return Fail(model.status());
  const std::vector<SuggestedShape> suggested = SuggestShapes(**model, *pool, static_cast<size_t>(count));
  std::string list;
  for (const SuggestedShape& s : suggested) list += (list.empty() ? "" : ";") + DimsToText(s.dims);
  if (args.count("json")) {
    Json rows = Json::array();
    for (const SuggestedShape& s : suggested)
      rows.push_back({{"dims", s.dims}, {"confidence", s.confidence},
                      {"distance", std::isfinite(s.distance) ? Json(s.distance) : Json()},
                      {"beyond_tuned_range", s.beyond_tuned_range}, {"config", s.config}});
    Json j = {{"policy", policy_path}, {"pool", pool->size()}, {"shapes", list}, {"suggested", rows}};
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%zu of %zu shapes drawn (tuned ones skipped), beyond the tuned range first, then least confident:\n",
              suggested.size(), pool->size());
  for (const SuggestedShape& s : suggested)
    std::printf("  %-24s %-7s confidence %5.2f  distance %.3f  policy %s\n", DimsToText(s.dims).c_str(),
                s.beyond_tuned_range ? "beyond" : "inside", s.confidence, s.distance, s.config.c_str());
  std::printf("--shapes \"%s\"\n", list.c_str());
  return kExitOk;
}

}  // namespace crmap::cli

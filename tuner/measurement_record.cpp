#include "tuner/measurement_record.h"

#include <ctime>

#include "backend/blas_info.h"
#include "backend/host.h"

namespace crmap {

std::string UtcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string ShortConfigLabel(const SearchSpace& space, const Config& config) {
  std::string label;
  const Config defaults = space.Default();
  for (size_t k = 0; k < space.knobs().size(); ++k) {
    if (config.values[k] == defaults.values[k]) continue;
    if (!label.empty()) label += ";";
    label += space.knobs()[k].name + "=" + space.knobs()[k].values[config.values[k]];
  }
  return label.empty() ? "default" : label;
}

Json MeasurementRecordJson(const Workload& workload, const SearchSpace& space, const Dims& dims,
                           const CandidateResult& result, const RecordContext& context) {
  const HostInfo& host = DetectHost();
  Json record;
  record["version"] = kMeasurementRecordVersion;
  record["workload"] = workload.name();
  record["workload_fingerprint"] = workload.fingerprint();
  if (!workload.origin().empty()) record["workload_source"] = workload.origin();
  record["space_fingerprint"] = space.fingerprint();
  record["dims"] = Json(dims);
  if (result.is_baseline) {
    record["config"] = result.label;
    record["baseline"] = true;
    const PeerBaseline& peer = result.peer;
    record["peer"] = {{"path", TorchPathName(peer.path)},
                      {"openblas_core", peer.in_process() ? DetectBlas().core : peer.blas_core},
                      {"process", peer.in_process() ? "this" : "child"}};
  } else {
    record["config"] = space.ToString(result.config);
    record["config_id"] = space.ToId(result.config);
  }
  record["status"] = CandidateStatusName(result.status);
  if (!result.message.empty()) record["message"] = result.message;
  const LatencyStats& l = result.latency;
  if (l.rounds > 0) {
    record["latency_us"] = {{"min", l.min_us}, {"median", l.median_us}, {"p90", l.p90_us}, {"p95", l.p95_us},
                            {"p99", l.p99_us}, {"mean", l.mean_us},    {"cv", l.cv},        {"rounds", l.rounds}};
  }
  const LatencyStats& cold = result.cold_latency;
  if (cold.rounds > 0 || result.cold_not_idle > 0) {
    record["cold_latency_us"] = {{"samples", cold.rounds}, {"not_idle", result.cold_not_idle}};
    if (cold.rounds > 0) {
      Json& c = record["cold_latency_us"];
      c["min"] = cold.min_us;
      c["median"] = cold.median_us;
      c["p95"] = cold.p95_us;
      c["p99"] = cold.p99_us;
      c["mean"] = cold.mean_us;
    }
  }
  if (result.ratio_to_anchor.rounds > 0) {
    record["ratio_to_anchor"] = {{"median", result.ratio_to_anchor.median},
                                 {"p10", result.ratio_to_anchor.p10},
                                 {"p90", result.ratio_to_anchor.p90},
                                 {"anchor", result.anchor_label}};
    // The median's 95% interval (order statistics), when the rounds can give one (statistics.h: RatioStats).
    if (result.ratio_to_anchor.median_low > 0) {
      record["ratio_to_anchor"]["median_low"] = result.ratio_to_anchor.median_low;
      record["ratio_to_anchor"]["median_high"] = result.ratio_to_anchor.median_high;
    }
    // A tail ratio is stored only when the rounds can support it (MinimumRounds).
    if (result.p95_ratio_to_anchor > 0 && l.rounds >= MinimumRounds(Objective::kP95))
      record["ratio_to_anchor"]["latency_p95"] = result.p95_ratio_to_anchor;
    if (result.p99_ratio_to_anchor > 0 && l.rounds >= MinimumRounds(Objective::kP99))
      record["ratio_to_anchor"]["latency_p99"] = result.p99_ratio_to_anchor;
  }
  if (!result.is_baseline) {
    record["peak_bytes"] = result.plan.peak_bytes;
    record["weight_bytes"] = result.plan.weight_bytes;
    record["compile_ms"] = result.plan.compile_ms;
    record["pack_ms"] = result.plan.pack_ms;
    record["reorders"] = result.plan.reorders;
    Json kernels = Json::array();
    for (const auto& k : result.plan.kernels)
      kernels.push_back({{"step", k.step}, {"kind", k.kind}, {"impl", k.impl}, {"detail", k.detail}});
    record["kernels"] = kernels;
  }
  record["validated"] = result.validated;
  if (result.validated) {
    record["max_error"] = result.error.max_abs;
    record["max_rel_error"] = result.error.max_rel;
    record["scaled_error"] = result.error.scaled;
    if (result.accuracy_budget > 0) record["accuracy_budget"] = result.accuracy_budget;
  }
  record["data_seed"] = context.data_seed;
  record["host"] = {{"cpu", host.cpu}, {"isa", host.isa}, {"cores", host.cores}, {"onednn", host.onednn_version}};
  record["agent"] = context.agent;
  record["campaign"] = context.campaign;
  record["seed"] = context.seed;
  record["time"] = UtcTimestamp();
  return record;
}

}  // namespace crmap

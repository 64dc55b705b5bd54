#include "tuner/policy_export.h"

namespace crmap {

namespace {

nlohmann::ordered_json LayerJson(const DenseLayer& l) {
  return {{"in", l.in}, {"out", l.out}, {"weights", l.weights}, {"bias", l.bias}};
}

}  // namespace

nlohmann::json CalibrationJson(const std::vector<CalibrationBin>& calibration) {
  nlohmann::json bins = nlohmann::json::array();
  for (size_t b = 0; b < calibration.size(); ++b) {
    const CalibrationBin& bin = calibration[b];
    bins.push_back({{"from", bin.from}, {"to", b + 1 < calibration.size() ? calibration[b + 1].from : 1.0f},
                    {"folds", bin.folds}, {"within", bin.within}, {"rate", bin.rate}});
  }
  return bins;
}

nlohmann::ordered_json PolicyToJson(const PolicyFile& f) {
  nlohmann::ordered_json j;
  j["format_version"] = kPolicyFormatVersion;
  j["workload"] = f.workload;
  j["workload_fingerprint"] = f.workload_fingerprint;
  j["workload_source"] = f.workload_source;
  j["space_fingerprint"] = f.space_fingerprint;
  for (const auto& d : f.dims) j["dims"].push_back({{"name", d.name}, {"min", d.min}, {"max", d.max}});
  for (size_t k = 0; k < f.knobs.size(); ++k) {
    const auto& knob = f.knobs[k];
    nlohmann::ordered_json allowed = nlohmann::ordered_json::array();
    for (size_t v = 0; v < knob.values.size(); ++v)
      if (f.mask[k][v]) allowed.push_back(knob.values[v]);
    j["knobs"].push_back({{"name", knob.name}, {"scope", knob.plan ? "plan" : "runtime"}, {"values", knob.values},
                          {"default", knob.values[knob.default_index]}, {"allowed", allowed}});
  }
  for (const auto& feature : f.features)
    j["feature_spec"].push_back({{"name", feature.name}, {"lo", feature.lo}, {"hi", feature.hi}});
  j["table"] = nlohmann::ordered_json::array();
  for (const auto& e : f.table) {
    nlohmann::ordered_json dims;
    for (size_t i = 0; i < f.dims.size(); ++i) dims[f.dims[i].name] = e.dims[i];
    j["table"].push_back({{"dims", dims}, {"config", PolicyConfigString(f.knobs, e.config)}, {"median_us", e.median_us},
                          {"p99_us", e.p99_us}, {"speedup", e.speedup}, {"confidence", e.confidence}});
  }
  j["fallback"] = PolicyConfigString(f.knobs, f.fallback);
  j["incumbent"] = nullptr;  // none before format version 5
  if (!f.incumbent.empty()) j["incumbent"] = PolicyConfigString(f.knobs, f.incumbent);
  j["switch_margin"] = f.switch_margin;
  j["neighbour_incumbent"] = f.neighbour_incumbent;
  j["latency_model"] = f.latency_model;
  j["host"] = {{"cpu", f.host.cpu}, {"isa", f.host.isa}, {"onednn", f.host.onednn_version}, {"cores", f.host.cores}};
  j["training"] = {{"db_path", f.training.db_path}, {"db_digest", f.training.db_digest}, {"date", f.training.date},
                   {"crmap_version", f.training.crmap_version}, {"records_used", f.training.records_used},
                   {"seed", f.training.seed}};
  j["pessimism"] = f.pessimism;
  j["calibration"] = CalibrationJson(f.calibration);
  nlohmann::ordered_json heads = nlohmann::ordered_json::array();
  for (const auto& h : f.policy.heads) heads.push_back(LayerJson(h));
  j["policy_network"] = {{"activation", "tanh"}, {"trunk1", LayerJson(f.policy.trunk1)},
                         {"trunk2", LayerJson(f.policy.trunk2)}, {"heads", heads}};
  j["critic"] = {{"activation", "relu"}, {"layer1", LayerJson(f.critic.layer1)},
                 {"layer2", LayerJson(f.critic.layer2)}, {"layer3", LayerJson(f.critic.layer3)}};
  j["critic_members"] = nlohmann::ordered_json::array();
  for (const auto& member : f.critic_members)
    j["critic_members"].push_back({{"layer1", LayerJson(member.layer1)}, {"layer2", LayerJson(member.layer2)},
                                   {"layer3", LayerJson(member.layer3)}});
  return j;
}

}  // namespace crmap

#include "tuner/db_report.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "common/json_fields.h"
#include "common/numeric.h"
#include "datasets/catalog.h"
#include "tuner/config_scores.h"
#include "tuner/measurement_record.h"
#include "tuner/text_table.h"
#include "tuner/workload_resolver.h"

namespace crmap {

bool Db::IsCurrent(const TuningRecord& r) const {
  const DbWorkloadInfo& info = workloads.at(r.workload);
  return r.workload_fingerprint == info.workload_fingerprint && r.space_fingerprint == info.space_fingerprint;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void UseSpace(DbWorkloadInfo* info, const Workload& workload, SearchSpace space, const char* source) {
  info->workload_fingerprint = workload.fingerprint();
  info->space_fingerprint = space.fingerprint();
  info->default_config = space.ToString(space.Default());
  info->workload = workload;
  info->space = std::move(space);
  info->source = source;
}

}  // namespace

Status LoadDb(const std::string& path, const std::string& workload_option, Db* out) {
  Db& db = *out;
  db.path = path;
  std::string only;
  if (!workload_option.empty()) {  // before reading: bad input fails before any warning about the file
    CRMAP_ASSIGN_OR_RETURN(Workload workload, LoadWorkload(workload_option));
    CRMAP_ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Build(workload));
    only = workload.name();
    DbWorkloadInfo& info = db.workloads[only];
    info.name = only;
    UseSpace(&info, workload, std::move(space), "--workload");
  }
  CRMAP_ASSIGN_OR_RETURN(db.contents, ReadTuningDb(db.path));
  if (db.contents.records.empty() && db.contents.skipped_torn > 0)
    return Status::InvalidArgument(db.path + " holds no parsable record (" + std::to_string(db.contents.skipped_torn) +
                                   " lines skipped): it is not a tuning database, or it was overwritten");
  for (const auto& warning : db.contents.warnings) spdlog::warn("{}", warning);
  if (!only.empty()) {  // a --workload none of whose records match: say so (they count as other fingerprints)
    WorkloadRef ref = RefFromRecords(db.contents.records, only);
    if (!ref.fingerprints.empty() && !ref.fingerprints.count(db.workloads[only].workload_fingerprint)) {
      auto resolved = ResolveWorkload(ref, workload_option, "tuning database " + db.path);
      if (!resolved.ok()) spdlog::warn("{}; its records count as other fingerprints", resolved.status().message());
    }
  }
  db.total_in_file = db.contents.records.size();
  const std::vector<std::string> builtins = BuiltinNames(DatasetKind::kWorkload);
  for (const TuningRecord& r : db.contents.records) {
    if (!only.empty() && r.workload != only) continue;
    db.selected.push_back(&r);
    if (db.workloads.count(r.workload)) continue;
    DbWorkloadInfo& info = db.workloads[r.workload];
    info.name = r.workload;
    // A built-in, or the file the records name (as it is now: records made with another version of it count
    // as other fingerprints, as for a built-in that changed).
    const std::string source = RefFromRecords(db.contents.records, r.workload).source;
    const bool builtin = std::find(builtins.begin(), builtins.end(), r.workload) != builtins.end();
    const bool from_file = !source.empty() && source != kBuiltinOrigin;
    if (from_file && !std::filesystem::exists(source)) {
      spdlog::warn("workload '{}' was tuned from {}, which no longer exists: the fingerprints of its latest record "
                   "count as current; pass --workload PATH to compare with its file",
                   r.workload, source);
    } else if (builtin || from_file) {
      auto workload = LoadWorkload(from_file ? source : r.workload);
      if (workload.ok() && workload->name() == r.workload) {
        auto space = SearchSpace::Build(*workload);
        if (space.ok())
          UseSpace(&info, *workload, std::move(space).value(), from_file ? source.c_str() : "built-in");
      }
    }
  }
  // Workloads crmap cannot load: the fingerprints of their latest record are the current ones, and the config
  // of their latest "anchor" record is the default.
  for (auto it = db.selected.rbegin(); it != db.selected.rend(); ++it) {
    DbWorkloadInfo& info = db.workloads.at((*it)->workload);
    if (info.source.empty()) {
      info.workload_fingerprint = (*it)->workload_fingerprint;
      info.space_fingerprint = (*it)->space_fingerprint;
      info.source = "latest record";
    }
  }
  for (auto it = db.selected.rbegin(); it != db.selected.rend(); ++it) {
    DbWorkloadInfo& info = db.workloads.at((*it)->workload);
    if (info.default_config.empty() && (*it)->agent == "anchor" && !(*it)->baseline && db.IsCurrent(**it))
      info.default_config = (*it)->config;
  }
  // Records of a known workload and space that they cannot use (an unknown knob, a garbage config, dims outside
  // the ranges) are counted and named, never ranked.
  std::vector<const TuningRecord*> usable;
  for (const TuningRecord* r : db.selected) {
    DbWorkloadInfo& info = db.workloads.at(r->workload);
    if (db.IsCurrent(*r) && info.workload && info.space) {
      Status fits = CheckRecordFits(*r, *info.workload, *info.space);
      if (!fits.ok()) {
        ++info.unusable;
        spdlog::warn("{}:{}: record ignored: {}", db.path, r->line, fits.message());
        continue;
      }
    }
    usable.push_back(r);
  }
  db.selected = std::move(usable);
  for (const TuningRecord* r : db.selected)
    ++(db.IsCurrent(*r) ? db.workloads.at(r->workload).current : db.workloads.at(r->workload).other);
  return Status::Ok();
}

namespace {

Json NumberOrNull(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

std::string Microseconds(double us) {
  if (!std::isfinite(us)) return "-";
  return us < 100 ? Format("%.2f", us) : Format("%.1f", us);
}

std::string Count(size_t n) { return std::to_string(n); }

// ---- stats ----------------------------------------------------------------------------------------------------

std::string HostKey(const TuningRecord& r) {
  if (r.host_cpu.empty() && r.host_isa.empty() && r.host_cores == 0) return "(unknown)";
  return (r.host_cpu.empty() ? "?" : r.host_cpu) + " / " + (r.host_isa.empty() ? "?" : r.host_isa) + " / " +
         std::to_string(r.host_cores) + " cores / oneDNN " + (r.host_onednn.empty() ? "?" : r.host_onednn);
}

std::string OrNone(const std::string& s) { return s.empty() ? "(none)" : s; }

std::string CountsTable(const char* title, const std::map<std::string, size_t>& counts) {
  TextTable table({title, ">records"});
  for (const auto& [key, n] : counts) table.AddRow({key, Count(n)});
  return "\n" + table.Render();
}

}  // namespace

std::string DbStatsReport(const Db& db, bool json) {
  std::map<std::string, size_t> by_workload, by_status, by_agent, by_campaign, by_host;
  std::set<std::pair<std::string, Dims>> shapes;
  size_t other = 0, unusable = 0;
  for (const auto& [name, info] : db.workloads) unusable += info.unusable;
  for (const TuningRecord* r : db.selected) {
    ++by_workload[r->workload];
    ++by_status[r->status];
    ++by_agent[OrNone(r->agent)];
    ++by_campaign[OrNone(r->campaign)];
    ++by_host[HostKey(*r)];
    shapes.insert({r->workload, r->dims});
    if (!db.IsCurrent(*r)) ++other;
  }

  if (json) {
    Json out;
    out["db"] = db.path;
    out["records"] = db.selected.size();
    out["records_in_file"] = db.total_in_file;
    out["skipped_torn"] = db.contents.skipped_torn;
    out["shapes"] = shapes.size();
    out["other_fingerprints"] = other;
    out["unusable"] = unusable;
    out["by_workload"] = by_workload;
    out["by_status"] = by_status;
    out["by_agent"] = by_agent;
    out["by_campaign"] = by_campaign;
    out["by_host"] = by_host;
    Json fingerprints = Json::array();
    for (const auto& [name, info] : db.workloads) {
      fingerprints.push_back({{"workload", name},
                              {"workload_fingerprint", info.workload_fingerprint},
                              {"space_fingerprint", info.space_fingerprint},
                              {"source", info.source},
                              {"current", info.current},
                              {"other", info.other},
                              {"unusable", info.unusable}});
    }
    out["fingerprints"] = fingerprints;
    return out.dump(2) + "\n";
  }

  std::string text = Format("tuning database %s\n", db.path.c_str());
  text += Format("records             %zu", db.selected.size());
  if (db.selected.size() != db.total_in_file) text += Format(" (of %zu in the file)", db.total_in_file);
  text += Format("\ntorn lines skipped  %zu\n", db.contents.skipped_torn);
  text += Format("distinct shapes     %zu\n", shapes.size());
  text += Format("other fingerprints  %zu%s\n", other, other ? " (counted apart, never ranked by 'best')" : "");
  if (unusable)
    text += Format("unusable records    %zu (dims or config their workload rejects: named on stderr, never used)\n",
                   unusable);

  TextTable fingerprints(
      {"workload", ">records", ">current", ">other fp", "current fingerprints (workload/space)", "from"});
  for (const auto& [name, info] : db.workloads) {
    fingerprints.AddRow({name, Count(info.current + info.other), Count(info.current), Count(info.other),
                         info.workload_fingerprint + " / " + info.space_fingerprint, info.source});
  }
  text += "\n" + fingerprints.Render();
  text += CountsTable("status", by_status);
  text += CountsTable("agent", by_agent);
  text += CountsTable("campaign", by_campaign);
  text += CountsTable("host (cpu / isa / cores / oneDNN)", by_host);
  return text;
}

namespace {

// ---- best -----------------------------------------------------------------------------------------------------

// Whether a config (or anchor) string names the workload's default config.
class DefaultMatcher {
 public:
  explicit DefaultMatcher(const DbWorkloadInfo& info) : info_(info) {}
  bool operator()(const std::string& config) {
    if (config.empty() || config.rfind("libtorch", 0) == 0) return false;
    if (!info_.space) return !info_.default_config.empty() && config == info_.default_config;
    auto cached = cache_.find(config);
    if (cached != cache_.end()) return cached->second;
    auto parsed = info_.space->Parse(config);
    bool is_default = parsed.ok() && *parsed == info_.space->Default();
    cache_[config] = is_default;
    return is_default;
  }

 private:
  const DbWorkloadInfo& info_;
  std::map<std::string, bool> cache_;
};

struct ShapeSummary {
  Dims dims;
  size_t records = 0, ok = 0;
  std::optional<ConfigScore> best;
  double libtorch_median_us = kNaN;
  double libtorch_speedup = kNaN;  // the fastest peer over the default, measured side by side (< 1: slower)

  // The best config over LibTorch: through the default when both were measured side by side with it (two
  // in-run ratios), else the ratio of medians from different runs (`across` is set).
  double VsLibtorch(bool* across) const {
    *across = false;
    if (!best) return kNaN;
    if (best->basis == SpeedupBasis::kInRun && std::isfinite(libtorch_speedup) && libtorch_speedup > 0)
      return best->speedup / libtorch_speedup;
    *across = true;
    return libtorch_median_us / best->median_us;
  }
};

// The best config of one shape (current fingerprints only) by the rule of config_scores.h, and the fastest peer.
ShapeSummary SummariseShape(const Dims& dims, const std::vector<const TuningRecord*>& records,
                            DefaultMatcher& is_default) {
  ShapeSummary shape;
  shape.dims = dims;
  // Per peer ("libtorch", "libtorch[mkldnn]", ...): its medians and in-run speedups over the default. Claims are
  // made against the fastest peer.
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> peers;
  for (const TuningRecord* r : records) {
    ++shape.records;
    if (r->status != "ok") continue;
    ++shape.ok;
    if (!r->baseline || r->config.rfind("libtorch", 0) != 0) continue;
    auto& [medians, speedups] = peers[r->config];
    medians.push_back(r->median_us);
    if (std::isfinite(r->ratio_to_anchor) && r->ratio_to_anchor > 0 && is_default(r->anchor))
      speedups.push_back(1.0 / r->ratio_to_anchor);
  }
  for (const auto& [label, samples] : peers) {
    const double median = Median(samples.first), speedup = Median(samples.second);
    const bool faster = std::isfinite(shape.libtorch_speedup) || std::isfinite(speedup)
                            ? std::isfinite(speedup) && !(speedup <= shape.libtorch_speedup)
                            : !(median >= shape.libtorch_median_us);
    if (faster) {
      shape.libtorch_median_us = median;
      shape.libtorch_speedup = speedup;
    }
  }
  auto predicate = [&](const std::string& config) { return is_default(config); };
  const std::map<Dims, ShapeScores> scores = ScoreConfigs(records, predicate);
  auto it = scores.find(dims);
  if (it != scores.end())
    if (const ConfigScore* best = it->second.Best()) shape.best = *best;
  return shape;
}

std::string ConfigLabel(const DbWorkloadInfo& info, const std::string& config) {
  if (!info.space) return config;
  auto parsed = info.space->Parse(config);
  return parsed.ok() ? ShortConfigLabel(*info.space, *parsed) : config;
}

}  // namespace

std::string DbBestReport(const Db& db, bool json) {
  std::string text;
  Json out;
  out["db"] = db.path;
  out["workloads"] = Json::array();
  if (!json) text += Format("tuning database %s\n", db.path.c_str());
  bool any_across = false;
  for (const auto& [name, info] : db.workloads) {
    std::map<Dims, std::vector<const TuningRecord*>> by_shape;
    for (const TuningRecord* r : db.selected)
      if (r->workload == name && db.IsCurrent(*r)) by_shape[r->dims].push_back(r);
    DefaultMatcher is_default(info);
    std::vector<ShapeSummary> shapes;
    for (const auto& [dims, records] : by_shape) shapes.push_back(SummariseShape(dims, records, is_default));

    if (json) {
      Json w = {{"workload", name},
                {"workload_fingerprint", info.workload_fingerprint},
                {"space_fingerprint", info.space_fingerprint},
                {"fingerprints_from", info.source},
                {"default_config", info.default_config.empty() ? Json(nullptr) : Json(info.default_config)},
                {"other_fingerprint_records", info.other},
                {"shapes", Json::array()}};
      for (const ShapeSummary& s : shapes) {
        Json shape = {{"dims", Json(s.dims)}, {"records", s.records}, {"ok", s.ok}, {"best", nullptr}};
        if (s.best) {
          shape["best"] = {{"config", s.best->config},
                           {"label", ConfigLabel(info, s.best->config)},
                           {"median_us", NumberOrNull(s.best->median_us)},
                           {"p99_us", NumberOrNull(s.best->p99_us)},
                           {"speedup_vs_default", NumberOrNull(s.best->speedup)},
                           {"speedup_basis", SpeedupBasisName(s.best->basis)},
                           {"measurements", s.best->ok},
                           {"vs_libtorch", nullptr},
                           {"vs_libtorch_basis", "none"}};
          bool across = false;
          double vs = s.VsLibtorch(&across);
          if (std::isfinite(vs)) {
            shape["best"]["vs_libtorch"] = vs;
            shape["best"]["vs_libtorch_basis"] = across ? "ratio_of_medians" : "in_batch_ratios";
          }
        }
        w["shapes"].push_back(shape);
      }
      out["workloads"].push_back(w);
      continue;
    }

    text += Format("\n%s: default config %s (fingerprints from %s)\n", name.c_str(),
                   info.default_config.empty() ? "unknown" : info.default_config.c_str(), info.source.c_str());
    if (info.other) text += Format("%zu record(s) of other fingerprints not ranked (see 'crmap db stats')\n", info.other);
    TextTable table({"dims", "best config", ">median us", ">p99 us", ">vs default", ">vs LibTorch", ">records", ">ok"});
    for (const ShapeSummary& s : shapes) {
      if (!s.best) {
        table.AddRow({DimsToText(s.dims), "(no ok config)", "-", "-", "-", "-", Count(s.records), Count(s.ok)});
        continue;
      }
      std::string speedup = "-";
      if (s.best->basis != SpeedupBasis::kNone) {
        bool across = s.best->basis == SpeedupBasis::kAcrossRuns;
        any_across = any_across || across;
        speedup = Format("%s%.2fx", across ? "~" : "", s.best->speedup);
      }
      bool libtorch_across = false;
      double vs_libtorch = s.VsLibtorch(&libtorch_across);
      if (std::isfinite(vs_libtorch)) any_across = any_across || libtorch_across;
      table.AddRow({DimsToText(s.dims), ConfigLabel(info, s.best->config), Microseconds(s.best->median_us),
                    Microseconds(s.best->p99_us), speedup,
                    std::isfinite(vs_libtorch) ? Format("%s%.2fx", libtorch_across ? "~" : "", vs_libtorch) : "-",
                    Count(s.records), Count(s.ok)});
    }
    text += table.Render();
  }
  if (json) return out.dump(2) + "\n";
  if (db.workloads.empty()) text += "no records\n";
  if (any_across)
    text +=
        "\n~ : ratio of medians measured in different batches (machine drift between batches is in it);\n"
        "    without ~ the speedup is the median per-round ratio to the default measured in one batch (vs\n"
        "    LibTorch: the best config's and LibTorch's ratios to the default, each measured in one batch)\n";
  return text;
}

// ---- csv ------------------------------------------------------------------------------------------------------

namespace {

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string CsvNumber(double value) { return std::isfinite(value) ? Format("%.6g", value) : ""; }

}  // namespace

std::string DbCsvReport(const Db& db) {
  std::string text =
      "time,workload,dims,config,status,median_us,p95_us,p99_us,ratio_to_anchor,max_error,peak_bytes,"
      "agent,campaign,seed\n";
  for (const TuningRecord* r : db.selected) {
    std::string dims;
    for (const auto& [dim, value] : r->dims) dims += (dims.empty() ? "" : ";") + dim + "=" + std::to_string(value);
    const bool has_peak = r->raw.contains("peak_bytes") && !r->raw["peak_bytes"].is_null();
    std::vector<std::string> fields = {r->time,
                                       r->workload,
                                       dims,
                                       r->config,
                                       r->status,
                                       CsvNumber(r->median_us),
                                       CsvNumber(r->p95_us),
                                       CsvNumber(r->p99_us),
                                       CsvNumber(r->ratio_to_anchor),
                                       CsvNumber(r->max_error),
                                       has_peak ? std::to_string(r->peak_bytes) : "",
                                       r->agent,
                                       r->campaign,
                                       std::to_string(r->seed)};
    std::string line;
    for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + CsvField(fields[i]);
    text += line + "\n";
  }
  return text;
}

}  // namespace crmap

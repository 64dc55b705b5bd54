#include "tuner/cli/result_output.h"

#include "backend/host.h"
#include "tuner/text_table.h"

namespace crmap::cli {

std::string HeaderLine(const Workload& workload, const Dims& dims) {
  const HostInfo& host = DetectHost();
  return Format("workload %s  dims %s  host: %s, %s, %d cores, oneDNN %s\n", workload.name().c_str(),
                DimsToText(dims).c_str(), host.cpu.c_str(), host.isa.c_str(), host.cores, host.onednn_version.c_str());
}

namespace {

std::string Label(const SearchSpace& space, const CandidateResult& r) {
  return r.is_baseline ? "libtorch eager (f32)" : ShortConfigLabel(space, r.config);
}

}  // namespace

std::string RenderComparison(const SearchSpace& space, const std::vector<CandidateResult>& results) {
  TextTable table({">#", "config", "status", ">median us", ">p95 us", ">p99 us", ">speedup [p10-p90]", ">max err",
                   ">peak"});
  std::string notes;
  for (size_t i = 0; i < results.size(); ++i) {
    const CandidateResult& r = results[i];
    std::vector<std::string> row = {std::to_string(i), Label(space, r), CandidateStatusName(r.status)};
    if (r.status == CandidateStatus::kOk && r.latency.rounds > 0) {
      const RatioStats& q = r.ratio_to_anchor;
      std::string speedup = q.rounds > 0 ? Format("%.2fx [%.2f-%.2f]", 1 / q.median, 1 / q.p90, 1 / q.p10) : "-";
      row.insert(row.end(), {Format("%.1f", r.latency.median_us), Format("%.1f", r.latency.p95_us),
                             Format("%.1f", r.latency.p99_us), speedup,
                             r.validated || r.is_baseline ? Format("%.1e", r.max_error) : "-",
                             r.is_baseline ? "-" : HumanBytes(r.plan.peak_bytes)});
    } else {
      notes += Format("  #%zu %s: %s\n", i, CandidateStatusName(r.status), r.message.c_str());
    }
    table.AddRow(row);
  }
  std::string out = table.Render();
  if (!results.empty() && !results[0].anchor_label.empty())
    out += "speedup = anchor latency / candidate latency, per interleaved round (median, p10-p90 band); anchor: #0\n";
  else if (!results.empty())
    out += "no speedups: the anchor (#0) was not measured\n";
  if (!notes.empty()) out += "not measured:\n" + notes;
  return out;
}

std::string RenderMeasurement(const SearchSpace& space, const CandidateResult& r) {
  std::string out = Format("config   %s\n         %s\nstatus   %s\n", ShortConfigLabel(space, r.config).c_str(),
                           space.ToString(r.config).c_str(), CandidateStatusName(r.status));
  if (!r.message.empty()) out += Format("message  %s\n", r.message.c_str());
  const LatencyStats& l = r.latency;
  if (l.rounds > 0) {
    out += Format("latency  median %.1f us  p95 %.1f us  p99 %.1f us  min %.1f us  mean %.1f us  cv %.1f%%  (%d rounds)\n",
                  l.median_us, l.p95_us, l.p99_us, l.min_us, l.mean_us, 100 * l.cv, l.rounds);
  }
  if (r.plan.peak_bytes > 0) {
    out += Format("memory   peak %s (weights %s)\n", HumanBytes(r.plan.peak_bytes).c_str(),
                  HumanBytes(r.plan.weight_bytes).c_str());
    out += r.validated ? Format("accuracy max abs error %.2e vs LibTorch f32\n", r.max_error)
                       : std::string("accuracy not validated (--no-validate)\n");
    out += Format("plan     compile %.2f ms, memory + weight set-up %.2f ms (outside timing), %d activation reorder(s) per call\n",
                  r.plan.compile_ms, r.plan.pack_ms, r.plan.reorders);
    TextTable kernels({"step", "primitive", "kernel", "tensors"});
    for (const auto& k : r.plan.kernels) kernels.AddRow({k.step, k.kind, k.impl, k.detail});
    out += "kernels\n" + kernels.Render();
  }
  return out;
}

Json ResultsJson(const Workload& workload, const SearchSpace& space, const Dims& dims,
                 const std::vector<CandidateResult>& results, const RecordContext& context) {
  Json out;
  out["workload"] = workload.name();
  out["dims"] = Json(dims);
  Json records = Json::array();
  for (const auto& r : results) records.push_back(MeasurementRecordJson(workload, space, dims, r, context));
  out["results"] = records;
  return out;
}

Status OverBudgetStatus(const std::vector<CandidateResult>& results) {
  for (const auto& r : results)
    if (r.status == CandidateStatus::kOverMemory)
      return Status::ResourceExhausted("config '" + r.label + "': " + r.message +
                                       "; raise it with --memory-budget BYTES or pick smaller dims");
  return Status::Ok();
}

}  // namespace crmap::cli

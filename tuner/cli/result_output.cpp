#include "tuner/cli/result_output.h"

#include "backend/blas_info.h"
#include "backend/host.h"
#include "backend/torch_reference.h"
#include "tuner/text_table.h"

namespace crmap::cli {

std::string HeaderLine(const Workload& workload, const Dims& dims) {
  const HostInfo& host = DetectHost();
  return Format("workload %s  dims %s  host: %s, %s, %d cores, oneDNN %s\n", workload.name().c_str(),
                DimsToText(dims).c_str(), host.cpu.c_str(), host.isa.c_str(), host.cores, host.onednn_version.c_str());
}

std::string VersionText() {
  const HostInfo& host = DetectHost();
  const TorchInfo& torch = DetectTorch();
  const BlasInfo& blas = DetectBlas();
  const char* bf16 = host.native_bf16 ? "native" : host.has_bf16 ? "emulated (may be slower than f32)" : "unsupported";
  std::string out = Format("crmap %s\nhost: %s, isa %s, bf16 %s, %d cores, oneDNN %s\n", CRMAP_VERSION,
                           host.cpu.c_str(), host.isa.c_str(), bf16, host.cores, host.onednn_version.c_str());
  out += Format("peer: LibTorch %s, CPU capability %s, oneDNN path %s; BLAS ", torch.version.c_str(),
                torch.cpu_capability.empty() ? "unknown" : torch.cpu_capability.c_str(), torch.mkldnn ? "yes" : "no");
  if (blas.openblas) {
    out += Format("OpenBLAS, core %s (%s)\n", blas.core.c_str(), blas.library.c_str());
  } else {
    out += (blas.library.empty() ? std::string("none found") : "not OpenBLAS (" + blas.library + ")") +
           ": LibTorch's linear may run on the reference BLAS, 30-80x slower; install libopenblas0-openmp\n";
  }
  if (blas.openblas && BlasCoreBelowIsa(blas.core, host.isa)) {
    out += Format("note: OpenBLAS runs core %s, older than this host's %s: `--baseline libtorch` also measures "
                  "LibTorch with core %s (OPENBLAS_CORETYPE, in a child process) and quotes the faster\n",
                  blas.core.c_str(), host.isa.c_str(),
                  OpenBlasCoreFor(host.isa, host.cpu.find("AMD") != std::string::npos).c_str());
  } else if (blas.openblas && OpenBlasCoreLevel(blas.core) > OnednnIsaLevel(host.isa) && OnednnIsaLevel(host.isa) > 0) {
    out += Format("note: OpenBLAS runs core %s, newer than the ISA oneDNN is limited to (%s): to stand in for such a "
                  "host, also set OPENBLAS_CORETYPE=%s and ATEN_CPU_CAPABILITY=%s\n",
                  blas.core.c_str(), host.isa.c_str(),
                  OpenBlasCoreFor(host.isa, host.cpu.find("AMD") != std::string::npos).c_str(),
                  OnednnIsaLevel(host.isa) >= 4 ? "avx512" : "avx2");
  }
  return out;
}

namespace {

std::string Label(const SearchSpace& space, const CandidateResult& r) {
  if (!r.is_baseline) return ShortConfigLabel(space, r.config);
  // Say how the peer ran: the BLAS core its linear used.
  const std::string core = r.peer.in_process() ? DetectBlas().core : r.peer.blas_core;
  return r.label + " (f32" + (core.empty() ? "" : ", OpenBLAS " + core) + ")";
}

}  // namespace

std::string RenderComparison(const SearchSpace& space, const std::vector<CandidateResult>& results,
                             Objective objective) {
  const bool tail = objective != Objective::kMedian;
  std::vector<std::string> columns = {">#", "config", "status", ">median us", ">p95 us", ">p99 us", ">cold med us",
                                      ">speedup [p10-p90]", ">scaled err", ">max rel err", ">max abs err",
                                      ">peak"};
  if (tail) columns.insert(columns.begin() + 8, Format(">%s speedup", ObjectiveName(objective)));
  TextTable table(columns);
  std::string notes;
  for (size_t i = 0; i < results.size(); ++i) {
    const CandidateResult& r = results[i];
    std::vector<std::string> row = {std::to_string(i), Label(space, r), CandidateStatusName(r.status)};
    if (r.status == CandidateStatus::kOk && r.latency.rounds > 0) {
      const RatioStats& q = r.ratio_to_anchor;
      std::string speedup = q.rounds > 0 ? Format("%.2fx [%.2f-%.2f]", 1 / q.median, 1 / q.p90, 1 / q.p10) : "-";
      row.insert(row.end(), {Format("%.1f", r.latency.median_us), Format("%.1f", r.latency.p95_us),
                             Format("%.1f", r.latency.p99_us),
                             r.cold_latency.rounds > 0 ? Format("%.1f", r.cold_latency.median_us) : "-", speedup});
      if (tail) {
        const double ratio = RatioToAnchor(r, objective);
        row.push_back(ratio > 0 ? Format("%.2fx", 1 / ratio) : "-");
      }
      row.insert(row.end(), {r.validated ? Format("%.1e", r.error.scaled) : "-",
                             r.validated ? Format("%.1e", r.error.max_rel) : "-",
                             r.validated ? Format("%.1e", r.error.max_abs) : "-",
                             r.is_baseline ? "-" : HumanBytes(r.plan.peak_bytes)});
    } else {
      notes += Format("  #%zu %s: %s\n", i, CandidateStatusName(r.status), r.message.c_str());
    }
    table.AddRow(row);
  }
  std::string out = table.Render();
  if (!results.empty() && !results[0].anchor_label.empty())
    out += std::string("speedup = anchor latency / candidate latency, per interleaved round (median, p10-p90 band); "
                       "anchor: #0\n") +
           (tail ? Format("%s speedup = anchor's %s latency / candidate's, over the same rounds\n",
                          ObjectiveName(objective), ObjectiveName(objective))
                 : std::string()) +
           "median/p95/p99: each sample right after an untimed call of the same config (thread team warm); "
           "cold: after the process idled\n"
           "scaled err = max |got - ref| / max |ref| vs LibTorch f32 (the accuracy budget's measure)\n";
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
    out += Format("latency  median %.1f us  p95 %.1f us  p99 %.1f us  min %.1f us  mean %.1f us  cv %.1f%%  (%d rounds,"
                  " thread team warm)\n",
                  l.median_us, l.p95_us, l.p99_us, l.min_us, l.mean_us, 100 * l.cv, l.rounds);
  }
  const LatencyStats& c = r.cold_latency;
  if (c.rounds > 0) {
    out += Format("cold     median %.1f us  p95 %.1f us  (%d samples, each after the process idled: the cost of "
                  "waking a sleeping thread team)\n",
                  c.median_us, c.p95_us, c.rounds);
  }
  if (r.plan.peak_bytes > 0) {
    out += Format("memory   peak %s (weights %s)\n", HumanBytes(r.plan.peak_bytes).c_str(),
                  HumanBytes(r.plan.weight_bytes).c_str());
    out += r.validated ? Format("accuracy scaled error %.2e (budget %.2g), max rel error %.2e, max abs error %.2e "
                                "vs LibTorch f32\n",
                                r.error.scaled, r.accuracy_budget, r.error.max_rel, r.error.max_abs)
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

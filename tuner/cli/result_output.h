// How the CLI shows measurement results: aligned tables for people, JSON records for programs.
#pragma once

#include <string>
#include <vector>

#include "backend/session.h"
#include "common/json_fields.h"
#include "tuner/measurement_record.h"

namespace crmap::cli {

// "workload bert_ffn  dims tokens=128  host: AMD EPYC, avx2, 2 cores, oneDNN 2.6.3"
std::string HeaderLine(const Workload& workload, const Dims& dims);
// `crmap version`: crmap's version, the host (CPU, oneDNN's ISA, bf16 support, cores, oneDNN) and the peer
// (LibTorch's version and CPU capability, the BLAS it runs on and that BLAS's core type), with a note when the
// peer runs below (or above) what this host offers.
std::string VersionText();

// One row per candidate: config (knobs changed from default), status, median/p95/p99, speedup over the
// anchor with its p10-p90 band (and, for a tail objective, the speedup of that tail), max error, peak bytes;
// then one note per failed candidate.
std::string RenderComparison(const SearchSpace& space, const std::vector<CandidateResult>& results,
                             Objective objective = Objective::kMedian);

// A single measurement in full: statistics, bytes, error, timings and every kernel.
std::string RenderMeasurement(const SearchSpace& space, const CandidateResult& result);

// {"workload", "dims", "results": [measurement records...]}
Json ResultsJson(const Workload& workload, const SearchSpace& space, const Dims& dims,
                 const std::vector<CandidateResult>& results, const RecordContext& context);

// The first candidate over the memory budget as a ResourceExhausted status (exit 2), else ok.
Status OverBudgetStatus(const std::vector<CandidateResult>& results);

}  // namespace crmap::cli

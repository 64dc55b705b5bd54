// Measurement record: one measured (workload, dims, config) as the JSON object the tuning database stores
// one per line (docs/design.md "Measurement record"): format version, workload and space fingerprints, dims,
// config (canonical string and id), status, latency statistics, ratio to the batch's anchor, peak bytes,
// max error, the oneDNN kernels, the host, and who measured it (agent, campaign, seed, time).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "backend/session.h"
#include "common/json_fields.h"

namespace crmap {

constexpr int kMeasurementRecordVersion = 1;

struct RecordContext {
  std::string agent = "manual";
  std::string campaign;
  uint64_t seed = 0;       // the agent's seed
  uint64_t data_seed = 0;  // the seed of the input values the plans ran on
};

Json MeasurementRecordJson(const Workload& workload, const SearchSpace& space, const Dims& dims,
                           const CandidateResult& result, const RecordContext& context);

// "2026-11-30T12:34:56Z"
std::string UtcTimestamp();

// The knobs of `config` that differ from the default, e.g. "weights=packed;threads=1", or "default".
std::string ShortConfigLabel(const SearchSpace& space, const Config& config);

}  // namespace crmap

// DbReport: what `crmap db` shows of a tuning database (docs/tuning-db.md), as text or JSON.
//
//   stats  what the file holds: records, torn lines, counts per workload, status, agent, campaign and host,
//          distinct shapes, and records whose fingerprints are not the workload's current ones;
//   best   per workload and shape, the best measured config by the one rule of config_scores.h, with its speedup
//          over the default and over the fastest LibTorch peer measured there;
//   csv    one row per record.
// Records of another workload or space fingerprint (an edited workload, a host with another core count) are
// counted apart and never ranked: their configs may mean something else. Which fingerprints are current: those
// of `--workload` when given, else of the file the records name (workload_source), else of the built-in of that
// name, else of the workload's latest record. Warnings (a moved or changed workload file) go to spdlog.
// A Db is filled in place and never copied; the report functions are pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "search_space/search_space.h"
#include "tuner/tuning_db.h"

namespace crmap {

// The fingerprints records of one workload are compared with, and where they come from.
struct DbWorkloadInfo {
  std::string name;
  std::string workload_fingerprint;
  std::string space_fingerprint;
  std::string source;                // "built-in", "--workload", the file its records name, or "latest record"
  std::optional<Workload> workload;   // when it could be loaded
  std::optional<SearchSpace> space;  // when the workload could be loaded
  std::string default_config;        // canonical string; empty when unknown
  size_t current = 0;                // records with the current fingerprints
  size_t other = 0;                  // records with other fingerprints
  size_t unusable = 0;               // current records CheckRecordFits refuses (left out of `selected`)
};

// A database read for one command: the selected records (all, or those of one workload) and per workload its
// current fingerprints. `selected` points into `contents`.
struct Db {
  Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  std::string path;
  TuningDbContents contents;
  size_t total_in_file = 0;
  std::vector<const TuningRecord*> selected;
  std::map<std::string, DbWorkloadInfo> workloads;

  bool IsCurrent(const TuningRecord& r) const;
};

// Reads `path` into *out; `workload` ("" for all) selects one workload (a name or a path) and makes its
// fingerprints the current ones. NotFound for a missing file; InvalidArgument for a bad workload or record.
Status LoadDb(const std::string& path, const std::string& workload, Db* out);

std::string DbStatsReport(const Db& db, bool json);
std::string DbBestReport(const Db& db, bool json);
std::string DbCsvReport(const Db& db);

}  // namespace crmap

// Tuning database: every measurement of every campaign, one JSON object per line (JSON Lines), in the
// measurement-record format of measurement_record.h (docs/tuning-db.md).
//
// Writing: append-only; each record is one write(2) of a whole line followed by fdatasync, so a crash or
// SIGKILL loses at most the record being written. Opening a file whose last line is torn (a crash mid-write)
// first ends that line, so new records always start on a line of their own.
// Reading: the format version is checked (a record from a newer crmap is an error naming the line); unknown
// fields are ignored; an unparsable line (a torn write) is skipped with a warning naming it, never fatal;
// records of another workload or space fingerprint are kept apart (counted, not returned) when the reader is
// given the fingerprints to match.
//
// TuningDbWriter is movable, not copyable, and not thread-safe; readers are pure functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "common/status.h"
#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

// One parsed record. Numbers a record does not carry are NaN.
struct TuningRecord {
  int version = 0;
  std::string workload;
  std::string workload_fingerprint;
  std::string workload_source;  // "builtin", the workload file's absolute path, or "" (older records)
  std::string space_fingerprint;
  Dims dims;
  std::string config;  // canonical string, or "libtorch" for a baseline row
  bool baseline = false;
  std::string status;  // "ok", "unsupported", "wrong_answer", "over_memory", "timeout", "error"
  std::string message;
  double median_us = std::numeric_limits<double>::quiet_NaN();
  double p95_us = std::numeric_limits<double>::quiet_NaN();
  double p99_us = std::numeric_limits<double>::quiet_NaN();
  int rounds = 0;
  double ratio_to_anchor = std::numeric_limits<double>::quiet_NaN();  // median of per-round ratios
  std::string anchor;                                                  // the anchor's canonical config
  // This record's p95 (p99) latency / its anchor's, over the same rounds (absent in records before tail
  // objectives: NaN).
  double p95_ratio_to_anchor = std::numeric_limits<double>::quiet_NaN();
  double p99_ratio_to_anchor = std::numeric_limits<double>::quiet_NaN();
  double max_error = std::numeric_limits<double>::quiet_NaN();
  int64_t peak_bytes = 0;
  std::string agent;
  std::string campaign;
  uint64_t seed = 0;
  std::string time;
  std::string host_cpu, host_isa, host_onednn;
  int host_cores = 0;
  size_t line = 0;  // 1-based line number in the file
  Json raw;         // the whole record as read
};

// Parses one line. InvalidArgument for a record from a newer format version (naming both versions) or one
// missing a required field (naming it); Corruption for text that is not a JSON object.
Result<TuningRecord> ParseTuningRecord(const std::string& line);

struct TuningDbContents {
  std::vector<TuningRecord> records;       // in file order
  size_t skipped_torn = 0;                 // unparsable lines skipped
  size_t other_fingerprints = 0;           // records of another workload/space, not returned
  size_t unusable = 0;                     // ReadTuningDbFor: records CheckRecordFits refused, not returned
  std::vector<std::string> warnings;       // one per skipped line, naming it
};

// Reads the whole file (at most kMaxTuningDbBytes, lines of at most kMaxTuningDbLineBytes; longer lines are
// skipped like torn ones). A missing file is NotFound. If `workload_fingerprint` / `space_fingerprint` are not
// empty, only matching records are returned (the others are counted in other_fingerprints).
Result<TuningDbContents> ReadTuningDb(const std::string& path, const std::string& workload_fingerprint = "",
                                      const std::string& space_fingerprint = "");

// Whether a record of this workload and space (by fingerprint) can be used: its dims are the workload's, within
// their ranges, and its config (unless it is a peer's baseline row) is one the space can parse. A record that
// fails was edited or written by a broken tool; InvalidArgument says why.
Status CheckRecordFits(const TuningRecord& record, const Workload& workload, const SearchSpace& space);

// ReadTuningDb of one workload and space, without the records CheckRecordFits refuses: they are counted in
// `unusable` and each named (line and reason) in `warnings`, so train, replay, evaluate, db and resume all
// ignore the same records and say so.
Result<TuningDbContents> ReadTuningDbFor(const std::string& path, const Workload& workload, const SearchSpace& space);

class TuningDbWriter {
 public:
  // Creates the file if needed and appends to it. Ends a torn last line first.
  static Result<TuningDbWriter> Open(const std::string& path);
  TuningDbWriter(TuningDbWriter&& other) noexcept;
  TuningDbWriter& operator=(TuningDbWriter&& other) noexcept;
  TuningDbWriter(const TuningDbWriter&) = delete;
  TuningDbWriter& operator=(const TuningDbWriter&) = delete;
  ~TuningDbWriter();

  // Appends `record` as one line and syncs it to disk before returning.
  Status Append(const Json& record);
  const std::string& path() const { return path_; }

 private:
  TuningDbWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

}  // namespace crmap

// TelemetryWriter: serve's per-request log, one JSON object per line (JSON Lines), written as each request's
// fate is known. Each line goes out in one write(2), so a run that is killed leaves a valid prefix (at most its
// last line torn; readers skip a torn last line). Format, field by field: docs/serve.md ("Telemetry").
// Thread-safe (Write serialises).
#pragma once

#include <mutex>
#include <string>

#include "common/json_fields.h"
#include "common/status.h"
#include "runtime/serve/server.h"

namespace crmap::serve {

// The record as its telemetry line's JSON object.
Json RecordJson(const RequestRecord& record);

class TelemetryWriter {
 public:
  // Creates or truncates `path`. Internal naming the path when it cannot be opened.
  static Result<std::unique_ptr<TelemetryWriter>> Open(const std::string& path);
  ~TelemetryWriter();
  TelemetryWriter(const TelemetryWriter&) = delete;
  TelemetryWriter& operator=(const TelemetryWriter&) = delete;

  void Write(const RequestRecord& record);
  // The first write error, if any (later lines are dropped after one fails; the count says how many).
  Status status() const;
  int64_t lines() const;

 private:
  TelemetryWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  const int fd_;
  const std::string path_;
  mutable std::mutex mutex_;
  Status status_;
  int64_t lines_ = 0;
  int64_t dropped_ = 0;
};

}  // namespace crmap::serve

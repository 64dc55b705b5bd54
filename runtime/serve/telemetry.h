// TelemetryWriter: serve's per-request log, one JSON object per line (JSON Lines), written as each request's
// fate is known. Each line goes out in one write(2), so a run that is killed leaves a valid prefix (at most its
// last line torn; readers skip a torn last line). Format, field by field: docs/serve.md ("Telemetry").
// Off the hot path: Write queues a copy of the record and a writer thread formats and writes it (the JSON and the
// system call cost a dispatcher ~70 us per batch when done inline); more than 65,536 queued records make Write
// wait for room (nothing is dropped). status(), lines() and the destructor wait for the queue to drain; a killed
// process loses what was still queued, never the validity of what was written. Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

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
  // Waits until every record queued so far is written (or dropped after an error).
  void Flush() const;
  // The first write error, if any (later lines are dropped after one fails; the count says how many).
  Status status() const;
  int64_t lines() const;

 private:
  TelemetryWriter(int fd, std::string path);
  void WriterLoop();
  void WriteLine(const std::string& line);  // on the writer thread

  const int fd_;
  const std::string path_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<RequestRecord> queue_;
  int64_t in_flight_ = 0;  // records taken from the queue and not yet written
  bool stopping_ = false;
  mutable bool flush_requested_ = false;
  Status status_;
  int64_t lines_ = 0;
  int64_t dropped_ = 0;
  std::thread writer_;  // last: starts once the rest exists
};

}  // namespace crmap::serve

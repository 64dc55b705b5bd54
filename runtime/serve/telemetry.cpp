#include "runtime/serve/telemetry.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace crmap::serve {

Json RecordJson(const RequestRecord& r) {
  Json j = Json::object();
  j["id"] = r.id;
  j["stream"] = r.stream;
  j["dims"] = r.dims;
  j["scheduled_us"] = r.scheduled_us;
  j["arrival_us"] = r.arrival_us;
  j["start_us"] = r.start_us;
  j["end_us"] = r.end_us;
  j["latency_us"] = r.latency_us();
  j["queue_wait_us"] = r.queue_wait_us;
  j["compile_wait_us"] = r.compile_wait_us;
  j["service_us"] = r.service_us;
  j["batch_id"] = r.batch_id;
  j["batch_size"] = r.batch_size;
  j["executor"] = r.executor;
  j["config"] = r.config;
  j["plan"] = r.plan;
  j["substituted"] = r.substituted;
  j["source"] = r.source;
  j["generation"] = r.generation;
  j["outcome"] = OutcomeName(r.outcome);
  if (r.outcome == Outcome::kRejected) j["reason"] = RejectReasonName(r.reason);
  if (r.outcome == Outcome::kFailed) j["error"] = r.error;
  return j;
}

Result<std::unique_ptr<TelemetryWriter>> TelemetryWriter::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Internal("cannot write telemetry to " + path + ": " + std::strerror(errno));
  return std::unique_ptr<TelemetryWriter>(new TelemetryWriter(fd, path));
}

TelemetryWriter::~TelemetryWriter() { ::close(fd_); }

void TelemetryWriter::Write(const RequestRecord& record) {
  const std::string line = RecordJson(record).dump() + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  if (!status_.ok()) {
    ++dropped_;
    return;
  }
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status_ = Status::Internal("writing telemetry to " + path_ + ": " + std::strerror(n < 0 ? errno : ENOSPC));
      // Cut the torn line so that the file stays a valid prefix.
      if (written > 0) (void)::ftruncate(fd_, ::lseek(fd_, 0, SEEK_CUR) - static_cast<off_t>(written));
      ++dropped_;
      return;
    }
    written += static_cast<size_t>(n);
  }
  ++lines_;
}

Status TelemetryWriter::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_.ok()) return status_;
  return Status::Internal(status_.message() + " (" + std::to_string(dropped_) + " lines not written)");
}

int64_t TelemetryWriter::lines() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

}  // namespace crmap::serve

#include "runtime/serve/telemetry.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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

namespace {
constexpr size_t kMaxQueuedRecords = 65536;
// The writer wakes every 10 ms, or once this many records wait: no wake-up (a system call and a thread that
// competes for the cores) per record on the dispatchers' path.
constexpr size_t kWakeWriterAt = 1024;
constexpr auto kWriterPeriod = std::chrono::milliseconds(10);
}  // namespace

TelemetryWriter::TelemetryWriter(int fd, std::string path)
    : fd_(fd), path_(std::move(path)), writer_([this] { WriterLoop(); }) {}

TelemetryWriter::~TelemetryWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  writer_.join();
  ::close(fd_);
}

void TelemetryWriter::Write(const RequestRecord& record) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kMaxQueuedRecords; });
  queue_.push_back(record);
  if (queue_.size() >= kWakeWriterAt) changed_.notify_all();
}

void TelemetryWriter::Flush() const {
  std::unique_lock<std::mutex> lock(mutex_);
  flush_requested_ = true;
  changed_.notify_all();
  changed_.wait(lock, [&] { return queue_.empty() && in_flight_ == 0; });
}

void TelemetryWriter::WriterLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait_for(lock, kWriterPeriod,
                      [&] { return stopping_ || flush_requested_ || queue_.size() >= kWakeWriterAt; });
    flush_requested_ = false;
    if (queue_.empty()) {
      if (stopping_) return;  // everything written
      continue;
    }
    std::deque<RequestRecord> batch;
    batch.swap(queue_);
    in_flight_ = static_cast<int64_t>(batch.size());
    changed_.notify_all();  // room for writers waiting on a full queue
    lock.unlock();
    for (const RequestRecord& record : batch) WriteLine(RecordJson(record).dump() + "\n");
    lock.lock();
    in_flight_ = 0;
    changed_.notify_all();
  }
}

void TelemetryWriter::WriteLine(const std::string& line) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!status_.ok()) {
      ++dropped_;
      return;
    }
  }
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      status_ = Status::Internal("writing telemetry to " + path_ + ": " + std::strerror(n < 0 ? errno : ENOSPC));
      // Cut the torn line so that the file stays a valid prefix.
      if (written > 0) (void)::ftruncate(fd_, ::lseek(fd_, 0, SEEK_CUR) - static_cast<off_t>(written));
      ++dropped_;
      return;
    }
    written += static_cast<size_t>(n);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++lines_;
}

Status TelemetryWriter::status() const {
  Flush();
  std::lock_guard<std::mutex> lock(mutex_);
  if (status_.ok()) return status_;
  return Status::Internal(status_.message() + " (" + std::to_string(dropped_) + " lines not written)");
}

int64_t TelemetryWriter::lines() const {
  Flush();
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

}  // namespace crmap::serve

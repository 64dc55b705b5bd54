#include "backend/hang_watchdog.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/strings.h"

namespace crmap {

std::string DescribeHang(const HangEvent& event) {
  std::string text = event.label;
  if (!event.dims.empty()) text += " at " + DimsToText(event.dims);
  char limit[64];
  std::snprintf(limit, sizeof limit, "%.0f", event.limit_ms);
  return text + " did not return within " + limit + " ms (--hang-ms)";
}

namespace {

void EndProcess(const HangEvent& event) {
  std::fprintf(stderr,
               "\ncrmap: error: %s; a running kernel cannot be interrupted, so the process ends here (exit 3)\n",
               DescribeHang(event).c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  ::_exit(3);
}

}  // namespace

HangWatchdog::HangWatchdog() : HangWatchdog(EndProcess) {}

HangWatchdog::Handler HangWatchdog::EndProcessHandler() { return EndProcess; }

HangWatchdog::HangWatchdog(Handler handler) : handler_(std::move(handler)) {
  thread_ = std::thread([this] { Loop(); });
}

HangWatchdog::~HangWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

HangWatchdog::Scope HangWatchdog::Watch(HangEvent event, double limit_ms) {
  if (!(limit_ms > 0)) return Scope(nullptr);
  event.limit_ms = limit_ms;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    event_ = std::move(event);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::microseconds(static_cast<int64_t>(std::min(limit_ms, 1e12) * 1000));
    armed_ = true;
    ++generation_;
  }
  return Scope(this);  // no wake-up: the watchdog polls, so arming costs no thread switch in a timed region
}

HangWatchdog::Scope::~Scope() {
  if (owner_) owner_->Disarm();
}

void HangWatchdog::Disarm() {
  std::unique_lock<std::mutex> lock(mutex_);
  handler_done_.wait(lock, [this] { return !firing_; });  // a handler in progress finishes first
  armed_ = false;
}

void HangWatchdog::SetHandler(Handler handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  handler_ = std::move(handler);
}

HangWatchdog::Handler HangWatchdog::handler() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return handler_;
}

int HangWatchdog::fired() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fired_;
}

void HangWatchdog::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  uint64_t fired_generation = 0;
  for (;;) {
    wake_.wait_for(lock, std::chrono::milliseconds(kPollMs), [this] { return stopping_; });
    if (stopping_) return;
    if (!armed_ || generation_ == fired_generation || std::chrono::steady_clock::now() < deadline_) continue;
    fired_generation = generation_;
    firing_ = true;
    ++fired_;
    HangEvent event = event_;
    Handler handler = handler_;
    lock.unlock();
    if (handler) handler(event);
    lock.lock();
    firing_ = false;
    handler_done_.notify_all();
  }
}

}  // namespace crmap

// HangWatchdog: notices a kernel that never returns. A oneDNN primitive (or LibTorch op) running on this
// process's threads cannot be interrupted: the only ways out of a hung kernel are to end the process or to
// replace it (exec). The watchdog is a thread that watches one run at a time; when a watched run is still going
// `limit_ms` after it began (checked every kPollMs: arming wakes no thread, so watching costs a timed run nothing
// but a lock), it calls the handler once, on the watchdog thread, with what was in flight — so the
// caller can record the candidate as `timeout` (tuning database) before the handler ends or replaces the process.
//
// Data flow: Watch(event, limit_ms) arms (a scope) -> the run -> the scope's end disarms; a deadline passed while
// armed -> handler(event). A scope ending while its handler runs waits for the handler (so a handler that
// returns, as in tests, never races the code after the run). The default handler prints the event and ends the
// process with exit status 3 (kExitNotMeasurable). Scopes must not nest; one watched run at a time (measurement
// is one candidate at a time per process). The handler may be replaced while nothing is armed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

// What was running when the watchdog fired.
struct HangEvent {
  std::string label;  // the config's canonical string, or the peer's label
  Dims dims;
  Config config;      // empty for a peer
  double limit_ms = 0;
};

// "<label> at <dims> did not return within <limit> ms".
std::string DescribeHang(const HangEvent& event);

class HangWatchdog {
 public:
  using Handler = std::function<void(const HangEvent&)>;
  static constexpr int kPollMs = 50;

  HangWatchdog();  // the default handler: prints DescribeHang and ends the process (exit 3)
  explicit HangWatchdog(Handler handler);
  ~HangWatchdog();
  HangWatchdog(const HangWatchdog&) = delete;
  HangWatchdog& operator=(const HangWatchdog&) = delete;

  // Armed from construction to destruction.
  class Scope {
   public:
    ~Scope();
    Scope(Scope&& other) noexcept : owner_(other.owner_) { other.owner_ = nullptr; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    friend class HangWatchdog;
    explicit Scope(HangWatchdog* owner) : owner_(owner) {}
    HangWatchdog* owner_;
  };
  // Watches the run that follows until the returned scope ends; a limit <= 0 watches nothing.
  [[nodiscard]] Scope Watch(HangEvent event, double limit_ms);

  void SetHandler(Handler handler);
  // The default handler: prints DescribeHang and ends the process with exit status 3.
  static Handler EndProcessHandler();
  Handler handler() const;
  // How many times a handler was called (each watched run fires at most once).
  int fired() const;

 private:
  void Loop();
  void Disarm();

  mutable std::mutex mutex_;
  std::condition_variable wake_;          // stops the watchdog thread
  std::condition_variable handler_done_;  // a Disarm waiting for a handler in progress
  Handler handler_;
  bool armed_ = false;
  bool stopping_ = false;
  bool firing_ = false;
  int fired_ = 0;
  uint64_t generation_ = 0;  // increases with every Watch, so a fired run is never fired again
  std::chrono::steady_clock::time_point deadline_;
  HangEvent event_;
  std::thread thread_;
};

}  // namespace crmap

// MetricsEndpoint: a minimal HTTP/1.0 server that answers `GET /metrics` with a text produced on demand (the
// Prometheus exposition format), on one thread, one connection at a time — all a Prometheus scrape needs.
//
// Why not prometheus-cpp's own Exposer: it runs civetweb, whose threads get a fixed 100 KiB stack; the crmap
// binary loads OpenBLAS and LibTorch, whose static thread-local storage alone nearly fills that, so glibc refuses
// to create the threads (pthread_create: EINVAL) and the exposer cannot start in the process it is meant for.
//
// A request must arrive whole within 2 s and 8 KiB (a stuck or trickling client holds the endpoint 2 s at most,
// and not past a stop); anything but GET or HEAD is 405, any other path 404. Binds where it is told — the CLI defaults to loopback.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "common/status.h"

namespace crmap::serve {

// The status the endpoint answers to the bytes of a request received so far: 0 while the header is incomplete
// and under the 8 KiB cap; else 200 (GET or HEAD of /metrics, any query string; `*head_only` says HEAD), 404
// (another path), 405 (another method), 431 (no end of header within the cap). Pure: fuzzed as a loader.
constexpr size_t kMaxMetricsRequestBytes = 8192;
int MetricsRequestStatus(std::string_view received, bool* head_only);

class MetricsEndpoint {
 public:
  // `address`: "HOST:PORT" (IPv4 address or name; port 0 picks a free port). InvalidArgument naming the address
  // when it cannot be parsed, resolved or bound.
  static Result<std::unique_ptr<MetricsEndpoint>> Start(const std::string& address,
                                                        std::function<std::string()> body);
  ~MetricsEndpoint();  // stops serving (within ~100 ms) and closes the socket
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  int port() const { return port_; }
  int64_t scrapes() const { return scrapes_.load(); }  // answered with 200

 private:
  MetricsEndpoint(int socket, int port, std::function<std::string()> body);
  void Loop();
  void Answer(int connection);

  const int socket_;
  const int port_;
  const std::function<std::string()> body_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> scrapes_{0};
  std::thread thread_;
};

}  // namespace crmap::serve

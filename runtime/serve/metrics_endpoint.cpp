#include "runtime/serve/metrics_endpoint.h"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace crmap::serve {

namespace {

bool SendAll(int connection, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(connection, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

std::string Response(const std::string& status, const std::string& type, const std::string& body) {
  return "HTTP/1.0 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace

int MetricsRequestStatus(std::string_view received, bool* head_only) {
  *head_only = false;
  const size_t end = std::min(received.find("\r\n\r\n"), received.find("\n\n"));
  if (end == std::string_view::npos || end >= kMaxMetricsRequestBytes)
    return received.size() >= kMaxMetricsRequestBytes ? 431 : 0;
  const std::string_view line = received.substr(0, received.find_first_of("\r\n"));
  const size_t space = line.find(' ');
  if (space == std::string_view::npos) return 405;
  const std::string_view method = line.substr(0, space);
  std::string_view target = line.substr(space + 1);
  target = target.substr(0, target.find(' '));
  target = target.substr(0, target.find('?'));
  if (method != "GET" && method != "HEAD") return 405;
  if (target != "/metrics") return 404;
  *head_only = method == "HEAD";
  return 200;
}

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(const std::string& address,
                                                                std::function<std::string()> body) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    return Status::InvalidArgument("metrics address '" + address + "' is not HOST:PORT (e.g. 127.0.0.1:9100)");
  const std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535)
    return Status::InvalidArgument("metrics address '" + address + "': the port must be a number in [0, 65535]");
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int error = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); error != 0)
    return Status::InvalidArgument("cannot serve metrics on " + address + ": " + ::gai_strerror(error));
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int yes = 1;
  std::string failed;
  if (fd < 0) {
    failed = std::string("socket: ") + std::strerror(errno);
  } else if (::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) != 0 ||
             ::bind(fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(fd, 16) != 0) {
    failed = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  if (failed.empty() && ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0)
    failed = std::strerror(errno);
  if (!failed.empty()) {
    if (fd >= 0) ::close(fd);
    return Status::InvalidArgument("cannot serve metrics on " + address + ": " + failed);
  }
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint(fd, ntohs(bound.sin_port), std::move(body)));
  endpoint->thread_ = std::thread([e = endpoint.get()] { e->Loop(); });
  return endpoint;
}

MetricsEndpoint::MetricsEndpoint(int socket, int port, std::function<std::string()> body)
    : socket_(socket), port_(port), body_(std::move(body)) {}

MetricsEndpoint::~MetricsEndpoint() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  ::close(socket_);
}

void MetricsEndpoint::Loop() {
  while (!stop_.load()) {
    pollfd waiting{socket_, POLLIN, 0};
    if (::poll(&waiting, 1, 100) <= 0) continue;
    const int connection = ::accept4(socket_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) {
      // Out of descriptors (EMFILE) leaves the connection pending and poll ready: back off instead of spinning.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    timeval timeout{2, 0};
    ::setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    Answer(connection);
    ::close(connection);
  }
}

void MetricsEndpoint::Answer(int connection) {
  std::string request;
  char buffer[1024];
  bool head_only = false;
  int status = 0;
  // The whole request within 2 s (a client trickling bytes cannot hold the endpoint longer), and no longer
  // than until the endpoint is told to stop.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while ((status = MetricsRequestStatus(request, &head_only)) == 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || stop_.load()) return;
    pollfd readable{connection, POLLIN, 0};
    if (::poll(&readable, 1, static_cast<int>(std::min<int64_t>(left.count(), 100))) <= 0) continue;
    const ssize_t n = ::recv(connection, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return;  // closed
    request.append(buffer, static_cast<size_t>(n));
  }
  switch (status) {
    case 200: {
      std::string response = Response("200 OK", "text/plain; version=0.0.4; charset=utf-8", body_());
      if (head_only) response.resize(response.find("\r\n\r\n") + 4);
      if (SendAll(connection, response)) ++scrapes_;
      return;
    }
    case 404:
      SendAll(connection, Response("404 Not Found", "text/plain", "the metrics are at /metrics\n"));
      return;
    case 405:
      SendAll(connection, Response("405 Method Not Allowed", "text/plain", "GET /metrics\n"));
      return;
    default:
      SendAll(connection, Response("431 Request Header Fields Too Large", "text/plain", "request too large\n"));
  }
}

}  // namespace crmap::serve

// The tests' HTTP client: sends `raw` bytes to 127.0.0.1:port and returns everything the server answers ("" when
// it cannot connect).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace crmap::serve::testing {

inline std::string HttpExchange(int port, const std::string& raw) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return "";
  }
  (void)!::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL);
  std::string response;
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) response.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return response;
}

inline std::string HttpGet(int port, const std::string& path) {
  return HttpExchange(port, "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n\r\n");
}

}  // namespace crmap::serve::testing

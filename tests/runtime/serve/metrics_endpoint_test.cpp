#include "runtime/serve/metrics_endpoint.h"

#include <gtest/gtest.h>

#include "http_client.h"

namespace crmap::serve {
namespace {

using testing::HttpExchange;
using testing::HttpGet;

std::unique_ptr<MetricsEndpoint> StartCounting(int* calls) {
  auto endpoint = MetricsEndpoint::Start("127.0.0.1:0", [calls] { return "scrape " + std::to_string(++*calls) + "\n"; });
  EXPECT_TRUE(endpoint.ok()) << endpoint.status().ToString();
  return endpoint.ok() ? std::move(*endpoint) : nullptr;
}

TEST(MetricsEndpointTest, AnswersEachScrapeWithAFreshBody) {
  int calls = 0;
  auto endpoint = StartCounting(&calls);
  ASSERT_TRUE(endpoint);
  EXPECT_GT(endpoint->port(), 0);
  const std::string first = HttpGet(endpoint->port(), "/metrics");
  EXPECT_EQ(first.rfind("HTTP/1.0 200", 0), 0u) << first;
  EXPECT_NE(first.find("text/plain; version=0.0.4"), std::string::npos);
  EXPECT_NE(first.find("Content-Length: 9\r\n"), std::string::npos) << first;
  EXPECT_NE(first.find("\r\n\r\nscrape 1\n"), std::string::npos);
  EXPECT_NE(HttpGet(endpoint->port(), "/metrics?x=1").find("scrape 2"), std::string::npos);
  EXPECT_EQ(endpoint->scrapes(), 2);
}

TEST(MetricsEndpointTest, OtherPathsAndMethodsAreRefused) {
  int calls = 0;
  auto endpoint = StartCounting(&calls);
  ASSERT_TRUE(endpoint);
  EXPECT_EQ(HttpGet(endpoint->port(), "/").rfind("HTTP/1.0 404", 0), 0u);
  EXPECT_EQ(HttpExchange(endpoint->port(), "POST /metrics HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 405", 0), 0u);
  EXPECT_EQ(HttpExchange(endpoint->port(), "GET /metrics HTTP/1.0\r\nX: " + std::string(9000, 'a'))
                .rfind("HTTP/1.0 431", 0),
            0u);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(endpoint->scrapes(), 0);
}

TEST(MetricsEndpointTest, AClientThatSaysNothingDoesNotHoldTheEndpoint) {
  int calls = 0;
  auto endpoint = StartCounting(&calls);
  ASSERT_TRUE(endpoint);
  const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(endpoint->port()));
  ::inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  ASSERT_EQ(::connect(silent, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  // Answered once the silent client's read times out (2 s), not never.
  EXPECT_NE(HttpGet(endpoint->port(), "/metrics").find("scrape 1"), std::string::npos);
  ::close(silent);
}

TEST(MetricsEndpointTest, BadAddressesAreNamed) {
  for (const std::string address : {"127.0.0.1", ":9100", "127.0.0.1:",
                                    "127.0.0.1:notaport", "127.0.0.1:99999"}) {
    auto endpoint = MetricsEndpoint::Start(address, [] { return std::string(); });
    ASSERT_FALSE(endpoint.ok()) << address;
    EXPECT_NE(endpoint.status().message().find(address), std::string::npos) << endpoint.status().message();
  }
}

TEST(MetricsEndpointTest, APortInUseIsNamed) {
  int calls = 0;
  auto first = StartCounting(&calls);
  ASSERT_TRUE(first);
  const std::string address = "127.0.0.1:" + std::to_string(first->port());
  auto second = MetricsEndpoint::Start(address, [] { return std::string(); });
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(address), std::string::npos);
  EXPECT_NE(second.status().message().find("in use"), std::string::npos) << second.status().message();
}

}  // namespace
}  // namespace crmap::serve

// libFuzzer target for the metrics endpoint's request reader (runtime/serve/metrics_endpoint.h): arbitrary bytes,
// as received so far -> MetricsRequestStatus. The answer must be one of 0, 200, 404, 405, 431; never "wait for
// more" at or past the 8 KiB cap; 200 only for a GET or HEAD of /metrics; and a complete answer must not change
// when more bytes arrive after the header (the endpoint stops reading there).
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined. Seeds:
// tests/fuzz/corpus/metrics_request/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/serve/metrics_endpoint.h"
#include "tests/fuzz/fuzz_support.h"

using crmap::fuzz::Violated;
using crmap::serve::MetricsRequestStatus;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  bool head = false;
  const int status = MetricsRequestStatus(text, &head);
  if (status != 0 && status != 200 && status != 404 && status != 405 && status != 431)
    Violated("an unknown status");
  if (status == 0 && text.size() >= crmap::serve::kMaxMetricsRequestBytes) Violated("waits past the cap");
  if (status == 200 && text.rfind("GET /metrics", 0) != 0 && text.rfind("HEAD /metrics", 0) != 0)
    Violated("200 without GET or HEAD of /metrics");
  if (head && status != 200) Violated("head_only without 200");
  if (status != 0 && status != 431) {
    bool head_more = false;
    if (MetricsRequestStatus(text + "more bytes", &head_more) != status || head_more != head)
      Violated("the answer changed after the header");
  }
  return 0;
}

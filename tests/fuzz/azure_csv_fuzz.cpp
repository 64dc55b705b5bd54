// libFuzzer target for the CSV request-trace loader of the serving runtime (runtime/serve/request_source.h):
// arbitrary bytes -> ParseAzureCsv against bert_ffn (tokens=ContextTokens) and bert_attention
// (seq=ContextTokens, batch=GeneratedTokens), under each out-of-range policy and a time scale of 0.5. A stream
// that parses must keep request_source.h's promises: at least one request, ids 0..n-1, arrivals from 0 and
// non-decreasing, every dims inside the workload's ranges (a rejected request keeps the nearest value),
// adjusted/out-of-range counts matching the flags, and no request rejected unless the policy is reject.
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/azure_csv/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/serve/request_source.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using crmap::fuzz::Violated;
using crmap::serve::OutOfRange;

void Check(const std::string& text, const crmap::Workload& workload, crmap::serve::CsvMapping mapping) {
  for (OutOfRange policy : {OutOfRange::kClamp, OutOfRange::kScale, OutOfRange::kReject}) {
    mapping.out_of_range = policy;
    auto stream = crmap::serve::ParseAzureCsv(text, "fuzz.csv", workload, mapping);
    if (!stream.ok()) continue;
    if (stream->requests.empty()) Violated("a parsed CSV has no request");
    int64_t adjusted = 0, rejected = 0;
    for (size_t i = 0; i < stream->requests.size(); ++i) {
      const auto& request = stream->requests[i];
      if (request.id != static_cast<int64_t>(i)) Violated("request ids are not 0..n-1");
      if (i == 0 && request.arrival_us != 0) Violated("the first request does not arrive at 0");
      if (i > 0 && request.arrival_us < stream->requests[i - 1].arrival_us) Violated("arrivals decrease");
      if (!workload.CheckDims(request.dims).ok()) Violated("request dims outside the workload's ranges");
      if (request.out_of_range && policy != OutOfRange::kReject) Violated("rejected without the reject policy");
      adjusted += request.adjusted;
      rejected += request.out_of_range;
    }
    if (adjusted != stream->report.adjusted || rejected != stream->report.out_of_range)
      Violated("the report's counts differ from the requests' flags");
    if (stream->report.requests != static_cast<int64_t>(stream->requests.size())) Violated("request count wrong");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = crmap::fuzz::InputText(data, size);
  static const crmap::Workload* ffn = crmap::fuzz::FindWorkload("bert_ffn");
  static const crmap::Workload* attention = crmap::fuzz::FindWorkload("bert_attention");
  if (!ffn || !attention) Violated("a built-in workload is missing");
  crmap::serve::CsvMapping tokens;
  tokens.columns = {{"tokens", "ContextTokens"}};
  tokens.time_scale = 0.5;
  Check(text, *ffn, tokens);
  crmap::serve::CsvMapping two;
  two.columns = {{"seq", "ContextTokens"}, {"batch", "GeneratedTokens"}};
  Check(text, *attention, two);
  return 0;
}

// libFuzzer target for the request-trace reader (datasets/trace.h): arbitrary bytes, written to an in-memory
// file (memfd), -> ReadTraceJsonl against each built-in workload (a trace does not name its workload). A trace
// that reads must keep trace.h's promises: arrivals non-decreasing, streams and phases non-negative, every
// request's dims accepted by the workload's CheckDims.
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/trace/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "datasets/trace.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static crmap::fuzz::MemoryFile file;
  file.Write(crmap::fuzz::InputText(data, size));
  for (const crmap::Workload& workload : crmap::fuzz::BuiltinWorkloads()) {
    auto trace = crmap::ReadTraceJsonl(file.Path(), workload);
    if (!trace.ok()) continue;
    for (size_t i = 0; i < trace->size(); ++i) {
      const crmap::TraceRequest& request = (*trace)[i];
      if (i > 0 && request.arrival_us < (*trace)[i - 1].arrival_us) crmap::fuzz::Violated("trace out of order");
      if (request.stream < 0 || request.phase < 0) crmap::fuzz::Violated("negative stream or phase accepted");
      if (!workload.CheckDims(request.dims).ok()) crmap::fuzz::Violated("request dims outside the workload's ranges");
    }
  }
  return 0;
}

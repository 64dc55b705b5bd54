// libFuzzer target for the workload loader (common/workload.h): arbitrary text -> ParseWorkload, and for a
// workload that parses, what every command does next with it: CheckDims and InferShapes at the smallest,
// typical and largest dims, SearchSpace::Build (a fixed 4-thread host, so runs do not depend on the machine)
// with its default config, and one invariant: the canonical JSON parses again into the same fingerprint.
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/workload/.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/workload.h"
#include "search_space/search_space.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using crmap::Dims;
using crmap::Workload;

void Exercise(const Workload& workload) {
  Dims smallest, largest;
  for (const auto& [name, range] : workload.dims()) {
    smallest[name] = range.min;
    largest[name] = range.max;
  }
  for (const Dims& dims : {smallest, workload.TypicalDims(), largest}) {
    if (!workload.CheckDims(dims).ok()) crmap::fuzz::Violated("a declared dim range rejects its own bounds");
    (void)workload.InferShapes(dims);
  }
  crmap::SpaceOptions options;
  options.max_threads = 4;
  auto space = crmap::SearchSpace::Build(workload, options);
  if (space.ok()) {
    crmap::Config config = space->Default();
    auto again = space->Parse(space->ToString(config));
    if (!again.ok() || *again != config) crmap::fuzz::Violated("default config does not round-trip");
    (void)space->TotalSize();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = crmap::fuzz::InputText(data, size);
  auto workload = crmap::ParseWorkload(text, "fuzz.json");
  if (!workload.ok()) return 0;
  Exercise(*workload);
  auto again = crmap::ParseWorkload(workload->canonical_json(), "canonical.json");
  if (!again.ok() || again->fingerprint() != workload->fingerprint())
    crmap::fuzz::Violated("the canonical JSON of a parsed workload does not parse to the same fingerprint");
  return 0;
}

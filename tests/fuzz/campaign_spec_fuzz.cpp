// libFuzzer target for the campaign-spec loader (tuner/campaign_spec.h): arbitrary text -> ParseCampaignSpec,
// then for a spec that parses what `crmap campaign` does before measuring: each task's workload loaded by
// built-in name (an unknown name is an error, as in the CLI) and its shapes resolved with ResolveShapes — a
// list checked against the workload's ranges, or a built-in distribution sampled (num_shapes capped at 16 here
// to keep each input fast). A parsed spec must keep its documented ranges.
// Inputs naming /dev, /proc or /sys paths are skipped (fuzz_support.h: NamesSpecialFile).
// Built by tests/fuzz/CMakeLists.txt with clang++ -fsanitize=fuzzer,address,undefined; any crash, sanitizer
// report, leak or broken invariant fails the run. Seeds: tests/fuzz/corpus/campaign_spec/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_support.h"
#include "tuner/campaign_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = crmap::fuzz::InputText(data, size);
  auto spec = crmap::ParseCampaignSpec(text, "fuzz.json");
  if (!spec.ok()) return 0;
  if (spec->tasks.empty() || spec->rounds < 1 || spec->batch < 1 || spec->name.empty())
    crmap::fuzz::Violated("a parsed campaign spec is outside its documented ranges");
  for (const crmap::TuneTask& task : spec->tasks) {
    if (task.budget < 1 || task.num_shapes < 1) crmap::fuzz::Violated("a parsed task has no budget or shapes");
    if (crmap::fuzz::NamesSpecialFile(task.shapes)) continue;
    const crmap::Workload* workload = crmap::fuzz::FindWorkload(task.workload);
    if (workload == nullptr) continue;
    auto shapes = crmap::ResolveShapes(*workload, task.shapes, std::min<size_t>(task.num_shapes, 16), spec->seed);
    if (!shapes.ok()) continue;
    if (shapes->empty()) crmap::fuzz::Violated("ResolveShapes succeeded with no shapes");
    for (const crmap::Dims& dims : *shapes)
      if (!workload->CheckDims(dims).ok()) crmap::fuzz::Violated("a resolved shape is outside the workload's ranges");
  }
  return 0;
}
